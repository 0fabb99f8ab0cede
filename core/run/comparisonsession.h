#pragma once

#include "client/runprogress.h"
#include "config/runconfig.h"
#include "results/sessioninfo.h"
#include "run/benchmarkrunner.h"

#include <QDateTime>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace tb {

/// Where a session is in its work, for progress bars.
struct SessionProgress {
    int target = -1; ///< the target running now (sequential), -1 when all run at once
    int targetCount = 0;
    int finished = 0;     ///< targets done (whatever their status)
    RunProgress run;      ///< of the run going now
    double fraction = -1; ///< 0..1 of the whole session, -1 when unknown
};

/// Runs one workload against several targets as one comparison session, on BenchmarkRunner:
/// Sequential runs the targets one after another; Interleaved runs them at once on one schedule
/// (BenchmarkRunner::startInterleaved). The session directory — by default
/// "<runs folder>/<yyyyMMdd-HHmmss>-session-<name>/" — gets session.json (updated as runs finish)
/// and one run directory per target ("1-<target>", "2-<target>", …).
///
/// A target that fails (cannot start, fails at run time, or every request fails) is recorded as
/// failed and the session goes on with the next. Stop ends the run going (its results are saved)
/// and the targets not yet run are recorded as not run; it is safe twice.
class SessionRunner : public QObject
{
    Q_OBJECT

public:
    struct Config {
        QString name; ///< a label for the session ("models", "before-after")
        SessionMode mode = SessionMode::Sequential;
        RunConfig workload;          ///< target and outDir are replaced per target
        QList<TargetConfig> targets; ///< at least two
        QString directory;           ///< the session directory; empty: defaultDirectory(".", name)
    };

    explicit SessionRunner(QObject *parent = nullptr);
    ~SessionRunner() override;

    /// "<runsFolder>/<yyyyMMdd-HHmmss>-session-<name>" with the name made file-safe; a free name
    /// (a suffix "-2", "-3" … when taken).
    static QString defaultDirectory(const QString &runsFolder, const QString &name,
                                    const QDateTime &when = QDateTime::currentDateTime());

    /// Validates (at least two targets; the workload; each target's URL and model), creates the
    /// session directory with its session.json and starts the first run. False with *error when
    /// nothing could start.
    bool start(const Config &config, QString *error);
    void stop();

    bool isRunning() const { return m_running; }
    QString directory() const { return m_directory; }
    const SessionInfo &info() const { return m_info; }
    /// The run directories of the targets that have one, in target order.
    QStringList runDirectories() const;
    /// The runner doing the work (for live views of the run going).
    BenchmarkRunner *runner() const { return m_runner; }
    void setWorkerThreads(int threads);

Q_SIGNALS:
    void sessionStarted(const QString &directory);
    /// Target `target` began (sequential: one at a time; interleaved: all at once).
    void runStarted(int target, const QString &directory);
    void progressed(const tb::SessionProgress &progress);
    /// Target `target` ended with `status`; `error` says why it failed.
    void runFinished(int target, tb::SessionRunStatus status, const QString &error);
    /// Every target has finished, failed or been skipped; session.json is complete.
    void sessionFinished(const QString &directory, bool cancelled);

private:
    void startNext();
    void onProgress(const RunProgress &progress);
    void onRunFinished(const RunOutcome &outcome);
    void setStatus(int target, SessionRunStatus status, const QString &error = {});
    void finishSession();

    BenchmarkRunner *m_runner;
    SessionInfo m_info;
    QString m_directory;
    int m_current = -1; ///< sequential: the target running now
    int m_finished = 0;
    bool m_running = false;
    bool m_stopping = false;
};

} // namespace tb

Q_DECLARE_METATYPE(tb::SessionProgress)
