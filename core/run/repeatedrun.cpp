#include "run/repeatedrun.h"

#include "config/outputfile.h"
#include "results/runwriter.h"
#include "tokenbench/version.h"

#include <QDateTime>
#include <QDir>
#include <QTimer>

namespace tb {

RepeatedRun::RepeatedRun(QObject *parent)
    : QObject(parent)
{
    connect(&m_runner, &BenchmarkRunner::runFinished, this, &RepeatedRun::onRunFinished);
}

QString RepeatedRun::runName(int index)
{
    return QStringLiteral("run-%1").arg(index + 1, 2, 10, QLatin1Char('0'));
}

bool RepeatedRun::start(const RunConfig &config, int repeats, QString *error)
{
    const auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    if (repeats < kMinRepeats || repeats > kMaxRepeats)
        return fail(QStringLiteral("repeats: %1 is not from %2 to %3").arg(repeats).arg(kMinRepeats).arg(kMaxRepeats));
    if (!config.prompt.salt.isEmpty())
        return fail(QStringLiteral("prompt salt: each repeated run makes its own; a given salt would send every run "
                                   "the same prompts (leave --prompt-salt out)"));
    m_config = config;
    m_directory =
        config.outDir.isEmpty() ? RunWriter::defaultDirectory(config, QDateTime::currentDateTime()) : config.outDir;
    m_repeats = repeats;
    m_stopped = false;
    m_finished = false;
    m_outcomes.clear();
    m_salts.clear();
    m_spread.reset();
    return startRun(error);
}

bool RepeatedRun::startRun(QString *error)
{
    const int index = int(m_outcomes.size());
    RunConfig config = m_config;
    config.outDir = QDir(m_directory).filePath(runName(index));
    if (!m_runner.start(config, error))
        return false;
    m_salts << m_runner.info().config.prompt.salt;
    Q_EMIT runStarted(index, m_runner.directory());
    return true;
}

void RepeatedRun::stop()
{
    m_stopped = true;
    m_runner.stop();
}

void RepeatedRun::onRunFinished(const RunOutcome &outcome)
{
    m_outcomes.push_back(outcome);
    const int index = int(m_outcomes.size()) - 1;
    Q_EMIT runEnded(index, outcome);
    if (!outcome.error.isEmpty())
        return finish(outcome.error);
    if (m_stopped || int(m_outcomes.size()) >= m_repeats)
        return finish({});
    // The next run starts once the runner has finished handing this one over (after this signal).
    QTimer::singleShot(0, this, [this] {
        if (m_stopped)
            return finish({});
        QString why;
        if (!startRun(&why))
            finish(QStringLiteral("%1: %2").arg(runName(int(m_outcomes.size())), why));
    });
}

void RepeatedRun::finish(QString error)
{
    if (std::exchange(m_finished, true))
        return;
    std::vector<RunSummary> summaries;
    nlohmann::json runs = nlohmann::json::array();
    QString partial;
    for (std::size_t i = 0; i < m_outcomes.size(); ++i) {
        const RunOutcome &outcome = m_outcomes[i];
        // A run Stop cut measured less than the others: its figures would widen the spread.
        if (outcome.cancelled || !outcome.error.isEmpty()) {
            partial = runName(int(i));
            continue;
        }
        summaries.push_back(outcome.summary);
        runs.push_back(runName(int(i)).toStdString());
    }
    m_spread.emplace(summaries);
    nlohmann::json salts = nlohmann::json::array();
    for (const QString &salt : std::as_const(m_salts))
        salts.push_back(salt.toStdString());
    const nlohmann::json file = {
        {"format", "tokenbench-repeats"},
        {"format_version", 1},
        {"tool", {{"name", "tokenbench"}, {"version", version().toStdString()}}},
        {"repeats", m_repeats},
        {"runs", runs},
        {"partial_run", partial.isEmpty() ? nlohmann::json() : nlohmann::json(partial.toStdString())},
        {"stopped", m_stopped},
        {"salts", salts},
        {"confidence", SpreadStats::kConfidence},
        {"interval", "student-t"},
        {"metrics", m_spread->toJson()},
    };
    QString why;
    if (!writeFileAtomically(QDir(m_directory).filePath(QLatin1String(repeatfile::kName)), file.dump(2) + '\n', &why) &&
        error.isEmpty())
        error = QStringLiteral("%1: %2").arg(
            QDir::toNativeSeparators(QDir(m_directory).filePath(QLatin1String(repeatfile::kName))), why);
    Q_EMIT finished(error);
}

} // namespace tb
