#include "results/sessioninfo.h"

#include "config/enumnames.h"
#include "config/inputfile.h"
#include "config/outputfile.h"
#include "formats/formatversion.h"
#include "results/rundirectory.h"
#include "results/runfiles.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>

namespace tb {

namespace {

using json = nlohmann::json;

constexpr char kFormat[] = "tokenbench-session";

constexpr EnumName<SessionMode> kModeNames[] = {
    {SessionMode::Sequential, "sequential"},
    {SessionMode::Interleaved, "interleaved"},
};

constexpr EnumName<SessionRunStatus> kSessionStatusNames[] = {
    {SessionRunStatus::Pending, "pending"}, {SessionRunStatus::Running, "running"},
    {SessionRunStatus::Ok, "ok"},           {SessionRunStatus::Cancelled, "cancelled"},
    {SessionRunStatus::Failed, "failed"},   {SessionRunStatus::NotRun, "not-run"},
};

} // namespace

QString sessionModeName(SessionMode mode)
{
    return enumName(kModeNames, mode);
}

std::optional<SessionMode> sessionModeFromName(const QString &name)
{
    return enumFromName<SessionMode>(kModeNames, name);
}

QString sessionRunStatusName(SessionRunStatus status)
{
    return enumName(kSessionStatusNames, status);
}

std::optional<SessionRunStatus> sessionRunStatusFromName(const QString &name)
{
    return enumFromName<SessionRunStatus>(kSessionStatusNames, name);
}

json SessionInfo::toJson() const
{
    json workloadJson = tb::toJson(workload);
    // Each run's target is in "runs", and each run's own directory is its run.json's business.
    workloadJson.erase("target");
    workloadJson.erase("out");
    json runList = json::array();
    for (const Run &run : runs) {
        runList.push_back({{"directory", toStd(run.directory)},
                           {"target", tb::toJson(run.target)},
                           {"status", toStd(sessionRunStatusName(run.status))},
                           {"error", toStd(run.error)}});
    }
    return {
        {"format", kFormat},
        {"format_version", kFormatVersion},
        {"tool", {{"name", "tokenbench"}, {"version", toStd(toolVersion)}}},
        {"name", toStd(name)},
        {"mode", toStd(sessionModeName(mode))},
        {"created_at", toStd(createdAt.toOffsetFromUtc(createdAt.offsetFromUtc()).toString(Qt::ISODateWithMs))},
        {"workload", workloadJson},
        {"runs", runList},
    };
}

std::optional<SessionInfo> SessionInfo::fromJson(const json &j, QString *error)
{
    const auto fail = [error](const QString &why) -> std::optional<SessionInfo> {
        *error = why;
        return std::nullopt;
    };
    if (const QString why = checkFormatHead(j, kFormat, kFormatVersion); !why.isEmpty())
        return fail(why);

    SessionInfo info;
    info.name = lenientString(j, "name");
    const auto mode = sessionModeFromName(lenientString(j, "mode"));
    if (!mode)
        return fail(QStringLiteral("mode: expected \"sequential\" or \"interleaved\""));
    info.mode = *mode;
    info.createdAt = QDateTime::fromString(lenientString(j, "created_at"), Qt::ISODateWithMs);
    if (const auto tool = j.find("tool"); tool != j.end() && tool->is_object())
        info.toolVersion = fromStd(tool->value("version", std::string()));
    QString why;
    const auto config = runfiles::runConfigAt(j, "workload", &why);
    if (!config)
        return fail(why);
    info.workload = *config;

    const auto runs = j.find("runs");
    if (runs == j.end() || !runs->is_array())
        return fail(QStringLiteral("runs: missing"));
    for (std::size_t i = 0; i < runs->size(); ++i) {
        const json &r = (*runs)[i];
        const QString where = QStringLiteral("runs[%1]").arg(i);
        if (!r.is_object() || !r.contains("directory") || !r["directory"].is_string())
            return fail(where + QStringLiteral(".directory: missing"));
        Run run;
        run.directory = fromStd(r["directory"].get<std::string>());
        // A directory outside the session would let a damaged file point anywhere.
        if (run.directory.isEmpty() || run.directory.contains(QLatin1Char('/')) ||
            run.directory.contains(QLatin1Char('\\')) || run.directory.startsWith(QLatin1Char('.')))
            return fail(where + QStringLiteral(".directory: '%1' is not a directory name").arg(run.directory));
        if (const auto target = r.find("target"); target != r.end()) {
            const auto t = targetFromJson(*target, &why);
            if (!t)
                return fail(where + QLatin1Char('.') + why);
            run.target = *t;
        }
        const auto status = sessionRunStatusFromName(fromStd(r.value("status", std::string())));
        if (!status)
            return fail(where + QStringLiteral(".status: expected pending, running, ok, cancelled, failed or not-run"));
        run.status = *status;
        run.error = fromStd(r.value("error", std::string()));
        info.runs << run;
    }
    return info;
}

bool SessionInfo::isSessionDirectory(const QString &directory)
{
    return QFileInfo(QDir(directory).filePath(QLatin1String(kFileName))).isFile();
}

std::optional<SessionInfo> SessionInfo::load(const QString &directory, QString *error)
{
    const QString where = QDir::toNativeSeparators(directory);
    QString why;
    const auto bytes = readInputFile(QDir(directory).filePath(QLatin1String(kFileName)), kMaxConfigFileBytes, &why);
    if (!bytes) {
        *error = QStringLiteral("%1: cannot read %2: %3").arg(where, QLatin1String(kFileName), why);
        return std::nullopt;
    }
    const json j = json::parse(bytes->constData(), bytes->constData() + bytes->size(), nullptr, false);
    if (j.is_discarded()) {
        *error = QStringLiteral("%1: damaged %2: not valid JSON").arg(where, QLatin1String(kFileName));
        return std::nullopt;
    }
    auto info = fromJson(j, &why);
    if (!info) {
        const bool newer = why.startsWith(QLatin1String("written by a newer"));
        *error = newer ? QStringLiteral("%1: %2 was %3").arg(where, QLatin1String(kFileName), why)
                       : QStringLiteral("%1: damaged %2: %3").arg(where, QLatin1String(kFileName), why);
    }
    return info;
}

bool SessionInfo::save(const QString &directory, QString *error) const
{
    const QString path = QDir(directory).filePath(QLatin1String(kFileName));
    if (QString why; !writeFileAtomically(path, toJson().dump(2) + '\n', &why)) {
        *error = QStringLiteral("cannot write %1: %2").arg(QDir::toNativeSeparators(path), why);
        return false;
    }
    return true;
}

std::optional<std::pair<QString, SessionInfo>> SessionInfo::sessionOf(const QString &runDirectory)
{
    const QFileInfo run(QDir::cleanPath(runDirectory));
    const QString parent = run.absolutePath();
    if (!isSessionDirectory(parent))
        return std::nullopt;
    QString error;
    auto info = load(parent, &error);
    if (!info)
        return std::nullopt;
    const bool listed = std::any_of(info->runs.cbegin(), info->runs.cend(),
                                    [&](const Run &r) { return r.directory == run.fileName(); });
    if (!listed)
        return std::nullopt;
    return std::make_pair(parent, std::move(*info));
}

bool expandRunDirectories(const QStringList &arguments, QStringList *directories, QString *error, QStringList *notes)
{
    for (const QString &argument : arguments) {
        if (!SessionInfo::isSessionDirectory(argument)) {
            *directories << argument;
            continue;
        }
        const auto session = SessionInfo::load(argument, error);
        if (!session)
            return false;
        const QDir dir(argument);
        int added = 0;
        for (const SessionInfo::Run &run : session->runs) {
            const QString path = dir.filePath(run.directory);
            if (QFileInfo(path).isDir()) {
                *directories << path;
                ++added;
            } else if (notes) {
                *notes << QStringLiteral("%1: %2 (%3) has no run directory: %4%5")
                              .arg(QDir::toNativeSeparators(argument), run.directory, run.target.displayName(),
                                   sessionRunStatusName(run.status),
                                   run.error.isEmpty() ? QString() : QStringLiteral(", ") + run.error);
            }
        }
        if (added == 0) {
            *error =
                QStringLiteral("%1: the session has no run directories yet").arg(QDir::toNativeSeparators(argument));
            return false;
        }
    }
    return true;
}

bool isInterleavedSet(const std::vector<RunData> &runs)
{
    if (runs.size() < 2)
        return false;
    QString session;
    for (const RunData &run : runs) {
        const auto owner = SessionInfo::sessionOf(run.directory);
        if (!owner || owner->second.mode != SessionMode::Interleaved)
            return false;
        if (session.isEmpty())
            session = owner->first;
        else if (owner->first != session)
            return false;
    }
    return true;
}

} // namespace tb
