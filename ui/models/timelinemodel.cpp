#include "models/timelinemodel.h"

#include "metrics/requestmetrics.h"

#include <algorithm>

namespace tb {

TimelineModel::TimelineModel(QObject *parent)
    : RowTableModel({tr("Event"), tr("At (ms)"), tr("Gap (ms)"), tr("Chars"), tr("Tokens")},
                    {{AtColumn, tr("Milliseconds since the request was sent (negative: before, e.g. scheduled)")},
                     {GapColumn, tr("Milliseconds since the event above")},
                     {CharsColumn, tr("Characters of generated text the chunk carried")},
                     {TokensColumn, tr("Tokens apportioned to the chunk from the request's completion tokens")}},
                    parent)
{}

std::vector<TimelineModel::Event> TimelineModel::eventsOf(const RequestRecord &r)
{
    std::vector<Event> events;
    const auto add = [&events](const QString &name, std::int64_t tNs) {
        if (tNs >= 0)
            events.push_back({name, tNs});
    };
    if (r.scheduledNs >= 0 && r.scheduledNs != r.sentNs)
        add(tr("scheduled"), r.scheduledNs);
    // The phases before sent, back from it: the attempt opened its connection (connect, TLS),
    // then wrote (sending) — or wrote at once on a kept-alive one.
    if (r.sentNs >= 0 && r.sendingNs >= 0 && r.connectNs >= 0 && r.tlsNs >= 0) {
        const std::int64_t open = r.sentNs - r.sendingNs;
        const std::int64_t tcp = open - r.tlsNs;
        if (r.connectNs > 0) {
            add(tr("connecting"), tcp - r.connectNs);
            if (r.tlsNs > 0)
                add(tr("TCP connected, TLS handshake"), tcp);
            add(tr("connection open, sending"), open);
        } else {
            add(tr("sending on a kept-alive connection"), open);
        }
    }
    add(tr("sent"), r.sentNs);
    add(tr("headers"), r.headersNs);
    if (!r.tokenChunks.empty()) {
        const std::vector<std::int64_t> tokens = TokenTimeline::apportion(r.tokenChunks, r.completionTokens);
        for (std::size_t i = 0; i < r.tokenChunks.size(); ++i) {
            events.push_back({i == 0 ? tr("first token") : tr("chunk %1").arg(i + 1), r.tokenChunks[i].tNs,
                              r.tokenChunks[i].chars, tokens[i]});
        }
    } else {
        add(tr("first token"), r.firstTokenNs);
        if (r.lastTokenNs != r.firstTokenNs)
            add(tr("last token"), r.lastTokenNs);
    }
    if (r.firstContentNs >= 0 && r.firstContentNs != r.firstTokenNs)
        add(tr("first content (after reasoning)"), r.firstContentNs);
    add(r.ok() ? tr("done") : tr("failed"), r.doneNs);
    std::stable_sort(events.begin(), events.end(), [](const Event &a, const Event &b) { return a.tNs < b.tNs; });
    return events;
}

void TimelineModel::setRecord(const RequestRecord &record)
{
    beginResetModel();
    m_rows = eventsOf(record);
    m_sentNs = record.sentNs >= 0 ? record.sentNs : record.scheduledNs;
    endResetModel();
}

void TimelineModel::clear()
{
    beginResetModel();
    m_rows.clear();
    endResetModel();
}

QVariant TimelineModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    if (role == Qt::TextAlignmentRole)
        return index.column() == EventColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                             : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    const Event &e = m_rows[std::size_t(index.row())];
    switch (Column(index.column())) {
    case EventColumn:
        return e.name;
    case AtColumn:
        return QString::number(double(e.tNs - m_sentNs) / 1e6, 'f', 3);
    case GapColumn:
        return index.row() == 0
                   ? QString()
                   : QString::number(double(e.tNs - m_rows[std::size_t(index.row()) - 1].tNs) / 1e6, 'f', 3);
    case CharsColumn:
        return e.chars >= 0 ? QString::number(e.chars) : QString();
    case TokensColumn:
        return e.tokens >= 0 ? QString::number(e.tokens) : QString();
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace tb
