#pragma once

#include "config/runconfig.h"

#include <QMetaType>
#include <QString>

#include <cstdint>

namespace tb {

/// A live snapshot of where a run is, for progress bars, status lines and the CLI's stderr.
struct RunProgress {
    std::int64_t elapsedNs = 0;
    int stage = 0; ///< index into the effective stages
    int stageCount = 0;
    QString stageName;
    bool warmup = false;   ///< still in the warm-up phase
    bool draining = false; ///< no more requests will start; waiting for those in flight
    bool stopping = false; ///< Stop was pressed
    LoadMode mode = LoadMode::Concurrency;
    double level = 0;           ///< target users or requests/s of the current stage
    double stageFraction = -1;  ///< 0..1 of the current stage, -1 when unknown
    std::int64_t etaMs = -1;    ///< estimated time to the end of the run, -1 when unknown
    std::int64_t issued = 0;    ///< requests the load profile started (incl. warm-up)
    std::int64_t completed = 0; ///< finished ok
    std::int64_t failed = 0;    ///< finished with an error (incl. cancelled)
    std::int64_t inFlight = 0;  ///< sent on the wire and not yet done
    std::int64_t peakInFlight = 0;
    std::int64_t waiting = 0;     ///< open loop: over the in-flight cap, waiting to be sent
    std::int64_t connecting = 0;  ///< waiting for a TCP connection to open
    std::int64_t handshaking = 0; ///< connected, waiting for the TLS handshake
    std::int64_t chunks = 0;      ///< token-bearing chunks received so far
    /// Prompt calibration (--calibrate) probes the target before the load: nothing above counts
    /// yet, and its time is no part of the run's (the run's t = 0 is the load's start).
    bool calibrating = false;
    int probesSent = 0;             ///< calibration requests sent so far (the last may still be in flight)
    int probesPlanned = 0;          ///< the fewest calibration needs in all; grows when a check misses
    std::int64_t calibrationNs = 0; ///< while calibrating: its time so far

    /// While calibrating, what it is doing for a status line: "Calibrating prompts: probe 3 of 7 ·
    /// 4.2 s" (the GUI's and the CLI's words alike); empty otherwise.
    QString calibrationText() const;
};

} // namespace tb

Q_DECLARE_METATYPE(tb::RunProgress)
