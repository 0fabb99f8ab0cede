#pragma once

// Whether the client kept up (docs/metrics.md "Client health"): a run's figures are the server's only while
// the measuring machine has time to spare. Always on, and cheap: a 100 ms timer on the run's thread,
// one posted probe per transport thread per tick (which also takes that thread's read backlog), the
// process CPU clock, and the send lag of records.

#include "metrics/clienthealthsummary.h"
#include "net/readbacklog.h"
#include "net/runclock.h"

#include <QObject>
#include <QString>
#include <QTimer>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace tb {

struct RequestRecord;

/// Measures on the thread it lives on (the run's, where arrivals are timed).
class ClientHealthMonitor : public QObject
{
public:
    static constexpr int kTickMs = 100;

    /// `probes`: objects living on the transport threads; `openLoopUncapped`: send lag is the
    /// client's own (no in-flight cap that would make requests wait on the server).
    ClientHealthMonitor(const RunClock &clock, std::vector<QObject *> probes, bool openLoopUncapped,
                        QObject *parent = nullptr);
    ~ClientHealthMonitor() override;

    void start();
    void stop() { m_timer.stop(); }
    /// The measurement begins at run time `ns` (the warm-up ended): the seconds wholly before it
    /// are not judged and not summed. A warm-up's figures count nowhere, so a client that was busy
    /// during it — opening 10,000 connections at once, say — limited no figure.
    void markMeasurementStart(std::int64_t ns) { m_measuredFromNs = ns; }
    void addRecord(const RequestRecord &record);
    ClientHealthSummary summary() const;

    /// Tests only: keeps the run's thread busy for this long at every tick, a client starved on purpose.
    void setStallMs(int ms) { m_stallMs = ms; }
    /// Tests only: each probe keeps its transport thread busy this long, so bytes wait in the kernel.
    void setTransportStallMs(int ms) { m_transportStallMs = ms; }

private:
    struct Second {
        double cpuS = 0;
        double wallS = 0;
        double lagSumMs = 0;
        double lagMaxMs = 0;
        int probes = 0;
        std::vector<double> sendLagMs;
        ReadBacklog::Tally readBacklog;

        /// Adds `other`'s figures: the whole run's are its seconds' summed.
        void add(const Second &other);
    };
    /// The transport threads' read backlog, handed over by their probes.
    struct SharedBacklog {
        std::mutex mutex;
        ReadBacklog::Tally tally;
    };
    Second &second(std::int64_t ns);
    void tick();

    RunClock m_clock;
    std::vector<QObject *> m_probes;
    bool m_openLoopUncapped;
    QTimer m_timer;
    std::int64_t m_lastTickNs = -1;
    double m_lastCpuS = 0;
    std::vector<Second> m_seconds;
    std::int64_t m_measuredFromNs = 0;
    int m_cores = 1;
    int m_stallMs = 0;
    int m_transportStallMs = 0;
    /// Probe lateness reported from the transport threads: (sum µs, count), read at each tick.
    std::shared_ptr<std::atomic<std::int64_t>> m_probeLagUs;
    std::shared_ptr<std::atomic<std::int64_t>> m_probeCount;
    std::shared_ptr<std::atomic<std::int64_t>> m_probeMaxUs;
    std::shared_ptr<SharedBacklog> m_backlog;
};

} // namespace tb
