#pragma once

#include "metrics/requestrecord.h"

#include "models/rowtablemodel.h"

#include <vector>

namespace tb {

/// One request's timeline as a table: scheduled, sent, headers, each token-bearing chunk (with its
/// characters and apportioned tokens), done — each with its time since the request was sent and
/// the gap since the previous event.
struct TimelineEvent {
    QString name;
    std::int64_t tNs = 0;     ///< run time
    int chars = -1;           ///< chunks only
    std::int64_t tokens = -1; ///< chunks only
};

class TimelineModel : public RowTableModel<std::vector<TimelineEvent>>
{
    Q_OBJECT

public:
    enum Column { EventColumn, AtColumn, GapColumn, CharsColumn, TokensColumn, ColumnCount };

    using Event = TimelineEvent;

    explicit TimelineModel(QObject *parent = nullptr);

    /// The record's events; its tokenChunks, when present, give one event per chunk.
    void setRecord(const RequestRecord &record);
    void clear();
    const std::vector<Event> &events() const { return m_rows; }
    /// In time order (ties keep the order of a request's life).
    static std::vector<Event> eventsOf(const RequestRecord &record);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
    std::int64_t m_sentNs = 0;
};

} // namespace tb
