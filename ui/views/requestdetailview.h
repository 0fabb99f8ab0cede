#pragma once

#include "metrics/requestrecord.h"

#include <QWidget>

class QChart;
class QLabel;
class QTableView;

namespace tb {

class ChartView;
class ChunkReader;
class TimelineModel;

/// One request in detail: its status and figures, its error text, and its timeline — sent,
/// headers, first token, each chunk, done — as a table and as a token-arrival chart. The chunk
/// stamps are read on demand from the run's chunks.jsonl (ChunkReader), off the GUI thread.
class RequestDetailView : public QWidget
{
    Q_OBJECT

public:
    explicit RequestDetailView(QWidget *parent = nullptr);
    ~RequestDetailView() override;

    /// Shows `record` (without chunks: they are loaded from `runDirectory`).
    void showRecord(const RequestRecord &record, const QString &runDirectory);
    void clear();

    bool hasRecord() const { return m_hasRecord; }
    std::uint64_t recordId() const { return m_record.id; }
    TimelineModel *timeline() const { return m_timeline; }
    /// "loading", "loaded", or why there is no chunk timeline.
    QString chunkStatus() const;
    QString errorText() const;

Q_SIGNALS:
    /// The chunk timeline of the shown request arrived (or is known to be missing).
    void timelineReady();

private:
    void showTimeline(const RequestRecord &record);

    ChunkReader *m_reader;
    TimelineModel *m_timeline;
    QLabel *m_heading;
    QLabel *m_facts;
    QLabel *m_error;
    QLabel *m_chunkStatus;
    QTableView *m_events;
    QChart *m_chart;
    ChartView *m_chartView;
    RequestRecord m_record;
    bool m_hasRecord = false;
};

} // namespace tb
