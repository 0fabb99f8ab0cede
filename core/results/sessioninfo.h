#pragma once

// A comparison session's directory on disk: session.json and the run directories it lists
// (run/comparisonsession.h runs a session; this is what it leaves behind, for readers of any room).

#include "config/runconfig.h"

#include <QDateTime>
#include <QList>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <optional>
#include <utility>
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
    Pending, ///< not started yet
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

} // namespace tb
