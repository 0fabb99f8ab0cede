// YAML documents read as the JSON value their JSON form would give (foreignruns_p.h, parseYaml()):
// llm-d-benchmark writes its Benchmark Reports as YAML by default (PyYAML's yaml.dump), and one
// reader per format takes both syntaxes.
//
// libyaml's event parser (the one PyYAML itself is built on) reads the syntax: it keeps its own
// nesting on the heap, never on the stack, and hands over one event at a time, so every bound
// below holds while the file is parsed, before anything is built past it. The value is built here
// without recursion either.

#include "results/foreignruns_p.h"

#include <yaml.h>

#include <QRegularExpression>

#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tb::foreign {

namespace {

/// Whole-value bounds of a YAML document. A report nests about 8 deep and holds a few thousand
/// values; these are far above it and keep a hostile file's cost near its size.
constexpr std::size_t kMaxYamlDepth = 64;
constexpr std::size_t kMaxYamlNodes = 1'000'000; ///< values held, aliases expanded and anchors' copies counted
constexpr std::size_t kMaxYamlScalarBytes = std::size_t(1) << 20;

/// The event libyaml fills, deleted whatever way the loop leaves.
struct YamlEvent {
    yaml_event_t event{};
    bool held = false;
    YamlEvent() = default;
    ~YamlEvent()
    {
        if (held)
            yaml_event_delete(&event);
    }
    YamlEvent(const YamlEvent &) = delete;
    YamlEvent &operator=(const YamlEvent &) = delete;
};

struct YamlParser {
    yaml_parser_t parser{};
    bool ready = false;
    YamlParser() { ready = yaml_parser_initialize(&parser) != 0; }
    ~YamlParser()
    {
        if (ready)
            yaml_parser_delete(&parser);
    }
    YamlParser(const YamlParser &) = delete;
    YamlParser &operator=(const YamlParser &) = delete;
};

QString markText(const yaml_mark_t &mark)
{
    return QStringLiteral("line %1, column %2").arg(mark.line + 1).arg(mark.column + 1);
}

/// Line and column of a byte offset (libyaml's reader errors give only the offset), columns in
/// characters: continuation bytes of UTF-8 do not count.
QString offsetText(const QByteArray &bytes, std::size_t offset)
{
    std::size_t line = 1, column = 1;
    const std::size_t end = std::min(offset, std::size_t(bytes.size()));
    for (std::size_t i = 0; i < end; ++i) {
        const auto c = static_cast<unsigned char>(bytes[qsizetype(i)]);
        if (c == '\n') {
            ++line;
            column = 1;
        } else if ((c & 0xC0) != 0x80) {
            ++column;
        }
    }
    return QStringLiteral("line %1, column %2").arg(line).arg(column);
}

/// Text quoted for a message, cut to a readable length.
QString yamlQuoted(std::string_view text)
{
    QString s = QString::fromUtf8(text.data(), qsizetype(std::min<std::size_t>(text.size(), 60)));
    if (text.size() > 60)
        s += QStringLiteral("…");
    return u'"' + s + u'"';
}

template<typename T> bool wholeNumber(std::string_view digits, int base, T *out)
{
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *out, base);
    return ec == std::errc() && end == digits.data() + digits.size();
}

/// The decimal order of magnitude of a float literal (the core schema's form): how many digits
/// its integer part has, or minus the zeros after the point, plus its exponent. For a literal past
/// a double's range, from_chars says only that: this says which side.
long long decimalOrder(std::string_view text)
{
    if (!text.empty() && (text.front() == '-' || text.front() == '+'))
        text.remove_prefix(1);
    const std::size_t e = text.find_first_of("eE");
    const std::string_view mantissa = text.substr(0, e);
    long long exponent = 0;
    if (e != std::string_view::npos) {
        std::string_view digits = text.substr(e + 1);
        const bool negative = !digits.empty() && digits.front() == '-';
        if (!digits.empty() && (digits.front() == '-' || digits.front() == '+'))
            digits.remove_prefix(1);
        // An exponent past long long is past any double either way.
        if (!wholeNumber(digits, 10, &exponent))
            exponent = std::numeric_limits<int>::max();
        if (negative)
            exponent = -exponent;
    }
    const std::size_t point = std::min(mantissa.find('.'), mantissa.size());
    const std::size_t first = mantissa.find_first_of("123456789");
    if (first == std::string_view::npos)
        return 0; // zero: never out of range
    const long long order = first < point ? (long long)(point - first) : -(long long)(first - point - 1);
    return order + exponent;
}

/// A plain (unquoted) scalar typed as YAML 1.2's core schema does, the way PyYAML writes llm-d's
/// values: null, booleans, integers (decimal, 0o octal, 0x hex), floats; everything else a string.
/// .inf and .nan become null, as parseJson() reads Python json's Infinity and NaN: a value the
/// readers take as missing, so both forms of one report read alike. A float literal past a double
/// (1e999) is refused.
std::optional<nlohmann::json> plainScalar(std::string_view text, QString *problem)
{
    static const QRegularExpression integer(QStringLiteral(R"(^[-+]?[0-9]+$)"));
    static const QRegularExpression real(QStringLiteral(R"(^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$)"));
    static const QRegularExpression special(QStringLiteral(R"(^([-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$)"));
    if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL")
        return nlohmann::json();
    if (text == "true" || text == "True" || text == "TRUE")
        return nlohmann::json(true);
    if (text == "false" || text == "False" || text == "FALSE")
        return nlohmann::json(false);
    // Numbers are short; a longer scalar is text (and not run through the patterns).
    if (text.size() > 400)
        return nlohmann::json(std::string(text));
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'o' || text[1] == 'x')) {
        std::uint64_t v = 0;
        if (wholeNumber(text.substr(2), text[1] == 'o' ? 8 : 16, &v))
            return v <= std::uint64_t(std::numeric_limits<std::int64_t>::max()) ? nlohmann::json(std::int64_t(v))
                                                                                : nlohmann::json(v);
        return nlohmann::json(std::string(text));
    }
    const QString s = QString::fromUtf8(text.data(), qsizetype(text.size()));
    // from_chars takes no '+'.
    const std::string_view unsigned_ = text.front() == '+' ? text.substr(1) : text;
    if (integer.match(s).hasMatch()) {
        // As nlohmann::json reads the same digits: int64, else uint64, else a double.
        std::int64_t i = 0;
        if (wholeNumber(unsigned_, 10, &i))
            return nlohmann::json(i);
        std::uint64_t u = 0;
        if (wholeNumber(unsigned_, 10, &u))
            return nlohmann::json(u);
    } else if (special.match(s).hasMatch()) {
        return nlohmann::json();
    } else if (!real.match(s).hasMatch()) {
        return nlohmann::json(std::string(text));
    }
    double d = 0;
    const auto [end, ec] = std::from_chars(unsigned_.data(), unsigned_.data() + unsigned_.size(), d);
    // Below a double's least: zero, as strtod (and so parseJson) reads it.
    if (ec == std::errc::result_out_of_range && decimalOrder(text) <= 0)
        return nlohmann::json(text.front() == '-' ? -0.0 : 0.0);
    if (ec != std::errc() || end != unsigned_.data() + unsigned_.size() || !std::isfinite(d)) {
        *problem = QStringLiteral("the number %1 is out of range").arg(yamlQuoted(text));
        return std::nullopt;
    }
    return nlohmann::json(d);
}

/// A collection being read, with the key waiting for its value in a mapping.
struct OpenCollection {
    nlohmann::json value;
    std::string anchor;
    std::size_t nodesBefore = 0;
    std::string key;
    bool haveKey = false;
};

class YamlBuilder
{
public:
    explicit YamlBuilder(QString *problem)
        : m_problem(problem)
    {}

    std::optional<nlohmann::json> root;

    bool scalar(const yaml_event_t &e)
    {
        const auto &s = e.data.scalar;
        if (!untagged(s.tag, e.start_mark))
            return false;
        if (s.length > kMaxYamlScalarBytes)
            return fail(e.start_mark, QStringLiteral("a value of %1 bytes, more than an import reads (%2 MiB)")
                                          .arg(s.length)
                                          .arg(kMaxYamlScalarBytes >> 20));
        const std::string_view text(reinterpret_cast<const char *>(s.value), s.length);
        // A mapping's key is its text, as a JSON key is: `1: x` has the key "1".
        if (awaitingKey())
            return key(std::string(text), e.start_mark);
        std::optional<nlohmann::json> v;
        if (s.style == YAML_PLAIN_SCALAR_STYLE) {
            QString why;
            v = plainScalar(text, &why);
            if (!v)
                return fail(e.start_mark, why);
        } else {
            v = nlohmann::json(std::string(text));
        }
        return add(std::move(*v), 1, anchorOf(s.anchor), e.start_mark);
    }

    bool alias(const yaml_event_t &e)
    {
        const std::string name(reinterpret_cast<const char *>(e.data.alias.anchor));
        const auto found = m_anchors.find(name);
        if (found == m_anchors.end())
            return fail(e.start_mark,
                        QStringLiteral("alias *%1 names no anchor before it").arg(QString::fromStdString(name)));
        if (awaitingKey()) {
            if (!found->second.value.is_string())
                return fail(e.start_mark, QStringLiteral("a mapping key that is not text"));
            return key(found->second.value.get<std::string>(), e.start_mark);
        }
        // Checked before the copy: aliases re-used level upon level (a "billion laughs") multiply
        // the value at each step, and are refused here before the copy is made.
        if (!fits(found->second.nodes, e.start_mark))
            return false;
        return add(nlohmann::json(found->second.value), found->second.nodes, {}, e.start_mark);
    }

    bool open(const yaml_event_t &e, bool mapping)
    {
        const yaml_char_t *tag = mapping ? e.data.mapping_start.tag : e.data.sequence_start.tag;
        const yaml_char_t *anchor = mapping ? e.data.mapping_start.anchor : e.data.sequence_start.anchor;
        if (!untagged(tag, e.start_mark))
            return false;
        if (awaitingKey())
            return fail(e.start_mark, QStringLiteral("a mapping key that is not text"));
        if (m_open.size() >= kMaxYamlDepth)
            return fail(e.start_mark, QStringLiteral("nested deeper than %1 levels").arg(kMaxYamlDepth));
        if (!take(1, e.start_mark))
            return false;
        OpenCollection o;
        o.value = mapping ? nlohmann::json::object() : nlohmann::json::array();
        o.anchor = anchorOf(anchor);
        o.nodesBefore = m_nodes - 1;
        m_open.push_back(std::move(o));
        return true;
    }

    bool close(const yaml_event_t &e)
    {
        OpenCollection o = std::move(m_open.back());
        m_open.pop_back();
        const std::size_t nodes = m_nodes - o.nodesBefore;
        m_nodes = o.nodesBefore; // add() counts them again
        return add(std::move(o.value), nodes, o.anchor, e.start_mark);
    }

private:
    QString *m_problem;
    std::vector<OpenCollection> m_open;
    struct Anchored {
        nlohmann::json value;
        std::size_t nodes = 0;
    };
    std::map<std::string, Anchored> m_anchors;
    std::size_t m_nodes = 0;

    static std::string anchorOf(const yaml_char_t *anchor)
    {
        return anchor ? std::string(reinterpret_cast<const char *>(anchor)) : std::string();
    }

    bool fail(const yaml_mark_t &mark, const QString &why)
    {
        *m_problem = markText(mark) + QStringLiteral(": ") + why;
        return false;
    }

    /// Tags name types outside the core schema (PyYAML's !!python/object, an application's !x):
    /// nothing a report holds, and nothing to guess a meaning for.
    bool untagged(const yaml_char_t *tag, const yaml_mark_t &mark)
    {
        if (!tag)
            return true;
        return fail(
            mark,
            QStringLiteral("tag %1: import reads untagged YAML").arg(yamlQuoted(reinterpret_cast<const char *>(tag))));
    }

    bool fits(std::size_t nodes, const yaml_mark_t &mark)
    {
        if (nodes > kMaxYamlNodes - m_nodes)
            return fail(mark, QStringLiteral("more than %1 values (aliases expanded)").arg(kMaxYamlNodes));
        return true;
    }

    bool take(std::size_t nodes, const yaml_mark_t &mark)
    {
        if (!fits(nodes, mark))
            return false;
        m_nodes += nodes;
        return true;
    }

    bool awaitingKey() const { return !m_open.empty() && m_open.back().value.is_object() && !m_open.back().haveKey; }

    bool key(std::string name, const yaml_mark_t &mark)
    {
        OpenCollection &o = m_open.back();
        if (o.value.contains(name))
            return fail(mark, QStringLiteral("duplicate key %1").arg(yamlQuoted(name)));
        o.key = std::move(name);
        o.haveKey = true;
        return true;
    }

    /// Puts a finished value (`nodes` of them) into its collection, or makes it the document.
    bool add(nlohmann::json value, std::size_t nodes, const std::string &anchor, const yaml_mark_t &mark)
    {
        if (!take(nodes, mark))
            return false;
        if (!anchor.empty()) {
            // The anchor's copy is held too: it counts against the same bound.
            if (!take(nodes, mark))
                return false;
            m_anchors[anchor] = {value, nodes};
        }
        if (m_open.empty()) {
            root = std::move(value);
        } else if (m_open.back().value.is_array()) {
            m_open.back().value.push_back(std::move(value));
        } else {
            OpenCollection &o = m_open.back();
            o.value[o.key] = std::move(value);
            o.haveKey = false;
        }
        return true;
    }
};

} // namespace

std::optional<nlohmann::json> parseYaml(const QByteArray &bytes, QString *problem)
{
    YamlParser p;
    if (!p.ready) {
        *problem = QStringLiteral("out of memory");
        return std::nullopt;
    }
    yaml_parser_set_input_string(&p.parser, reinterpret_cast<const unsigned char *>(bytes.constData()),
                                 std::size_t(bytes.size()));
    YamlBuilder builder(problem);
    int documents = 0;
    for (;;) {
        YamlEvent e;
        if (!yaml_parser_parse(&p.parser, &e.event)) {
            const yaml_parser_t &y = p.parser;
            const QString where =
                y.error == YAML_READER_ERROR ? offsetText(bytes, y.problem_offset) : markText(y.problem_mark);
            QString why = QString::fromUtf8(y.problem ? y.problem : "not YAML");
            if (y.error == YAML_READER_ERROR)
                why = QStringLiteral("not UTF-8 (%1)").arg(why);
            else if (y.context)
                why = QString::fromUtf8(y.context) + QStringLiteral(": ") + why;
            *problem = where + QStringLiteral(": ") + why;
            return std::nullopt;
        }
        e.held = true;
        bool ok = true;
        switch (e.event.type) {
        case YAML_STREAM_START_EVENT:
            // libyaml reads UTF-16 by its byte-order mark; llm-d and JSON write UTF-8.
            if (e.event.data.stream_start.encoding != YAML_UTF8_ENCODING) {
                *problem = QStringLiteral("line 1, column 1: not UTF-8 (UTF-16)");
                return std::nullopt;
            }
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++documents > 1) {
                *problem = markText(e.event.start_mark) +
                           QStringLiteral(": a second document (a report is one; split the stream)");
                return std::nullopt;
            }
            break;
        case YAML_SCALAR_EVENT:
            ok = builder.scalar(e.event);
            break;
        case YAML_ALIAS_EVENT:
            ok = builder.alias(e.event);
            break;
        case YAML_SEQUENCE_START_EVENT:
            ok = builder.open(e.event, false);
            break;
        case YAML_MAPPING_START_EVENT:
            ok = builder.open(e.event, true);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            ok = builder.close(e.event);
            break;
        case YAML_STREAM_END_EVENT:
            if (!builder.root || builder.root->is_null()) {
                *problem = builder.root ? QStringLiteral("an empty document") : QStringLiteral("without a document");
                return std::nullopt;
            }
            return std::move(builder.root);
        case YAML_DOCUMENT_END_EVENT:
        case YAML_NO_EVENT:
            break;
        }
        if (!ok)
            return std::nullopt;
    }
}

} // namespace tb::foreign
