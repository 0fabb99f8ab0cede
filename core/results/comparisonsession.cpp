#include "results/comparisonsession.h"

#include "config/enumnames.h"

#include "results/rundirectory.h"
#include "results/runwriter.h"
#include "tokenbench/version.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <algorithm>
#include <array>

namespace tb {

namespace {

using json = nlohmann::json;

constexpr char kFormat[] = "tokenbench-session";

constexpr EnumName<SessionRunStatus> kStatusNames[] = {
    {SessionRunStatus::Pending, "pending"}, {SessionRunStatus::Running, "running"},
    {SessionRunStatus::Ok, "ok"},           {SessionRunStatus::Cancelled, "cancelled"},
    {SessionRunStatus::Failed, "failed"},   {SessionRunStatus::NotRun, "not-run"},
};

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

QString sessionModeName(SessionMode mode)
{
    return mode == SessionMode::Interleaved ? QStringLiteral("interleaved") : QStringLiteral("sequential");
}

std::optional<SessionMode> sessionModeFromName(const QString &name)
{
    if (name == QLatin1String("sequential"))
        return SessionMode::Sequential;
    if (name == QLatin1String("interleaved"))
        return SessionMode::Interleaved;
    return std::nullopt;
}

QString sessionRunStatusName(SessionRunStatus status)
{
    return enumName(kStatusNames, status);
}

std::optional<SessionRunStatus> sessionRunStatusFromName(const QString &name)
{
    return enumFromName<SessionRunStatus>(kStatusNames, name);
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
    const auto string = [&j](const char *key) -> std::optional<QString> {
        const auto it = j.find(key);
        if (it == j.end() || !it->is_string())
            return std::nullopt;
        return fromStd(it->get<std::string>());
    };
    if (!j.is_object())
        return fail(QStringLiteral("not a JSON object"));
    if (string("format") != QLatin1String(kFormat))
        return fail(QStringLiteral("format: not \"%1\"").arg(QLatin1String(kFormat)));
    const auto version = j.find("format_version");
    if (version == j.end() || !version->is_number_integer())
        return fail(QStringLiteral("format_version: missing"));
    if (version->get<int>() > kFormatVersion)
        return fail(QStringLiteral("written by a newer format version %1 (this build reads up to %2)")
                        .arg(version->get<int>())
                        .arg(kFormatVersion));

    SessionInfo info;
    info.name = string("name").value_or(QString());
    const auto mode = sessionModeFromName(string("mode").value_or(QString()));
    if (!mode)
        return fail(QStringLiteral("mode: expected \"sequential\" or \"interleaved\""));
    info.mode = *mode;
    info.createdAt = QDateTime::fromString(string("created_at").value_or(QString()), Qt::ISODateWithMs);
    if (const auto tool = j.find("tool"); tool != j.end() && tool->is_object())
        info.toolVersion = fromStd(tool->value("version", std::string()));
    const auto workload = j.find("workload");
    if (workload == j.end())
        return fail(QStringLiteral("workload: missing"));
    QString why;
    const auto config = runConfigFromJson(*workload, &why);
    if (!config)
        return fail(QStringLiteral("workload.%1").arg(why));
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
    QFile file(QDir(directory).filePath(QLatin1String(kFileName)));
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("%1: cannot read %2: %3").arg(where, QLatin1String(kFileName), file.errorString());
        return std::nullopt;
    }
    const QByteArray bytes = file.readAll();
    const json j = json::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr, false);
    if (j.is_discarded()) {
        *error = QStringLiteral("%1: damaged %2: not valid JSON").arg(where, QLatin1String(kFileName));
        return std::nullopt;
    }
    QString why;
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
    QSaveFile file(QDir(directory).filePath(QLatin1String(kFileName)));
    const std::string text = toJson().dump(2) + '\n';
    if (!file.open(QIODevice::WriteOnly) || file.write(text.data(), qint64(text.size())) < 0 || !file.commit()) {
        *error = QStringLiteral("cannot write %1: %2")
                     .arg(QDir::toNativeSeparators(file.fileName()), file.errorString());
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
            *error = QStringLiteral("%1: the session has no run directories yet").arg(QDir::toNativeSeparators(argument));
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
    const QString stem = when.toString(QStringLiteral("yyyyMMdd-HHmmss")) + QStringLiteral("-session") +
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
        return fail(QStringLiteral("a comparison session needs at least two targets (got %1)").arg(config.targets.size()));
    // Refuse before anything runs: a session that fails at its third target after an hour is a
    // worse place to learn of a typo.
    QStringList problems;
    for (qsizetype i = 0; i < config.targets.size(); ++i) {
        RunConfig c = config.workload;
        c.target = config.targets[i];
        for (const QString &p : validate(c)) {
            const QString line = p.startsWith(QLatin1String("target."))
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
