#include "metrics/loghistogram.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tb {

namespace {

const double kGamma = (1 + LogHistogram::kRelativeError) / (1 - LogHistogram::kRelativeError);
const double kLnGamma = std::log(kGamma);
const int kMinIndex = int(std::ceil(std::log(LogHistogram::kMinValue) / kLnGamma));
const int kMaxIndex = int(std::ceil(std::log(LogHistogram::kMaxValue) / kLnGamma));
const std::size_t kBucketRange = std::size_t(std::int64_t(kMaxIndex) - kMinIndex + 1);

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// A non-negative integer, however the JSON stores it (parsed text gives unsigned, code signed).
bool isCount(const nlohmann::json &v)
{
    return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
}

} // namespace

int LogHistogram::indexOf(double value)
{
    return std::clamp(int(std::ceil(std::log(value) / kLnGamma)), kMinIndex, kMaxIndex);
}

double LogHistogram::representative(int index)
{
    return 2 * std::pow(kGamma, index) / (kGamma + 1);
}

std::uint64_t LogHistogram::nearestRank(double q, std::uint64_t n)
{
    if (n == 0)
        return 0;
    // q·n is computed in floating point; 0.95·20 gives 19.000000000000004, whose ceiling would skip
    // a rank. A relative slack far below 1/n keeps exact products exact.
    const double product = std::clamp(q, 0.0, 1.0) * double(n);
    const auto rank = std::uint64_t(std::ceil(product - product * 1e-12));
    return std::clamp<std::uint64_t>(rank, 1, n);
}

void LogHistogram::record(double value, std::uint64_t count)
{
    if (count == 0 || std::isnan(value))
        return;
    value = std::clamp(value, 0.0, kMaxValue);
    if (m_count == 0) {
        m_min = value;
        m_max = value;
    } else {
        m_min = std::min(m_min, value);
        m_max = std::max(m_max, value);
    }
    addMoments(count, value, 0);
    if (value < kMinValue)
        m_zeroCount += count;
    else
        addToBucket(indexOf(value), count);
}

void LogHistogram::addMoments(std::uint64_t count, double mean, double m2)
{
    // Chan et al.'s pairwise update; with m2 = 0 it is weighted Welford for a single value.
    const std::uint64_t total = m_count + count;
    const double delta = mean - m_mean;
    m_mean += delta * double(count) / double(total);
    m_m2 += m2 + delta * delta * double(m_count) * double(count) / double(total);
    m_count = total;
}

void LogHistogram::addToBucket(int index, std::uint64_t count)
{
    if (m_counts.empty()) {
        m_offset = index;
        m_counts.assign(1, count);
        return;
    }
    // Grow geometrically for O(1) amortised records, but never past the whole index range.
    const auto reserveFor = [this](std::size_t size) {
        if (size > m_counts.capacity())
            m_counts.reserve(std::min(std::max(size, 2 * m_counts.capacity()), kBucketRange));
    };
    if (index < m_offset) {
        reserveFor(m_counts.size() + std::size_t(m_offset - index));
        m_counts.insert(m_counts.begin(), std::size_t(m_offset - index), 0);
        m_offset = index;
    } else if (index >= m_offset + int(m_counts.size())) {
        const auto size = std::size_t(std::int64_t(index) - m_offset + 1);
        reserveFor(size);
        m_counts.resize(size, 0);
    }
    m_counts[std::size_t(index - m_offset)] += count;
}

void LogHistogram::merge(const LogHistogram &other)
{
    if (other.m_count == 0)
        return;
    if (m_count == 0) {
        *this = other;
        return;
    }
    m_min = std::min(m_min, other.m_min);
    m_max = std::max(m_max, other.m_max);
    addMoments(other.m_count, other.m_mean, other.m_m2);
    m_zeroCount += other.m_zeroCount;
    if (other.m_counts.empty())
        return;
    // Grow once to the union of both ranges, then add bucket by bucket.
    addToBucket(other.m_offset, 0);
    addToBucket(other.m_offset + int(other.m_counts.size()) - 1, 0);
    for (std::size_t i = 0; i < other.m_counts.size(); ++i)
        m_counts[std::size_t(other.m_offset - m_offset) + i] += other.m_counts[i];
}

double LogHistogram::min() const
{
    return m_count ? m_min : kNaN;
}

double LogHistogram::max() const
{
    return m_count ? m_max : kNaN;
}

double LogHistogram::mean() const
{
    return m_count ? m_mean : kNaN;
}

double LogHistogram::stddev() const
{
    return m_count ? std::sqrt(std::max(0.0, m_m2 / double(m_count))) : kNaN;
}

double LogHistogram::percentile(double q) const
{
    if (m_count == 0)
        return kNaN;
    if (q <= 0)
        return m_min;
    if (q >= 1)
        return m_max;
    const std::uint64_t rank = nearestRank(q, m_count);
    std::uint64_t seen = m_zeroCount;
    if (seen >= rank)
        return m_min;
    for (std::size_t i = 0; i < m_counts.size(); ++i) {
        seen += m_counts[i];
        if (seen >= rank)
            return std::clamp(representative(m_offset + int(i)), m_min, m_max);
    }
    return m_max;
}

std::vector<CdfPoint> LogHistogram::cdf() const
{
    std::vector<CdfPoint> points;
    if (m_count == 0)
        return points;
    const double total = double(m_count);
    std::uint64_t seen = m_zeroCount;
    if (m_zeroCount)
        points.push_back({m_min, double(seen) / total});
    for (std::size_t i = 0; i < m_counts.size(); ++i) {
        if (!m_counts[i])
            continue;
        seen += m_counts[i];
        points.push_back({std::clamp(representative(m_offset + int(i)), m_min, m_max), double(seen) / total});
    }
    return points;
}

nlohmann::json LogHistogram::toJson() const
{
    nlohmann::json json{{"relative_error", kRelativeError}, {"count", m_count}};
    if (m_count == 0)
        return json;
    nlohmann::json counts = nlohmann::json::array();
    std::int64_t emptyRun = 0;
    for (const std::uint64_t c : m_counts) {
        if (c == 0) {
            ++emptyRun;
            continue;
        }
        if (emptyRun)
            counts.push_back(-emptyRun);
        emptyRun = 0;
        counts.push_back(c);
    }
    json["min"] = m_min;
    json["max"] = m_max;
    json["mean"] = m_mean;
    json["m2"] = m_m2;
    json["zero"] = m_zeroCount;
    json["offset"] = m_offset;
    json["counts"] = std::move(counts);
    return json;
}

std::optional<LogHistogram> LogHistogram::fromJson(const nlohmann::json &json, QString *error)
{
    const auto fail = [error](const QString &why) -> std::optional<LogHistogram> {
        if (error)
            *error = QStringLiteral("histogram: ") + why;
        return std::nullopt;
    };
    if (!json.is_object())
        return fail(QStringLiteral("not a JSON object"));
    const auto number = [&json](const char *key) -> const nlohmann::json * {
        const auto it = json.find(key);
        return it != json.end() && it->is_number() ? &*it : nullptr;
    };
    const auto *resolution = number("relative_error");
    if (!resolution)
        return fail(QStringLiteral("missing relative_error"));
    if (std::abs(resolution->get<double>() - kRelativeError) > 1e-12)
        return fail(
            QStringLiteral("resolution %1 is not this build's %2").arg(resolution->get<double>()).arg(kRelativeError));
    const auto *count = number("count");
    if (!count || !isCount(*count))
        return fail(QStringLiteral("missing or negative count"));
    LogHistogram h;
    if (count->get<std::uint64_t>() == 0)
        return h;
    const auto *min = number("min");
    const auto *max = number("max");
    const auto *mean = number("mean");
    const auto *m2 = number("m2");
    const auto *zero = number("zero");
    const auto *offset = number("offset");
    const auto counts = json.find("counts");
    if (!min || !max || !mean || !m2 || !zero || !isCount(*zero) || !offset || !offset->is_number_integer() ||
        counts == json.end() || !counts->is_array())
        return fail(QStringLiteral("missing min, max, mean, m2, zero, offset or counts"));
    h.m_count = count->get<std::uint64_t>();
    h.m_min = min->get<double>();
    h.m_max = max->get<double>();
    h.m_mean = mean->get<double>();
    h.m_m2 = m2->get<double>();
    h.m_zeroCount = zero->get<std::uint64_t>();
    h.m_offset = offset->get<int>();
    std::uint64_t total = h.m_zeroCount;
    for (const auto &c : *counts) {
        if (!c.is_number_integer())
            return fail(QStringLiteral("counts must be integers"));
        const std::size_t buckets = isCount(c) ? 1 : std::size_t(-(c.get<std::int64_t>() + 1)) + 1;
        if (h.m_counts.size() + buckets > kBucketRange)
            return fail(QStringLiteral("more buckets than the index range holds"));
        if (isCount(c)) {
            h.m_counts.push_back(c.get<std::uint64_t>());
            total += h.m_counts.back();
        } else {
            h.m_counts.resize(h.m_counts.size() + buckets, 0);
        }
    }
    if (total != h.m_count)
        return fail(QStringLiteral("bucket counts add up to %1, not count %2").arg(total).arg(h.m_count));
    if (!h.m_counts.empty() && (h.m_offset < kMinIndex || h.m_offset + int(h.m_counts.size()) - 1 > kMaxIndex))
        return fail(QStringLiteral("bucket offset %1 out of range").arg(h.m_offset));
    if (!(h.m_min <= h.m_max))
        return fail(QStringLiteral("min is greater than max"));
    return h;
}

} // namespace tb
