#pragma once

#include "config/runconfig.h"
#include "run/benchmarkrunner.h"
#include "run/limitsearchplan.h"

#include <QObject>
#include <QString>

#include <optional>

namespace tb {

/// Runs a limit search (--find-max, docs/user-guide.md "Find the limit") on BenchmarkRunner: each
/// level the plan asks for is its own run — the base configuration at that one level, with a fresh
/// prompt salt — in its own directory under the search's ("level-03-c=48", a repeat
/// "level-03-c=48-run2"), and the plan decides the next from the finished run's summary
/// (requests attempted, good). search.json, in the search directory, is rewritten after every run.
/// Stop ends the run going (saved, recorded as stopped) and the search; it is safe twice.
class LimitSearch : public QObject
{
    Q_OBJECT

public:
    explicit LimitSearch(QObject *parent = nullptr);
    ~LimitSearch() override;

    /// Why `base` cannot be searched: no SLO to judge by, or a schedule of its own (stages, sweep,
    /// trace) where the search sets the level. Empty when it can.
    static QStringList problems(const RunConfig &base);
    /// Whether `directory` holds a search.json: a search's folder, its levels' runs inside.
    static bool isSearchDirectory(const QString &directory);
    /// The configuration of one level: the base at `level` users or requests/s, one stage, a fresh salt.
    static RunConfig levelConfig(const RunConfig &base, const LimitSearchSpec &spec, double level);

    /// Checks, creates `directory` (the base's outDir; empty: "runs/<time>-find-max-<model>") and
    /// starts the first level. False with *error when nothing started; failureIsConfiguration()
    /// then tells a bad configuration from a runtime failure.
    bool start(const RunConfig &base, const LimitSearchSpec &spec, QString *error);
    void stop();

    bool isRunning() const { return m_running; }
    bool failureIsConfiguration() const { return m_configurationError; }
    QString directory() const { return m_directory; }
    /// The plan so far; empty before start().
    const std::optional<LimitSearchPlan> &plan() const { return m_plan; }
    /// The runner of the levels (worker threads, metrics endpoint, replacing existing directories).
    BenchmarkRunner *runner() const { return m_runner; }

Q_SIGNALS:
    /// The search directory exists; the first level starts next.
    void searchStarted(const QString &directory);
    /// A run of a level began: `run` is 1, 2 or 3 (repeats of a level within noise).
    void levelRunStarted(double level, int run, const QString &directory);
    /// A run of a level ended; `level` holds its runs so far, pooled, and its verdict once judged.
    void levelRunFinished(const tb::SearchLevel &level);
    /// The search ended (plan()->stopReason() says why); search.json is complete.
    void searchFinished();

private:
    void startNext();
    void onRunFinished(const RunOutcome &outcome);
    bool save(QString *why);
    void finish();

    BenchmarkRunner *m_runner;
    RunConfig m_base;
    std::optional<LimitSearchPlan> m_plan;
    QString m_directory;
    QString m_runDirectory; ///< the run going, relative to m_directory
    bool m_running = false;
    bool m_stopping = false;
    bool m_configurationError = false;
};

} // namespace tb

Q_DECLARE_METATYPE(tb::SearchLevel)
