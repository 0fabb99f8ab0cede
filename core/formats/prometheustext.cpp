#include "formats/prometheustext.h"

#include "config/enumnames.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tb {

namespace {

constexpr std::string_view kSuffixes[] = {"_bucket",  "_sum",    "_count", "_total",
                                          "_created", "_gcount", "_gsum",  "_info"};

bool isNameStart(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

bool isNameChar(char c)
{
    return isNameStart(c) || (c >= '0' && c <= '9');
}

bool equalsIgnoreCase(std::string_view a, std::string_view b)
{
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return (x | 0x20) == (y | 0x20); });
}

std::optional<double> parseNumber(std::string_view text)
{
    if (text.empty())
        return std::nullopt;
    std::string_view body = text;
    bool negative = false;
    if (body.front() == '+' || body.front() == '-') {
        negative = body.front() == '-';
        body.remove_prefix(1);
    }
    if (equalsIgnoreCase(body, "inf") || equalsIgnoreCase(body, "infinity"))
        return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    if (equalsIgnoreCase(body, "nan"))
        return std::numeric_limits<double>::quiet_NaN();
    if (body.empty() || body.front() == '+' || body.front() == '-')
        return std::nullopt;
    double v = 0;
    const auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
    if (ec != std::errc() || end != body.data() + body.size())
        return std::nullopt;
    return negative ? -v : v;
}

// Unknown is written "untyped" (its first name) and read under both names.
constexpr EnumName<PromType> kTypeNames[] = {
    {PromType::Counter, "counter"},     {PromType::Gauge, "gauge"},
    {PromType::Histogram, "histogram"}, {PromType::GaugeHistogram, "gaugehistogram"},
    {PromType::Summary, "summary"},     {PromType::Info, "info"},
    {PromType::StateSet, "stateset"},   {PromType::Unknown, "untyped"},
    {PromType::Unknown, "unknown"},
};

std::optional<PromType> typeFromName(std::string_view name)
{
    return enumFromName<PromType>(kTypeNames, name);
}

/// One line, consumed left to right; a failure leaves `why` set.
class LineParser
{
public:
    explicit LineParser(std::string_view line)
        : m_s(line)
    {}

    bool atEnd() const { return m_pos >= m_s.size(); }
    char peek() const { return atEnd() ? '\0' : m_s[m_pos]; }
    void skipSpaces()
    {
        while (!atEnd() && (m_s[m_pos] == ' ' || m_s[m_pos] == '\t'))
            ++m_pos;
    }
    std::string_view rest() const { return m_s.substr(std::min(m_pos, m_s.size())); }

    std::optional<std::string> name()
    {
        if (atEnd() || !isNameStart(m_s[m_pos]))
            return std::nullopt;
        const std::size_t start = m_pos;
        while (!atEnd() && isNameChar(m_s[m_pos]))
            ++m_pos;
        return std::string(m_s.substr(start, m_pos - start));
    }

    /// A double-quoted string with \\, \" and \n escapes.
    std::optional<std::string> quoted()
    {
        if (peek() != '"')
            return std::nullopt;
        ++m_pos;
        std::string out;
        while (!atEnd()) {
            const char c = m_s[m_pos++];
            if (c == '"')
                return out;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (atEnd())
                return std::nullopt;
            const char e = m_s[m_pos++];
            if (e == 'n')
                out += '\n';
            else if (e == '\\' || e == '"')
                out += e;
            else
                return std::nullopt; // OpenMetrics allows no other escape
        }
        return std::nullopt;
    }

    /// The text up to the next space (a value or a timestamp).
    std::string_view token()
    {
        const std::size_t start = m_pos;
        while (!atEnd() && m_s[m_pos] != ' ' && m_s[m_pos] != '\t')
            ++m_pos;
        return m_s.substr(start, m_pos - start);
    }

    /// `{…}`: labels, and (Prometheus 3 / OpenMetrics 2) a quoted metric name as the first item.
    bool labels(PromLabels &out, std::string *quotedName, std::size_t maxLabels, std::string &why)
    {
        ++m_pos; // '{'
        bool first = true;
        while (true) {
            skipSpaces();
            if (peek() == '}') {
                ++m_pos;
                return true;
            }
            std::string key;
            if (peek() == '"') {
                auto q = quoted();
                if (!q)
                    return fail(why, "unterminated quoted name");
                skipSpaces();
                if (first && quotedName && (peek() == ',' || peek() == '}')) {
                    *quotedName = std::move(*q);
                    first = false;
                    if (peek() == ',')
                        ++m_pos;
                    continue;
                }
                key = std::move(*q);
            } else {
                auto n = name();
                if (!n)
                    return fail(why, "bad label name");
                key = std::move(*n);
            }
            first = false;
            skipSpaces();
            if (peek() != '=')
                return fail(why, "expected '=' after label '" + key + "'");
            ++m_pos;
            skipSpaces();
            auto value = quoted();
            if (!value)
                return fail(why, "label '" + key + "' needs a quoted value with \\\\, \\\" or \\n escapes");
            if (out.size() >= maxLabels)
                return fail(why, "more than " + std::to_string(maxLabels) + " labels");
            out.emplace_back(std::move(key), std::move(*value));
            skipSpaces();
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            if (peek() != '}')
                return fail(why, "expected ',' or '}' in labels");
        }
    }

private:
    static bool fail(std::string &why, std::string what)
    {
        why = std::move(what);
        return false;
    }

    std::string_view m_s;
    std::size_t m_pos = 0;
};

void appendEscaped(std::string &out, std::string_view value)
{
    for (const char c : value) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '"')
            out += "\\\"";
        else if (c == '\n')
            out += "\\n";
        else
            out += c;
    }
}

void appendNumber(std::string &out, double v)
{
    if (std::isnan(v)) {
        out += "NaN";
        return;
    }
    if (std::isinf(v)) {
        out += v > 0 ? "+Inf" : "-Inf";
        return;
    }
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, ec == std::errc() ? std::size_t(end - buf) : 0);
}

} // namespace

const char *promTypeName(PromType type)
{
    return enumCName(kTypeNames, type);
}

const std::string *PromSample::label(std::string_view key) const
{
    for (const auto &[k, v] : labels) {
        if (k == key)
            return &v;
    }
    return nullptr;
}

const PromFamily *PromExposition::familyOf(const std::string &sampleName) const
{
    const auto find = [this](std::string_view name) -> const PromFamily * {
        for (const PromFamily &f : families) {
            if (f.name == name)
                return &f;
        }
        return nullptr;
    };
    if (const PromFamily *f = find(sampleName))
        return f;
    for (std::string_view suffix : kSuffixes) {
        if (sampleName.size() > suffix.size() && std::string_view(sampleName).ends_with(suffix)) {
            if (const PromFamily *f = find(std::string_view(sampleName).substr(0, sampleName.size() - suffix.size())))
                return f;
        }
    }
    return nullptr;
}

std::optional<PromExposition> parsePrometheusText(QByteArrayView text, QString *error, const PromLimits &limits)
{
    const auto fail = [&](std::size_t line, const std::string &what) -> std::optional<PromExposition> {
        if (error)
            *error = line ? QStringLiteral("line %1: %2").arg(line).arg(QString::fromStdString(what))
                          : QString::fromStdString(what);
        return std::nullopt;
    };
    if (std::size_t(text.size()) > limits.maxBytes)
        return fail(0, "larger than " + std::to_string(limits.maxBytes) + " bytes");

    PromExposition out;
    const std::string_view all(text.data(), std::size_t(text.size()));
    const auto familyFor = [&out](const std::string &name) -> PromFamily & {
        for (PromFamily &f : out.families) {
            if (f.name == name)
                return f;
        }
        out.families.push_back({name, PromType::Unknown, {}, {}});
        return out.families.back();
    };
    std::size_t pos = 0;
    std::size_t lineNo = 0;
    bool sawEof = false;
    while (pos < all.size()) {
        std::size_t end = all.find('\n', pos);
        if (end == std::string_view::npos)
            end = all.size();
        std::string_view line = all.substr(pos, end - pos);
        pos = end + 1;
        if (++lineNo > limits.maxLines)
            return fail(lineNo, "more than " + std::to_string(limits.maxLines) + " lines");
        if (line.size() > limits.maxLineBytes)
            return fail(lineNo, "longer than " + std::to_string(limits.maxLineBytes) + " bytes");
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (sawEof) {
            if (line.find_first_not_of(" \t") != std::string_view::npos)
                return fail(lineNo, "content after '# EOF'");
            continue;
        }
        const std::size_t first = line.find_first_not_of(" \t");
        if (first == std::string_view::npos)
            continue;
        line.remove_prefix(first);

        LineParser p(line);
        if (line.front() == '#') {
            std::string_view rest = line.substr(1);
            rest.remove_prefix(std::min(rest.find_first_not_of(" \t"), rest.size()));
            if (rest == "EOF") {
                sawEof = true;
                continue;
            }
            const std::size_t space = rest.find_first_of(" \t");
            const std::string_view keyword = rest.substr(0, space);
            if (keyword != "HELP" && keyword != "TYPE" && keyword != "UNIT")
                continue; // a plain comment
            LineParser q(space == std::string_view::npos ? std::string_view() : rest.substr(space));
            q.skipSpaces();
            std::optional<std::string> name = q.peek() == '"' ? q.quoted() : q.name();
            if (!name)
                return fail(lineNo, "# " + std::string(keyword) + " needs a metric name");
            q.skipSpaces();
            std::string_view value = q.rest();
            while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
                value.remove_suffix(1);
            PromFamily &f = familyFor(*name);
            if (keyword == "TYPE") {
                const auto type = typeFromName(value);
                if (!type)
                    return fail(lineNo, "unknown type '" + std::string(value.substr(0, 40)) + "'");
                f.type = *type;
            } else if (keyword == "UNIT") {
                f.unit = std::string(value);
            } else {
                // HELP text escapes: \\ and \n (OpenMetrics adds \").
                std::string help;
                for (std::size_t i = 0; i < value.size(); ++i) {
                    if (value[i] == '\\' && i + 1 < value.size()) {
                        const char e = value[++i];
                        help += e == 'n' ? '\n' : e;
                    } else {
                        help += value[i];
                    }
                }
                f.help = std::move(help);
            }
            continue;
        }

        PromSample sample;
        std::string why;
        if (p.peek() == '{') {
            std::string quotedName;
            if (!p.labels(sample.labels, &quotedName, limits.maxLabels, why))
                return fail(lineNo, why);
            if (quotedName.empty())
                return fail(lineNo, "a sample needs a metric name");
            sample.name = std::move(quotedName);
        } else {
            auto name = p.name();
            if (!name)
                return fail(lineNo, "not a Prometheus sample or comment: '" + std::string(line.substr(0, 40)) + "'");
            sample.name = std::move(*name);
            if (!p.atEnd() && p.peek() != ' ' && p.peek() != '\t' && p.peek() != '{')
                return fail(lineNo, "expected a space before the value of '" + sample.name + "'");
            p.skipSpaces();
            if (p.peek() == '{' && !p.labels(sample.labels, nullptr, limits.maxLabels, why))
                return fail(lineNo, why);
        }
        p.skipSpaces();
        const std::string_view valueText = p.token();
        if (valueText.empty())
            return fail(lineNo, "no value for '" + sample.name + "'");
        const auto value = parseNumber(valueText);
        if (!value)
            return fail(lineNo, "'" + std::string(valueText.substr(0, 40)) + "' is not a number");
        sample.value = *value;
        p.skipSpaces();
        if (!p.atEnd() && p.peek() != '#') {
            const std::string_view stampText = p.token();
            const auto stamp = parseNumber(stampText);
            if (!stamp || !std::isfinite(*stamp))
                return fail(lineNo, "'" + std::string(stampText.substr(0, 40)) + "' is not a timestamp");
            sample.timestampS = *stamp; // unit fixed below, once the format is known
            p.skipSpaces();
        }
        // What may follow is an OpenMetrics exemplar (" # {trace_id=…} 0.5"): not a series.
        if (!p.atEnd() && p.peek() != '#')
            return fail(lineNo, "unexpected text after the value of '" + sample.name + "'");
        if (out.samples.size() >= limits.maxSeries)
            return fail(lineNo, "more than " + std::to_string(limits.maxSeries) + " series");
        out.samples.push_back(std::move(sample));
    }
    out.openMetrics = sawEof;
    if (!out.openMetrics) {
        for (PromSample &s : out.samples) {
            if (s.timestampS)
                *s.timestampS /= 1000.0; // Prometheus text: milliseconds
        }
    }
    return out;
}

std::string formatPromLabels(const PromLabels &labels)
{
    if (labels.empty())
        return {};
    std::string out = "{";
    for (std::size_t i = 0; i < labels.size(); ++i) {
        if (i)
            out += ',';
        out += labels[i].first;
        out += "=\"";
        appendEscaped(out, labels[i].second);
        out += '"';
    }
    out += '}';
    return out;
}

void PromWriter::family(std::string_view name, PromType type, std::string_view help)
{
    m_out += "# HELP ";
    m_out += name;
    m_out += ' ';
    for (const char c : help) {
        if (c == '\\')
            m_out += "\\\\";
        else if (c == '\n')
            m_out += "\\n";
        else
            m_out += c;
    }
    m_out += "\n# TYPE ";
    m_out += name;
    m_out += ' ';
    m_out += promTypeName(type);
    m_out += '\n';
}

void PromWriter::unit(std::string_view name, std::string_view unit)
{
    m_out += "# UNIT ";
    m_out += name;
    m_out += ' ';
    m_out += unit;
    m_out += '\n';
}

void PromWriter::sample(std::string_view name, const PromLabels &labels, double value)
{
    m_out += name;
    m_out += formatPromLabels(labels);
    m_out += ' ';
    appendNumber(m_out, value);
    m_out += '\n';
}

void PromWriter::histogram(std::string_view name, const PromLabels &labels, const std::vector<double> &bounds,
                           const std::vector<std::uint64_t> &counts, double sum)
{
    const std::string base(name);
    for (std::size_t i = 0; i <= bounds.size() && i < counts.size(); ++i) {
        PromLabels withLe = labels;
        std::string le;
        if (i < bounds.size())
            appendNumber(le, bounds[i]);
        else
            le = "+Inf";
        withLe.emplace_back("le", std::move(le));
        sample(base + "_bucket", withLe, double(counts[i]));
    }
    sample(base + "_sum", labels, sum);
    sample(base + "_count", labels, counts.empty() ? 0.0 : double(counts.back()));
}

PromHistogram::PromHistogram(std::vector<double> bounds)
    : m_bounds(std::move(bounds))
    , m_counts(m_bounds.size() + 1, 0)
{}

void PromHistogram::observe(double value, std::uint64_t times)
{
    // Buckets are "less than or equal": a value on a bound counts in that bound's bucket.
    const auto it = std::lower_bound(m_bounds.begin(), m_bounds.end(), value);
    m_counts[std::size_t(it - m_bounds.begin())] += times;
    m_sum += value * double(times);
    m_count += times;
}

void PromHistogram::clear()
{
    std::fill(m_counts.begin(), m_counts.end(), 0);
    m_sum = 0;
    m_count = 0;
}

std::vector<std::uint64_t> PromHistogram::cumulative() const
{
    std::vector<std::uint64_t> out(m_counts.size());
    std::uint64_t running = 0;
    for (std::size_t i = 0; i < m_counts.size(); ++i)
        out[i] = running += m_counts[i];
    return out;
}

} // namespace tb
