#include "metrics/latencystats.h"

#include <array>
#include <cmath>
#include <limits>

namespace tb {

namespace {

using Field = double LatencyStats::*;
struct NamedField {
    const char *key;
    Field field;
};
// count is handled apart: it is the one integer.
constexpr std::array<NamedField, 9> kFields{{
    {"mean", &LatencyStats::mean},
    {"stddev", &LatencyStats::stddev},
    {"min", &LatencyStats::min},
    {"p50", &LatencyStats::p50},
    {"p90", &LatencyStats::p90},
    {"p95", &LatencyStats::p95},
    {"p99", &LatencyStats::p99},
    {"p999", &LatencyStats::p999},
    {"max", &LatencyStats::max},
}};

} // namespace

LatencyStats LatencyStats::fromHistogram(const LogHistogram &h)
{
    LatencyStats s;
    s.count = h.count();
    s.mean = h.mean();
    s.stddev = h.stddev();
    s.min = h.min();
    s.p50 = h.percentile(0.50);
    s.p90 = h.percentile(0.90);
    s.p95 = h.percentile(0.95);
    s.p99 = h.percentile(0.99);
    s.p999 = h.percentile(0.999);
    s.max = h.max();
    return s;
}

nlohmann::json LatencyStats::toJson() const
{
    nlohmann::json json{{"count", count}};
    for (const auto &[key, field] : kFields) {
        const double v = this->*field;
        json[key] = std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
    }
    return json;
}

std::optional<LatencyStats> LatencyStats::fromJson(const nlohmann::json &json, QString *error)
{
    const auto fail = [error](const QString &why) -> std::optional<LatencyStats> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    if (!json.is_object())
        return fail(QStringLiteral("not a statistics object"));
    const auto count = json.find("count");
    if (count == json.end() || !count->is_number_integer() ||
        (!count->is_number_unsigned() && count->get<std::int64_t>() < 0))
        return fail(QStringLiteral("missing count"));
    LatencyStats s;
    s.count = count->get<std::uint64_t>();
    for (const auto &[key, field] : kFields) {
        const auto it = json.find(key);
        if (it == json.end())
            return fail(QStringLiteral("missing %1").arg(QLatin1String(key)));
        if (it->is_number())
            s.*field = it->get<double>();
        else if (it->is_null())
            s.*field = std::numeric_limits<double>::quiet_NaN();
        else
            return fail(QStringLiteral("%1 is not a number").arg(QLatin1String(key)));
    }
    return s;
}

} // namespace tb
