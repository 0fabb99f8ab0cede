#include "metrics/servermetrics.h"

#include "formats/csv.h"

#include <QByteArray>

#include <algorithm>
#include <array>
#include <map>
#include <string_view>
#include <unordered_map>

namespace tb {

namespace {

using json = nlohmann::json;

enum class Field {
    Running,
    Waiting,
    KvCache,
    PromptTokens,
    GenerationTokens,
    PrefixQueries,
    PrefixHits,
    PrefixHitRate,
    Ttft,
    Itl,
    E2e
};
constexpr std::size_t kFieldCount = 11;

struct Known {
    Field field;
    int priority; ///< lower wins when a server exposes two names for one series
};

/// Sample names (histograms: their family name) of the servers TokenBench knows.
const std::unordered_map<std::string_view, Known> &knownNames()
{
    static const std::unordered_map<std::string_view, Known> names{
        // vLLM (v1 names first; v0 and older v1 names as fallbacks)
        {"vllm:num_requests_running", {Field::Running, 0}},
        {"vllm:num_requests_waiting", {Field::Waiting, 0}},
        {"vllm:kv_cache_usage_perc", {Field::KvCache, 0}},
        {"vllm:gpu_cache_usage_perc", {Field::KvCache, 1}},
        {"vllm:prompt_tokens_total", {Field::PromptTokens, 0}},
        {"vllm:generation_tokens_total", {Field::GenerationTokens, 0}},
        {"vllm:prefix_cache_queries_total", {Field::PrefixQueries, 0}},
        {"vllm:prefix_cache_hits_total", {Field::PrefixHits, 0}},
        {"vllm:gpu_prefix_cache_queries_total", {Field::PrefixQueries, 1}},
        {"vllm:gpu_prefix_cache_hits_total", {Field::PrefixHits, 1}},
        {"vllm:gpu_prefix_cache_hit_rate", {Field::PrefixHitRate, 0}},
        {"vllm:time_to_first_token_seconds", {Field::Ttft, 0}},
        {"vllm:inter_token_latency_seconds", {Field::Itl, 0}},
        {"vllm:time_per_output_token_seconds", {Field::Itl, 1}},
        {"vllm:e2e_request_latency_seconds", {Field::E2e, 0}},
        // SGLang
        {"sglang:num_running_reqs", {Field::Running, 0}},
        {"sglang:num_queue_reqs", {Field::Waiting, 0}},
        {"sglang:token_usage", {Field::KvCache, 0}},
        {"sglang:prompt_tokens_total", {Field::PromptTokens, 0}},
        {"sglang:generation_tokens_total", {Field::GenerationTokens, 0}},
        {"sglang:cached_tokens_total", {Field::PrefixHits, 0}},
        {"sglang:cache_hit_rate", {Field::PrefixHitRate, 0}},
        {"sglang:time_to_first_token_seconds", {Field::Ttft, 0}},
        {"sglang:inter_token_latency_seconds", {Field::Itl, 0}},
        {"sglang:time_per_output_token_seconds", {Field::Itl, 1}},
        {"sglang:e2e_request_latency_seconds", {Field::E2e, 0}},
        // Text Generation Inference: token counts are the sums of its length histograms
        {"tgi_batch_current_size", {Field::Running, 0}},
        {"tgi_queue_size", {Field::Waiting, 0}},
        {"tgi_request_input_length_sum", {Field::PromptTokens, 0}},
        {"tgi_request_generated_tokens_sum", {Field::GenerationTokens, 0}},
        {"tgi_request_mean_time_per_token_duration", {Field::Itl, 0}},
        {"tgi_request_duration", {Field::E2e, 0}},
        // llama.cpp server
        {"llamacpp:requests_processing", {Field::Running, 0}},
        {"llamacpp:requests_deferred", {Field::Waiting, 0}},
        {"llamacpp:kv_cache_usage_ratio", {Field::KvCache, 0}},
        {"llamacpp:prompt_tokens_total", {Field::PromptTokens, 0}},
        {"llamacpp:tokens_predicted_total", {Field::GenerationTokens, 0}},
    };
    return names;
}

bool isHistogramField(Field f)
{
    return f == Field::Ttft || f == Field::Itl || f == Field::E2e;
}

struct HistogramBuilder {
    std::map<double, double> byBound; ///< le → cumulative count, summed over label sets
    double sum = 0;

    CumulativeHistogram build() const
    {
        CumulativeHistogram h;
        const auto inf = byBound.find(std::numeric_limits<double>::infinity());
        if (inf == byBound.end())
            return h; // no +Inf bucket: not a usable histogram
        for (const auto &[le, count] : byBound) {
            if (std::isinf(le))
                continue;
            h.bounds.push_back(le);
            h.counts.push_back(count);
        }
        h.counts.push_back(inf->second);
        h.sum = sum;
        return h;
    }
};

double deltaCount(double later, double earlier)
{
    return later >= earlier ? later - earlier : later; // a reset restarts from zero
}

json optionalJson(const std::optional<double> &v)
{
    return v && std::isfinite(*v) ? json(*v) : json();
}

std::optional<double> optionalFrom(const json &j, const char *key)
{
    if (!j.is_object() || !j.contains(key) || !j[key].is_number())
        return std::nullopt;
    return j[key].get<double>();
}

json latencyJson(const ServerLatency &l)
{
    return {{"count", l.count},
            {"mean", optionalJson(l.mean)},
            {"p50", optionalJson(l.p50)},
            {"p90", optionalJson(l.p90)},
            {"p99", optionalJson(l.p99)}};
}

ServerLatency latencyFrom(const json &j)
{
    ServerLatency l;
    if (!j.is_object())
        return l;
    l.count = optionalFrom(j, "count").value_or(0);
    l.mean = optionalFrom(j, "mean");
    l.p50 = optionalFrom(j, "p50");
    l.p90 = optionalFrom(j, "p90");
    l.p99 = optionalFrom(j, "p99");
    return l;
}

ServerLatency latencyOver(const CumulativeHistogram &later, const CumulativeHistogram *earlier)
{
    ServerLatency l;
    if (later.isEmpty())
        return l;
    const bool reset = earlier && later.count() < earlier->count();
    const CumulativeHistogram *base = reset || (earlier && earlier->isEmpty()) ? nullptr : earlier;
    l.count = later.count() - (base ? base->count() : 0);
    if (l.count <= 0)
        return l;
    l.mean = (later.sum - (base ? base->sum : 0)) / l.count * 1000.0;
    const auto ms = [](std::optional<double> s) { return s ? std::optional<double>(*s * 1000.0) : std::nullopt; };
    l.p50 = ms(histogramQuantile(later, base, 0.5));
    l.p90 = ms(histogramQuantile(later, base, 0.9));
    l.p99 = ms(histogramQuantile(later, base, 0.99));
    return l;
}

} // namespace

std::optional<double> histogramQuantile(const CumulativeHistogram &later, const CumulativeHistogram *earlier, double q)
{
    if (later.isEmpty())
        return std::nullopt;
    const bool usable =
        earlier && !earlier->isEmpty() && earlier->bounds == later.bounds && later.count() >= earlier->count();
    std::vector<double> counts(later.counts.size());
    for (std::size_t i = 0; i < counts.size(); ++i)
        counts[i] = usable ? deltaCount(later.counts[i], earlier->counts[i]) : later.counts[i];
    const double total = counts.back();
    if (total <= 0)
        return std::nullopt;
    const double rank = std::clamp(q, 0.0, 1.0) * total;
    for (std::size_t i = 0; i < later.bounds.size(); ++i) {
        if (counts[i] >= rank && counts[i] > 0) {
            const double lower = i == 0 ? std::min(0.0, later.bounds[0]) : later.bounds[i - 1];
            const double below = i == 0 ? 0 : counts[i - 1];
            const double inBucket = counts[i] - below;
            if (inBucket <= 0)
                return later.bounds[i];
            return lower + (later.bounds[i] - lower) * (rank - below) / inBucket;
        }
    }
    return later.bounds.empty() ? std::nullopt : std::optional<double>(later.bounds.back());
}

QString detectServerEngine(const PromExposition &exposition)
{
    static constexpr std::pair<std::string_view, const char *> kPrefixes[] = {
        {"vllm:", "vllm"}, {"sglang:", "sglang"}, {"tgi_", "tgi"}, {"llamacpp:", "llamacpp"}};
    for (const PromSample &s : exposition.samples) {
        for (const auto &[prefix, engine] : kPrefixes) {
            if (std::string_view(s.name).starts_with(prefix))
                return QLatin1String(engine);
        }
    }
    return QStringLiteral("unknown");
}

ServerPoint mapServerMetrics(const PromExposition &exposition, double tS)
{
    ServerPoint p;
    p.tS = tS;
    std::array<int, kFieldCount> best;
    best.fill(std::numeric_limits<int>::max());
    std::array<std::optional<double>, kFieldCount> scalar;
    std::array<HistogramBuilder, kFieldCount> histograms;
    const auto &names = knownNames();
    const auto take = [&](Field field, int priority) -> bool {
        const auto i = std::size_t(field);
        if (priority > best[i])
            return false;
        if (priority < best[i]) {
            best[i] = priority;
            scalar[i].reset();
            histograms[i] = {};
        }
        return true;
    };
    for (const PromSample &s : exposition.samples) {
        if (!std::isfinite(s.value) && !(std::isinf(s.value) && s.value > 0))
            continue;
        const std::string_view name(s.name);
        if (const auto it = names.find(name); it != names.end() && !isHistogramField(it->second.field)) {
            if (!std::isfinite(s.value) || !take(it->second.field, it->second.priority))
                continue;
            auto &v = scalar[std::size_t(it->second.field)];
            if (it->second.field == Field::KvCache)
                v = std::max(v.value_or(0.0), s.value);
            else
                v = v.value_or(0.0) + s.value;
            continue;
        }
        for (std::string_view suffix : {std::string_view("_bucket"), std::string_view("_sum")}) {
            if (!name.ends_with(suffix))
                continue;
            const auto it = names.find(name.substr(0, name.size() - suffix.size()));
            if (it == names.end() || !isHistogramField(it->second.field) ||
                !take(it->second.field, it->second.priority))
                break;
            HistogramBuilder &h = histograms[std::size_t(it->second.field)];
            if (suffix == "_sum") {
                h.sum += s.value;
            } else if (const std::string *le = s.label("le")) {
                bool ok = false;
                const double bound = QByteArray::fromStdString(*le).toDouble(&ok);
                const double parsed =
                    ok ? bound : (*le == "+Inf" ? std::numeric_limits<double>::infinity() : std::nan(""));
                if (!std::isnan(parsed))
                    h.byBound[parsed] += s.value;
            }
            break;
        }
    }
    p.running = scalar[std::size_t(Field::Running)];
    p.waiting = scalar[std::size_t(Field::Waiting)];
    p.kvCacheFraction = scalar[std::size_t(Field::KvCache)];
    p.promptTokens = scalar[std::size_t(Field::PromptTokens)];
    p.generationTokens = scalar[std::size_t(Field::GenerationTokens)];
    p.prefixQueries = scalar[std::size_t(Field::PrefixQueries)];
    p.prefixHits = scalar[std::size_t(Field::PrefixHits)];
    p.prefixHitRate = scalar[std::size_t(Field::PrefixHitRate)];
    // SGLang counts cached prompt tokens; its prompt tokens are what was looked up.
    if (p.prefixHits && !p.prefixQueries && detectServerEngine(exposition) == QLatin1String("sglang"))
        p.prefixQueries = p.promptTokens;
    p.ttft = histograms[std::size_t(Field::Ttft)].build();
    p.itl = histograms[std::size_t(Field::Itl)].build();
    p.e2e = histograms[std::size_t(Field::E2e)].build();
    return p;
}

std::optional<std::vector<ServerRow>> serverRowsFromCsv(QByteArrayView csv, QString *error)
{
    CsvReader reader(csv);
    std::vector<std::string> fields;
    if (!reader.next(fields) || fields != std::vector<std::string>{"t_s", "name", "labels", "value"}) {
        if (error)
            *error = QStringLiteral("line 1: expected the header t_s,name,labels,value");
        return std::nullopt;
    }
    ServerSeries series;
    std::string scrape; // one scrape's rows, as the Prometheus text they came from
    std::string at;
    const auto flush = [&]() -> bool {
        if (scrape.empty())
            return true;
        QString why;
        const auto exposition = parsePrometheusText(QByteArrayView(scrape.data(), qsizetype(scrape.size())), &why);
        if (!exposition) {
            if (error)
                *error = QStringLiteral("the scrape at %1 s: %2").arg(QString::fromStdString(at), why);
            return false;
        }
        series.add(mapServerMetrics(*exposition, QByteArray::fromStdString(at).toDouble()),
                   detectServerEngine(*exposition));
        scrape.clear();
        return true;
    };
    while (reader.next(fields)) {
        if (fields.size() != 4) {
            if (error)
                *error = QStringLiteral("line %1: expected 4 fields").arg(reader.line());
            return std::nullopt;
        }
        if (fields[0] != at && !flush())
            return std::nullopt;
        at = fields[0];
        scrape += fields[1] + fields[2] + ' ' + fields[3] + '\n';
    }
    if (!flush())
        return std::nullopt;
    return series.rows();
}

void ServerSeries::Accumulator::add(const std::optional<double> &v)
{
    if (!v || !std::isfinite(*v))
        return;
    sum += *v;
    max = std::max(max, *v);
    ++n;
}

void ServerSeries::markMeasurementStart(double tS)
{
    if (m_markS)
        return;
    m_markS = tS;
    // Gauges count from here; the counters and histograms from the last scrape before it.
    m_running = m_waiting = m_kv = m_hitRate = {};
    m_baseline = m_last;
}

void ServerSeries::add(const ServerPoint &point, const QString &engine)
{
    m_engine = engine;
    ServerRow row;
    row.tS = point.tS;
    row.running = point.running.value_or(ServerRow::kNone);
    row.waiting = point.waiting.value_or(ServerRow::kNone);
    row.kvCachePct = point.kvCacheFraction ? *point.kvCacheFraction * 100.0 : ServerRow::kNone;
    if (m_last) {
        const ServerPoint &prev = *m_last;
        const double dt = point.tS - prev.tS;
        const auto rate = [dt](const std::optional<double> &now, const std::optional<double> &before) {
            return now && before && dt > 0 ? deltaCount(*now, *before) / dt : ServerRow::kNone;
        };
        row.promptTokensPerS = rate(point.promptTokens, prev.promptTokens);
        row.generationTokensPerS = rate(point.generationTokens, prev.generationTokens);
        const auto ms = [](std::optional<double> s) { return s ? *s * 1000.0 : ServerRow::kNone; };
        row.ttftP50Ms = ms(histogramQuantile(point.ttft, &prev.ttft, 0.5));
        row.ttftP99Ms = ms(histogramQuantile(point.ttft, &prev.ttft, 0.99));
        row.itlP50Ms = ms(histogramQuantile(point.itl, &prev.itl, 0.5));
        if (point.prefixHits && point.prefixQueries && prev.prefixHits && prev.prefixQueries) {
            const double queries = deltaCount(*point.prefixQueries, *prev.prefixQueries);
            if (queries > 0)
                row.prefixHitRatio = deltaCount(*point.prefixHits, *prev.prefixHits) / queries;
        }
    }
    if (std::isnan(row.prefixHitRatio) && point.prefixHitRate)
        row.prefixHitRatio = *point.prefixHitRate;
    m_rows.push_back(row);
    if (!m_baseline)
        m_baseline = point; // the first scrape, or the first after the measurement started
    m_last = point;
    m_running.add(point.running);
    m_waiting.add(point.waiting);
    m_kv.add(point.kvCacheFraction ? std::optional<double>(*point.kvCacheFraction * 100.0) : std::nullopt);
    m_hitRate.add(point.prefixHitRate);
}

void ServerSeries::addFailure(const QString &problem)
{
    ++m_failures;
    if (m_problem.isEmpty())
        m_problem = problem;
}

std::optional<ServerSummary> ServerSeries::summary() const
{
    if (m_rows.empty() && m_failures == 0)
        return std::nullopt;
    ServerSummary s;
    s.url = m_url;
    s.engine = m_engine;
    s.scrapes = int(m_rows.size());
    s.failures = m_failures;
    s.problem = m_problem;
    if (!m_last)
        return s;
    // Before the measurement started (or with one scrape) the window is everything so far.
    const ServerPoint *base = m_baseline && m_baseline->tS < m_last->tS ? &*m_baseline : nullptr;
    s.windowS = base ? m_last->tS - base->tS : 0;
    s.ttft = latencyOver(m_last->ttft, base ? &base->ttft : nullptr);
    s.itl = latencyOver(m_last->itl, base ? &base->itl : nullptr);
    s.e2e = latencyOver(m_last->e2e, base ? &base->e2e : nullptr);
    s.runningMean = m_running.mean();
    s.runningMax = m_running.peak();
    s.waitingMean = m_waiting.mean();
    s.waitingMax = m_waiting.peak();
    s.kvCachePctMean = m_kv.mean();
    s.kvCachePctPeak = m_kv.peak();
    if (base && s.windowS > 0) {
        const auto rate = [&](const std::optional<double> &now,
                              const std::optional<double> &before) -> std::optional<double> {
            if (!now || !before)
                return std::nullopt;
            return deltaCount(*now, *before) / s.windowS;
        };
        s.promptTokensPerS = rate(m_last->promptTokens, base->promptTokens);
        s.generationTokensPerS = rate(m_last->generationTokens, base->generationTokens);
        if (m_last->prefixHits && m_last->prefixQueries && base->prefixHits && base->prefixQueries) {
            const double queries = deltaCount(*m_last->prefixQueries, *base->prefixQueries);
            if (queries > 0)
                s.prefixHitRatio = deltaCount(*m_last->prefixHits, *base->prefixHits) / queries;
        }
    }
    if (!s.prefixHitRatio)
        s.prefixHitRatio = m_hitRate.mean();
    return s;
}

json ServerSummary::toJson() const
{
    return {
        {"metrics_url", url.toStdString()},
        {"engine", engine.toStdString()},
        {"scrapes", scrapes},
        {"failed_scrapes", failures},
        {"problem", problem.isEmpty() ? json() : json(problem.toStdString())},
        {"window_s", windowS},
        {"ttft_ms", latencyJson(ttft)},
        {"itl_ms", latencyJson(itl)},
        {"e2e_ms", latencyJson(e2e)},
        {"running", {{"mean", optionalJson(runningMean)}, {"max", optionalJson(runningMax)}}},
        {"waiting", {{"mean", optionalJson(waitingMean)}, {"max", optionalJson(waitingMax)}}},
        {"kv_cache_pct", {{"mean", optionalJson(kvCachePctMean)}, {"peak", optionalJson(kvCachePctPeak)}}},
        {"prefix_cache_hit_ratio", optionalJson(prefixHitRatio)},
        {"prompt_tokens_per_s", optionalJson(promptTokensPerS)},
        {"generation_tokens_per_s", optionalJson(generationTokensPerS)},
    };
}

std::optional<ServerSummary> ServerSummary::fromJson(const json &j, QString *error)
{
    if (!j.is_object()) {
        if (error)
            *error = QStringLiteral("server: must be an object");
        return std::nullopt;
    }
    const auto text = [&](const char *key) {
        return j.contains(key) && j[key].is_string() ? QString::fromStdString(j[key].get<std::string>()) : QString();
    };
    ServerSummary s;
    s.url = text("metrics_url");
    s.engine = text("engine");
    s.problem = text("problem");
    s.scrapes = int(optionalFrom(j, "scrapes").value_or(0));
    s.failures = int(optionalFrom(j, "failed_scrapes").value_or(0));
    s.windowS = optionalFrom(j, "window_s").value_or(0);
    const auto sub = [&](const char *key) { return j.contains(key) ? j[key] : json(); };
    s.ttft = latencyFrom(sub("ttft_ms"));
    s.itl = latencyFrom(sub("itl_ms"));
    s.e2e = latencyFrom(sub("e2e_ms"));
    s.runningMean = optionalFrom(sub("running"), "mean");
    s.runningMax = optionalFrom(sub("running"), "max");
    s.waitingMean = optionalFrom(sub("waiting"), "mean");
    s.waitingMax = optionalFrom(sub("waiting"), "max");
    s.kvCachePctMean = optionalFrom(sub("kv_cache_pct"), "mean");
    s.kvCachePctPeak = optionalFrom(sub("kv_cache_pct"), "peak");
    s.prefixHitRatio = optionalFrom(j, "prefix_cache_hit_ratio");
    s.promptTokensPerS = optionalFrom(j, "prompt_tokens_per_s");
    s.generationTokensPerS = optionalFrom(j, "generation_tokens_per_s");
    return s;
}

} // namespace tb
