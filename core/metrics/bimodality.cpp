#include "metrics/bimodality.h"

#include "formats/numberformat.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tb {

namespace {

struct Bin {
    double mass = 0;     ///< fraction of the samples
    double heaviest = 0; ///< the fraction of the heaviest fine bucket in it
    double value = 0;    ///< that bucket's value
};

int binOf(double value, int lowest)
{
    // The zero bucket (values below LogHistogram::kMinValue) joins the lowest bin.
    return value > LogHistogram::kMinValue
               ? std::max(int(std::floor(std::log10(value) * Bimodality::kBinsPerDecade)), lowest)
               : lowest;
}

} // namespace

std::optional<Bimodality> Bimodality::of(const LogHistogram &samples)
{
    if (samples.count() < kMinSamples)
        return std::nullopt;
    const std::vector<CdfPoint> cdf = samples.cdf();
    const int lowest = int(std::floor(std::log10(LogHistogram::kMinValue) * kBinsPerDecade));
    const int first = binOf(cdf.front().value, lowest);
    std::vector<Bin> bins(std::size_t(binOf(cdf.back().value, lowest) - first + 1));
    double previous = 0;
    for (const CdfPoint &p : cdf) {
        Bin &bin = bins[std::size_t(binOf(p.value, lowest) - first)];
        const double mass = p.fraction - previous;
        previous = p.fraction;
        bin.mass += mass;
        if (mass > bin.heaviest) {
            bin.heaviest = mass;
            bin.value = p.value;
        }
    }
    const auto peak = [&bins](std::size_t i) {
        return bins[i].mass > 0 && (i == 0 || bins[i].mass > bins[i - 1].mass) &&
               (i + 1 == bins.size() || bins[i].mass >= bins[i + 1].mass);
    };
    const std::size_t top = std::size_t(
        std::max_element(bins.begin(), bins.end(), [](const Bin &a, const Bin &b) { return a.mass < b.mass; }) -
        bins.begin());
    std::optional<Bimodality> best;
    for (std::size_t j = 0; j < bins.size(); ++j) {
        if (j == top || !peak(j))
            continue;
        const std::size_t from = std::min(j, top) + 1;
        const std::size_t to = std::max(j, top); // the bins strictly between: [from, to)
        if (from >= to)
            continue;
        const std::size_t valley =
            std::size_t(std::min_element(bins.begin() + std::ptrdiff_t(from), bins.begin() + std::ptrdiff_t(to),
                                         [](const Bin &a, const Bin &b) { return a.mass < b.mass; }) -
                        bins.begin());
        if (bins[valley].mass >= 0.5 * std::min(bins[j].mass, bins[top].mass))
            continue;
        double below = 0;
        for (std::size_t i = 0; i < valley; ++i)
            below += bins[i].mass;
        const double above = 1 - below - bins[valley].mass;
        const double share = std::min(below, above);
        if (share < kMinShare || (best && share <= best->share) || bins[std::max(j, top)].value < kMinHighModeMs)
            continue;
        Bimodality b;
        b.share = share;
        b.lowModeMs = bins[std::min(j, top)].value;
        b.highModeMs = bins[std::max(j, top)].value;
        b.minorHigh = above <= below;
        best = b;
    }
    return best;
}

QString Bimodality::describe(const QString &samplesName) const
{
    return QStringLiteral("%1% of %2 near %3 ms, the rest near %4 ms")
        .arg(share * 100, 0, 'f', 1)
        .arg(samplesName, formatNumber(minorHigh ? highModeMs : lowModeMs, 3),
             formatNumber(minorHigh ? lowModeMs : highModeMs, 3));
}

nlohmann::json Bimodality::toJson() const
{
    return {{"share", share},
            {"low_mode_ms", lowModeMs},
            {"high_mode_ms", highModeMs},
            {"minor", minorHigh ? "high" : "low"}};
}

std::optional<Bimodality> Bimodality::fromJson(const nlohmann::json &json, QString *error)
{
    const auto number = [&json](const char *key) -> std::optional<double> {
        const auto it = json.find(key);
        return it != json.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
    };
    const auto share = json.is_object() ? number("share") : std::nullopt;
    const auto low = json.is_object() ? number("low_mode_ms") : std::nullopt;
    const auto high = json.is_object() ? number("high_mode_ms") : std::nullopt;
    const auto minor = json.is_object() ? json.find("minor") : json.end();
    if (!share || !low || !high || minor == json.end() || (*minor != "high" && *minor != "low")) {
        if (error)
            *error = QStringLiteral("must be an object with numbers share, low_mode_ms, high_mode_ms and minor "
                                    "\"high\" or \"low\"");
        return std::nullopt;
    }
    return Bimodality{*share, *low, *high, *minor == "high"};
}

} // namespace tb
