#pragma once

// GPU telemetry beside a run (--gpu-metrics): NVIDIA's DCGM exporter's series (utilisation,
// framebuffer memory, power, the energy counter) per GPU, and what a run makes of them — the
// `gpu` block of summary.json: energy over the measurement window, joules per output token and
// per request, and with a price per kWh the energy's cost (docs/metrics.md "GPU energy").

#include "formats/prometheustext.h"

#include <QByteArrayView>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tb {

/// The DCGM exporter's names (etc/default-counters.csv): each a gauge but the energy counter.
namespace dcgm {
inline constexpr const char *kUtil = "DCGM_FI_DEV_GPU_UTIL";                   ///< %
inline constexpr const char *kFbUsed = "DCGM_FI_DEV_FB_USED";                  ///< MiB
inline constexpr const char *kFbFree = "DCGM_FI_DEV_FB_FREE";                  ///< MiB
inline constexpr const char *kPower = "DCGM_FI_DEV_POWER_USAGE";               ///< W
inline constexpr const char *kEnergy = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"; ///< mJ since boot
} // namespace dcgm

/// Largest values believed from an exporter; beyond them (or negative, NaN, infinite) a value is
/// rejected and counted, never summed: a hostile or broken exporter cannot make a run's energy.
namespace gpulimits {
inline constexpr std::size_t kMaxGpus = 1024; ///< GPUs kept per scrape; more are ignored
inline constexpr double kMaxPowerW = 100'000; ///< per GPU
inline constexpr double kMaxEnergyMj = 1e18;  ///< per GPU counter (about 32 GW·years)
inline constexpr double kMaxMemoryMib = 1e9;  ///< per GPU
inline constexpr double kMaxUtilPct = 100;
} // namespace gpulimits

/// One GPU in one scrape: the series present and believable.
struct GpuSample {
    std::string id;    ///< the `UUID` label, else `Hostname` and `gpu` ("node-1:gpu0"), else "gpu"
    std::string gpu;   ///< the `gpu` label (index on its host)
    std::string model; ///< `modelName`
    std::string host;  ///< `Hostname`
    std::optional<double> utilPct;
    std::optional<double> memoryUsedMib;
    std::optional<double> memoryFreeMib;
    std::optional<double> powerW;
    std::optional<double> energyMj;
};

/// One scrape of a DCGM exporter.
struct GpuPoint {
    double tS = 0;
    std::vector<GpuSample> gpus; ///< ordered by id
    int rejected = 0;            ///< values out of bounds (negative, NaN, huge) left out
    int ignoredGpus = 0;         ///< GPUs beyond gpulimits::kMaxGpus
};

/// The DCGM series of one scrape, per GPU (by UUID, else host and `gpu` label); other series are
/// ignored. Several samples of one GPU and name (e.g. per-pod labels) keep the last.
GpuPoint mapGpuMetrics(const PromExposition &exposition, double tS);

/// What a chart draws of a run's GPUs over time: each scrape's power and utilisation per GPU and
/// over all of them — live from the scrapes, saved from gpu_metrics.csv. The first kMaxTracedGpus
/// GPUs (in the order first seen) keep their own columns; any more count in the sum and mean only,
/// so a row stays small and a snapshot a few times a second stays cheap.
struct GpuTrace {
    static constexpr std::size_t kMaxTracedGpus = 8;
    static constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
    struct Row {
        double tS = 0;
        std::vector<double> powerW;  ///< per ids[i]; NaN where that GPU had none (shorter: not seen yet)
        std::vector<double> utilPct; ///< the same
        double powerWSum = kNone;    ///< Σ over the GPUs that reported power; NaN when none did
        double utilPctMean = kNone;  ///< mean over the GPUs that reported utilisation; NaN when none did
        int gpus = 0;                ///< GPUs in the scrape
    };
    std::vector<std::string> ids; ///< GpuSample::id of the traced GPUs
    std::vector<Row> rows;        ///< one per scrape, in order

    void add(const GpuPoint &point);
    bool empty() const { return rows.empty(); }
    /// Most GPUs in one scrape.
    int peakGpus() const;
    /// GPU `gpu`'s (an index of ids) power or utilisation in `row`; NaN where none.
    double powerW(const Row &row, std::size_t gpu) const;
    double utilPct(const Row &row, std::size_t gpu) const;
};

/// The trace of a saved run from its gpu_metrics.csv (server_metrics.csv's columns), scrape by
/// scrape through the same mapping as the live run. None with *error when the file is damaged.
std::optional<GpuTrace> gpuTraceFromCsv(QByteArrayView csv, QString *error);

/// summary.json's `gpu` block.
struct GpuSummary {
    struct Gpu {
        QString id;
        QString model;
        std::optional<double> energyJ;
        QString energySource; ///< "counter" | "power" | "" (neither)
        std::optional<double> powerWMean;
        std::optional<double> utilPctMean;
        std::optional<double> memoryUsedMibMax;
        int counterResets = 0;
    };
    QString url;        ///< scraped endpoint (no credentials)
    int scrapes = 0;    ///< successful scrapes
    int failures = 0;   ///< failed scrapes
    QString problem;    ///< the first failure; empty when none
    double windowS = 0; ///< from the baseline scrape to the last one
    int gpus = 0;
    std::optional<double> utilPctMean, utilPctMax; ///< over scrapes and GPUs
    std::optional<double> memoryUsedMibMax;        ///< the largest sum over GPUs of one scrape
    std::optional<double> powerWMean, powerWMax;   ///< of the sum over GPUs of each scrape
    std::optional<double> energyJ;                 ///< Σ GPUs over the window
    QString energySource;                          ///< "counter", "power" or "mixed"
    int counterResets = 0;                         ///< energy counters that went down (counted from zero)
    int rejected = 0;                              ///< values left out as out of bounds
    std::optional<double> joulesPerOutputToken;
    std::optional<double> joulesPerRequest; ///< per successful request
    std::optional<double> pricePerKwh;      ///< USD, as given
    std::optional<double> energyCost;       ///< USD of energyJ at pricePerKwh
    std::optional<double> energyCostPerMOutputTokens;
    std::vector<Gpu> perGpu;

    /// Fills the per-token, per-request and cost figures from energyJ.
    void setWork(std::int64_t outputTokens, std::int64_t okRequests, std::optional<double> pricePerKwh);
    /// "2 GPUs, 412.0 J (counter) over 10.1 s: 0.512 J/output token, 25.6 J/request, power 40.8 W mean …"
    QString line() const;

    nlohmann::json toJson() const;
    static std::optional<GpuSummary> fromJson(const nlohmann::json &json, QString *error);
};

/// A run's scrapes of one DCGM exporter: the summary over the measurement window (from the last
/// scrape before the first measured request was sent to the last scrape), built as scrapes come,
/// keeping a few figures per GPU and none of the scrapes.
class GpuSeries
{
public:
    void setUrl(const QString &url) { m_url = url; }
    /// The measurement starts (warm-up over) at run time tS.
    void markMeasurementStart(double tS);
    void add(const GpuPoint &point);
    void addFailure(const QString &problem);

    /// None before the first scrape or failure.
    std::optional<GpuSummary> summary() const;
    /// Counter resets, rejected values, an exporter that never answered.
    QStringList warnings() const;

private:
    struct Accumulator {
        double sum = 0;
        double max = 0;
        int n = 0;
        void add(double v);
        std::optional<double> mean() const { return n ? std::optional<double>(sum / n) : std::nullopt; }
        std::optional<double> peak() const { return n ? std::optional<double>(max) : std::nullopt; }
    };
    struct Gpu {
        QString model;
        std::optional<double> lastEnergyMj; ///< the last counter read
        std::optional<double> lastPowerW;
        double lastTS = 0;
        double counterJ = 0; ///< Σ counter increases in the window
        double powerJ = 0;   ///< ∫ power dt over the window (trapezoids)
        int counterSteps = 0;
        int powerSteps = 0;
        int resets = 0;
        Accumulator power, util, memory;
    };

    std::map<std::string, Gpu> m_gpus;
    QString m_url;
    std::optional<double> m_markS;
    std::optional<double> m_baselineS;
    double m_lastS = 0;
    int m_scrapes = 0;
    int m_failures = 0;
    int m_rejected = 0;
    int m_ignoredGpus = 0;
    QString m_problem;
    Accumulator m_power, m_util, m_memory; ///< per scrape in the window: Σ power, each GPU's util, Σ memory
};

} // namespace tb

Q_DECLARE_METATYPE(tb::GpuPoint)
