#include "metrics/gpumetrics.h"

#include "formats/numberformat.h"
#include "metrics/servermetrics.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace tb {

using json = nlohmann::json;

namespace {

/// A value from the exporter, kept only when finite and within [0, most].
std::optional<double> bounded(double value, double most, int &rejected)
{
    if (std::isfinite(value) && value >= 0 && value <= most)
        return value;
    ++rejected;
    return std::nullopt;
}

/// A number of a `gpu` block read back, when present and finite.
std::optional<double> gpuNumber(const json &j, const char *key)
{
    if (!j.is_object())
        return std::nullopt;
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number())
        return std::nullopt;
    const double v = it->get<double>();
    return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

QString gpuText(const json &j, const char *key)
{
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

void putOptional(json &j, const char *key, const std::optional<double> &v)
{
    if (v && std::isfinite(*v))
        j[key] = *v;
}

/// Energy from the counter when it was read at both ends of any interval of the window (it
/// covers the gaps between), else from the power gauge.
QString sourceOf(int counterSteps, int powerSteps)
{
    if (counterSteps > 0)
        return QStringLiteral("counter");
    return powerSteps > 0 ? QStringLiteral("power") : QString();
}

} // namespace

GpuPoint mapGpuMetrics(const PromExposition &exposition, double tS)
{
    GpuPoint point;
    point.tS = tS;
    std::map<std::string, GpuSample> gpus;
    for (const PromSample &s : exposition.samples) {
        const char *name = s.name.c_str();
        const bool known = std::strcmp(name, dcgm::kUtil) == 0 || std::strcmp(name, dcgm::kFbUsed) == 0 ||
                           std::strcmp(name, dcgm::kFbFree) == 0 || std::strcmp(name, dcgm::kPower) == 0 ||
                           std::strcmp(name, dcgm::kEnergy) == 0;
        if (!known)
            continue;
        const std::string *uuid = s.label("UUID");
        const std::string *index = s.label("gpu");
        const std::string *host = s.label("Hostname");
        std::string id;
        if (uuid && !uuid->empty())
            id = *uuid;
        else if (index)
            id = (host && !host->empty() ? *host + ":" : std::string()) + "gpu" + *index;
        else
            id = "gpu";
        auto it = gpus.find(id);
        if (it == gpus.end()) {
            if (gpus.size() >= gpulimits::kMaxGpus) {
                ++point.ignoredGpus;
                continue;
            }
            it = gpus.emplace(id, GpuSample{}).first;
            GpuSample &g = it->second;
            g.id = id;
            if (index)
                g.gpu = *index;
            if (const std::string *model = s.label("modelName"))
                g.model = *model;
            if (host)
                g.host = *host;
        }
        GpuSample &g = it->second;
        if (std::strcmp(name, dcgm::kUtil) == 0)
            g.utilPct = bounded(s.value, gpulimits::kMaxUtilPct, point.rejected);
        else if (std::strcmp(name, dcgm::kFbUsed) == 0)
            g.memoryUsedMib = bounded(s.value, gpulimits::kMaxMemoryMib, point.rejected);
        else if (std::strcmp(name, dcgm::kFbFree) == 0)
            g.memoryFreeMib = bounded(s.value, gpulimits::kMaxMemoryMib, point.rejected);
        else if (std::strcmp(name, dcgm::kPower) == 0)
            g.powerW = bounded(s.value, gpulimits::kMaxPowerW, point.rejected);
        else
            g.energyMj = bounded(s.value, gpulimits::kMaxEnergyMj, point.rejected);
    }
    point.gpus.reserve(gpus.size());
    for (auto &[id, g] : gpus)
        point.gpus.push_back(std::move(g));
    return point;
}

void GpuTrace::add(const GpuPoint &point)
{
    Row &row = rows.emplace_back();
    row.tS = point.tS;
    row.gpus = int(point.gpus.size());
    double powerSum = 0;
    double utilSum = 0;
    int powers = 0;
    int utils = 0;
    for (const GpuSample &g : point.gpus) {
        if (g.powerW) {
            powerSum += *g.powerW;
            ++powers;
        }
        if (g.utilPct) {
            utilSum += *g.utilPct;
            ++utils;
        }
        auto it = std::find(ids.begin(), ids.end(), g.id);
        if (it == ids.end()) {
            if (ids.size() >= kMaxTracedGpus)
                continue;
            it = ids.insert(ids.end(), g.id);
        }
        const auto i = std::size_t(it - ids.begin());
        if (row.powerW.size() <= i) {
            row.powerW.resize(i + 1, kNone);
            row.utilPct.resize(i + 1, kNone);
        }
        row.powerW[i] = g.powerW.value_or(kNone);
        row.utilPct[i] = g.utilPct.value_or(kNone);
    }
    if (powers > 0)
        row.powerWSum = powerSum;
    if (utils > 0)
        row.utilPctMean = utilSum / double(utils);
}

int GpuTrace::peakGpus() const
{
    int most = 0;
    for (const Row &row : rows)
        most = std::max(most, row.gpus);
    return most;
}

double GpuTrace::powerW(const Row &row, std::size_t gpu) const
{
    return gpu < row.powerW.size() ? row.powerW[gpu] : kNone;
}

double GpuTrace::utilPct(const Row &row, std::size_t gpu) const
{
    return gpu < row.utilPct.size() ? row.utilPct[gpu] : kNone;
}

std::optional<GpuTrace> gpuTraceFromCsv(QByteArrayView csv, QString *error)
{
    GpuTrace trace;
    const bool read = forEachCsvScrape(
        csv,
        [&trace](double tS, const std::string &, const PromExposition &exposition, QString *) {
            trace.add(mapGpuMetrics(exposition, tS));
            return true;
        },
        error);
    if (!read)
        return std::nullopt;
    return trace;
}

void GpuSummary::setWork(std::int64_t outputTokens, std::int64_t okRequests, std::optional<double> price)
{
    joulesPerOutputToken.reset();
    joulesPerRequest.reset();
    energyCost.reset();
    energyCostPerMOutputTokens.reset();
    pricePerKwh = price;
    if (!energyJ)
        return;
    if (outputTokens > 0)
        joulesPerOutputToken = *energyJ / double(outputTokens);
    if (okRequests > 0)
        joulesPerRequest = *energyJ / double(okRequests);
    if (price) {
        energyCost = *energyJ / 3.6e6 * *price; // 1 kWh = 3.6 MJ
        if (outputTokens > 0)
            energyCostPerMOutputTokens = *energyCost / double(outputTokens) * 1e6;
    }
}

QString GpuSummary::line() const
{
    QString text = QStringLiteral("%1 GPU%2").arg(gpus).arg(gpus == 1 ? QString() : QStringLiteral("s"));
    if (energyJ)
        text +=
            QStringLiteral(", %1 J (%2) over %3 s").arg(formatNumber(*energyJ, 4), energySource, formatNumber(windowS));
    else
        text += QStringLiteral(", no energy (neither energy counter nor power)");
    if (joulesPerOutputToken)
        text += QStringLiteral(": %1 J/output token").arg(formatNumber(*joulesPerOutputToken, 4, 6));
    if (joulesPerRequest)
        text += QStringLiteral(", %1 J/request").arg(formatNumber(*joulesPerRequest, 4));
    if (powerWMean && powerWMax)
        text += QStringLiteral("; power %1 W mean, %2 W max").arg(formatNumber(*powerWMean), formatNumber(*powerWMax));
    if (utilPctMean)
        text += QStringLiteral("; util %1% mean").arg(formatNumber(*utilPctMean));
    if (memoryUsedMibMax)
        text += QStringLiteral("; memory %1 MiB max").arg(formatNumber(*memoryUsedMibMax, 6, 0));
    if (energyCost)
        text +=
            QStringLiteral("; energy $%1 at $%2/kWh").arg(formatNumber(*energyCost, 3, 6), formatNumber(*pricePerKwh));
    if (energyCostPerMOutputTokens)
        text += QStringLiteral(" ($%1 per 1M output tokens)").arg(formatNumber(*energyCostPerMOutputTokens, 3, 6));
    return text;
}

json GpuSummary::toJson() const
{
    json j;
    j["metrics_url"] = url.toStdString();
    j["scrapes"] = scrapes;
    j["failed_scrapes"] = failures;
    if (!problem.isEmpty())
        j["problem"] = problem.toStdString();
    j["window_s"] = windowS;
    j["gpus"] = gpus;
    json util = json::object();
    putOptional(util, "mean", utilPctMean);
    putOptional(util, "max", utilPctMax);
    j["util_pct"] = util;
    json memory = json::object();
    putOptional(memory, "max", memoryUsedMibMax);
    j["memory_used_mib"] = memory;
    json power = json::object();
    putOptional(power, "mean", powerWMean);
    putOptional(power, "max", powerWMax);
    j["power_w"] = power;
    putOptional(j, "energy_j", energyJ);
    if (!energySource.isEmpty())
        j["energy_source"] = energySource.toStdString();
    j["counter_resets"] = counterResets;
    j["rejected_values"] = rejected;
    putOptional(j, "joules_per_output_token", joulesPerOutputToken);
    putOptional(j, "joules_per_request", joulesPerRequest);
    putOptional(j, "price_per_kwh", pricePerKwh);
    putOptional(j, "energy_cost", energyCost);
    putOptional(j, "energy_cost_per_1m_output_tokens", energyCostPerMOutputTokens);
    json each = json::array();
    for (const Gpu &g : perGpu) {
        json one;
        one["id"] = g.id.toStdString();
        if (!g.model.isEmpty())
            one["model"] = g.model.toStdString();
        putOptional(one, "energy_j", g.energyJ);
        if (!g.energySource.isEmpty())
            one["energy_source"] = g.energySource.toStdString();
        putOptional(one, "power_w_mean", g.powerWMean);
        putOptional(one, "util_pct_mean", g.utilPctMean);
        putOptional(one, "memory_used_mib_max", g.memoryUsedMibMax);
        one["counter_resets"] = g.counterResets;
        each.push_back(std::move(one));
    }
    j["per_gpu"] = std::move(each);
    return j;
}

std::optional<GpuSummary> GpuSummary::fromJson(const json &j, QString *error)
{
    if (!j.is_object()) {
        if (error)
            *error = QStringLiteral("gpu: must be an object");
        return std::nullopt;
    }
    const auto sub = [&j](const char *key) { return j.contains(key) ? j[key] : json(); };
    // Counts from a file: whole and small, whatever it says.
    const auto count = [](std::optional<double> v) { return v ? int(std::clamp(*v, 0.0, 1e9)) : 0; };
    GpuSummary s;
    s.url = gpuText(j, "metrics_url");
    s.problem = gpuText(j, "problem");
    s.scrapes = count(gpuNumber(j, "scrapes"));
    s.failures = count(gpuNumber(j, "failed_scrapes"));
    s.windowS = gpuNumber(j, "window_s").value_or(0);
    s.gpus = count(gpuNumber(j, "gpus"));
    s.utilPctMean = gpuNumber(sub("util_pct"), "mean");
    s.utilPctMax = gpuNumber(sub("util_pct"), "max");
    s.memoryUsedMibMax = gpuNumber(sub("memory_used_mib"), "max");
    s.powerWMean = gpuNumber(sub("power_w"), "mean");
    s.powerWMax = gpuNumber(sub("power_w"), "max");
    s.energyJ = gpuNumber(j, "energy_j");
    s.energySource = gpuText(j, "energy_source");
    s.counterResets = count(gpuNumber(j, "counter_resets"));
    s.rejected = count(gpuNumber(j, "rejected_values"));
    s.joulesPerOutputToken = gpuNumber(j, "joules_per_output_token");
    s.joulesPerRequest = gpuNumber(j, "joules_per_request");
    s.pricePerKwh = gpuNumber(j, "price_per_kwh");
    s.energyCost = gpuNumber(j, "energy_cost");
    s.energyCostPerMOutputTokens = gpuNumber(j, "energy_cost_per_1m_output_tokens");
    if (const json each = sub("per_gpu"); each.is_array()) {
        for (const json &one : each) {
            if (!one.is_object()) {
                if (error)
                    *error = QStringLiteral("gpu: per_gpu: each must be an object");
                return std::nullopt;
            }
            Gpu g;
            g.id = gpuText(one, "id");
            g.model = gpuText(one, "model");
            g.energyJ = gpuNumber(one, "energy_j");
            g.energySource = gpuText(one, "energy_source");
            g.powerWMean = gpuNumber(one, "power_w_mean");
            g.utilPctMean = gpuNumber(one, "util_pct_mean");
            g.memoryUsedMibMax = gpuNumber(one, "memory_used_mib_max");
            g.counterResets = count(gpuNumber(one, "counter_resets"));
            s.perGpu.push_back(std::move(g));
        }
    }
    return s;
}

void GpuSeries::Accumulator::add(double v)
{
    sum += v;
    max = n ? std::max(max, v) : v;
    ++n;
}

void GpuSeries::markMeasurementStart(double tS)
{
    if (!m_markS)
        m_markS = tS;
}

void GpuSeries::add(const GpuPoint &point)
{
    ++m_scrapes;
    m_rejected += point.rejected;
    m_ignoredGpus = std::max(m_ignoredGpus, point.ignoredGpus);
    m_lastS = point.tS;
    // Before the measurement this scrape is the baseline: the window starts from it afresh.
    const bool before = !m_markS || point.tS < *m_markS;
    if (before || !m_baselineS) {
        m_baselineS = point.tS;
        m_power = m_util = m_memory = {};
        for (auto &[id, gpu] : m_gpus) {
            const QString model = gpu.model;
            gpu = Gpu{};
            gpu.model = model;
        }
        for (const GpuSample &s : point.gpus) {
            Gpu &gpu = m_gpus[s.id];
            gpu.model = QString::fromStdString(s.model);
            gpu.lastEnergyMj = s.energyMj;
            gpu.lastPowerW = s.powerW;
            gpu.lastTS = point.tS;
        }
        return;
    }
    double powerSum = 0;
    double memorySum = 0;
    bool anyPower = false;
    bool anyMemory = false;
    for (const GpuSample &s : point.gpus) {
        Gpu &gpu = m_gpus[s.id];
        if (gpu.model.isEmpty())
            gpu.model = QString::fromStdString(s.model);
        const double dt = point.tS - gpu.lastTS;
        if (s.energyMj && gpu.lastEnergyMj) {
            double deltaMj = *s.energyMj - *gpu.lastEnergyMj;
            if (deltaMj < 0) { // a reset (a restarted exporter or driver): counted from zero
                ++gpu.resets;
                deltaMj = *s.energyMj;
            }
            // More than the largest believable power over the interval: not believed.
            if (dt > 0 && deltaMj / 1000 / dt > gpulimits::kMaxPowerW) {
                ++m_rejected;
            } else {
                gpu.counterJ += deltaMj / 1000;
                ++gpu.counterSteps;
            }
        }
        if (s.powerW && gpu.lastPowerW && dt > 0) {
            gpu.powerJ += (*s.powerW + *gpu.lastPowerW) / 2 * dt;
            ++gpu.powerSteps;
        }
        if (s.energyMj)
            gpu.lastEnergyMj = s.energyMj;
        if (s.powerW) {
            gpu.lastPowerW = s.powerW;
            gpu.power.add(*s.powerW);
            powerSum += *s.powerW;
            anyPower = true;
        }
        if (s.utilPct) {
            gpu.util.add(*s.utilPct);
            m_util.add(*s.utilPct);
        }
        if (s.memoryUsedMib) {
            gpu.memory.add(*s.memoryUsedMib);
            memorySum += *s.memoryUsedMib;
            anyMemory = true;
        }
        gpu.lastTS = point.tS;
    }
    if (anyPower)
        m_power.add(powerSum);
    if (anyMemory)
        m_memory.add(memorySum);
}

void GpuSeries::addFailure(const QString &problem)
{
    ++m_failures;
    if (m_problem.isEmpty())
        m_problem = problem;
}

std::optional<GpuSummary> GpuSeries::summary() const
{
    if (m_scrapes == 0 && m_failures == 0)
        return std::nullopt;
    GpuSummary s;
    s.url = m_url;
    s.scrapes = m_scrapes;
    s.failures = m_failures;
    s.problem = m_problem;
    s.windowS = m_baselineS && m_markS ? m_lastS - *m_baselineS : 0;
    s.gpus = int(m_gpus.size());
    s.utilPctMean = m_util.mean();
    s.utilPctMax = m_util.peak();
    s.memoryUsedMibMax = m_memory.peak();
    s.powerWMean = m_power.mean();
    s.powerWMax = m_power.peak();
    s.rejected = m_rejected;
    bool counter = false;
    bool power = false;
    for (const auto &[id, gpu] : m_gpus) {
        GpuSummary::Gpu g;
        g.id = QString::fromStdString(id);
        g.model = gpu.model;
        g.energySource = sourceOf(gpu.counterSteps, gpu.powerSteps);
        if (gpu.counterSteps > 0) {
            g.energyJ = gpu.counterJ;
            counter = true;
        } else if (gpu.powerSteps > 0) {
            g.energyJ = gpu.powerJ;
            power = true;
        }
        if (g.energyJ)
            s.energyJ = s.energyJ.value_or(0) + *g.energyJ;
        g.powerWMean = gpu.power.mean();
        g.utilPctMean = gpu.util.mean();
        g.memoryUsedMibMax = gpu.memory.peak();
        g.counterResets = gpu.resets;
        s.counterResets += gpu.resets;
        s.perGpu.push_back(std::move(g));
    }
    s.energySource = counter && power ? QStringLiteral("mixed")
                     : counter        ? QStringLiteral("counter")
                     : power          ? QStringLiteral("power")
                                      : QString();
    return s;
}

QStringList GpuSeries::warnings() const
{
    // Multi-argument arg() throughout: the URL may hold "%1"-like escapes that a chained arg() would fill.
    QStringList w;
    const QString where = QStringLiteral("GPU metrics (") + m_url + QLatin1Char(')');
    if (m_scrapes == 0 && m_failures > 0)
        w << QStringLiteral("%1: no scrape answered (%2): no GPU figures").arg(where, m_problem);
    else if (m_failures > 0)
        w << QStringLiteral("%1: %2 of %3 scrapes failed, the first: %4")
                 .arg(where, QString::number(m_failures), QString::number(m_failures + m_scrapes), m_problem);
    for (const auto &[id, gpu] : m_gpus) {
        if (gpu.resets > 0)
            w << QStringLiteral("%1: the energy counter of %2 went down %3 time(s) during the run (a reset): "
                                "counted from zero after each, as Prometheus's increase() does")
                     .arg(where, QString::fromStdString(id), QString::number(gpu.resets));
    }
    if (m_rejected > 0)
        w << QStringLiteral("%1: %2 value(s) negative, not finite or beyond belief (over %3 W a GPU, %4 MiB, 100 %) "
                            "left out")
                 .arg(where, QString::number(m_rejected), formatNumber(gpulimits::kMaxPowerW, 6, 0),
                      formatNumber(gpulimits::kMaxMemoryMib, 10, 0));
    if (m_ignoredGpus > 0)
        w << QStringLiteral("%1: more than %2 GPUs: %3 series of the others ignored")
                 .arg(where, QString::number(gpulimits::kMaxGpus), QString::number(m_ignoredGpus));
    if (m_scrapes > 0 && m_markS && m_baselineS && m_lastS > *m_baselineS) {
        const auto s = summary();
        if (s && !s->energyJ)
            w << QStringLiteral("%1: neither %2 nor %3 over the window: no energy")
                     .arg(where, QLatin1String(dcgm::kEnergy), QLatin1String(dcgm::kPower));
    }
    return w;
}

} // namespace tb
