#include "metrics/slices.h"

#include "metrics/requestmetrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tb {

namespace {

constexpr std::int64_t kMinLastNs = 1'000'000;

nlohmann::json numberOrNull(double v)
{
    return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

} // namespace

nlohmann::json SliceSummary::toJson() const
{
    return {{"start_s", startS},
            {"end_s", endS},
            {"requests_ok", ok},
            {"requests_failed", failed},
            {"output_tokens_per_s", outputTokensPerS},
            {"ttft_ms", {{"p50", numberOrNull(ttftP50Ms)}, {"p99", numberOrNull(ttftP99Ms)}}},
            {"itl_ms", {{"p50", numberOrNull(itlP50Ms)}, {"p99", numberOrNull(itlP99Ms)}}},
            {"mean_in_flight", meanInFlight}};
}

std::optional<SliceSummary> SliceSummary::fromJson(const nlohmann::json &json, QString *error)
{
    const auto fail = [error](const char *why) -> std::optional<SliceSummary> {
        if (error)
            *error = QLatin1String(why);
        return std::nullopt;
    };
    const auto number = [](const nlohmann::json &o, const char *key, double &out) {
        const auto it = o.is_object() ? o.find(key) : o.end();
        if (it == o.end() || !(it->is_number() || it->is_null()))
            return false;
        out = it->is_null() ? std::numeric_limits<double>::quiet_NaN() : it->get<double>();
        return true;
    };
    SliceSummary s;
    double ok = 0;
    double failed = 0;
    if (!json.is_object() || !number(json, "start_s", s.startS) || !number(json, "end_s", s.endS) ||
        !number(json, "requests_ok", ok) || !number(json, "requests_failed", failed) ||
        !number(json, "output_tokens_per_s", s.outputTokensPerS) || !number(json, "mean_in_flight", s.meanInFlight) ||
        !json.contains("ttft_ms") || !json.contains("itl_ms") || !number(json["ttft_ms"], "p50", s.ttftP50Ms) ||
        !number(json["ttft_ms"], "p99", s.ttftP99Ms) || !number(json["itl_ms"], "p50", s.itlP50Ms) ||
        !number(json["itl_ms"], "p99", s.itlP99Ms))
        return fail("a slice needs numbers start_s, end_s, requests_ok, requests_failed, output_tokens_per_s, "
                    "mean_in_flight and ttft_ms, itl_ms {p50, p99}");
    // Counts read from a file: whole, and within what an int64 holds.
    if (!(ok >= 0 && ok < 9.2e18 && failed >= 0 && failed < 9.2e18))
        return fail("requests_ok and requests_failed must be counts");
    s.ok = std::int64_t(ok);
    s.failed = std::int64_t(failed);
    return s;
}

SliceAggregator::SliceAggregator(std::int64_t sliceNs)
    : m_sliceNs(std::max<std::int64_t>(sliceNs, 1))
{}

SliceAggregator::Slice *SliceAggregator::at(std::int64_t ns)
{
    const std::int64_t k = std::max<std::int64_t>(ns, 0) / m_sliceNs;
    if (k >= kMaxSlices) {
        ++m_beyond;
        return nullptr;
    }
    if (std::size_t(k) >= m_slices.size())
        m_slices.resize(std::size_t(k) + 1);
    return &m_slices[std::size_t(k)];
}

void SliceAggregator::add(const RequestRecord &r, const TokenTimeline *timeline)
{
    // In flight: [sent, done] cut at the slices' bounds; failed and cancelled included.
    if (r.sentNs >= 0 && r.doneNs > r.sentNs) {
        const std::int64_t first = r.sentNs / m_sliceNs;
        const std::int64_t last = std::min((r.doneNs - 1) / m_sliceNs, kMaxSlices - 1);
        if (first <= last && at(last * m_sliceNs)) {
            for (std::int64_t k = first; k <= last; ++k) {
                const std::int64_t from = std::max(r.sentNs, k * m_sliceNs);
                const std::int64_t to = std::min(r.doneNs, (k + 1) * m_sliceNs);
                m_slices[std::size_t(k)].busyNs += double(to - from);
            }
        }
    }
    if (r.status == RequestStatus::Cancelled || r.status == RequestStatus::Abandoned || r.doneNs < 0)
        return;
    Slice *done = at(r.doneNs);
    if (!r.ok()) {
        if (done)
            ++done->failed;
        return;
    }
    if (done) {
        ++done->ok;
        if (const auto ttft = r.ttftMs())
            done->ttftMs.record(*ttft);
    }
    timeline->forEachArrival([this](std::int64_t tNs, std::int64_t n) {
        if (Slice *s = tNs >= 0 ? at(tNs) : nullptr)
            s->outputTokens += n;
    });
    timeline->forEachItlAt([this](std::int64_t tNs, double ms, std::int64_t n) {
        if (Slice *s = at(tNs))
            s->itlMs.record(ms, std::uint64_t(n));
    });
}

std::vector<SliceSummary> SliceAggregator::summary(std::int64_t endNs) const
{
    std::vector<SliceSummary> out;
    if (endNs <= 0)
        return out;
    const std::size_t count = std::size_t(std::min(endNs / m_sliceNs + 1, kMaxSlices));
    const Slice empty;
    for (std::size_t k = 0; k < count; ++k) {
        const Slice &s = k < m_slices.size() ? m_slices[k] : empty;
        SliceSummary slice;
        const std::int64_t from = std::int64_t(k) * m_sliceNs;
        // The last slice ends with the window, but lasts at least 1 ms: a last request done right on
        // a slice's bound must not divide its rates by nothing.
        const std::int64_t to = std::min(from + m_sliceNs, std::max(endNs, from + kMinLastNs));
        const double lengthS = double(to - from) / 1e9;
        slice.startS = double(from) / 1e9;
        slice.endS = double(to) / 1e9;
        slice.ok = s.ok;
        slice.failed = s.failed;
        slice.outputTokensPerS = double(s.outputTokens) / lengthS;
        slice.ttftP50Ms = s.ttftMs.percentile(0.50);
        slice.ttftP99Ms = s.ttftMs.percentile(0.99);
        slice.itlP50Ms = s.itlMs.percentile(0.50);
        slice.itlP99Ms = s.itlMs.percentile(0.99);
        slice.meanInFlight = s.busyNs / 1e9 / lengthS;
        out.push_back(slice);
    }
    return out;
}

} // namespace tb
