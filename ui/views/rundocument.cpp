#include "views/rundocument.h"

#include "models/requestsmodel.h"
#include "models/runhistorymodel.h"

#include "metrics/requestrecord.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <optional>

namespace tb {

RunDocument::RunDocument(QObject *parent)
    : QObject(parent)
    , m_requests(new RequestsModel(this))
{}

RunDocument::~RunDocument() = default;

void RunDocument::start(State state, const QString &directory)
{
    m_state = state;
    m_directory = directory;
    m_info = RunInfo();
    m_hasInfo = false;
    m_summary = RunSummary();
    m_timeSeries.clear();
    m_serverRows.clear();
    m_gpuTrace = GpuTrace();
    m_progress = RunProgress();
    m_cancelled = false;
    m_error.clear();
    m_notes.clear();
    m_errors.clear();
    m_requests->clear();
}

void RunDocument::touch(bool data)
{
    ++m_revision;
    if (data)
        ++m_dataRevision;
    Q_EMIT changed();
}

void RunDocument::beginLive(const RunInfo &info, const QString &directory)
{
    start(State::Live, directory);
    m_info = info;
    m_hasInfo = true;
    m_progress.stageCount = int(info.stages.size());
    m_requests->setStageNames(stageNames());
    Q_EMIT reset();
    Q_EMIT stateChanged(m_state);
    touch();
}

void RunDocument::addRecords(const QList<RequestRecord> &records)
{
    for (const RequestRecord &r : records)
        m_errors.add(r);
    m_requests->append(records);
    touch();
}

void RunDocument::setProgress(const RunProgress &progress)
{
    m_progress = progress;
    touch(false);
}

void RunDocument::setSnapshot(const RunSnapshot &snapshot)
{
    m_progress = snapshot.progress;
    m_summary = snapshot.summary;
    m_timeSeries = snapshot.timeSeries;
    m_serverRows = snapshot.server;
    m_gpuTrace = snapshot.gpu;
    touch();
}

void RunDocument::finishLive(const RunOutcome &outcome)
{
    m_progress = outcome.progress;
    m_summary = outcome.summary;
    m_timeSeries = outcome.timeSeries;
    m_cancelled = outcome.cancelled;
    m_error = outcome.error;
    m_state = State::Finished;
    Q_EMIT stateChanged(m_state);
    touch();
}

void RunDocument::load(RunData data)
{
    start(State::Loaded, data.directory);
    m_info = std::move(data.info);
    m_hasInfo = data.hasInfo;
    m_summary = std::move(data.summary);
    m_timeSeries = std::move(data.timeSeries);
    m_serverRows = std::move(data.serverRows);
    m_gpuTrace = std::move(data.gpuTrace);
    m_notes = data.notes;
    // Stopped as the Runs list says it (the saved files keep no flag of their own).
    m_cancelled = RunHistoryModel::statusOf(m_summary) == RunHistoryStatus::Stopped;
    for (const RequestRecord &r : data.records)
        m_errors.add(r);
    // What a finished live run's progress would say, for the views that show it.
    m_progress.stageCount = int(stages().size());
    // The stage running at the end, as a live run's last progress says: the dashboard reads the
    // in-flight target against it.
    m_progress.stage = m_progress.stageCount - 1;
    if (!m_timeSeries.empty())
        m_progress.stage = std::max(0, m_timeSeries.back().stage);
    m_progress.elapsedNs = m_timeSeries.empty() ? 0 : std::int64_t(m_timeSeries.back().second + 1) * 1'000'000'000;
    m_progress.completed = m_summary.total.requests.ok;
    m_progress.failed = m_summary.total.requests.failed + m_summary.total.requests.cancelled;
    m_progress.peakInFlight = m_summary.total.concurrency.peakInFlight;
    m_progress.issued =
        m_summary.total.requests.attempted + m_summary.total.requests.cancelled + m_summary.total.requests.warmup;
    m_progress.stageFraction = 1;
    m_progress.etaMs = 0;
    m_requests->setStageNames(stageNames());
    m_requests->setRecords(std::move(data.records));
    Q_EMIT reset();
    Q_EMIT stateChanged(m_state);
    touch();
}

void RunDocument::clear()
{
    start(State::Empty, {});
    Q_EMIT reset();
    Q_EMIT stateChanged(m_state);
    touch();
}

bool RunDocument::followRename(const QString &from, const QString &to)
{
    if (m_directory.isEmpty())
        return false;
    // The old path exists no more, so it has no canonical form: its folder (which the rename left
    // in place) has, and `from` is canonical.
    const QFileInfo mine(QDir::cleanPath(m_directory));
    if (QDir(QFileInfo(mine.absolutePath()).canonicalFilePath()).filePath(mine.fileName()) != from)
        return false;
    m_directory = to;
    Q_EMIT directoryChanged(m_directory);
    touch(); // the header's title, the charts' export subtitles and the curve's legend carry the name
    return true;
}

QString RunDocument::name() const
{
    return m_directory.isEmpty() ? QString() : QDir(m_directory).dirName();
}

QList<StageConfig> RunDocument::stages() const
{
    if (m_hasInfo && !m_info.stages.isEmpty())
        return m_info.stages;
    QList<StageConfig> stages;
    for (const SummaryBlock &block : m_summary.stages) {
        StageConfig s;
        s.name = block.name;
        s.mode = block.load.mode;
        s.level =
            block.load.mode == LoadMode::Concurrency ? block.load.concurrency.value_or(0) : block.load.rate.value_or(0);
        stages << s;
    }
    return stages;
}

QStringList RunDocument::stageNames() const
{
    QStringList names;
    for (const StageConfig &s : stages())
        names << (s.name.isEmpty() ? stageDefaultName(s) : s.name);
    return names;
}

bool RunDocument::hasGpuMetrics() const
{
    return !m_gpuTrace.empty() || m_summary.gpu.has_value() || !m_info.config.target.gpuMetricsUrl.isEmpty();
}

bool RunDocument::allFailed() const
{
    return m_summary.total.requests.allFailed();
}

QString RunDocument::failureHeadline() const
{
    return m_errors.headline(m_summary.total.requests);
}

bool RunDocument::serverDidNotAnswer() const
{
    if (!allFailed())
        return false;
    const QStringList labels = m_errors.labels();
    return std::all_of(labels.begin(), labels.end(), [](const QString &label) {
        const std::optional<RequestStatus> status = statusFromName(label);
        return status == RequestStatus::Connect || status == RequestStatus::Timeout || status == RequestStatus::Tls ||
               status == RequestStatus::Proxy;
    });
}

QString RunDocument::failureNote() const
{
    // The headline names the biggest cause already: the others follow it, and no message is said twice.
    const QString headline = failureHeadline();
    const QStringList others = topErrors(3).mid(1);
    return others.isEmpty() ? headline : tr("%1 · also: %2").arg(headline, others.join(QStringLiteral("; ")));
}

QStringList RunDocument::topErrors(int n) const
{
    QStringList lines;
    for (const ErrorTimeline::Cause &cause : m_errors.topCauses(n)) {
        const QString what = cause.message.isEmpty() ? cause.label : cause.label + QStringLiteral(": ") + cause.message;
        lines << tr("%1 (%2)").arg(what).arg(cause.count);
    }
    return lines;
}

} // namespace tb
