#pragma once

#include "metrics/errortimeline.h"
#include "results/rundirectory.h"
#include "run/benchmarkrunner.h"

#include <QObject>

namespace tb {

class RequestsModel;

/// The run the views show: a live run fed by BenchmarkRunner's batched signals, or a saved run
/// loaded from its directory — the dashboard, the summary and the requests table read the same
/// data either way. It only stores; views redraw on their own timers (reset() and changed() tell
/// them that there is something new).
class RunDocument : public QObject
{
    Q_OBJECT

public:
    enum class State { Empty, Live, Finished, Loaded };

    explicit RunDocument(QObject *parent = nullptr);
    ~RunDocument() override;

    void beginLive(const RunInfo &info, const QString &directory);
    void addRecords(const QList<RequestRecord> &records);
    void setProgress(const RunProgress &progress);
    void setSnapshot(const RunSnapshot &snapshot);
    void finishLive(const RunOutcome &outcome);
    /// A saved run (RunReader::load with Records).
    void load(RunData data);
    void clear();
    /// The run folder `from` (a canonical path) was renamed to `to` (RunHistoryModel::renamed): when
    /// it is this run's, the document moves with it, so that its name and the files read on demand
    /// (chunks.jsonl) are the new folder's. False when it is another run's.
    bool followRename(const QString &from, const QString &to);

    State state() const { return m_state; }
    bool isLive() const { return m_state == State::Live; }
    bool isEmpty() const { return m_state == State::Empty; }
    const RunInfo &info() const { return m_info; }
    QString directory() const { return m_directory; }
    /// The run directory's name ("20240501-100000-default").
    QString name() const;
    /// The stages as run: the configuration's when known, else what the summary says.
    QList<StageConfig> stages() const;
    QStringList stageNames() const;
    const RunSummary &summary() const { return m_summary; }
    const std::vector<TimeSeriesRow> &timeSeries() const { return m_timeSeries; }
    /// The server's metrics per scrape (live runs, and saved ones from server_metrics.csv).
    const std::vector<ServerRow> &serverRows() const { return m_serverRows; }
    /// The GPUs' power and utilisation per scrape of --gpu-metrics (live runs, and saved ones from
    /// gpu_metrics.csv); empty for a run without.
    const GpuTrace &gpuTrace() const { return m_gpuTrace; }
    /// The run scraped (or, live, scrapes) a DCGM exporter: it has a GPU chart, empty or not.
    bool hasGpuMetrics() const;
    const RunProgress &progress() const { return m_progress; }
    bool cancelled() const { return m_cancelled; }
    QString error() const { return m_error; }
    /// What a reader should know about a saved run (e.g. its summary was recomputed).
    QStringList notes() const { return m_notes; }
    /// Every attempted request failed (not a Stop): the run measured nothing of the target.
    bool allFailed() const;
    /// "200 of 200 requests failed — connection refused": the failed share and the most frequent
    /// cause; empty when nothing failed.
    QString failureHeadline() const;
    /// Every request failed before an HTTP answer (refused, unreachable, timed out, TLS or proxy
    /// refused): the server was down or not there, so neither were its /metrics.
    bool serverDidNotAnswer() const;
    /// The headline and then the next causes ("… — connection refused · also: timeout (3)"): each
    /// message once, as the dashboard's error line says it.
    QString failureNote() const;
    /// The most frequent causes with their counts ("connect: Connection refused (200)"), one a line.
    QStringList topErrors(int n) const;

    RequestsModel *requests() const { return m_requests; }
    const ErrorTimeline &errors() const { return m_errors; }
    /// Grows with every change: a view redraws when it differs from what it drew.
    quint64 revision() const { return m_revision; }
    /// Grows when the data changes (records, summary, time series), not with progress alone:
    /// charts and tables need no redraw ten times a second for a moving progress bar.
    quint64 dataRevision() const { return m_dataRevision; }

Q_SIGNALS:
    /// Another run (or none): views start over.
    void reset();
    /// New data; views pick it up on their next redraw.
    void changed();
    void stateChanged(tb::RunDocument::State state);
    /// The run's folder was renamed: what was read from the old one is read again from directory().
    void directoryChanged(const QString &directory);

private:
    void start(State state, const QString &directory);
    void touch(bool data = true);

    State m_state = State::Empty;
    RunInfo m_info;
    bool m_hasInfo = false;
    QString m_directory;
    RunSummary m_summary;
    std::vector<TimeSeriesRow> m_timeSeries;
    std::vector<ServerRow> m_serverRows;
    GpuTrace m_gpuTrace;
    RunProgress m_progress;
    bool m_cancelled = false;
    QString m_error;
    QStringList m_notes;
    RequestsModel *m_requests;
    ErrorTimeline m_errors;
    quint64 m_revision = 0;
    quint64 m_dataRevision = 0;
};

} // namespace tb
