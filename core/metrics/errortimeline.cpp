#include "metrics/errortimeline.h"

#include <algorithm>

namespace tb {

namespace {
/// Server text varies (ids, numbers): past this many distinct messages, new ones are not kept apart.
constexpr std::size_t kMaxCauses = 256;
} // namespace

void ErrorTimeline::add(const RequestRecord &record)
{
    if (record.ok() || record.warmup || record.status == RequestStatus::Cancelled ||
        record.status == RequestStatus::Abandoned)
        return;
    const std::int64_t doneNs = std::max<std::int64_t>(0, record.doneNs);
    const int second = int(doneNs / 1'000'000'000);
    std::vector<std::int32_t> &counts = m_perSecond[label(record)];
    if (counts.size() <= std::size_t(second))
        counts.resize(std::size_t(second) + 1, 0);
    ++counts[std::size_t(second)];
    auto key = std::make_pair(label(record), record.errorMessage);
    if (m_causes.size() >= kMaxCauses && !m_causes.count(key))
        key.second = QStringLiteral("(other messages)");
    ++m_causes[key];
    ++m_total;
    m_lastSecond = std::max(m_lastSecond, second);
}

void ErrorTimeline::clear()
{
    *this = ErrorTimeline();
}

QString ErrorTimeline::label(const RequestRecord &record)
{
    if (record.status == RequestStatus::Http && record.httpStatus > 0)
        return QString::number(record.httpStatus);
    return QString::fromLatin1(statusName(record.status));
}

std::vector<ErrorTimeline::Cause> ErrorTimeline::topCauses(int n) const
{
    std::vector<Cause> causes;
    causes.reserve(m_causes.size());
    for (const auto &[key, count] : m_causes)
        causes.push_back({key.first, key.second, count});
    std::stable_sort(causes.begin(), causes.end(), [](const Cause &a, const Cause &b) { return a.count > b.count; });
    if (causes.size() > std::size_t(std::max(0, n)))
        causes.resize(std::size_t(std::max(0, n)));
    return causes;
}

QStringList ErrorTimeline::labels() const
{
    QStringList labels;
    for (const auto &entry : m_perSecond)
        labels << entry.first;
    std::stable_sort(labels.begin(), labels.end(),
                     [this](const QString &a, const QString &b) { return count(a) > count(b); });
    return labels;
}

std::int64_t ErrorTimeline::count(const QString &label) const
{
    const auto it = m_perSecond.find(label);
    if (it == m_perSecond.end())
        return 0;
    std::int64_t n = 0;
    for (std::int32_t c : it->second)
        n += c;
    return n;
}

std::vector<std::int32_t> ErrorTimeline::perSecond(const QString &label) const
{
    const auto it = m_perSecond.find(label);
    return it == m_perSecond.end() ? std::vector<std::int32_t>() : it->second;
}

QString ErrorTimeline::headline(const RequestCounts &requests) const
{
    const std::int64_t failed = std::max(requests.failed, m_total);
    if (failed == 0)
        return {};
    const std::int64_t attempted = std::max(requests.attempted, failed);
    const auto causes = topCauses(1);
    QString headline = QStringLiteral("%1 of %2 requests failed").arg(failed).arg(attempted);
    if (causes.empty())
        return headline;
    const Cause &top = causes.front();
    headline += QStringLiteral(" — ") + (top.message.isEmpty() ? top.label : top.message);
    // Of mixed causes, the biggest one's share: one cause of many is not the whole story.
    if (top.count < m_total)
        headline += QStringLiteral(" (%1 of %2)").arg(top.count).arg(m_total);
    return headline;
}

} // namespace tb
