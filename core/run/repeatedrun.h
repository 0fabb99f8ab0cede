#pragma once

#include "analysis/runspread.h"
#include "run/benchmarkrunner.h"

#include <QObject>
#include <QString>

#include <optional>
#include <vector>

namespace tb {

/// One configuration run N times one after another (`run --repeat N`), each run with a fresh
/// prompt salt into DIR/run-01 … DIR/run-NN (each a normal run directory), then DIR/repeats.json:
/// the headline metrics of every finished run and their spread (RunSpread). Stop ends the run in
/// flight — saved, marked partial, left out of the spread — and writes repeats.json over the runs
/// that had finished.
class RepeatedRun : public QObject
{
    Q_OBJECT

public:
    static constexpr int kMinRepeats = 2;
    static constexpr int kMaxRepeats = 100;

    explicit RepeatedRun(QObject *parent = nullptr);

    /// The runner every run goes through: its settings (workers, --force, metrics endpoint) hold
    /// for each run.
    BenchmarkRunner &runner() { return m_runner; }

    /// Starts the first run into `config.outDir` (empty: a default directory as a single run's)
    /// /run-01. The configuration must have no prompt salt (each run makes its own). False with
    /// *error when the first run cannot start (runner().failureIsConfiguration() says why).
    bool start(const RunConfig &config, int repeats, QString *error);
    /// Ends the run in flight (finished() follows, after repeats.json). Safe twice.
    void stop();

    QString directory() const { return m_directory; }
    /// The spread of the runs that finished (not cut by Stop), once finished() came.
    const std::optional<RunSpread> &spread() const { return m_spread; }
    /// The subdirectory name of run `index` (0-based): "run-01".
    static QString runName(int index);

Q_SIGNALS:
    /// Run `index` (0-based) started into `directory`; the runner's signals report its progress.
    void runStarted(int index, const QString &directory);
    void runEnded(int index, const tb::RunOutcome &outcome);
    /// Every run ended (or Stop, or a run that could not start); `error` is empty when repeats.json
    /// was written and every run started.
    void finished(const QString &error);

private:
    bool startRun(QString *error);
    void onRunFinished(const RunOutcome &outcome);
    void finish(QString error);

    BenchmarkRunner m_runner;
    RunConfig m_config;
    QString m_directory;
    int m_repeats = 0;
    bool m_stopped = false;
    bool m_finished = false;
    std::vector<RunOutcome> m_outcomes;
    QStringList m_salts;
    std::optional<RunSpread> m_spread;
};

} // namespace tb
