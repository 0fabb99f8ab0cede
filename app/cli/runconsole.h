#pragma once

#include "config/runconfig.h"
#include "metrics/errortimeline.h"
#include "run/benchmarkrunner.h"

#include <QElapsedTimer>
#include <QObject>

namespace tb::cli {

/// What `tokenbench-cli run` shows: a progress line on stderr about once a second (rewritten in
/// place on a terminal), then the summary table on stdout; and the exit code (docs/SPEC.md §1).
class RunConsole : public QObject
{
    Q_OBJECT

public:
    RunConsole(const RunConfig &config, bool showProgress);

    void attach(BenchmarkRunner *runner);
    /// Prints the summary and returns the exit code for the outcome; `interrupted`: a termination
    /// signal stopped the run (exit 130 once it is saved).
    int finish(const RunOutcome &outcome, bool interrupted);

    /// The progress line for a snapshot (exposed for tests); `inputsPerRequest` > 0: an API that
    /// generates nothing (embeddings), whose rate is inputs/s, not output tokens/s.
    static QString progressLine(const RunSnapshot &snapshot, int inputsPerRequest);

private:
    void printProgress();

    RunConfig m_config;
    bool m_showProgress;
    bool m_tty;
    bool m_haveSnapshot = false;
    RunSnapshot m_snapshot;
    ErrorTimeline m_errors; ///< for the failures line
    QElapsedTimer m_sinceLine;
    int m_lineWidth = 0;
};

} // namespace tb::cli
