#pragma once

#include "config/runconfig.h"
#include "engine/runprogress.h"
#include "results/benchmarkrunner.h"

#include <QDateTime>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace tb {

struct RunData;

/// How a comparison session sends its workload to the targets.
enum class SessionMode {
    Sequential,  ///< one target after another, each run on its own (the default)
    Interleaved, ///< one shared arrival schedule: request i goes to every target at the same moment
};
QString sessionModeName(SessionMode mode); ///< "sequential" | "interleaved"
std::optional<SessionMode> sessionModeFromName(const QString &name);

/// What became of one target of a session.
enum class SessionRunStatus {
    Pending,   ///< not started yet
    Running,
    Ok,        ///< finished, some requests succeeded
    Cancelled, ///< Stop ended it; what was measured is saved
    Failed,    ///< could not start, a runtime failure, or every request failed
    NotRun,    ///< the session was stopped before its turn
};
QString sessionRunStatusName(SessionRunStatus status); ///< "pending", "running", "ok", …
std::optional<SessionRunStatus> sessionRunStatusFromName(const QString &name);

/// session.json: a comparison session's directory holds it and one run directory per target.
///   {"format": "tokenbench-session", "format_version": 1, "name", "mode", "created_at", "tool",
///    "workload": <the run configuration without its target>,
///    "runs": [{"directory": "1-gpt-4", "target": <target>, "status": "ok", "error": ""}, …]}
/// Run directories are relative to the session directory, in target order. Like run.json it
/// never holds an API key.
struct SessionInfo {
    struct Run {
        QString directory; ///< relative to the session directory
        TargetConfig target;
        SessionRunStatus status = SessionRunStatus::Pending;
        QString error;
    };

    static constexpr char kFileName[] = "session.json";
    static constexpr int kFormatVersion = 1;

    QString name;
    SessionMode mode = SessionMode::Sequential;
    QDateTime createdAt;
    QString toolVersion;
    RunConfig workload; ///< the configuration every target ran (its target and outDir are not used)
    QList<Run> runs;

    nlohmann::json toJson() const;
    /// Strict like run.json's reader: a missing key or a newer format_version is an error.
    static std::optional<SessionInfo> fromJson(const nlohmann::json &json, QString *error);

    /// Whether `directory` holds a session.json.
    static bool isSessionDirectory(const QString &directory);
    /// Reads DIR/session.json; errors name the directory ("DIR: damaged session.json: …").
    static std::optional<SessionInfo> load(const QString &directory, QString *error);
    /// Writes DIR/session.json atomically.
    bool save(const QString &directory, QString *error) const;

    /// The session directory a run directory belongs to, with its session; none for a run outside
    /// a session.
    static std::optional<std::pair<QString, SessionInfo>> sessionOf(const QString &runDirectory);
};

/// Command-line and drop-target arguments to run directories: a session directory becomes its
/// runs in target order (runs that never started are left out, with a note in *notes); anything
/// else stays as it is, for RunReader to accept or refuse by name. False with *error for a session
/// directory whose session.json cannot be read.
bool expandRunDirectories(const QStringList &arguments, QStringList *directories, QString *error,
                          QStringList *notes = nullptr);

/// Whether these runs are the runs of one interleaved session (at least two of them), so that
/// their request ids name the same requests and PairedComparison applies.
bool isInterleavedSet(const std::vector<RunData> &runs);

/// Where a session is in its work, for progress bars.
struct SessionProgress {
    int target = -1;       ///< the target running now (sequential), -1 when all run at once
    int targetCount = 0;
    int finished = 0;      ///< targets done (whatever their status)
    RunProgress run;       ///< of the run going now
    double fraction = -1;  ///< 0..1 of the whole session, -1 when unknown
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
        QString name;                ///< a label for the session ("models", "before-after")
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
    void saveInfo();

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
