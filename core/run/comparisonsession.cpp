#include "run/comparisonsession.h"

#include "results/rundirectory.h"
#include "results/runwriter.h"
#include "tokenbench/version.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>

namespace tb {

namespace {

/// A target's name as a directory name: what RunWriter's default run names allow.

/// "every request failed: 12 connect, 3 × HTTP 503" from a summary's error counts.
QString failureText(const RunSummary &summary)
{
    const RequestCounts &r = summary.total.requests;
    if (r.attempted == 0)
        return QStringLiteral("no request completed");
    QStringList causes;
    for (const auto &[status, count] : r.byStatus) {
        if (status < 200 || status >= 300)
            causes << QStringLiteral("%1 × HTTP %2").arg(count).arg(status);
    }
    for (const auto &[error, count] : r.byError) {
        if (error != QLatin1String("http") && error != QLatin1String("cancelled"))
            causes << QStringLiteral("%1 × %2").arg(count).arg(error);
    }
    return causes.isEmpty() ? QStringLiteral("every request failed")
                            : QStringLiteral("every request failed: %1").arg(causes.join(QStringLiteral(", ")));
}

} // namespace

SessionRunner::SessionRunner(QObject *parent)
    : QObject(parent)
    , m_runner(new BenchmarkRunner(this))
{
    qRegisterMetaType<SessionProgress>();
    qRegisterMetaType<SessionRunStatus>();
    connect(m_runner, &BenchmarkRunner::progressed, this, &SessionRunner::onProgress);
    connect(m_runner, &BenchmarkRunner::runFinished, this, &SessionRunner::onRunFinished);
}

SessionRunner::~SessionRunner() = default;

void SessionRunner::setWorkerThreads(int threads)
{
    m_runner->setWorkerThreads(threads);
}

QString SessionRunner::defaultDirectory(const QString &runsFolder, const QString &name, const QDateTime &when)
{
    const QString stem =
        when.toString(QStringLiteral("yyyyMMdd-HHmmss")) + QStringLiteral("-session") +
        (name.trimmed().isEmpty() ? QString() : QLatin1Char('-') + RunWriter::fileSafeName(name.trimmed()));
    return RunWriter::unusedPath(runsFolder, stem);
}

QStringList SessionRunner::runDirectories() const
{
    QStringList dirs;
    const QDir dir(m_directory);
    for (const SessionInfo::Run &run : m_info.runs) {
        if (QFileInfo(dir.filePath(run.directory)).isDir())
            dirs << dir.filePath(run.directory);
    }
    return dirs;
}

bool SessionRunner::start(const Config &config, QString *error)
{
    const auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    if (m_running)
        return fail(QStringLiteral("a session is already running"));
    if (config.targets.size() < 2)
        return fail(
            QStringLiteral("a comparison session needs at least two targets (got %1)").arg(config.targets.size()));
    // Refuse before anything runs: a session that fails at its third target after an hour is a
    // worse place to learn of a typo.
    QStringList problems;
    for (qsizetype i = 0; i < config.targets.size(); ++i) {
        RunConfig c = config.workload;
        c.target = config.targets[i];
        for (const QString &p : validate(c)) {
            const QString line =
                p.startsWith(QLatin1String("target."))
                    ? QStringLiteral("target %1 (%2): %3").arg(i + 1).arg(config.targets[i].displayName(), p)
                    : p;
            if (!problems.contains(line))
                problems << line;
        }
    }
    if (!problems.isEmpty())
        return fail(problems.join(QLatin1Char('\n')));

    m_directory = config.directory.isEmpty() ? defaultDirectory(QString(), config.name) : config.directory;
    if (QFileInfo::exists(m_directory) && !QDir(m_directory).isEmpty())
        return fail(QStringLiteral("%1: already exists and is not empty").arg(QDir::toNativeSeparators(m_directory)));
    if (!QDir().mkpath(m_directory))
        return fail(QStringLiteral("cannot create %1").arg(QDir::toNativeSeparators(m_directory)));

    m_info = SessionInfo();
    m_info.name = config.name;
    m_info.mode = config.mode;
    m_info.createdAt = QDateTime::currentDateTime();
    m_info.toolVersion = version();
    m_info.workload = config.workload;
    m_info.workload.outDir.clear();
    for (qsizetype i = 0; i < config.targets.size(); ++i) {
        const TargetConfig &t = config.targets[i];
        QString name = QStringLiteral("%1-%2").arg(i + 1).arg(RunWriter::fileSafeName(t.displayName()));
        if (t.displayName().isEmpty())
            name = QString::number(i + 1);
        m_info.runs << SessionInfo::Run{name, t, SessionRunStatus::Pending, {}};
    }
    QString why;
    if (!m_info.save(m_directory, &why))
        return fail(why);

    m_running = true;
    m_stopping = false;
    m_finished = 0;
    m_current = -1;
    Q_EMIT sessionStarted(m_directory);
    if (m_info.mode == SessionMode::Interleaved) {
        QList<TargetConfig> targets;
        QStringList dirs;
        const QDir dir(m_directory);
        for (const SessionInfo::Run &run : std::as_const(m_info.runs)) {
            targets << run.target;
            dirs << dir.filePath(run.directory);
        }
        if (!m_runner->startInterleaved(m_info.workload, targets, dirs, &why)) {
            for (int i = 0; i < m_info.runs.size(); ++i)
                setStatus(i, SessionRunStatus::Failed, why);
            finishSession();
            return fail(why);
        }
        for (int i = 0; i < m_info.runs.size(); ++i) {
            setStatus(i, SessionRunStatus::Running);
            Q_EMIT runStarted(i, dirs[i]);
        }
        return true;
    }
    startNext();
    return true;
}

void SessionRunner::startNext()
{
    // A target that cannot start is recorded as failed, and the next one tries.
    while (++m_current < m_info.runs.size()) {
        if (m_stopping) {
            setStatus(m_current, SessionRunStatus::NotRun);
            continue;
        }
        const SessionInfo::Run &run = m_info.runs[m_current];
        RunConfig config = m_info.workload;
        config.target = run.target;
        config.outDir = QDir(m_directory).filePath(run.directory);
        QString why;
        if (m_runner->start(config, &why)) {
            setStatus(m_current, SessionRunStatus::Running);
            Q_EMIT runStarted(m_current, config.outDir);
            return;
        }
        setStatus(m_current, SessionRunStatus::Failed, why);
    }
    finishSession();
}

void SessionRunner::stop()
{
    if (!m_running)
        return;
    m_stopping = true;
    m_runner->stop();
}

void SessionRunner::onProgress(const RunProgress &progress)
{
    if (!m_running)
        return;
    SessionProgress p;
    p.targetCount = int(m_info.runs.size());
    p.target = m_info.mode == SessionMode::Interleaved ? -1 : m_current;
    p.finished = m_finished;
    p.run = progress;
    if (progress.stageCount > 0 && progress.stageFraction >= 0) {
        const double run = std::clamp((progress.stage + progress.stageFraction) / progress.stageCount, 0.0, 1.0);
        p.fraction = m_info.mode == SessionMode::Interleaved ? run : (m_current + run) / p.targetCount;
    }
    Q_EMIT progressed(p);
}

void SessionRunner::onRunFinished(const RunOutcome &outcome)
{
    if (!m_running)
        return;
    const int target = m_info.mode == SessionMode::Interleaved ? outcome.target : m_current;
    if (!outcome.error.isEmpty())
        setStatus(target, SessionRunStatus::Failed, outcome.error);
    else if (outcome.cancelled)
        setStatus(target, SessionRunStatus::Cancelled);
    else if (outcome.summary.total.requests.ok == 0)
        setStatus(target, SessionRunStatus::Failed, failureText(outcome.summary));
    else
        setStatus(target, SessionRunStatus::Ok);

    if (m_info.mode == SessionMode::Interleaved) {
        if (m_finished == m_info.runs.size())
            finishSession();
        return;
    }
    // Let the runner finish delivering this run before it starts the next.
    QMetaObject::invokeMethod(this, &SessionRunner::startNext, Qt::QueuedConnection);
}

void SessionRunner::setStatus(int target, SessionRunStatus status, const QString &error)
{
    SessionInfo::Run &run = m_info.runs[target];
    run.status = status;
    run.error = error;
    QString why;
    if (!m_info.save(m_directory, &why))
        qWarning("TokenBench: %s", qPrintable(why));
    if (status != SessionRunStatus::Pending && status != SessionRunStatus::Running) {
        ++m_finished;
        Q_EMIT runFinished(target, status, error);
    }
}

void SessionRunner::finishSession()
{
    m_running = false;
    const bool cancelled = m_stopping;
    m_stopping = false;
    Q_EMIT sessionFinished(m_directory, cancelled);
}

} // namespace tb
