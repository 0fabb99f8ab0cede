#include "metrics/erroradjusted.h"

#include "metrics/exactpercentile.h"

#include <array>
#include <cmath>
#include <limits>

namespace tb {

namespace {

// Named apart from latencystats.cpp's field table: unity builds put both in one file.
using QuantileMember = double ErrorAdjusted::*;
struct QuantileField {
    const char *key;
    QuantileMember field;
    double q;
};
constexpr std::array<QuantileField, 3> kQuantileFields{{
    {"p50", &ErrorAdjusted::p50, 0.50},
    {"p90", &ErrorAdjusted::p90, 0.90},
    {"p99", &ErrorAdjusted::p99, 0.99},
}};

constexpr const char *kInfinite = "inf";

} // namespace

ErrorAdjusted ErrorAdjusted::of(const std::vector<float> &values, std::uint64_t failed)
{
    ErrorAdjusted e;
    e.failed = failed;
    std::vector<double> samples(values.begin(), values.end());
    samples.resize(samples.size() + failed, std::numeric_limits<double>::infinity());
    e.count = samples.size();
    for (const auto &[key, field, q] : kQuantileFields)
        e.*field = exactPercentile(samples, q);
    return e;
}

nlohmann::json ErrorAdjusted::toJson() const
{
    nlohmann::json json{{"count", count}, {"failed", failed}};
    for (const auto &[key, field, q] : kQuantileFields) {
        const double v = this->*field;
        json[key] = std::isinf(v) ? nlohmann::json(kInfinite) : std::isnan(v) ? nlohmann::json() : nlohmann::json(v);
    }
    return json;
}

std::optional<ErrorAdjusted> ErrorAdjusted::fromJson(const nlohmann::json &json, QString *error)
{
    const auto fail = [error](const QString &why) -> std::optional<ErrorAdjusted> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    if (!json.is_object())
        return fail(QStringLiteral("not an error-adjusted object"));
    ErrorAdjusted e;
    for (const auto &[key, out] : {std::pair{"count", &e.count}, std::pair{"failed", &e.failed}}) {
        const auto it = json.find(key);
        if (it == json.end() || !it->is_number_unsigned())
            return fail(QStringLiteral("%1 is not a count").arg(QLatin1String(key)));
        *out = it->get<std::uint64_t>();
    }
    for (const auto &[key, field, q] : kQuantileFields) {
        const auto it = json.find(key);
        if (it == json.end())
            return fail(QStringLiteral("missing %1").arg(QLatin1String(key)));
        if (it->is_number())
            e.*field = it->get<double>();
        else if (it->is_null())
            e.*field = std::numeric_limits<double>::quiet_NaN();
        else if (*it == kInfinite)
            e.*field = std::numeric_limits<double>::infinity();
        else
            return fail(QStringLiteral("%1 is neither a number nor \"inf\"").arg(QLatin1String(key)));
    }
    return e;
}

} // namespace tb
