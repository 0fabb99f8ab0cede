#include "analysis/htmlreport.h"

#include "metrics/errortimeline.h"
#include "results/runmerge.h"
#include "results/sessioninfo.h"
#include "tokenbench/version.h"

#include <QDir>
#include <QLocale>
#include <QSaveFile>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace tb {

namespace {

using json = nlohmann::json;
using Better = ComparisonTable::Better;
using Noise = ComparisonTable::Noise;

/// CDF axes span the lowest p0.1 to the highest p99.9 of the runs: a few outliers must not squeeze
/// the body of the distributions against one edge (the GUI's distribution charts do the same).
constexpr double kLowQuantile = 0.001;
constexpr double kHighQuantile = 0.999;

constexpr char kStyle[] = R"css(
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #f6f7f9; color: #1f2937;
  font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', 'DejaVu Sans', Helvetica, Arial, sans-serif; }
main { max-width: 1120px; margin: 0 auto; padding: 28px 32px 40px; background: #ffffff; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 34px 0 10px; padding-bottom: 6px; border-bottom: 1px solid #e5e7eb; }
h3 { font-size: 15px; margin: 22px 0 8px; }
p.meta, p.note, figcaption, .legend { color: #4b5563; font-size: 12.5px; }
p.meta { margin: 0; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { padding: 6px 10px; border-bottom: 1px solid #e5e7eb; text-align: left; vertical-align: top; }
th { background: #f9fafb; font-weight: 600; font-size: 13px; }
td.num, th.num { text-align: right; white-space: nowrap; }
td.baseline, th.baseline { background: #f3f6fb; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 3px; margin-right: 6px;
  vertical-align: -1px; }
.best { font-weight: 700; }
.star { color: #b7791f; margin-left: 3px; font-size: 11px; }
.delta { display: block; font-size: 11.5px; font-weight: 400; color: #6b7280; }
.delta.better { color: #15803d; }
.delta.worse { color: #b91c1c; }
.tag { display: inline-block; padding: 0 6px; margin-left: 6px; border-radius: 8px; background: #e8eefb;
  color: #1e3a8a; font-size: 11px; font-weight: 600; }
.box { border-left: 4px solid #d97706; background: #fff8eb; padding: 10px 14px; margin: 16px 0; }
.box.info { border-left-color: #6b7280; background: #f6f7f9; }
.box h3 { margin: 0 0 4px; font-size: 14px; }
.box ul { margin: 4px 0 0; padding-left: 18px; }
figure { margin: 18px 0 26px; break-inside: avoid; page-break-inside: avoid; }
figure svg { display: block; width: 100%; height: auto; max-width: 900px; border: 1px solid #eef0f3; }
table.config td { font-size: 12.5px; word-break: break-word; }
table.config td:first-child { color: #4b5563; white-space: nowrap; font-family: 'DejaVu Sans Mono', Menlo, Consolas,
  monospace; }
table.config tr.differs td { background: #fff8eb; }
table.config tr.differs td:first-child { color: #92400e; font-weight: 600; }
td.nowrap { white-space: nowrap; }
footer { margin-top: 36px; color: #6b7280; font-size: 12px; }
@page { size: A4; margin: 14mm; }
@media print {
  body { background: #ffffff; font-size: 11px; }
  main { max-width: none; padding: 0; }
  h2 { break-after: avoid; page-break-after: avoid; }
  table { break-inside: auto; }
  tr { break-inside: avoid; page-break-inside: avoid; }
}
)css";

QString esc(const QString &text)
{
    return xmlEscaped(text);
}

/// A stopped run says so beside its name: its figures cover less than it planned.
QString partialTag(const RunSummary &s)
{
    return s.partial() ? QStringLiteral("<br/><span class=\"tag\">partial</span> <span class=\"legend\">%1</span>")
                             .arg(esc(s.partialNote()))
                       : QString();
}

QString fullPrecision(double v)
{
    return QString::fromLatin1(QByteArray::number(v, 'g', QLocale::FloatingPointShortest));
}

QString swatch(int run)
{
    return QStringLiteral("<span class=\"swatch\" style=\"background:%1\"></span>").arg(runColor(run));
}

/// Significantly better or worse, for colouring a change; rows without a noise test stay grey (a
/// colour would claim a significance nobody tested).
QString deltaClass(Better better, double delta, Noise noise)
{
    if (better == Better::Neither || delta == 0 || noise != Noise::Significant)
        return QString();
    const bool improved = (better == Better::Lower) == (delta < 0);
    return improved ? QStringLiteral(" better") : QStringLiteral(" worse");
}

/// run.json flattened to "config.request.max_tokens" → "256" lines.
void flatten(const json &value, const QString &path, QList<std::pair<QString, QString>> &out)
{
    if (value.is_object()) {
        if (value.empty())
            out.append({path, QStringLiteral("—")});
        for (auto it = value.begin(); it != value.end(); ++it)
            flatten(*it, path.isEmpty() ? fromStd(it.key()) : path + QLatin1Char('.') + fromStd(it.key()), out);
        return;
    }
    if (value.is_array()) {
        const bool scalars = std::all_of(value.begin(), value.end(), [](const json &v) { return v.is_primitive(); });
        if (scalars) {
            QStringList items;
            for (const json &v : value)
                items << (v.is_string() ? fromStd(v.get<std::string>()) : fromStd(v.dump()));
            out.append({path, items.isEmpty() ? QStringLiteral("—") : items.join(QStringLiteral(", "))});
            return;
        }
        for (std::size_t i = 0; i < value.size(); ++i)
            flatten(value[i], QStringLiteral("%1[%2]").arg(path).arg(i), out);
        return;
    }
    if (value.is_null() || (value.is_string() && value.get<std::string>().empty())) {
        out.append({path, QStringLiteral("—")});
        return;
    }
    out.append({path, value.is_string() ? fromStd(value.get<std::string>()) : fromStd(value.dump())});
}

/// "2024-05-01 10:00:03" from ISO 8601 (in the run's own UTC offset); the text as it is otherwise.
QString shortTime(const QString &iso)
{
    const QDateTime t = QDateTime::fromString(iso, Qt::ISODateWithMs);
    return t.isValid() ? t.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")) : iso;
}

std::pair<double, double> cdfRange(const std::vector<RunData> &runs, Metric metric)
{
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    for (const RunData &run : runs) {
        const LogHistogram &h = run.summary.total.histogram(metric);
        if (h.isEmpty())
            continue;
        lo = std::min(lo, h.percentile(kLowQuantile));
        hi = std::max(hi, h.percentile(kHighQuantile));
    }
    return {lo, hi};
}

} // namespace

HtmlReport::HtmlReport(const std::vector<RunData> &runs, const Options &options)
    : m_runs(runs)
    , m_options(options)
    , m_table(runs, options.baseline)
{
    if (m_options.title.trimmed().isEmpty())
        m_options.title = QStringLiteral("TokenBench comparison");
    if (!m_options.generatedAt.isValid())
        m_options.generatedAt = QDateTime::currentDateTime();
    m_options.baseline = m_table.baseline();
    if (isInterleavedSet(runs))
        m_paired.emplace(runs, m_options.baseline);
    buildCharts();
}

bool HtmlReport::isSecretHeader(const QString &name)
{
    static const char *const kSecretWords[] = {"auth",     "key",       "token",   "secret",    "cookie",
                                               "password", "signature", "session", "credential"};
    const QString lower = name.toLower();
    return std::any_of(std::begin(kSecretWords), std::end(kSecretWords),
                       [&](const char *word) { return lower.contains(QLatin1String(word)); });
}

void HtmlReport::buildCharts()
{
    const QStringList &labels = m_table.labels();
    const auto cdf = [&](const char *id, Metric metric, const QString &title, const QString &axis,
                         const QString &caption) {
        SvgChart chart(QLatin1String(id), title, axis, QStringLiteral("requests at or below (%)"));
        for (std::size_t i = 0; i < m_runs.size(); ++i) {
            SvgChart::Series s{labels[qsizetype(i)], runColor(int(i)), false, false, true, {}};
            const LogHistogram &h = m_runs[i].summary.total.histogram(metric);
            const std::vector<CdfPoint> points = h.cdf();
            if (!points.empty())
                s.points.append({points.front().value, 0});
            for (const CdfPoint &p : points)
                s.points.append({p.value, p.fraction * 100});
            chart.addSeries(s);
        }
        const auto [lo, hi] = cdfRange(m_runs, metric);
        if (lo <= hi)
            chart.setXRange(lo, hi);
        chart.setYRange(0, 100);
        chart.setFootnote(QStringLiteral("x axis: lowest p0.1 to highest p99.9 of the runs"));
        m_charts << chart;
        m_captions << caption;
    };
    cdf("cdf-ttft", Metric::Ttft, QStringLiteral("Time to first token — CDF"), QStringLiteral("TTFT (ms)"),
        QStringLiteral("Share of successful requests whose first token arrived within the time on the x axis. "
                       "Further left is faster; a longer tail to the right means more slow outliers."));
    cdf("cdf-e2e", Metric::E2e, QStringLiteral("End-to-end latency — CDF"), QStringLiteral("E2E latency (ms)"),
        QStringLiteral("Share of successful requests completed within the time on the x axis (sent to last token)."));
    cdf("cdf-itl", Metric::Itl, QStringLiteral("Inter-token latency — CDF"), QStringLiteral("ITL (ms per token)"),
        QStringLiteral("Share of output tokens that followed the previous token within the time on the x axis "
                       "(token-normalised: a chunk's gap is divided over the tokens it carried)."));

    const auto overTime = [&](const char *id, const QString &title, const QString &axis, const QString &caption,
                              auto value) {
        SvgChart chart(QLatin1String(id), title, QStringLiteral("time since the run's start (s)"), axis);
        for (std::size_t i = 0; i < m_runs.size(); ++i) {
            SvgChart::Series s{labels[qsizetype(i)], runColor(int(i)), false, false, true, {}};
            for (const TimeSeriesRow &row : m_runs[i].timeSeries)
                s.points.append({row.second + 0.5, value(row)});
            chart.addSeries(s);
        }
        m_charts << chart;
        m_captions << caption;
    };
    overTime("time-output", QStringLiteral("Output throughput over time"), QStringLiteral("output tokens/s"),
             QStringLiteral("Output tokens streamed per second of run time (successful requests, warm-up excluded)."),
             [](const TimeSeriesRow &r) { return double(r.outputTokens); });
    overTime("time-requests", QStringLiteral("Request throughput over time"), QStringLiteral("successful requests/s"),
             QStringLiteral("Successful requests completed in each second of run time."),
             [](const TimeSeriesRow &r) { return double(r.completed); });

    if (std::any_of(m_runs.begin(), m_runs.end(), [](const RunData &r) { return !r.summary.turns.empty(); })) {
        // Conversations: the seed report's multi-turn token growth, as measured.
        SvgChart tokens(QStringLiteral("turns-tokens"), QStringLiteral("Multi-turn token growth"),
                        QStringLiteral("turn"), QStringLiteral("tokens per request (mean)"));
        SvgChart ttft(QStringLiteral("turns-ttft"), QStringLiteral("Time to first token per turn"),
                      QStringLiteral("turn"), QStringLiteral("TTFT p50 (ms)"));
        for (std::size_t i = 0; i < m_runs.size(); ++i) {
            SvgChart::Series prompt{labels[qsizetype(i)], runColor(int(i)), false, true, true, {}};
            SvgChart::Series cached{
                labels[qsizetype(i)] + QStringLiteral(" cached"), runColor(int(i)), true, true, false, {}};
            SvgChart::Series first{labels[qsizetype(i)], runColor(int(i)), false, true, true, {}};
            for (const TurnSummary &t : m_runs[i].summary.turns) {
                prompt.points.append({double(t.turn), t.promptTokens.mean});
                cached.points.append({double(t.turn), t.cachedTokens.mean});
                first.points.append({double(t.turn), t.ttftMs.p50});
            }
            tokens.addSeries(prompt);
            tokens.addSeries(cached);
            ttft.addSeries(first);
        }
        tokens.addSeries({QStringLiteral("prompt"), QStringLiteral("#6b7280"), false, false, true, {}});
        tokens.addSeries({QStringLiteral("cached"), QStringLiteral("#6b7280"), true, false, true, {}});
        tokens.setFootnote(
            QStringLiteral("successful requests of each turn; solid prompt tokens, dashed cached tokens"));
        m_charts << tokens << ttft;
        m_captions << QStringLiteral("Prompt tokens of each turn of the conversations: every turn carries the whole "
                                     "history with the model's own replies, so the prompt grows by a reply and a "
                                     "question per turn; the dashed line is what the server's prefix cache served.")
                   << QStringLiteral("Median time to first token of each turn: flat while the prefix cache serves the "
                                     "history, rising with the prompt when it does not.");
    }

    if (std::any_of(m_runs.begin(), m_runs.end(), [](const RunData &r) { return r.summary.contextSweep; })) {
        // A context sweep: the seed report's §3.3 fit, measured. NaN between points draws dots, no line.
        constexpr qsizetype kMaxDots = 600;
        SvgChart chart(QStringLiteral("context-sweep"), QStringLiteral("Context sweep: TTFT against prompt tokens"),
                       QStringLiteral("prompt tokens (measured)"), QStringLiteral("TTFT (ms)"));
        const QPointF gap(std::nan(""), std::nan(""));
        QString caption = QStringLiteral("Time to first token against the prompt tokens the server counted, at a fixed "
                                         "load; the line is the least-squares fit TTFT = a·x^b + c through the "
                                         "requests, b the growth of prefill cost with the context.");
        for (std::size_t i = 0; i < m_runs.size(); ++i) {
            const auto &sweep = m_runs[i].summary.contextSweep;
            if (!sweep)
                continue;
            const QString label = labels[qsizetype(i)];
            // The requests in the run's colour mixed 60% with white, under the medians at full strength.
            const unsigned rgb = runColor(int(i)).mid(1).toUInt(nullptr, 16);
            QString light = QStringLiteral("#");
            for (int shift : {16, 8, 0})
                light += QStringLiteral("%1").arg(((rgb >> shift) & 0xff) * 2 / 5 + 153, 2, 16, QLatin1Char('0'));
            const auto dotsOf = [&gap](const std::vector<ContextSweepSummary::Point> &points, SvgChart::Series &into) {
                const std::size_t stride = points.size() / kMaxDots + 1;
                for (std::size_t p = 0; p < points.size(); p += stride)
                    into.points << QPointF(points[p].promptTokens, points[p].ttftMs) << gap;
            };
            SvgChart::Series dots{label + QStringLiteral(" requests"), light, false, true, false, {}};
            dotsOf(sweep->points, dots);
            // Truncated requests in grey, named in the legend: not part of the fit.
            SvgChart::Series truncated{
                label + QStringLiteral(": %1 truncated by the server, left out of the fit").arg(sweep->excluded.size()),
                QStringLiteral("#9e9e9e"),
                false,
                true,
                true,
                {}};
            dotsOf(sweep->excluded, truncated);
            SvgChart::Series medians{label + QStringLiteral(" TTFT p50"), runColor(int(i)), false, true, true, {}};
            double lo = 0, hi = 0;
            for (const ContextSweepSummary::Stage &st : sweep->stages) {
                medians.points << QPointF(st.promptTokens, st.ttftP50Ms) << gap;
                lo = lo > 0 ? std::min(lo, st.promptTokens) : st.promptTokens;
                hi = std::max(hi, st.promptTokens);
            }
            chart.addSeries(dots);
            if (!truncated.points.isEmpty())
                chart.addSeries(truncated);
            chart.addSeries(medians);
            if (sweep->fit.ok && hi > lo) {
                SvgChart::Series fit{
                    label + QStringLiteral(": ") + sweep->fitText(), runColor(int(i)), true, false, true, {}};
                constexpr int kSteps = 64;
                for (int k = 0; k <= kSteps; ++k) {
                    const double x = lo + (hi - lo) * k / kSteps;
                    fit.points << QPointF(x, sweep->fit.at(x));
                }
                chart.addSeries(fit);
            }
            caption += QStringLiteral(" %1: %2.").arg(label, sweep->fitText());
        }
        chart.setFootnote(QStringLiteral("light dots: requests; dark dots: each stage's median; dashed: the fit"));
        m_charts << chart;
        m_captions << caption;
    }

    const bool anyStaged = std::any_of(m_runs.begin(), m_runs.end(), [](const RunData &r) {
        return r.summary.stages.size() >= 2 && !r.summary.contextSweep;
    });
    if (!anyStaged)
        return;
    const auto curve = [&](const char *id, Metric metric, const QString &name) {
        SvgChart chart(QLatin1String(id), QStringLiteral("Throughput–latency: %1").arg(name),
                       QStringLiteral("achieved throughput (successful requests/s)"),
                       QStringLiteral("%1 (ms)").arg(name));
        for (std::size_t i = 0; i < m_runs.size(); ++i) {
            const std::vector<CurvePoint> points = throughputLatencyCurve(m_runs[i].summary, metric);
            if (points.empty())
                continue;
            SvgChart::Series p50{labels[qsizetype(i)], runColor(int(i)), false, true, true, {}};
            SvgChart::Series p99{
                labels[qsizetype(i)] + QStringLiteral(" p99"), runColor(int(i)), true, true, false, {}};
            for (const CurvePoint &p : points) {
                p50.points.append({p.requestsPerS, p.p50});
                p99.points.append({p.requestsPerS, p.p99});
            }
            chart.addSeries(p50);
            chart.addSeries(p99);
        }
        chart.addSeries({QStringLiteral("p50"), QStringLiteral("#6b7280"), false, false, true, {}});
        chart.addSeries({QStringLiteral("p99"), QStringLiteral("#6b7280"), true, false, true, {}});
        chart.setFootnote(QStringLiteral("one point per stage, in stage order; solid p50, dashed p99"));
        m_charts << chart;
        QString caption = QStringLiteral("%1 against the request rate each stage achieved. Where a line turns steeply "
                                         "upwards the target is saturated: more load buys latency, not throughput.")
                              .arg(name);
        for (std::size_t i = 0; i < m_runs.size(); ++i) {
            if (const auto knee = findKnee(throughputLatencyCurve(m_runs[i].summary, metric), name))
                caption += QStringLiteral(" %1: %2.").arg(labels[qsizetype(i)], knee->text);
            if (const QString leftOut = leftOutOfCurve(m_runs[i].summary); !leftOut.isEmpty())
                caption += QStringLiteral(" %1: %2.").arg(labels[qsizetype(i)], leftOut);
        }
        m_captions << caption;
    };
    curve("curve-ttft", Metric::Ttft, QStringLiteral("TTFT"));
    curve("curve-e2e", Metric::E2e, QStringLiteral("E2E latency"));
}

QString HtmlReport::runsSection() const
{
    QString html = QStringLiteral("<h2 id=\"runs\">Runs</h2>\n<table class=\"runs\">\n<thead><tr><th>#</th><th>run</th>"
                                  "<th>model</th><th>target</th><th>load</th><th>started</th>"
                                  "<th class=\"num\">requests ok / attempted</th></tr></thead>\n<tbody>\n");
    for (std::size_t i = 0; i < m_runs.size(); ++i) {
        const RunData &run = m_runs[i];
        const RunSummary &s = run.summary;
        const bool isBase = int(i) == m_table.baseline();
        const QString load = run.hasInfo ? formatStages(run.info.stages) : s.total.load.stages;
        const QString merged = run.info.mergedFrom.isEmpty()
                                   ? QString()
                                   : QStringLiteral("<br/><span class=\"legend\">%1</span>")
                                         .arg(esc(RunMerger::mergedNote(run.info.mergedFrom)));
        html += QStringLiteral("<tr><td class=\"nowrap\">%1%2</td><td>%3%4</td><td>%5</td><td>%6<br/><span "
                               "class=\"legend\">%7</span></td>"
                               "<td>%8</td><td>%9</td><td class=\"num\">%10 / %11</td></tr>\n")
                    .arg(swatch(int(i)), QString::number(i + 1), esc(m_table.labels()[qsizetype(i)]),
                         (isBase ? QStringLiteral("<span class=\"tag\">baseline</span>") : QString()) + merged +
                             partialTag(s),
                         esc(s.model), esc(s.targetName.isEmpty() ? s.targetUrl : s.targetName),
                         esc(s.targetUrl + QStringLiteral(" · ") + s.api +
                             (s.transportText().isEmpty() ? QString() : QStringLiteral(" · ") + s.transportText())) +
                             QStringLiteral("<br/>I/O: ") + esc(run.io().text()),
                         esc(load), esc(shortTime(s.startedAt)), QString::number(s.total.requests.ok),
                         QString::number(s.total.requests.attempted));
    }
    return html + QStringLiteral("</tbody>\n</table>\n");
}

QString HtmlReport::warningsSection() const
{
    QString html;
    if (!m_table.warnings().isEmpty()) {
        html += QStringLiteral("<div class=\"box\" id=\"warnings\"><h3>Workload differences</h3>"
                               "<p class=\"note\">These runs measured different things; compare their numbers with "
                               "care.</p><ul>\n");
        for (const QString &w : m_table.warnings())
            html += QStringLiteral("<li>%1</li>\n").arg(esc(w));
        html += QStringLiteral("</ul></div>\n");
    }
    QStringList notes;
    for (std::size_t i = 0; i < m_runs.size(); ++i) {
        for (const QString &note : m_runs[i].notes)
            notes << QStringLiteral("#%1 %2: %3").arg(i + 1).arg(m_table.labels()[qsizetype(i)], note);
        // What the GUI and `run` say of a run's failures.
        ErrorTimeline errors;
        for (const RequestRecord &record : m_runs[i].records)
            errors.add(record);
        if (const QString failures = errors.headline(m_runs[i].summary.total.requests); !failures.isEmpty())
            notes << QStringLiteral("#%1 %2: failures: %3").arg(i + 1).arg(m_table.labels()[qsizetype(i)], failures);
    }
    notes << m_table.notes();
    if (!notes.isEmpty()) {
        html += QStringLiteral("<div class=\"box info\" id=\"notes\"><h3>Notes</h3><ul>\n");
        for (const QString &n : std::as_const(notes))
            html += QStringLiteral("<li>%1</li>\n").arg(esc(n));
        html += QStringLiteral("</ul></div>\n");
    }
    return html;
}

QString HtmlReport::tableSection() const
{
    const int base = m_table.baseline();
    QString html = QStringLiteral("<h2 id=\"comparison\">Comparison</h2>\n<table class=\"comparison\">\n<thead><tr>"
                                  "<th>metric</th><th>unit</th>");
    for (qsizetype i = 0; i < m_table.labels().size(); ++i) {
        html += QStringLiteral("<th class=\"num%1\" style=\"border-top:4px solid %2\">#%3 %4%5</th>")
                    .arg(int(i) == base ? QStringLiteral(" baseline") : QString(), runColor(int(i)))
                    .arg(i + 1)
                    .arg(esc(m_table.labels()[i]),
                         int(i) == base ? QStringLiteral("<br/><span class=\"tag\">baseline</span>") : QString());
    }
    html += QStringLiteral("</tr></thead>\n<tbody>\n");
    for (const ComparisonTable::Row &row : m_table.rows()) {
        const QString better = ComparisonTable::betterName(row.better);
        html +=
            QStringLiteral("<tr data-key=\"%1\"><td>%2</td><td>%3%4</td>")
                .arg(esc(row.key), esc(row.label), esc(row.unit),
                     better.isEmpty() ? QString()
                                      : QStringLiteral("<span class=\"legend\"> · %1 is better</span>").arg(better));
        for (std::size_t i = 0; i < row.values.size(); ++i) {
            const auto &v = row.values[i];
            QString cell = v ? esc(ComparisonTable::formatValue(*v, row.unit)) : QStringLiteral("—");
            if (row.best[i])
                cell += QStringLiteral("<span class=\"star\" title=\"best\">★</span>");
            if (int(i) != base) {
                QString delta = row.deltaPct[i] ? ComparisonTable::formatChange(*row.deltaPct[i]) : QStringLiteral("—");
                const QString noise = ComparisonTable::noiseName(row.noise[i]);
                if (!noise.isEmpty())
                    delta += QStringLiteral(" · ") + noise;
                QString title;
                if (row.intervals[i])
                    title = QStringLiteral(" title=\"95% CI of the difference: [%1, %2] %3\"")
                                .arg(ComparisonTable::formatValue(row.intervals[i]->low),
                                     ComparisonTable::formatValue(row.intervals[i]->high), esc(row.unit));
                cell += QStringLiteral("<span class=\"delta%1\"%2>%3</span>")
                            .arg(row.deltaPct[i] ? deltaClass(row.better, *row.deltaPct[i], row.noise[i]) : QString(),
                                 title, esc(delta));
            }
            QStringList classes{QStringLiteral("num")};
            if (row.best[i])
                classes << QStringLiteral("best");
            if (int(i) == base)
                classes << QStringLiteral("baseline");
            html += QStringLiteral("<td class=\"%1\" data-run=\"%2\"%3>%4</td>")
                        .arg(classes.join(QLatin1Char(' ')))
                        .arg(i + 1)
                        .arg(v ? QStringLiteral(" data-value=\"%1\"").arg(fullPrecision(*v)) : QString(), cell);
        }
        html += QStringLiteral("</tr>\n");
    }
    html += QStringLiteral("</tbody>\n</table>\n<p class=\"legend\">★ best value of the row. Under each value: the "
                           "change against the baseline #%1, and for latency rows whether it is larger than "
                           "run-to-run noise — <b>significant</b> when the bootstrap 95% confidence interval of the "
                           "difference (of the row's mean, median or p99, over the per-request values) excludes 0, "
                           "<b>within noise</b> when it does not. Rates and ratios have one value per run and no "
                           "test. Green: significantly better; red: significantly worse.</p>\n")
                .arg(base + 1);
    return html;
}

QString HtmlReport::spreadSection() const
{
    QString html;
    for (const auto &[name, spread] : m_options.spreads) {
        html += QStringLiteral("<h2>Spread of the repeated runs of %1 (%2 runs)</h2>\n<table class=\"comparison\">\n"
                               "<thead><tr><th>metric</th><th>unit</th><th class=\"num\">mean ± 95% CI</th>"
                               "<th class=\"num\">sd</th><th class=\"num\">CV</th><th class=\"num\">min–max</th>"
                               "<th class=\"num\">runs</th></tr></thead>\n<tbody>\n")
                    .arg(esc(name))
                    .arg(spread.runs());
        for (const RunSpread::Row &row : spread.rows()) {
            html += QStringLiteral("<tr data-key=\"%1\"><td>%2</td><td>%3</td>")
                        .arg(esc(row.key), esc(row.label), esc(row.unit));
            if (!row.stats) {
                html += QStringLiteral("<td class=\"num\" colspan=\"5\">—</td></tr>\n");
                continue;
            }
            const SpreadStats &s = *row.stats;
            const auto value = [&row](double v) { return esc(ComparisonTable::formatValue(v, row.unit)); };
            html +=
                QStringLiteral("<td class=\"num\" data-value=\"%1\">%2 ± %3</td><td class=\"num\">%4</td>"
                               "<td class=\"num\">%5</td><td class=\"num\">%6–%7</td><td class=\"num\">%8</td></tr>\n")
                    .arg(fullPrecision(s.mean), value(s.mean), value(s.halfWidth), value(s.sd),
                         s.cv ? esc(ComparisonTable::formatValue(*s.cv * 100)) + QLatin1Char('%') : QStringLiteral("—"),
                         value(s.min), value(s.max), QString::number(s.n));
        }
        html += QStringLiteral("</tbody>\n</table>\n");
    }
    if (!html.isEmpty())
        html += QStringLiteral("<p class=\"legend\">Over the runs of one configuration: the mean ± the half-width of "
                               "its 95% confidence interval by Student's t with n−1 degrees of freedom "
                               "(mean ± t·sd/√n), the sample standard deviation (n−1), the coefficient of variation "
                               "sd/mean and the range.</p>\n");
    return html;
}

QString HtmlReport::pairedSection() const
{
    if (!m_paired || !m_paired->hasPairs())
        return {};
    const PairedComparison &p = *m_paired;
    const int base = p.baseline();
    QString html = QStringLiteral("<h2 id=\"paired\">Paired per-request differences</h2>\n<p class=\"note\">This is an "
                                  "interleaved session: every request went to each target at the same moment, so "
                                  "request by request the targets faced the same prompt and the same conditions. Each "
                                  "cell is the median over those requests of (run − baseline #%1), with its bootstrap "
                                  "95% confidence interval.</p>\n<table class=\"paired\">\n<thead><tr><th>metric</th>"
                                  "<th>unit</th>")
                       .arg(base + 1);
    for (qsizetype i = 0; i < p.labels().size(); ++i) {
        if (int(i) != base)
            html += QStringLiteral("<th class=\"num\" style=\"border-top:4px solid %1\">#%2 %3 − #%4</th>")
                        .arg(runColor(int(i)), QString::number(i + 1), esc(p.labels()[i]), QString::number(base + 1));
    }
    html += QStringLiteral("</tr></thead>\n<tbody>\n");
    for (const PairedComparison::Row &row : p.rows()) {
        html += QStringLiteral("<tr data-key=\"%1\"><td>%2</td><td>%3</td>")
                    .arg(esc(row.key), esc(row.label), esc(row.unit));
        for (std::size_t i = 0; i < row.cells.size(); ++i) {
            if (int(i) == base)
                continue;
            const PairedComparison::Cell &c = row.cells[i];
            QString cell = c.median ? esc(ComparisonTable::formatValue(*c.median)) : QStringLiteral("—");
            if (c.medianPct)
                cell += QStringLiteral(" (%1)").arg(ComparisonTable::formatChange(*c.medianPct));
            QString detail = QStringLiteral("%1 pairs").arg(c.pairs);
            if (c.interval)
                detail = QStringLiteral("[%1, %2] · %3 · %4")
                             .arg(ComparisonTable::formatValue(c.interval->low),
                                  ComparisonTable::formatValue(c.interval->high), ComparisonTable::noiseName(c.noise),
                                  detail);
            html += QStringLiteral("<td class=\"num\" data-run=\"%1\"%2>%3<span class=\"delta%4\">%5</span></td>")
                        .arg(QString::number(i + 1),
                             c.median ? QStringLiteral(" data-value=\"%1\"").arg(fullPrecision(*c.median)) : QString(),
                             cell, c.median ? deltaClass(Better::Lower, *c.median, c.noise) : QString(), esc(detail));
        }
        html += QStringLiteral("</tr>\n");
    }
    return html + QStringLiteral("</tbody>\n</table>\n");
}

QString HtmlReport::chartsSection() const
{
    QString html = QStringLiteral("<h2 id=\"charts\">Charts</h2>\n");
    for (qsizetype i = 0; i < m_charts.size(); ++i) {
        html += QStringLiteral("<figure id=\"fig-%1\">\n%2<figcaption>%3</figcaption>\n</figure>\n")
                    .arg(esc(m_charts[i].id()), m_charts[i].toSvg(), esc(m_captions[i]));
    }
    return html;
}

QString HtmlReport::configurationSection() const
{
    // One row per setting, one column per run, so that what differs stands out.
    QStringList keys;
    std::vector<std::map<QString, QString>> values(m_runs.size());
    const auto add = [&](std::size_t run, const QString &key, const QString &value) {
        if (!keys.contains(key))
            keys << key;
        values[run][key] = value;
    };
    for (std::size_t i = 0; i < m_runs.size(); ++i) {
        const RunData &run = m_runs[i];
        if (run.hasInfo) {
            json config = tb::toJson(run.info.config);
            if (json &headers = config["target"]["headers"]; headers.is_object()) {
                for (auto it = headers.begin(); it != headers.end(); ++it) {
                    if (isSecretHeader(fromStd(it.key())))
                        *it = "(hidden)";
                }
            }
            // The configured stages read better as the one line of effective stages below.
            config["load"].erase("stages");
            for (const char *section : {"target", "request", "prompt", "load", "slo"}) {
                QList<std::pair<QString, QString>> lines;
                flatten(config[section], QLatin1String(section), lines);
                for (const auto &[key, value] : std::as_const(lines))
                    add(i, key, value);
            }
            add(i, QStringLiteral("stages (effective)"), formatStages(run.info.stages));
            add(i, QStringLiteral("host"), run.info.host);
            add(i, QStringLiteral("tool version"), run.info.toolVersion);
        }
        add(i, QStringLiteral("started"), run.summary.startedAt);
        add(i, QStringLiteral("directory"), QDir::toNativeSeparators(run.directory));
    }

    QString html = QStringLiteral("<h2 id=\"configuration\">Configuration</h2>\n<p class=\"note\">Each run's "
                                  "run.json. Settings that differ between the runs are highlighted. API keys are never "
                                  "stored; header values that look like credentials are hidden here.</p>\n"
                                  "<table class=\"config\">\n<thead><tr><th>setting</th>");
    for (qsizetype i = 0; i < m_table.labels().size(); ++i)
        html += QStringLiteral("<th style=\"border-top:4px solid %1\">#%2 %3</th>")
                    .arg(runColor(int(i)), QString::number(i + 1), esc(m_table.labels()[i]));
    html += QStringLiteral("</tr></thead>\n<tbody>\n");
    for (const QString &key : std::as_const(keys)) {
        QSet<QString> distinct;
        for (const auto &run : values)
            distinct.insert(run.count(key) ? run.at(key) : QStringLiteral("(none)"));
        const bool differs =
            distinct.size() > 1 && key != QLatin1String("directory") && key != QLatin1String("started");
        html += QStringLiteral("<tr data-key=\"%1\"%2><td>%1</td>")
                    .arg(esc(key), differs ? QStringLiteral(" class=\"differs\"") : QString());
        for (std::size_t i = 0; i < values.size(); ++i) {
            const auto it = values[i].find(key);
            html +=
                QStringLiteral("<td data-run=\"%1\">%2</td>")
                    .arg(QString::number(i + 1), it == values[i].end() ? QStringLiteral("(none)") : esc(it->second));
        }
        html += QStringLiteral("</tr>\n");
    }
    return html + QStringLiteral("</tbody>\n</table>\n");
}

QString HtmlReport::toHtml() const
{
    const QString generated = m_options.generatedAt.toString(QStringLiteral("yyyy-MM-dd HH:mm"));
    QString html;
    html +=
        QStringLiteral("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
                       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
                       "<meta name=\"generator\" content=\"TokenBench %1\"/>\n<title>%2</title>\n<style>%3</style>\n"
                       "</head>\n<body>\n<main>\n")
            .arg(esc(version()), esc(m_options.title), QLatin1String(kStyle));
    html +=
        QStringLiteral("<h1>%1</h1>\n<p class=\"meta\">%2 runs · baseline #%3 %4 · generated %5 by TokenBench %6</p>\n")
            .arg(esc(m_options.title), QString::number(m_runs.size()), QString::number(m_table.baseline() + 1),
                 esc(m_table.labels().value(m_table.baseline())), esc(generated), esc(version()));
    html += runsSection();
    html += warningsSection();
    html += tableSection();
    html += spreadSection();
    html += pairedSection();
    html += chartsSection();
    html += configurationSection();
    html += QStringLiteral("<footer>Made with TokenBench %1 (tokenbench-cli report). Metric definitions: TTFT = first "
                           "token − sent; E2E = last token − sent; TPOT = (last − first token) / (output tokens − 1); "
                           "ITL = gaps between streamed tokens, per token; goodput = requests meeting every SLO per "
                           "second.</footer>\n</main>\n</body>\n</html>\n")
                .arg(esc(version()));
    return html;
}

bool HtmlReport::write(const QString &path, QString *error) const
{
    QSaveFile file(path);
    const QByteArray bytes = toHtml().toUtf8();
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        *error = QStringLiteral("cannot write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString());
        return false;
    }
    return true;
}

} // namespace tb
