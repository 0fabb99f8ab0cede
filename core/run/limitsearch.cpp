#include "run/limitsearch.h"

#include "config/outputfile.h"
#include "results/runwriter.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>

namespace tb {

namespace {
const QString kSearchJson = QStringLiteral("search.json");
} // namespace

LimitSearch::LimitSearch(QObject *parent)
    : QObject(parent)
    , m_runner(new BenchmarkRunner(this))
{
    qRegisterMetaType<SearchLevel>();
    connect(m_runner, &BenchmarkRunner::runFinished, this, &LimitSearch::onRunFinished);
}

LimitSearch::~LimitSearch() = default;

QStringList LimitSearch::problems(const RunConfig &base)
{
    QStringList problems;
    if (base.slo.isEmpty())
        problems << QStringLiteral("slo (--slo): the search judges each level by its good fraction; give thresholds, "
                                   "e.g. --slo ttft_ms=500");
    if (!base.load.stages.isEmpty())
        problems << QStringLiteral("load.stages (--stages, --sweep): the search sets the level; give neither");
    if (!base.load.trace.isEmpty())
        problems << QStringLiteral("load.trace (--trace): a trace is its own schedule; the search sets the level");
    if (!base.prompt.salt.isEmpty())
        problems << QStringLiteral("prompt.salt (--prompt-salt): every level gets a fresh salt, so that no level "
                                   "is served from the prefix cache an earlier one filled");
    return problems;
}

bool LimitSearch::isSearchDirectory(const QString &directory)
{
    return QFileInfo::exists(QDir(directory).filePath(kSearchJson));
}

RunConfig LimitSearch::levelConfig(const RunConfig &base, const LimitSearchSpec &spec, double level)
{
    RunConfig c = base;
    c.load.stages.clear();
    c.load.mode = spec.mode;
    if (spec.mode == LoadMode::Concurrency)
        c.load.concurrency = int(level);
    else
        c.load.rate = level;
    c.prompt.salt.clear();
    return c;
}

bool LimitSearch::start(const RunConfig &base, const LimitSearchSpec &spec, QString *error)
{
    const auto fail = [this, error](const QString &why, bool configuration) {
        m_configurationError = configuration;
        if (error)
            *error = why;
        return false;
    };
    if (m_running)
        return fail(QStringLiteral("a search is already running"), false);
    QStringList problems = LimitSearch::problems(base);
    // Every level is the same configuration at another level: the first one's problems are all's.
    problems << validate(levelConfig(base, spec, spec.start));
    if (!problems.isEmpty())
        return fail(problems.join(QLatin1Char('\n')), true);

    m_directory = base.outDir;
    if (m_directory.isEmpty())
        m_directory = RunWriter::unusedPath(
            QStringLiteral("runs"), QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")) +
                                        QStringLiteral("-find-max-") + RunWriter::fileSafeName(base.target.model));
    if (!QDir().mkpath(m_directory))
        return fail(QStringLiteral("cannot create %1").arg(QDir::toNativeSeparators(m_directory)), false);
    m_base = base;
    m_plan.emplace(spec, base.slo.target);
    m_running = true;
    m_stopping = false;
    Q_EMIT searchStarted(m_directory);
    startNext();
    if (!m_running) // the first level could not start: nothing ran
        return fail(m_plan->error(), m_runner->failureIsConfiguration());
    return true;
}

void LimitSearch::stop()
{
    if (!m_running || m_stopping)
        return;
    m_stopping = true;
    if (m_runner->isRunning())
        m_runner->stop(); // its runFinished ends the search
}

void LimitSearch::startNext()
{
    if (m_stopping) {
        m_plan->stop();
        finish();
        return;
    }
    if (m_plan->isDone()) {
        finish();
        return;
    }
    const double level = m_plan->nextLevel();
    const int run = m_plan->nextRun();
    m_runDirectory = QStringLiteral("level-%1-%2")
                         .arg(m_plan->levels().size(), 2, 10, QLatin1Char('0'))
                         .arg(m_plan->spec().levelName(level)) +
                     (run > 1 ? QStringLiteral("-run%1").arg(run) : QString());
    RunConfig config = levelConfig(m_base, m_plan->spec(), level);
    config.outDir = QDir(m_directory).filePath(m_runDirectory);
    QString why;
    if (!m_runner->start(config, &why)) {
        m_plan->fail(QStringLiteral("%1: %2").arg(m_runDirectory, why));
        finish();
        return;
    }
    Q_EMIT levelRunStarted(level, run, config.outDir);
}

void LimitSearch::onRunFinished(const RunOutcome &outcome)
{
    if (!m_running)
        return;
    const std::size_t index = m_plan->levels().size() - 1;
    const std::int64_t attempted = outcome.summary.total.requests.attempted;
    const std::int64_t good = outcome.summary.total.throughput.good;
    if (!outcome.error.isEmpty() || outcome.cancelled || m_stopping) {
        m_plan->stopRun(m_runDirectory, attempted, good);
        if (!outcome.error.isEmpty())
            m_plan->fail(QStringLiteral("%1: %2").arg(m_runDirectory, outcome.error));
    } else {
        m_plan->addRun(m_runDirectory, attempted, good);
    }
    Q_EMIT levelRunFinished(m_plan->levels()[index]);
    if (QString why; !save(&why)) {
        m_plan->fail(why);
        finish();
        return;
    }
    if (m_plan->isDone()) {
        finish();
        return;
    }
    // Let the runner finish delivering this run before it starts the next.
    QMetaObject::invokeMethod(this, &LimitSearch::startNext, Qt::QueuedConnection);
}

bool LimitSearch::save(QString *why)
{
    const QString path = QDir(m_directory).filePath(kSearchJson);
    if (writeFileAtomically(path, m_plan->toJson(m_base.slo).dump(2) + '\n', why))
        return true;
    *why = QStringLiteral("%1: %2").arg(QDir::toNativeSeparators(path), *why);
    return false;
}

void LimitSearch::finish()
{
    if (QString why; !save(&why) && m_plan->stopReason() != SearchStop::Error)
        m_plan->fail(why);
    m_running = false;
    m_stopping = false;
    Q_EMIT searchFinished();
}

} // namespace tb
