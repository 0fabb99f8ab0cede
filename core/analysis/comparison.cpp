#include "analysis/comparison.h"

#include "config/enumnames.h"
#include "formats/csv.h"
#include "formats/numberformat.h"
#include "metrics/bootstrap.h"
#include "metrics/exactpercentile.h"
#include "results/runmerge.h"

#include <QLocale>
#include <QSet>
#include <QUrl>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace tb {

namespace {

using Better = ComparisonTable::Better;
using Noise = ComparisonTable::Noise;

/// Too few requests make a bootstrap interval meaningless.
constexpr std::size_t kMinSamples = 10;
constexpr std::uint64_t kSeed = 0x7B5EED2024ULL;
/// Mean prompt sizes further apart than this make the runs' workloads different.
constexpr double kPromptSizeTolerance = 0.10;

/// Per-request values behind a row, for its noise test.
enum class Sample { None, Ttft, Ttfo, Tpot, Itl, E2e };

/// A row of the comparison: a catalogue metric (MetricCatalogue gives its label, unit, direction
/// and value) and how the comparison treats it.
struct RowSpec {
    const char *key;
    Sample sample = Sample::None;
    double q = -1;              ///< the row's statistic for the test: mean when < 0, else this quantile
    bool reasoningOnly = false; ///< shown only when a run reasoned (else it repeats another row, or is 0)
    bool omitWhenEmpty = false; ///< left out when no run has a value (else shown with none)
    bool failuresOnly = false;  ///< shown only when a run had failures (else it repeats another row)
    /// Which runs the row means something for: text generation (TTFT, ITL, output tokens: an
    /// embeddings run has none of them, and an empty row says nothing), or embeddings (inputs).
    bool generationOnly = false;
    bool embeddingsOnly = false;
};

const std::vector<RowSpec> &rowSpecs()
{
    static const std::vector<RowSpec> specs = {
        {"ttft_mean", Sample::Ttft, -1, false, false, false, true},
        {"ttft_p50", Sample::Ttft, 0.5, false, false, false, true},
        {"ttft_p99", Sample::Ttft, 0.99, false, false, false, true},
        {"ttfo_p50", Sample::Ttfo, 0.5, true},
        {"tpot_p50", Sample::Tpot, 0.5, false, false, false, true},
        {"itl_p50", Sample::Itl, 0.5, false, false, false, true},
        {"e2e_p50", Sample::E2e, 0.5},
        {"e2e_p99", Sample::E2e, 0.99},
        // Failures as +∞: beside the ordinary ones, whose runs had failures.
        {"ttft_error_adjusted_p99", Sample::None, -1, false, true, true},
        {"e2e_error_adjusted_p99", Sample::None, -1, false, true, true},
        // What users waited, a stalled connect included; in runs from before closed loops had it,
        // only open loops do.
        {"ttft_from_schedule_p99", Sample::None, -1, false, true},
        {"retries", Sample::None, -1, false, true},
        {"requests_per_s"},
        {"inputs_per_s", Sample::None, -1, false, false, false, false, true},
        {"input_tokens_per_s", Sample::None, -1, false, false, false, false, true},
        {"output_tokens_per_s", Sample::None, -1, false, false, false, true},
        {"out_in_ratio", Sample::None, -1, false, false, false, true},
        {"reasoning_per_request", Sample::None, -1, true},
        {"cache_hit_pct"},
        {"error_pct"},
        {"goodput_requests_per_s"},
        {"good_pct"},
        {"redundancy_mean_pct", Sample::None, -1, false, true},
        {"redundancy_p90_pct", Sample::None, -1, false, true},
        {"redundancy_above_pct", Sample::None, -1, false, true},
        {"valid_json_pct", Sample::None, -1, false, true},
        {"schema_valid_pct", Sample::None, -1, false, true},
        {"qualified_goodput_requests_per_s", Sample::None, -1, false, true},
        {"images_sent", Sample::None, -1, false, true},
        {"image_tokens_median", Sample::None, -1, false, true},
        {"image_tokens_mean", Sample::None, -1, false, true},
        {"tool_call_valid_pct", Sample::None, -1, false, true},
        {"first_tool_call_p50", Sample::None, -1, false, true},
        {"tool_qualified_goodput_requests_per_s", Sample::None, -1, false, true},
        {"tokens_in_flight_mean", Sample::None, -1, false, true},
        {"ttft_bimodal_pct", Sample::None, -1, false, true},
        {"itl_bimodal_pct", Sample::None, -1, false, true},
        {"server_ttft_p50", Sample::None, -1, false, true},
        {"server_ttft_p99", Sample::None, -1, false, true},
        {"server_running_mean", Sample::None, -1, false, true},
        {"server_waiting_mean", Sample::None, -1, false, true},
        {"server_kv_cache_peak_pct", Sample::None, -1, false, true},
        {"cost_per_1m_output_tokens", Sample::None, -1, false, true},
        {"cost_per_request", Sample::None, -1, false, true},
        {"cost_per_good_request", Sample::None, -1, false, true},
        {"cost_total", Sample::None, -1, false, true},
        {"gpu_joules_per_output_token", Sample::None, -1, false, true},
        {"gpu_joules_per_request", Sample::None, -1, false, true},
        {"gpu_power_mean", Sample::None, -1, false, true},
        {"gpu_util_mean", Sample::None, -1, false, true},
        {"gpu_energy_cost_per_1m_output_tokens", Sample::None, -1, false, true},
        {"context_fit_a", Sample::None, -1, false, true},
        {"context_fit_b", Sample::None, -1, false, true},
        {"context_fit_c", Sample::None, -1, false, true},
        {"context_fit_r2", Sample::None, -1, false, true},
        {"context_prefill_tokens_per_s", Sample::None, -1, false, true},
        {"context_fit_prefill_tokens_per_s", Sample::None, -1, false, true},
    };
    return specs;
}

/// One request's value of a sample; none for failed and warm-up requests.
std::optional<double> requestValue(const RunData &run, std::size_t i, Sample sample)
{
    const RequestRecord &r = run.records[i];
    if (r.warmup || !r.ok())
        return std::nullopt;
    switch (sample) {
    case Sample::None:
        break;
    case Sample::Ttft:
        return r.ttftMs();
    case Sample::Ttfo:
        return r.ttfoMs();
    case Sample::Tpot:
        return r.tpotMs();
    case Sample::Itl:
        return i < run.itlMeanMs.size() ? finiteOrNone(run.itlMeanMs[i]) : std::nullopt;
    case Sample::E2e:
        return r.e2eMs();
    }
    return std::nullopt;
}

std::vector<double> samples(const RunData &run, Sample sample)
{
    std::vector<double> values;
    for (std::size_t i = 0; i < run.records.size(); ++i) {
        if (const auto v = requestValue(run, i, sample))
            values.push_back(*v);
    }
    return values;
}

std::optional<double> meanPromptTokens(const SummaryBlock &b)
{
    return b.requests.ok > 0 ? std::optional<double>(double(b.tokens.input) / double(b.requests.ok)) : std::nullopt;
}

Noise verdict(const std::optional<Bootstrap::Interval> &interval)
{
    if (!interval)
        return Noise::NotTested;
    return interval->excludesZero() ? Noise::Significant : Noise::WithinNoise;
}

QString pad(const QString &text, int width, bool right = false)
{
    return right ? text.rightJustified(width) : text.leftJustified(width);
}

/// Lines of cells in columns two spaces apart: the first `textColumns` left-aligned (names), the
/// rest right-aligned so that digits line up.
QString alignColumns(const QList<QStringList> &cells, qsizetype textColumns)
{
    std::vector<int> widths;
    for (const QStringList &line : cells) {
        widths.resize(std::max(widths.size(), std::size_t(line.size())), 0);
        for (qsizetype c = 0; c < line.size(); ++c)
            widths[std::size_t(c)] = std::max(widths[std::size_t(c)], int(line[c].size()));
    }
    QString text;
    for (const QStringList &line : cells) {
        QString out;
        for (qsizetype c = 0; c < line.size(); ++c)
            out += pad(line[c], widths[std::size_t(c)], c >= textColumns) + QStringLiteral("  ");
        while (out.endsWith(QLatin1Char(' ')))
            out.chop(1);
        text += out + QLatin1Char('\n');
    }
    return text;
}

QString deltaText(const std::optional<double> &delta, Noise noise)
{
    if (!delta)
        return QStringLiteral("-");
    QString text = QString::asprintf("%+.1f%%", *delta);
    if (noise != Noise::NotTested)
        text += QLatin1Char(' ') + ComparisonTable::noiseName(noise);
    return text;
}

} // namespace

ComparisonTable::ComparisonTable(const std::vector<RunData> &runs, int baseline, const CancelToken &cancel)
    : m_baseline(std::clamp(baseline, 0, std::max(0, int(runs.size()) - 1)))
{
    const std::size_t n = runs.size();
    m_labels = runLabels(runs);
    for (std::size_t i = 0; i < n; ++i) {
        const QString &label = m_labels[qsizetype(i)];
        const RunSummary &s = runs[i].summary;
        m_runLines << QStringLiteral("#%1 %2%3: %4 @ %5 (%6), %7, %8 requests%9")
                          .arg(i + 1)
                          .arg(label, int(i) == m_baseline ? QStringLiteral(" (baseline)") : QString(), s.model,
                               s.targetReplicas.isEmpty() ? s.targetUrl
                                                          : QStringLiteral("%1 +%2 replicas, %3")
                                                                .arg(s.targetUrl)
                                                                .arg(s.targetReplicas.size())
                                                                .arg(s.balance),
                               // What carried it: runs over other transports or proxies differ for that too.
                               s.apiAndTransport(),
                               s.startedAt.isEmpty() ? QStringLiteral("start unknown") : s.startedAt)
                          .arg(s.total.requests.attempted)
                          .arg(runs[i].info.mergedFrom.isEmpty()
                                   ? QString()
                                   : QStringLiteral(", ") + RunMerger::mergedNote(runs[i].info.mergedFrom));
    }
    if (n == 0)
        return;
    const std::size_t base = std::size_t(m_baseline);
    for (std::size_t i = 0; i < n; ++i) {
        const QString who = QStringLiteral("#%1 %2").arg(i + 1).arg(m_labels[qsizetype(i)]);
        const SummaryBlock &t = runs[i].summary.total;
        if (const QString partial = runs[i].summary.partialNote(); !partial.isEmpty())
            m_notes << QStringLiteral("%1: %2").arg(who, partial);
        if (const std::int64_t capped = t.requests.stoppedAtCap(); capped > 0)
            m_notes << QStringLiteral("%1: %2 of %3 requests stopped at max_tokens (finish_reason length): out/in "
                                      "reflects the max_tokens cap")
                           .arg(who)
                           .arg(capped)
                           .arg(t.requests.ok);
        for (const QString &w : runs[i].summary.warnings)
            m_notes << QStringLiteral("%1: %2").arg(who, w);
        // Another tool's figures under our names: what it measured differently must be said beside them.
        if (const auto &imported = runs[i].summary.imported) {
            m_notes << QStringLiteral("%1: imported from %2%3")
                           .arg(who, imported->text(),
                                imported->perRequest
                                    ? QStringLiteral(": figures computed by TokenBench from its per-request values")
                                    : QStringLiteral(": the tool's summary only, point values (%1), no noise test")
                                          .arg(imported->pointValues.join(QStringLiteral(", "))));
            for (const QString &definition : imported->definitions)
                m_notes << QStringLiteral("%1: %2").arg(who, definition);
        }
        // Its figures are a window of it (--window): beside a whole run they answer another question.
        if (const auto &window = runs[i].summary.window)
            m_notes << QStringLiteral("%1: %2").arg(who, window->line());
    }
    // The same salt means the same prompts: what one run left in a server's prefix cache, the
    // other may be served from. The parts of one run (its instances, its models) are one run.
    std::map<QString, QStringList> bySalt;
    std::map<QString, QSet<QString>> runsBySalt;
    for (std::size_t i = 0; i < n; ++i) {
        if (runs[i].hasInfo && !runs[i].info.config.prompt.salt.isEmpty()) {
            const QString &salt = runs[i].info.config.prompt.salt;
            bySalt[salt] << QStringLiteral("#%1 %2").arg(i + 1).arg(m_labels[qsizetype(i)]);
            runsBySalt[salt] << (runs[i].directory.isEmpty() ? QStringLiteral("#%1").arg(i) : runs[i].directory);
        }
    }
    for (const auto &[salt, who] : bySalt) {
        if (runsBySalt[salt].size() > 1)
            m_notes << QStringLiteral("%1 share prompt salt %2 (the same prompts): against one server their cache hits "
                                      "are not independent, as a later run may be served from an earlier one's cache")
                           .arg(who.join(QStringLiteral(", ")), salt);
    }

    addIoNote(runs);

    const bool reasoned = std::any_of(runs.begin(), runs.end(),
                                      [](const RunData &run) { return run.summary.total.tokens.reasoning > 0; });
    const bool failed =
        std::any_of(runs.begin(), runs.end(), [](const RunData &run) { return run.summary.total.requests.failed > 0; });
    const auto embeds = [](const RunData &run) { return !apiGenerates(run.summary.api); };
    const bool generated = !std::all_of(runs.begin(), runs.end(), embeds);
    const bool embedded = std::any_of(runs.begin(), runs.end(), embeds);
    const std::vector<RowSpec> &specs = rowSpecs();
    for (std::size_t r = 0; r < specs.size(); ++r) {
        const RowSpec &spec = specs[r];
        if (cancel.isCancelled())
            return;
        if ((spec.reasoningOnly && !reasoned) || (spec.failuresOnly && !failed) ||
            (spec.generationOnly && !generated) || (spec.embeddingsOnly && !embedded))
            continue;
        const MetricCatalogue::Entry &metric = *MetricCatalogue::find(QLatin1String(spec.key));
        Row row;
        row.key = metric.key;
        row.label = metric.label;
        row.unit = metric.unit;
        row.better = metric.better;
        row.headline = isHeadline(row.key);
        for (const RunData &run : runs)
            row.values.push_back(metric.of(run.summary));
        if (spec.omitWhenEmpty &&
            std::none_of(row.values.begin(), row.values.end(), [](const auto &v) { return v.has_value(); }))
            continue;

        std::optional<double> best;
        for (const auto &v : row.values) {
            if (v && row.better != Better::Neither)
                best = !best ? *v : row.better == Better::Lower ? std::min(*best, *v) : std::max(*best, *v);
        }
        const std::vector<double> baseSample = samples(runs[base], spec.sample);
        for (std::size_t i = 0; i < n; ++i) {
            const auto &v = row.values[i];
            const auto &b = row.values[base];
            row.best.push_back(best && v && *v == *best);
            row.deltaPct.push_back(
                i != base && v && b && *b != 0 ? std::optional<double>((*v - *b) / std::abs(*b) * 100) : std::nullopt);
            std::optional<Bootstrap::Interval> interval;
            if (i != base && spec.sample != Sample::None) {
                std::vector<double> sample = samples(runs[i], spec.sample);
                if (baseSample.size() >= kMinSamples && sample.size() >= kMinSamples)
                    interval = Bootstrap::difference(baseSample, std::move(sample), spec.q, kSeed + r * 1000 + i);
            }
            row.noise.push_back(verdict(interval));
            row.intervals.push_back(interval);
        }
        m_rows.push_back(std::move(row));
    }

    const RunData &baseRun = runs[base];
    for (std::size_t i = 0; i < n; ++i) {
        if (i == base)
            continue;
        const RunData &run = runs[i];
        const QString who = QStringLiteral("#%1 %2").arg(i + 1).arg(m_labels[qsizetype(i)]);
        if (!run.hasInfo || !baseRun.hasInfo) {
            m_warnings << QStringLiteral("%1: no run.json to compare the workload with the baseline's").arg(who);
            continue;
        }
        const RunConfig &c = run.info.config;
        const RunConfig &bc = baseRun.info.config;
        const auto differ = [&](const QString &what, const QString &mine, const QString &theirs) {
            if (mine != theirs)
                m_warnings << QStringLiteral("%1: %2 %3, baseline %4").arg(who, what, mine, theirs);
        };
        differ(QStringLiteral("api"), apiKindName(c.target.api), apiKindName(bc.target.api));
        differ(QStringLiteral("stream"), c.request.stream ? QStringLiteral("on") : QStringLiteral("off"),
               bc.request.stream ? QStringLiteral("on") : QStringLiteral("off"));
        differ(QStringLiteral("max_tokens"), QString::number(c.request.maxTokens),
               QString::number(bc.request.maxTokens));
        differ(QStringLiteral("prompt"), run.info.promptText(), baseRun.info.promptText());
        if (c.prompt.promptFile.isEmpty() && c.prompt.promptTokens <= 0 && bc.prompt.promptFile.isEmpty() &&
            bc.prompt.promptTokens <= 0 &&
            (c.prompt.systemTemplate != bc.prompt.systemTemplate || c.prompt.userTemplate != bc.prompt.userTemplate ||
             c.prompt.variables != bc.prompt.variables))
            m_warnings << QStringLiteral("%1: prompt templates differ from the baseline's").arg(who);
        differ(QStringLiteral("load"), run.info.loadText(), baseRun.info.loadText());
        const auto mine = meanPromptTokens(run.summary.total);
        const auto theirs = meanPromptTokens(baseRun.summary.total);
        if (mine && theirs && *theirs > 0 && std::abs(*mine / *theirs - 1) > kPromptSizeTolerance)
            m_warnings << QStringLiteral("%1: measured prompts average %2 tokens, baseline %3")
                              .arg(who, QString::number(*mine, 'f', 0), QString::number(*theirs, 'f', 0));
    }
}

QString instanceName(const QString &url)
{
    const QUrl parsed(url);
    return parsed.isValid() && !parsed.host().isEmpty() ? parsed.authority() + parsed.path() : url;
}

namespace {

/// The server block of one instance: its own endpoint's, none when its metrics came from no
/// endpoint of its own (a gateway's given for all of them).
std::optional<ServerSummary> instanceServer(const std::optional<ServerSummary> &server, const QString &url)
{
    if (!server)
        return std::nullopt;
    if (server->instance == url)
        return server;
    for (const ServerSummary &one : server->instances) {
        if (one.instance == url)
            return one;
    }
    return std::nullopt;
}

/// The part of `run` whose requests have `index` in `part` (an instance's, a stage's), named `name`
/// with `block` as its total: its records and their ITL means. What describes the whole run (its
/// stages and instances, the context sweep fitted over all its requests) is left out.
RunData partOf(const RunData &run, const QString &name, const SummaryBlock &block, int RequestRecord::*part, int index)
{
    RunData d;
    d.directory = run.directory;
    d.name = name;
    d.info = run.info;
    d.hasInfo = run.hasInfo;
    d.summary = run.summary;
    d.summary.total = block;
    d.summary.total.name.clear();
    d.summary.stages.clear();
    d.summary.instances.clear();
    d.summary.models.clear();
    d.summary.contextSweep.reset();
    for (std::size_t r = 0; r < run.records.size(); ++r) {
        if (run.records[r].*part != index)
            continue;
        d.records.push_back(run.records[r]);
        if (r < run.itlMeanMs.size())
            d.itlMeanMs.push_back(run.itlMeanMs[r]);
    }
    return d;
}

} // namespace

std::vector<RunData> splitByInstance(const RunData &run)
{
    std::vector<RunData> instances;
    const RunSummary &summary = run.summary;
    for (std::size_t i = 0; i < summary.instances.size(); ++i) {
        const QString url = summary.instances[i].name; // an instance block is named after its URL
        RunData &d = instances.emplace_back(
            partOf(run, instanceName(url), summary.instances[i], &RequestRecord::instance, int(i)));
        d.info.config.target.url = url;
        d.info.config.target.replicas.clear();
        d.summary.targetUrl = url;
        d.summary.targetReplicas.clear();
        d.summary.balance.clear();
        d.summary.server = instanceServer(summary.server, url);
    }
    return instances;
}

std::vector<RunData> splitByModel(const RunData &run)
{
    std::vector<RunData> models;
    const RunSummary &summary = run.summary;
    for (std::size_t i = 0; i < summary.models.size(); ++i) {
        const QString model = summary.models[i].name; // a model's block is named after it
        RunData &d = models.emplace_back(partOf(run, model, summary.models[i], &RequestRecord::model, int(i)));
        d.info.config.target.model = model;
        d.info.models = {model};
        d.summary.model = model;
    }
    return models;
}

std::vector<RunData> splitByStage(const RunData &run)
{
    std::vector<RunData> stages;
    const RunSummary &summary = run.summary;
    if (summary.stages.size() < 2)
        return stages;
    for (std::size_t i = 0; i < summary.stages.size(); ++i) {
        RunData &d = stages.emplace_back(
            partOf(run, summary.stages[i].label(), summary.stages[i], &RequestRecord::stage, int(i)));
        d.summary.server.reset(); // scraped over the whole run, not per stage
        for (const TimeSeriesRow &row : run.timeSeries) {
            if (row.stage == int(i))
                d.timeSeries.push_back(row);
        }
    }
    return stages;
}

bool expandSingleRunInstances(std::vector<RunData> &runs)
{
    if (runs.size() != 1)
        return false;
    std::vector<RunData> instances = splitByInstance(runs.front());
    if (instances.empty())
        return false;
    runs = std::move(instances);
    return true;
}

bool expandSingleRunModels(std::vector<RunData> &runs)
{
    if (runs.size() != 1)
        return false;
    std::vector<RunData> models = splitByModel(runs.front());
    if (models.empty())
        return false;
    runs = std::move(models);
    return true;
}

std::vector<CurvePoint> throughputLatencyCurve(const RunSummary &summary, Metric metric)
{
    std::vector<CurvePoint> curve;
    // A context sweep holds the load: its curve is TTFT against prompt tokens, not throughput.
    if (summary.stages.size() < 2 || summary.contextSweep)
        return curve;
    for (const SummaryBlock &stage : summary.stages) {
        const LatencyStats &s = stage.stat(metric);
        if (s.count == 0 || !std::isfinite(s.p50) || stage.stopped)
            continue;
        curve.push_back({stage.name, stage.throughput.requestsPerS, s.p50, s.p99});
    }
    return curve;
}

std::optional<Knee> findKnee(const std::vector<CurvePoint> &curve, const QString &metricLabel)
{
    if (curve.size() < 2)
        return std::nullopt;
    Knee knee;
    for (std::size_t i = 1; i < curve.size(); ++i) {
        if (curve[i].requestsPerS >= curve[knee.point].requestsPerS * (1 + Knee::kKneeGain))
            knee.point = i;
    }
    // Every stage after the knee fell short of it (a dip before it was noise, not saturation).
    knee.saturated = knee.point + 1 < curve.size();
    const CurvePoint &k = curve[knee.point];
    const auto change = [](double now, double before) {
        return before > 0 ? ComparisonTable::formatChange((now / before - 1) * 100) : QStringLiteral("—");
    };
    if (knee.saturated) {
        const CurvePoint &next = curve[knee.point + 1];
        knee.text = QStringLiteral("knee at %1: %2 req/s, %3 p99 %4 ms; %5 adds %6 req/s for %7 p99")
                        .arg(k.stage, ComparisonTable::formatValue(k.requestsPerS), metricLabel,
                             ComparisonTable::formatValue(k.p99), next.stage, change(next.requestsPerS, k.requestsPerS),
                             change(next.p99, k.p99));
    } else {
        const CurvePoint &before = curve[curve.size() - 2];
        knee.text = QStringLiteral("no knee up to %1: throughput still rose %2 over %3 (%4 p99 %5); sweep higher")
                        .arg(k.stage, change(k.requestsPerS, before.requestsPerS), before.stage, metricLabel,
                             change(k.p99, before.p99));
    }
    return knee;
}

Metric kneeMetric(const RunSummary &summary)
{
    return summary.total.stat(Metric::Ttft).count > 0 ? Metric::Ttft : Metric::E2e;
}

QString leftOutOfCurve(const RunSummary &summary)
{
    QStringList leftOut;
    if (summary.stages.size() >= 2 && !summary.contextSweep) {
        for (const SummaryBlock &stage : summary.stages) {
            if (stage.stopped && stage.requests.ok > 0)
                leftOut << QStringLiteral("%1 left out: %2").arg(stage.name, stage.partialNote());
        }
    }
    return leftOut.join(QStringLiteral("; "));
}

std::optional<Knee> findKnee(const RunSummary &summary)
{
    const Metric metric = kneeMetric(summary);
    auto knee = findKnee(throughputLatencyCurve(summary, metric), metricLabel(metric));
    if (const QString leftOut = leftOutOfCurve(summary); knee && !leftOut.isEmpty())
        knee->text += QStringLiteral(" (%1)").arg(leftOut);
    return knee;
}

QStringList ComparisonTable::runLabels(const std::vector<RunData> &runs)
{
    QStringList labels;
    QSet<QString> seen;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        QString label = runs[i].label();
        if (seen.contains(label))
            label += QStringLiteral(" (#%1)").arg(i + 1);
        seen.insert(label);
        labels << label;
    }
    return labels;
}

QString ComparisonTable::formatValue(double v, const QString &unit)
{
    if (MetricCatalogue::isWholeCount(v, unit))
        return QString::number(qint64(v));
    return formatNumber(v, 4, 6);
}

QString ComparisonTable::formatChange(double value, const QString &suffix)
{
    QString text = QString::asprintf("%+.1f", value) + suffix;
    if (text.startsWith(QLatin1Char('-')))
        text.replace(0, 1, QChar(0x2212));
    return text;
}

QString ComparisonTable::noiseName(Noise noise)
{
    switch (noise) {
    case Noise::NotTested:
        break;
    case Noise::WithinNoise:
        return QStringLiteral("within noise");
    case Noise::Significant:
        return QStringLiteral("significant");
    }
    return {};
}

bool ComparisonTable::isHeadline(const QString &key)
{
    // Cost per million output tokens compares runs of different lengths and token counts alike.
    static const QStringList keys = {QStringLiteral("ttft_p50"),       QStringLiteral("output_tokens_per_s"),
                                     QStringLiteral("requests_per_s"), QStringLiteral("out_in_ratio"),
                                     QStringLiteral("error_pct"),      QStringLiteral("cost_per_1m_output_tokens")};
    return keys.contains(key);
}

namespace {

constexpr EnumName<Better> kBetterNames[] = {
    {Better::Lower, "lower"},
    {Better::Higher, "higher"},
    {Better::Neither, ""},
};

} // namespace

QString ComparisonTable::betterName(Better better)
{
    return enumName(kBetterNames, better);
}

void ComparisonTable::addIoNote(const std::vector<RunData> &runs)
{
    // A chunk time the kernel stamped is when the bytes reached the socket; one taken when this
    // process read them is later by however long the reading thread was busy. Runs measured both
    // ways (or on different backends) say which is which.
    QStringList late;
    QStringList stamped;
    QStringList unknown;
    QSet<QString> backends;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const IoInfo &io = runs[i].io();
        const QString who = QStringLiteral("#%1 %2").arg(i + 1).arg(m_labels[qsizetype(i)]);
        if (!io.recorded()) {
            unknown << who;
            continue;
        }
        backends.insert(io.backend);
        (io.kernelReceiveStamps ? stamped : late) << QStringLiteral("%1 (%2)").arg(who, io.backend);
    }
    if (backends.size() < 2 && (late.isEmpty() || stamped.isEmpty()))
        return;
    QStringList parts;
    if (!late.isEmpty())
        parts << QStringLiteral("the chunk times of %1 include the client's own read delay (stamped when this process "
                                "read the bytes, not when they reached the socket)")
                     .arg(late.join(QStringLiteral(", ")));
    if (!stamped.isEmpty())
        parts << QStringLiteral("%1 used kernel receive stamps").arg(stamped.join(QStringLiteral(", ")));
    QString note = QStringLiteral("I/O backends differ: ") + parts.join(QStringLiteral("; "));
    if (!late.isEmpty() && !stamped.isEmpty())
        note += QStringLiteral(": part of their TTFT, ITL and TPOT differences may be the client's, not the targets'");
    if (!unknown.isEmpty())
        note += QStringLiteral("; not recorded for %1").arg(unknown.join(QStringLiteral(", ")));
    m_notes << note;
}

QString ComparisonTable::toText() const
{
    // Cells first, then widths, then lines.
    QList<QStringList> cells;
    QStringList header{QStringLiteral("metric"), QStringLiteral("unit"), QStringLiteral("better")};
    for (qsizetype i = 0; i < m_labels.size(); ++i) {
        header << QStringLiteral("#%1").arg(i + 1);
        if (int(i) != m_baseline)
            header << QStringLiteral("vs #%1").arg(m_baseline + 1);
    }
    cells << header;
    for (const Row &row : m_rows) {
        QStringList line{row.label, row.unit, betterName(row.better)};
        for (std::size_t i = 0; i < row.values.size(); ++i) {
            const QString value = row.values[i] ? formatValue(*row.values[i], row.unit) : QStringLiteral("-");
            line << value + (row.best[i] ? QStringLiteral(" *") : QString());
            if (int(i) != m_baseline)
                line << deltaText(row.deltaPct[i], row.noise[i]);
        }
        cells << line;
    }
    QString text = QStringLiteral("Runs:\n");
    for (const QString &line : m_runLines)
        text += QStringLiteral("  ") + line + QLatin1Char('\n');
    text += QLatin1Char('\n') + alignColumns(cells, 3);
    if (!m_warnings.isEmpty()) {
        text += QStringLiteral("\nWorkload differences (these runs measured different things):\n");
        for (const QString &w : m_warnings)
            text += QStringLiteral("  ") + w + QLatin1Char('\n');
    }
    if (!m_notes.isEmpty()) {
        text += QStringLiteral("\nNotes on the figures:\n");
        for (const QString &note : m_notes)
            text += QStringLiteral("  ") + note + QLatin1Char('\n');
    }
    text +=
        QStringLiteral("\n* best value. vs #%1: change against the baseline; significant / within noise: whether the "
                       "bootstrap 95% confidence interval of the difference (per-request values) excludes 0.\n")
            .arg(m_baseline + 1);
    return text;
}

QByteArray ComparisonTable::toCsv() const
{
    std::string out;
    std::vector<std::string> fields{"metric", "unit", "better", "best"};
    for (const QString &label : m_labels)
        fields.push_back(label.toStdString());
    for (qsizetype i = 0; i < m_labels.size(); ++i) {
        if (int(i) != m_baseline) {
            fields.push_back((m_labels[i] + QStringLiteral(" delta %")).toStdString());
            fields.push_back((m_labels[i] + QStringLiteral(" noise")).toStdString());
        }
    }
    appendCsvRecord(out, fields);
    const auto number = [](const std::optional<double> &v) {
        return v ? QByteArray::number(*v, 'g', QLocale::FloatingPointShortest).toStdString() : std::string();
    };
    for (const Row &row : m_rows) {
        QStringList best;
        for (std::size_t i = 0; i < row.best.size(); ++i) {
            if (row.best[i])
                best << m_labels[qsizetype(i)];
        }
        fields = {row.key.toStdString(), row.unit.toStdString(), betterName(row.better).toStdString(),
                  best.join(QLatin1Char(';')).toStdString()};
        for (const auto &v : row.values)
            fields.push_back(number(v));
        for (std::size_t i = 0; i < row.values.size(); ++i) {
            if (int(i) != m_baseline) {
                fields.push_back(number(row.deltaPct[i]));
                fields.push_back(noiseName(row.noise[i]).toStdString());
            }
        }
        appendCsvRecord(out, fields);
    }
    return QByteArray::fromStdString(out);
}

namespace {

/// The median the comparison's quantile rows use (LogHistogram's, exact).
std::optional<double> median(std::vector<double> values)
{
    if (values.empty())
        return std::nullopt;
    return exactPercentile(values, 0.5);
}

struct PairedSpec {
    const char *key;
    const char *label;
    Sample sample;
};

constexpr PairedSpec kPairedSpecs[] = {
    {"ttft", "TTFT", Sample::Ttft},
    {"tpot", "TPOT", Sample::Tpot},
    {"itl", "ITL (request mean)", Sample::Itl},
    {"e2e", "E2E", Sample::E2e},
};

} // namespace

PairedComparison::PairedComparison(const std::vector<RunData> &runs, int baseline)
    : m_labels(ComparisonTable::runLabels(runs))
    , m_baseline(std::clamp(baseline, 0, std::max(0, int(runs.size()) - 1)))
{
    if (runs.empty())
        return;
    const std::size_t base = std::size_t(m_baseline);
    const RunData &baseRun = runs[base];
    std::unordered_map<std::uint64_t, std::size_t> baseIndex;
    for (std::size_t j = 0; j < baseRun.records.size(); ++j)
        baseIndex.emplace(baseRun.records[j].id, j);

    for (std::size_t r = 0; r < std::size(kPairedSpecs); ++r) {
        const PairedSpec &spec = kPairedSpecs[r];
        Row row{QLatin1String(spec.key), QLatin1String(spec.label), QStringLiteral("ms"), {}};
        const std::optional<double> baseMedian = median(samples(baseRun, spec.sample));
        for (std::size_t i = 0; i < runs.size(); ++i) {
            Cell cell;
            if (i != base) {
                std::vector<double> differences;
                for (std::size_t j = 0; j < runs[i].records.size(); ++j) {
                    const auto value = requestValue(runs[i], j, spec.sample);
                    const auto match = baseIndex.find(runs[i].records[j].id);
                    if (!value || match == baseIndex.end())
                        continue;
                    if (const auto b = requestValue(baseRun, match->second, spec.sample))
                        differences.push_back(*value - *b);
                }
                cell.pairs = differences.size();
                cell.median = median(differences);
                if (cell.median && baseMedian && *baseMedian != 0)
                    cell.medianPct = *cell.median / std::abs(*baseMedian) * 100;
                if (differences.size() >= kMinSamples) {
                    // Against a one-value sample {0}, Bootstrap's two-sample interval is the
                    // interval of the differences' own median: the one-sample test pairing needs.
                    cell.interval =
                        Bootstrap::difference({0.0}, std::move(differences), 0.5, kSeed + 0x9A1Du + r * 1000 + i);
                    cell.noise = verdict(cell.interval);
                }
            }
            row.cells.push_back(cell);
        }
        m_rows.push_back(std::move(row));
    }
}

bool PairedComparison::hasPairs() const
{
    return std::any_of(m_rows.begin(), m_rows.end(), [](const Row &row) {
        return std::any_of(row.cells.begin(), row.cells.end(), [](const Cell &c) { return c.pairs > 0; });
    });
}

QString PairedComparison::toText() const
{
    QList<QStringList> cells;
    QStringList header{QStringLiteral("metric"), QStringLiteral("unit")};
    for (qsizetype i = 0; i < m_labels.size(); ++i) {
        if (int(i) != m_baseline)
            header << QStringLiteral("#%1 - #%2").arg(i + 1).arg(m_baseline + 1) << QStringLiteral("95% CI")
                   << QStringLiteral("pairs");
    }
    cells << header;
    for (const Row &row : m_rows) {
        QStringList line{row.label, row.unit};
        for (std::size_t i = 0; i < row.cells.size(); ++i) {
            if (int(i) == m_baseline)
                continue;
            const Cell &c = row.cells[i];
            QString median = c.median ? ComparisonTable::formatValue(*c.median) : QStringLiteral("-");
            if (c.medianPct)
                median += QString::asprintf(" (%+.1f%%)", *c.medianPct);
            line << median
                 << (c.interval
                         ? QStringLiteral("[%1, %2] %3")
                               .arg(ComparisonTable::formatValue(c.interval->low),
                                    ComparisonTable::formatValue(c.interval->high), ComparisonTable::noiseName(c.noise))
                         : QStringLiteral("-"))
                 << QString::number(c.pairs);
        }
        cells << line;
    }
    return QStringLiteral("Paired per-request differences against #%1 %2 (interleaved: each request went to every "
                          "target at once):\n")
               .arg(m_baseline + 1)
               .arg(m_labels.value(m_baseline)) +
           alignColumns(cells, 2) +
           QStringLiteral("\nEach cell: the median over requests of (run - baseline) for the same request id, with "
                          "its bootstrap 95% confidence interval; significant when the interval excludes 0.\n");
}

} // namespace tb
