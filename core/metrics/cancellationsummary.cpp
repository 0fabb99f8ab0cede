#include "metrics/cancellationsummary.h"

#include "config/jsonreader.h"
#include "formats/numberformat.h"
#include "metrics/exactpercentile.h"
#include "metrics/requestrecord.h"

#include <cmath>
#include <limits>

namespace tb {

namespace {

using nlohmann::json;

json cancelSideToJson(const CancellationSummary::Side &side)
{
    return {{"requests", side.requests},
            {"ttft_p50_ms", side.ttftP50Ms ? json(*side.ttftP50Ms) : json()},
            {"e2e_p50_ms", side.e2eP50Ms ? json(*side.e2eP50Ms) : json()}};
}

CancellationSummary::Side cancelSideFromJson(const JsonReader &reader)
{
    CancellationSummary::Side side;
    side.requests = reader.integer("requests");
    side.ttftP50Ms = reader.optionalNumber("ttft_p50_ms");
    side.e2eP50Ms = reader.optionalNumber("e2e_p50_ms");
    return side;
}

std::optional<double> cancelMedian(std::vector<float> &values)
{
    if (values.empty())
        return std::nullopt;
    return exactPercentile(values, 0.5);
}

QString cancelMs(const std::optional<double> &ms)
{
    return ms ? formatNumber(*ms, 3, 1) + QStringLiteral(" ms") : QStringLiteral("–");
}

} // namespace

QString CancellationSummary::line() const
{
    QString text = QStringLiteral("abandoned %1 (%2 in prefill, %3 in decode; --cancel-rate %4, --cancel-after %5)")
                       .arg(abandoned)
                       .arg(inPrefill)
                       .arg(inDecode)
                       .arg(rate)
                       .arg(after);
    if (!firstAbandonedS)
        return text;
    return text + QStringLiteral("; ok requests sent before the first (%1 s): %2, TTFT p50 %3, E2E p50 %4; "
                                 "from it on: %5, TTFT p50 %6, E2E p50 %7")
                      .arg(formatNumber(*firstAbandonedS, 3, 1))
                      .arg(before.requests)
                      .arg(cancelMs(before.ttftP50Ms), cancelMs(before.e2eP50Ms))
                      .arg(during.requests)
                      .arg(cancelMs(during.ttftP50Ms), cancelMs(during.e2eP50Ms));
}

json CancellationSummary::toJson() const
{
    return {{"rate", rate},
            {"after", after.toStdString()},
            {"abandoned", abandoned},
            {"in_prefill", inPrefill},
            {"in_decode", inDecode},
            {"first_abandoned_s", firstAbandonedS ? json(*firstAbandonedS) : json()},
            {"before", cancelSideToJson(before)},
            {"during", cancelSideToJson(during)}};
}

std::optional<CancellationSummary> CancellationSummary::fromJson(const json &j, QString *error)
{
    QString problem;
    const JsonReader reader(j, QString(), &problem, QStringLiteral("cancellation"));
    CancellationSummary s;
    s.rate = reader.number("rate");
    s.after = reader.string("after");
    s.abandoned = reader.integer("abandoned");
    s.inPrefill = reader.integer("in_prefill");
    s.inDecode = reader.integer("in_decode");
    s.firstAbandonedS = reader.optionalNumber("first_abandoned_s");
    s.before = cancelSideFromJson(reader.object("before"));
    s.during = cancelSideFromJson(reader.object("during"));
    if (!problem.isEmpty()) {
        if (error)
            *error = problem;
        return std::nullopt;
    }
    return s;
}

CancellationTracker::CancellationTracker(double rate, const QString &after)
{
    m_counts.rate = rate;
    m_counts.after = after;
}

void CancellationTracker::add(const RequestRecord &record)
{
    if (record.warmup)
        return;
    if (record.status == RequestStatus::Abandoned) {
        ++m_counts.abandoned;
        ++(record.firstGeneratedNs() >= 0 ? m_counts.inDecode : m_counts.inPrefill);
        if (record.doneNs >= 0)
            m_firstAbandonedNs = m_firstAbandonedNs < 0 ? record.doneNs : std::min(m_firstAbandonedNs, record.doneNs);
        return;
    }
    if (!record.ok() || record.sentNs < 0)
        return;
    constexpr float none = std::numeric_limits<float>::quiet_NaN();
    const auto ttft = record.ttftMs();
    const auto e2e = record.e2eMs();
    m_ok.push_back({record.sentNs, ttft ? float(*ttft) : none, e2e ? float(*e2e) : none});
}

CancellationSummary CancellationTracker::summary() const
{
    CancellationSummary s = m_counts;
    if (m_firstAbandonedNs < 0)
        return s;
    s.firstAbandonedS = double(m_firstAbandonedNs) / 1e9;
    std::vector<float> ttft[2], e2e[2];
    for (const Sample &sample : m_ok) {
        const int side = sample.sentNs < m_firstAbandonedNs ? 0 : 1;
        ++(side == 0 ? s.before : s.during).requests;
        if (!std::isnan(sample.ttftMs))
            ttft[side].push_back(sample.ttftMs);
        if (!std::isnan(sample.e2eMs))
            e2e[side].push_back(sample.e2eMs);
    }
    s.before.ttftP50Ms = cancelMedian(ttft[0]);
    s.before.e2eP50Ms = cancelMedian(e2e[0]);
    s.during.ttftP50Ms = cancelMedian(ttft[1]);
    s.during.e2eP50Ms = cancelMedian(e2e[1]);
    return s;
}

} // namespace tb
