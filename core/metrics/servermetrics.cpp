#include "metrics/servermetrics.h"

#include "config/saturating.h"
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

enum class Series {
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
constexpr std::size_t kSeriesCount = 11;
// Instances of one saved run's server_metrics.csv: each scrape row combines all of them.
constexpr std::size_t kMaxCsvSources = 1024;

struct Known {
    Series field;
    int priority; ///< lower wins when a server exposes two names for one series
};

/// Sample names (histograms: their family name) of the servers TokenBench knows.
const std::unordered_map<std::string_view, Known> &knownNames()
{
    static const std::unordered_map<std::string_view, Known> names{
        // vLLM (v1 names first; v0 and older v1 names as fallbacks)
        {"vllm:num_requests_running", {Series::Running, 0}},
        {"vllm:num_requests_waiting", {Series::Waiting, 0}},
        {"vllm:kv_cache_usage_perc", {Series::KvCache, 0}},
        {"vllm:gpu_cache_usage_perc", {Series::KvCache, 1}},
        {"vllm:prompt_tokens_total", {Series::PromptTokens, 0}},
        {"vllm:generation_tokens_total", {Series::GenerationTokens, 0}},
        {"vllm:prefix_cache_queries_total", {Series::PrefixQueries, 0}},
        {"vllm:prefix_cache_hits_total", {Series::PrefixHits, 0}},
        {"vllm:gpu_prefix_cache_queries_total", {Series::PrefixQueries, 1}},
        {"vllm:gpu_prefix_cache_hits_total", {Series::PrefixHits, 1}},
        {"vllm:gpu_prefix_cache_hit_rate", {Series::PrefixHitRate, 0}},
        {"vllm:time_to_first_token_seconds", {Series::Ttft, 0}},
        {"vllm:inter_token_latency_seconds", {Series::Itl, 0}},
        {"vllm:time_per_output_token_seconds", {Series::Itl, 1}},
        {"vllm:e2e_request_latency_seconds", {Series::E2e, 0}},
        // SGLang
        {"sglang:num_running_reqs", {Series::Running, 0}},
        {"sglang:num_queue_reqs", {Series::Waiting, 0}},
        {"sglang:token_usage", {Series::KvCache, 0}},
        {"sglang:prompt_tokens_total", {Series::PromptTokens, 0}},
        {"sglang:generation_tokens_total", {Series::GenerationTokens, 0}},
        {"sglang:cached_tokens_total", {Series::PrefixHits, 0}},
        {"sglang:cache_hit_rate", {Series::PrefixHitRate, 0}},
        {"sglang:time_to_first_token_seconds", {Series::Ttft, 0}},
        {"sglang:inter_token_latency_seconds", {Series::Itl, 0}},
        {"sglang:time_per_output_token_seconds", {Series::Itl, 1}},
        {"sglang:e2e_request_latency_seconds", {Series::E2e, 0}},
        // Text Generation Inference: token counts are the sums of its length histograms
        {"tgi_batch_current_size", {Series::Running, 0}},
        {"tgi_queue_size", {Series::Waiting, 0}},
        {"tgi_request_input_length_sum", {Series::PromptTokens, 0}},
        {"tgi_request_generated_tokens_sum", {Series::GenerationTokens, 0}},
        {"tgi_request_mean_time_per_token_duration", {Series::Itl, 0}},
        {"tgi_request_duration", {Series::E2e, 0}},
        // llama.cpp server
        {"llamacpp:requests_processing", {Series::Running, 0}},
        {"llamacpp:requests_deferred", {Series::Waiting, 0}},
        {"llamacpp:kv_cache_usage_ratio", {Series::KvCache, 0}},
        {"llamacpp:prompt_tokens_total", {Series::PromptTokens, 0}},
        {"llamacpp:tokens_predicted_total", {Series::GenerationTokens, 0}},
    };
    return names;
}

bool isHistogramField(Series f)
{
    return f == Series::Ttft || f == Series::Itl || f == Series::E2e;
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

/// The observations between two scrapes of a histogram (earlier empty: since the server started),
/// bucket by bucket; the later one alone after a counter reset or a change of buckets.
CumulativeHistogram histogramDelta(const CumulativeHistogram &later, const CumulativeHistogram &earlier)
{
    if (earlier.isEmpty() || earlier.bounds != later.bounds || later.count() < earlier.count())
        return later;
    CumulativeHistogram d = later;
    for (std::size_t i = 0; i < d.counts.size(); ++i)
        d.counts[i] = deltaCount(later.counts[i], earlier.counts[i]);
    d.sum = later.sum - earlier.sum;
    return d;
}

/// The sum of several sources' histograms; none when their buckets differ (no common quantile).
CumulativeHistogram histogramSum(const std::vector<const CumulativeHistogram *> &histograms)
{
    CumulativeHistogram sum;
    for (const CumulativeHistogram *h : histograms) {
        if (h->isEmpty())
            continue;
        if (sum.isEmpty()) {
            sum = *h;
            continue;
        }
        if (h->bounds != sum.bounds)
            return {};
        for (std::size_t i = 0; i < sum.counts.size(); ++i)
            sum.counts[i] += h->counts[i];
        sum.sum += h->sum;
    }
    return sum;
}

std::optional<double> plus(const std::optional<double> &a, const std::optional<double> &b)
{
    return a && b ? std::optional<double>(*a + *b) : a ? a : b;
}

std::optional<double> larger(const std::optional<double> &a, const std::optional<double> &b)
{
    return a && b ? std::optional<double>(std::max(*a, *b)) : a ? a : b;
}

/// Percentiles of the observations in `delta` (histogramDelta), in ms.
ServerLatency latencyOf(const CumulativeHistogram &delta)
{
    ServerLatency l;
    l.count = delta.count();
    if (l.count <= 0) {
        l.count = 0;
        return l;
    }
    l.mean = delta.sum / l.count * 1000.0;
    const auto ms = [](std::optional<double> s) { return s ? std::optional<double>(*s * 1000.0) : std::nullopt; };
    l.p50 = ms(histogramQuantile(delta, nullptr, 0.5));
    l.p90 = ms(histogramQuantile(delta, nullptr, 0.9));
    l.p99 = ms(histogramQuantile(delta, nullptr, 0.99));
    return l;
}

QString seconds(double s)
{
    return QString::number(s, 'f', 1) + QStringLiteral(" s");
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
    std::array<int, kSeriesCount> best;
    best.fill(std::numeric_limits<int>::max());
    std::array<std::optional<double>, kSeriesCount> scalar;
    std::array<HistogramBuilder, kSeriesCount> histograms;
    const auto &names = knownNames();
    const auto take = [&](Series field, int priority) -> bool {
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
            if (it->second.field == Series::KvCache)
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
    p.running = scalar[std::size_t(Series::Running)];
    p.waiting = scalar[std::size_t(Series::Waiting)];
    p.kvCacheFraction = scalar[std::size_t(Series::KvCache)];
    p.promptTokens = scalar[std::size_t(Series::PromptTokens)];
    p.generationTokens = scalar[std::size_t(Series::GenerationTokens)];
    p.prefixQueries = scalar[std::size_t(Series::PrefixQueries)];
    p.prefixHits = scalar[std::size_t(Series::PrefixHits)];
    p.prefixHitRate = scalar[std::size_t(Series::PrefixHitRate)];
    // SGLang counts cached prompt tokens; its prompt tokens are what was looked up.
    if (p.prefixHits && !p.prefixQueries && detectServerEngine(exposition) == QLatin1String("sglang"))
        p.prefixQueries = p.promptTokens;
    p.ttft = histograms[std::size_t(Series::Ttft)].build();
    p.itl = histograms[std::size_t(Series::Itl)].build();
    p.e2e = histograms[std::size_t(Series::E2e)].build();
    return p;
}

bool forEachCsvScrape(QByteArrayView csv,
                      const std::function<bool(double tS, const std::string &instance, const PromExposition &exposition,
                                               QString *error)> &scrape,
                      QString *error)
{
    CsvReader reader(csv);
    std::vector<std::string> fields;
    // Runs from before several instances were scraped have no instance column.
    const std::vector<std::string> header{"t_s", "name", "labels", "value", "instance"};
    if (!reader.next(fields) || !(fields == header || fields == std::vector(header.begin(), header.end() - 1))) {
        if (error)
            *error = QStringLiteral("line 1: expected the header t_s,name,labels,value,instance");
        return false;
    }
    const std::size_t columns = fields.size();
    std::string text; // one scrape's rows, as the Prometheus text they came from
    std::string at, instance;
    const auto flush = [&]() -> bool {
        if (text.empty())
            return true;
        QString why;
        const auto exposition = parsePrometheusText(QByteArrayView(text.data(), qsizetype(text.size())), &why);
        if (!exposition) {
            if (error)
                *error = QStringLiteral("the scrape at %1 s: %2").arg(QString::fromStdString(at), why);
            return false;
        }
        text.clear();
        return scrape(QByteArray::fromStdString(at).toDouble(), instance, *exposition, error);
    };
    while (reader.next(fields)) {
        if (fields.size() != columns) {
            if (error)
                *error = QStringLiteral("line %1: expected %2 fields").arg(reader.line()).arg(columns);
            return false;
        }
        const std::string &from = columns > 4 ? fields[4] : instance;
        if ((fields[0] != at || from != instance) && !flush())
            return false;
        at = fields[0];
        instance = from;
        text += fields[1] + fields[2] + ' ' + fields[3] + '\n';
    }
    return flush();
}

std::optional<std::vector<ServerRow>> serverRowsFromCsv(QByteArrayView csv, QString *error)
{
    ServerSeries series;
    std::map<std::string, int> sources; // instance → source
    const bool read = forEachCsvScrape(
        csv,
        [&](double tS, const std::string &instance, const PromExposition &exposition, QString *why) {
            const auto [source, added] = sources.try_emplace(instance, 0);
            if (added && sources.size() > kMaxCsvSources) {
                if (why)
                    *why = QStringLiteral("more than %1 instances").arg(kMaxCsvSources);
                return false;
            }
            if (added)
                source->second = series.addSource(QString(), QString::fromStdString(instance));
            series.add(source->second, mapServerMetrics(exposition, tS), detectServerEngine(exposition));
            return true;
        },
        error);
    if (!read)
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

int ServerSeries::addSource(const QString &url, const QString &instance)
{
    Source &source = m_sources.emplace_back();
    source.url = url;
    source.instance = instance;
    return int(m_sources.size()) - 1;
}

void ServerSeries::markMeasurementStart(double tS)
{
    if (m_markS)
        return;
    m_markS = tS;
    // Gauges count from here; the counters and histograms from each source's last scrape before it.
    m_gauges = {};
    for (Source &source : m_sources) {
        source.gauges = {};
        source.baseline = source.last;
    }
}

ServerSeries::Interval ServerSeries::intervalOf(const ServerPoint &point, const ServerPoint *earlier)
{
    Interval i;
    i.running = point.running;
    i.waiting = point.waiting;
    if (point.kvCacheFraction)
        i.kvPct = *point.kvCacheFraction * 100.0;
    i.hitRate = point.prefixHitRate;
    i.hitRates = point.prefixHitRate ? 1 : 0;
    if (!earlier)
        return i;
    i.seconds = point.tS - earlier->tS;
    const auto delta = [](const std::optional<double> &now, const std::optional<double> &before) {
        return now && before ? std::optional<double>(deltaCount(*now, *before)) : std::nullopt;
    };
    i.promptTokens = delta(point.promptTokens, earlier->promptTokens);
    i.generationTokens = delta(point.generationTokens, earlier->generationTokens);
    i.prefixHits = delta(point.prefixHits, earlier->prefixHits);
    i.prefixQueries = delta(point.prefixQueries, earlier->prefixQueries);
    if (i.seconds > 0) {
        if (i.promptTokens)
            i.promptPerS = *i.promptTokens / i.seconds;
        if (i.generationTokens)
            i.generationPerS = *i.generationTokens / i.seconds;
    }
    i.ttft = histogramDelta(point.ttft, earlier->ttft);
    i.itl = histogramDelta(point.itl, earlier->itl);
    i.e2e = histogramDelta(point.e2e, earlier->e2e);
    return i;
}

ServerSeries::Interval ServerSeries::combine(const std::vector<const Interval *> &intervals)
{
    if (intervals.size() == 1)
        return *intervals.front();
    Interval c;
    std::vector<const CumulativeHistogram *> ttft, itl, e2e;
    for (const Interval *i : intervals) {
        c.seconds = std::max(c.seconds, i->seconds);
        c.running = plus(c.running, i->running);
        c.waiting = plus(c.waiting, i->waiting);
        c.kvPct = larger(c.kvPct, i->kvPct);
        c.hitRate = plus(c.hitRate, i->hitRate);
        c.hitRates += i->hitRates;
        c.promptTokens = plus(c.promptTokens, i->promptTokens);
        c.generationTokens = plus(c.generationTokens, i->generationTokens);
        c.prefixHits = plus(c.prefixHits, i->prefixHits);
        c.prefixQueries = plus(c.prefixQueries, i->prefixQueries);
        c.promptPerS = plus(c.promptPerS, i->promptPerS);
        c.generationPerS = plus(c.generationPerS, i->generationPerS);
        ttft.push_back(&i->ttft);
        itl.push_back(&i->itl);
        e2e.push_back(&i->e2e);
    }
    if (c.hitRates > 0)
        c.hitRate = *c.hitRate / c.hitRates;
    c.ttft = histogramSum(ttft);
    c.itl = histogramSum(itl);
    c.e2e = histogramSum(e2e);
    return c;
}

ServerRow ServerSeries::rowOf(double tS, const Interval &i)
{
    ServerRow row;
    row.tS = tS;
    row.running = i.running.value_or(ServerRow::kNone);
    row.waiting = i.waiting.value_or(ServerRow::kNone);
    row.kvCachePct = i.kvPct.value_or(ServerRow::kNone);
    row.promptTokensPerS = i.promptPerS.value_or(ServerRow::kNone);
    row.generationTokensPerS = i.generationPerS.value_or(ServerRow::kNone);
    const auto ms = [](std::optional<double> s) { return s ? *s * 1000.0 : ServerRow::kNone; };
    row.ttftP50Ms = ms(histogramQuantile(i.ttft, nullptr, 0.5));
    row.ttftP99Ms = ms(histogramQuantile(i.ttft, nullptr, 0.99));
    row.itlP50Ms = ms(histogramQuantile(i.itl, nullptr, 0.5));
    if (i.prefixHits && i.prefixQueries && *i.prefixQueries > 0)
        row.prefixHitRatio = *i.prefixHits / *i.prefixQueries;
    else if (i.hitRate)
        row.prefixHitRatio = *i.hitRate;
    return row;
}

void ServerSeries::add(int index, const ServerPoint &point, const QString &engine)
{
    Source &source = m_sources.at(std::size_t(index));
    source.engine = engine;
    source.latest = intervalOf(point, source.last ? &*source.last : nullptr);
    if (!source.baseline)
        source.baseline = point; // the first scrape, or the first after the measurement started
    source.last = point;
    source.lastScrapeS = point.tS;
    ++source.scrapes;
    source.failuresSinceScrape = 0;
    source.gauges.running.add(point.running);
    source.gauges.waiting.add(point.waiting);
    source.gauges.kv.add(source.latest->kvPct);
    source.gauges.hitRate.add(point.prefixHitRate);
    std::vector<const Interval *> latest;
    for (const Source &s : m_sources) {
        if (s.latest)
            latest.push_back(&*s.latest);
    }
    const Interval now = combine(latest);
    m_rows.push_back(rowOf(point.tS, now));
    m_gauges.running.add(now.running);
    m_gauges.waiting.add(now.waiting);
    m_gauges.kv.add(now.kvPct);
    m_gauges.hitRate.add(now.hitRate);
}

void ServerSeries::addFailure(int index, double tS, const QString &problem)
{
    Source &source = m_sources.at(std::size_t(index));
    ++source.failures;
    if (source.problem.isEmpty())
        source.problem = problem;
    source.lastProblem = problem;
    if (!source.firstFailureS)
        source.firstFailureS = tS;
    source.lastFailureS = tS;
    ++source.failuresSinceScrape;
}

ServerSeries::Interval ServerSeries::windowOf(const Source &source, double *seconds)
{
    // Before the measurement started (or with one scrape) the window is everything so far.
    const bool based = source.baseline && source.baseline->tS < source.last->tS;
    *seconds = based ? source.last->tS - source.baseline->tS : 0;
    static const ServerPoint start;
    Interval window = intervalOf(*source.last, based ? &*source.baseline : &start);
    if (!based) { // counted since the server started: no rate over a window
        window.promptPerS.reset();
        window.generationPerS.reset();
    }
    return window;
}

void ServerSeries::fill(ServerSummary &s, const Interval &window, const Gauges &gauges)
{
    s.ttft = latencyOf(window.ttft);
    s.itl = latencyOf(window.itl);
    s.e2e = latencyOf(window.e2e);
    s.runningMean = gauges.running.mean();
    s.runningMax = gauges.running.peak();
    s.waitingMean = gauges.waiting.mean();
    s.waitingMax = gauges.waiting.peak();
    s.kvCachePctMean = gauges.kv.mean();
    s.kvCachePctPeak = gauges.kv.peak();
    s.promptTokensPerS = window.promptPerS;
    s.generationTokensPerS = window.generationPerS;
    s.promptTokens = window.promptTokens;
    if (window.prefixHits && window.prefixQueries && *window.prefixQueries > 0)
        s.prefixHitRatio = *window.prefixHits / *window.prefixQueries;
    else
        s.prefixHitRatio = gauges.hitRate.mean();
}

ServerSummary ServerSeries::summaryOf(const Source &source)
{
    ServerSummary s;
    s.url = source.url;
    s.instance = source.instance;
    s.engine = source.engine;
    s.scrapes = source.scrapes;
    s.failures = source.failures;
    s.problem = source.problem;
    if (!source.last)
        return s;
    const Interval window = windowOf(source, &s.windowS);
    fill(s, window, source.gauges);
    return s;
}

std::optional<ServerSummary> ServerSeries::summary() const
{
    std::vector<const Source *> seen; // a guessed endpoint that was not there has nothing to say
    for (const Source &source : m_sources) {
        if (source.scrapes > 0 || source.failures > 0)
            seen.push_back(&source);
    }
    if (seen.empty())
        return std::nullopt;
    if (seen.size() == 1)
        return summaryOf(*seen.front());
    ServerSummary s;
    QStringList urls;
    std::vector<Interval> windows;
    for (const Source *source : seen) {
        ServerSummary &one = s.instances.emplace_back(summaryOf(*source));
        urls << one.url;
        s.engine = s.engine.isEmpty() || s.engine == one.engine ? one.engine : QStringLiteral("mixed");
        s.scrapes += one.scrapes;
        s.failures += one.failures;
        if (s.problem.isEmpty() && !one.problem.isEmpty())
            s.problem = QStringLiteral("%1: %2").arg(one.url, one.problem);
        s.windowS = std::max(s.windowS, one.windowS);
        if (source->last) {
            double unused = 0;
            windows.push_back(windowOf(*source, &unused));
        }
    }
    s.url = urls.join(QStringLiteral(", "));
    std::vector<const Interval *> parts;
    parts.reserve(windows.size());
    for (const Interval &w : windows)
        parts.push_back(&w);
    if (!parts.empty())
        fill(s, combine(parts), m_gauges);
    return s;
}

QStringList ServerSeries::warnings() const
{
    QStringList out;
    for (const Source &s : m_sources) {
        if (s.failuresSinceScrape == 0)
            continue;
        if (!s.lastScrapeS) {
            out << QStringLiteral("server metrics from %1 never came: %2 (%3 failed scrapes, %4 to %5)")
                       .arg(s.url, s.problem)
                       .arg(s.failures)
                       .arg(seconds(*s.firstFailureS), seconds(*s.lastFailureS));
        } else {
            out << QStringLiteral("server metrics from %1 stopped after %2: %3 (%4 failed scrapes to %5); the "
                                  "server figures cover the run up to %2")
                       .arg(s.url, seconds(*s.lastScrapeS), s.lastProblem)
                       .arg(s.failuresSinceScrape)
                       .arg(seconds(*s.lastFailureS));
        }
    }
    return out;
}

QString ServerSummary::compareCacheHits(std::int64_t sent, std::optional<double> responsesRatio)
{
    promptTokensSent = sent;
    if (engine == QLatin1String("llamacpp") && promptTokens && sent > 0) {
        // llama.cpp counts the prompt tokens it evaluated: what its cache served is not in it.
        cacheHitRatio = std::clamp(1.0 - *promptTokens / double(sent), 0.0, 1.0);
        cacheHitSource = QStringLiteral("llamacpp:prompt_tokens_total (evaluated) against the prompt tokens sent");
    } else if (prefixHitRatio) {
        cacheHitRatio = prefixHitRatio;
        cacheHitSource = QStringLiteral("%1's prefix-cache hit ratio").arg(engine);
    } else {
        return {};
    }
    const double responses = responsesRatio.value_or(0);
    if (std::abs(*cacheHitRatio - responses) < 0.1)
        return {};
    return QStringLiteral("cache hits: the server's counters say %1% of prompt tokens came from its cache (%2), the "
                          "responses' cached_tokens %3%; another client's traffic or an engine that reports no "
                          "cached tokens per request can make them differ")
        .arg(*cacheHitRatio * 100.0, 0, 'f', 1)
        .arg(cacheHitSource)
        .arg(responses * 100.0, 0, 'f', 1);
}

json ServerSummary::toJson() const
{
    json j = {
        {"metrics_url", url.toStdString()},
        {"instance", instance.isEmpty() ? json() : json(instance.toStdString())},
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
        {"prompt_tokens", optionalJson(promptTokens)},
        {"cache_hit_ratio", optionalJson(cacheHitRatio)},
        {"cache_hit_source", cacheHitSource.isEmpty() ? json() : json(cacheHitSource.toStdString())},
        {"prompt_tokens_sent", promptTokensSent ? json(*promptTokensSent) : json()},
    };
    if (!instances.empty()) {
        json &each = j["instances"] = json::array();
        for (const ServerSummary &one : instances)
            each.push_back(one.toJson());
    }
    return j;
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
    s.instance = text("instance");
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
    s.promptTokens = optionalFrom(j, "prompt_tokens");
    s.cacheHitRatio = optionalFrom(j, "cache_hit_ratio");
    s.cacheHitSource = text("cache_hit_source");
    if (const auto sent = optionalFrom(j, "prompt_tokens_sent"))
        s.promptTokensSent = saturatingRound(*sent);
    if (j.contains("instances") && j["instances"].is_array()) {
        for (const json &one : j["instances"]) {
            // One level: an instance's block is one endpoint's.
            auto block = one.is_object() && one.contains("instances") ? std::nullopt : fromJson(one, error);
            if (!block) {
                if (error)
                    *error = QStringLiteral("instances: ") + *error;
                return std::nullopt;
            }
            s.instances.push_back(std::move(*block));
        }
    }
    return s;
}

} // namespace tb
