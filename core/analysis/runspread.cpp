#include "analysis/runspread.h"

#include "analysis/comparison.h"
#include "config/inputfile.h"
#include "metrics/loghistogram.h"
#include "results/rundirectory.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace tb {

namespace {

/// The continued fraction of the regularized incomplete beta function I_x(a, b), evaluated by
/// Lentz's method; converges fast for x < (a + 1) / (a + b + 2), where the caller uses it.
double betaFraction(double a, double b, double x)
{
    constexpr double kTiny = 1e-300;
    constexpr double kEpsilon = 1e-15;
    const auto guard = [](double v) { return std::fabs(v) < kTiny ? kTiny : v; };
    double c = 1;
    double d = 1 / guard(1 - (a + b) * x / (a + 1));
    double f = d;
    for (int m = 1; m <= 1000; ++m) {
        // The even term m(b − m)x / ((a + 2m − 1)(a + 2m)), then the odd one
        // −(a + m)(a + b + m)x / ((a + 2m)(a + 2m + 1)).
        const double even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
        d = 1 / guard(1 + even * d);
        c = guard(1 + even / c);
        f *= c * d;
        const double odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
        d = 1 / guard(1 + odd * d);
        c = guard(1 + odd / c);
        const double step = c * d;
        f *= step;
        if (std::fabs(step - 1) < kEpsilon)
            break;
    }
    return f;
}

/// I_x(a, b) for 0 ≤ x ≤ 1, a, b > 0.
double regularizedBeta(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    const double logFront = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
    if (x < (a + 1) / (a + b + 2))
        return std::exp(logFront) * betaFraction(a, b, x) / a;
    return 1 - std::exp(logFront) * betaFraction(b, a, 1 - x) / b;
}

std::optional<double> finiteValue(std::optional<double> v)
{
    return v && std::isfinite(*v) ? v : std::nullopt;
}

QString cell(double v, const QString &unit)
{
    return ComparisonTable::formatValue(v, unit);
}

QString padRight(const QString &text, qsizetype width)
{
    return text + QString(std::max<qsizetype>(0, width - text.size()), QLatin1Char(' '));
}

/// Columns of a fixed-width table, the first left-aligned, separated by two spaces.
QString tableText(const std::vector<QStringList> &lines)
{
    std::vector<qsizetype> widths;
    for (const QStringList &line : lines) {
        widths.resize(std::max(widths.size(), std::size_t(line.size())));
        for (qsizetype i = 0; i < line.size(); ++i)
            widths[std::size_t(i)] = std::max(widths[std::size_t(i)], line[i].size());
    }
    QString text;
    for (const QStringList &line : lines) {
        QString row;
        for (qsizetype i = 0; i < line.size(); ++i)
            row += padRight(line[i], i + 1 < line.size() ? widths[std::size_t(i)] + 2 : 0);
        text += row + QLatin1Char('\n');
    }
    return text;
}

} // namespace

double studentTQuantile(double q, double df)
{
    if (!(q > 0 && q < 1) || !(df > 0) || !std::isfinite(df))
        return std::numeric_limits<double>::quiet_NaN();
    if (q == 0.5)
        return 0;
    // The two-sided tail 2·min(q, 1 − q) is I_x(df/2, 1/2) at x = df / (df + t²), increasing in x:
    // bisect x, then t = √(df (1 − x) / x).
    const double tail = 2 * std::min(q, 1 - q);
    double low = 0;
    double high = 1;
    for (int i = 0; i < 200 && high - low > 0; ++i) {
        const double mid = (low + high) / 2;
        if (mid <= low || mid >= high)
            break;
        (regularizedBeta(df / 2, 0.5, mid) < tail ? low : high) = mid;
    }
    const double x = (low + high) / 2;
    const double t = std::sqrt(df * (1 - x) / x);
    return q > 0.5 ? t : -t;
}

std::optional<SpreadStats> SpreadStats::of(const std::vector<double> &values)
{
    std::vector<double> finite;
    std::copy_if(values.begin(), values.end(), std::back_inserter(finite), [](double v) { return std::isfinite(v); });
    if (finite.size() < 2)
        return std::nullopt;
    SpreadStats s;
    s.n = int(finite.size());
    s.mean = std::accumulate(finite.begin(), finite.end(), 0.0) / s.n;
    double squares = 0;
    for (const double v : finite)
        squares += (v - s.mean) * (v - s.mean);
    s.sd = std::sqrt(squares / (s.n - 1));
    if (s.mean != 0)
        s.cv = s.sd / std::fabs(s.mean);
    s.t = studentTQuantile(0.5 + kConfidence / 2, s.n - 1);
    s.halfWidth = s.t * s.sd / std::sqrt(double(s.n));
    const auto [min, max] = std::minmax_element(finite.begin(), finite.end());
    s.min = *min;
    s.max = *max;
    return s;
}

std::optional<WelchTest> WelchTest::of(const SpreadStats &a, const SpreadStats &b, double resolution)
{
    if (a.n < 2 || b.n < 2)
        return std::nullopt;
    WelchTest w;
    w.diff = b.mean - a.mean;
    const double va = a.sd * a.sd / a.n;
    const double vb = b.sd * b.sd / b.n;
    w.se = std::sqrt(va + vb);
    if (w.se > 0) {
        w.df = (va + vb) * (va + vb) / (va * va / (a.n - 1) + vb * vb / (b.n - 1));
        w.halfWidth = studentTQuantile(0.5 + SpreadStats::kConfidence / 2, w.df) * w.se;
    }
    w.halfWidth += resolution * (std::fabs(a.mean) + std::fabs(b.mean));
    w.significant = std::fabs(w.diff) > w.halfWidth; // with no spread and no resolution: diff ≠ 0
    return w;
}

namespace {

struct Headline {
    const char *key;
    /// A percentile read from the run's LogHistogram, within its bucket error; the rates are exact.
    bool fromHistogram;
};

constexpr Headline kHeadlines[] = {{"requests_per_s", false},
                                   {"output_tokens_per_s", false},
                                   {"goodput_requests_per_s", false},
                                   {"good_pct", false},
                                   {"ttft_p50", true},
                                   {"ttft_p90", true},
                                   {"ttft_p99", true},
                                   {"tpot_p50", true},
                                   {"tpot_p99", true},
                                   {"itl_p50", true},
                                   {"itl_p99", true},
                                   {"e2e_p50", true},
                                   {"e2e_p99", true}};

} // namespace

const QStringList &RunSpread::headlineKeys()
{
    static const QStringList keys = [] {
        QStringList list;
        for (const Headline &h : kHeadlines)
            list << QLatin1String(h.key);
        return list;
    }();
    return keys;
}

RunSpread::RunSpread(const std::vector<RunSummary> &runs)
    : m_runs(int(runs.size()))
{
    for (const Headline &headline : kHeadlines) {
        const QString key = QLatin1String(headline.key);
        const MetricCatalogue::Entry *entry = MetricCatalogue::find(key);
        if (!entry)
            continue;
        Row row{key,
                entry->label,
                entry->unit,
                entry->better,
                {},
                std::nullopt,
                headline.fromHistogram ? LogHistogram::kRepresentativeError : 0.0};
        std::vector<double> present;
        for (const RunSummary &run : runs) {
            row.values.push_back(finiteValue(entry->of(run)));
            if (row.values.back())
                present.push_back(*row.values.back());
        }
        row.stats = SpreadStats::of(present);
        m_rows.push_back(std::move(row));
    }
}

std::optional<RunSpread> RunSpread::load(const QString &directory, QString *why)
{
    const auto directories = repeatfile::runDirectories(directory, why);
    if (!directories)
        return std::nullopt;
    std::vector<RunSummary> summaries;
    for (const QString &run : *directories) {
        auto data = RunReader::load(run, why, RunReader::SummaryOnly);
        if (!data)
            return std::nullopt;
        summaries.push_back(std::move(data->summary));
    }
    return RunSpread(summaries);
}

nlohmann::json RunSpread::toJson() const
{
    nlohmann::json metrics = nlohmann::json::object();
    const auto number = [](std::optional<double> v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
    for (const Row &row : m_rows) {
        nlohmann::json values = nlohmann::json::array();
        for (const auto &v : row.values)
            values.push_back(number(v));
        nlohmann::json m = {{"label", row.label.toStdString()}, {"unit", row.unit.toStdString()}, {"values", values}};
        const std::optional<SpreadStats> &s = row.stats;
        m["n"] = s ? s->n : int(std::count_if(row.values.begin(), row.values.end(), [](const auto &v) { return v; }));
        m["mean"] = s ? nlohmann::json(s->mean) : nlohmann::json();
        m["sd"] = s ? nlohmann::json(s->sd) : nlohmann::json();
        m["cv"] = s ? number(s->cv) : nlohmann::json();
        m["t"] = s ? nlohmann::json(s->t) : nlohmann::json();
        m["ci95_half_width"] = s ? nlohmann::json(s->halfWidth) : nlohmann::json();
        m["ci95_low"] = s ? nlohmann::json(s->low()) : nlohmann::json();
        m["ci95_high"] = s ? nlohmann::json(s->high()) : nlohmann::json();
        m["min"] = s ? nlohmann::json(s->min) : nlohmann::json();
        m["max"] = s ? nlohmann::json(s->max) : nlohmann::json();
        metrics[row.key.toStdString()] = std::move(m);
    }
    return metrics;
}

QString RunSpread::toText() const
{
    std::vector<QStringList> lines{{QStringLiteral("metric"), QStringLiteral("mean ± 95% CI"), QStringLiteral("sd"),
                                    QStringLiteral("CV"), QStringLiteral("min–max"), QStringLiteral("runs")}};
    for (const Row &row : m_rows) {
        const QString name = row.unit.isEmpty() ? row.label : QStringLiteral("%1 (%2)").arg(row.label, row.unit);
        if (!row.stats) {
            lines.push_back({name, QStringLiteral("-"), QStringLiteral("-"), QStringLiteral("-"), QStringLiteral("-"),
                             QString::number(std::count_if(row.values.begin(), row.values.end(),
                                                           [](const auto &v) { return v.has_value(); }))});
            continue;
        }
        const SpreadStats &s = *row.stats;
        lines.push_back({name, QStringLiteral("%1 ± %2").arg(cell(s.mean, row.unit), cell(s.halfWidth, row.unit)),
                         cell(s.sd, row.unit),
                         s.cv ? ComparisonTable::formatValue(*s.cv * 100) + QLatin1Char('%') : QStringLiteral("-"),
                         QStringLiteral("%1–%2").arg(cell(s.min, row.unit), cell(s.max, row.unit)),
                         QString::number(s.n)});
    }
    return tableText(lines) +
           QStringLiteral(
               "95% CI: mean ± t(0.975, n−1)·sd/√n (Student's t over the runs); sd with n−1; CV = sd/mean.\n");
}

RepeatComparison::RepeatComparison(const RunSpread &a, const RunSpread &b, QStringList labels)
    : m_labels(std::move(labels))
{
    for (const RunSpread::Row &rowA : a.rows()) {
        const auto rowB = std::find_if(b.rows().begin(), b.rows().end(),
                                       [&rowA](const RunSpread::Row &r) { return r.key == rowA.key; });
        if (rowB == b.rows().end())
            continue;
        Row row{&rowA, &*rowB, std::nullopt, Verdict::NotTested};
        if (rowA.stats && rowB->stats)
            row.test = WelchTest::of(*rowA.stats, *rowB->stats, rowA.resolution);
        if (row.test) {
            const bool higherIsBetter = rowA.better == MetricCatalogue::Better::Higher;
            if (!row.test->significant || rowA.better == MetricCatalogue::Better::Neither)
                row.verdict = Verdict::NoDifference;
            else
                row.verdict = (row.test->diff > 0) == higherIsBetter ? Verdict::Better : Verdict::Worse;
        }
        m_rows.push_back(row);
    }
}

const RepeatComparison::Row *RepeatComparison::find(const QString &key) const
{
    const auto it = std::find_if(m_rows.begin(), m_rows.end(), [&key](const Row &r) { return r.a->key == key; });
    return it == m_rows.end() ? nullptr : &*it;
}

QString RepeatComparison::verdictName(Verdict verdict)
{
    switch (verdict) {
    case Verdict::Better:
        return QStringLiteral("better");
    case Verdict::Worse:
        return QStringLiteral("worse");
    case Verdict::NoDifference:
        return QStringLiteral("no significant difference");
    case Verdict::NotTested:
        break;
    }
    return {};
}

QString RepeatComparison::toText() const
{
    const auto side = [](const RunSpread::Row &row) {
        return row.stats ? QStringLiteral("%1 ± %2 (n %3)")
                               .arg(cell(row.stats->mean, row.unit), cell(row.stats->halfWidth, row.unit))
                               .arg(row.stats->n)
                         : QStringLiteral("-");
    };
    std::vector<QStringList> lines{{QStringLiteral("metric"), QStringLiteral("#1 ") + m_labels.value(0),
                                    QStringLiteral("#2 ") + m_labels.value(1), QStringLiteral("#2 − #1 (95% CI)"),
                                    QStringLiteral("verdict (Welch)")}};
    for (const Row &row : m_rows) {
        const QString name =
            row.a->unit.isEmpty() ? row.a->label : QStringLiteral("%1 (%2)").arg(row.a->label, row.a->unit);
        QString diff = QStringLiteral("-");
        if (row.test)
            diff = QStringLiteral("%1 [%2, %3]")
                       .arg(cell(row.test->diff, row.a->unit), cell(row.test->diff - row.test->halfWidth, row.a->unit),
                            cell(row.test->diff + row.test->halfWidth, row.a->unit));
        lines.push_back({name, side(*row.a), side(*row.b), diff,
                         row.test ? verdictName(row.verdict) : QStringLiteral("not tested")});
    }
    return tableText(lines) +
           QStringLiteral("Each side: the mean of its runs ± the 95% CI half-width (Student's t). Verdict: Welch's "
                          "t-test of the run values, #2 against #1, at 95% (the difference's interval excludes 0; "
                          "percentiles' intervals widened by their 0.5% bucket error); better/worse by the metric's "
                          "direction. Needs 2 runs a side.\n");
}

namespace repeatfile {

bool isRepeatDirectory(const QString &directory)
{
    return QFileInfo(QDir(directory).filePath(QLatin1String(kName))).isFile();
}

std::optional<QStringList> runDirectories(const QString &directory, QString *why)
{
    const QString path = QDir(directory).filePath(QLatin1String(kName));
    const auto fail = [&](const QString &problem) -> std::optional<QStringList> {
        if (why)
            *why = QStringLiteral("%1: %2").arg(QDir::toNativeSeparators(path), problem);
        return std::nullopt;
    };
    QString error;
    const auto bytes = readInputFile(path, qint64(4) << 20, &error);
    if (!bytes)
        return fail(error);
    const nlohmann::json json = nlohmann::json::parse(bytes->begin(), bytes->end(), nullptr, false);
    if (!json.is_object() || !json.contains("runs") || !json["runs"].is_array())
        return fail(QStringLiteral("not a repeats file (no \"runs\" list)"));
    if (json["runs"].size() > std::size_t(kMaxRuns))
        return fail(QStringLiteral("more than %1 runs").arg(kMaxRuns));
    QStringList directories;
    for (const nlohmann::json &name : json["runs"]) {
        const QString text = name.is_string() ? QString::fromStdString(name.get<std::string>()) : QString();
        // A plain name of a subdirectory: the file must not point the reader elsewhere.
        if (text.isEmpty() || text.contains(QLatin1Char('/')) || text.contains(QLatin1Char('\\')) ||
            text == QLatin1String(".") || text == QLatin1String(".."))
            return fail(
                QStringLiteral("\"runs\" holds '%1', not the name of a run directory beside it").arg(text.left(40)));
        directories << QDir(directory).filePath(text);
    }
    return directories;
}

} // namespace repeatfile

} // namespace tb
