#include "observe/clienthealth.h"

#include "metrics/exactpercentile.h"
#include "metrics/requestrecord.h"

#include <QThread>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <utility>

namespace tb {

namespace {

double processCpuS()
{
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

void raiseMax(std::atomic<std::int64_t> &max, std::int64_t v)
{
    std::int64_t seen = max.load(std::memory_order_relaxed);
    while (v > seen && !max.compare_exchange_weak(seen, v, std::memory_order_relaxed)) {
    }
}

/// Busy, not asleep: a thread that is working, as an overloaded client's would be.
void spin(const RunClock &clock, int ms)
{
    const std::int64_t until = clock.nowNs() + std::int64_t(ms) * 1'000'000;
    while (clock.nowNs() < until) {
    }
}

} // namespace

ClientHealthMonitor::ClientHealthMonitor(const RunClock &clock, std::vector<QObject *> probes, bool openLoopUncapped,
                                         QObject *parent)
    : QObject(parent)
    , m_clock(clock)
    , m_probes(std::move(probes))
    , m_openLoopUncapped(openLoopUncapped)
    , m_cores(std::max(1, QThread::idealThreadCount()))
    , m_probeLagUs(std::make_shared<std::atomic<std::int64_t>>(0))
    , m_probeCount(std::make_shared<std::atomic<std::int64_t>>(0))
    , m_probeMaxUs(std::make_shared<std::atomic<std::int64_t>>(0))
    , m_backlog(std::make_shared<SharedBacklog>())
{
    m_timer.setTimerType(Qt::PreciseTimer);
    connect(&m_timer, &QTimer::timeout, this, &ClientHealthMonitor::tick);
}

ClientHealthMonitor::~ClientHealthMonitor() = default;

void ClientHealthMonitor::start()
{
    m_lastTickNs = m_clock.nowNs();
    m_lastCpuS = processCpuS();
    m_timer.start(kTickMs);
}

ClientHealthMonitor::Second &ClientHealthMonitor::second(std::int64_t ns)
{
    const std::size_t s = std::size_t(std::max<std::int64_t>(0, ns / 1'000'000'000));
    if (s >= m_seconds.size())
        m_seconds.resize(s + 1);
    return m_seconds[s];
}

void ClientHealthMonitor::tick()
{
    const std::int64_t now = m_clock.nowNs();
    const double cpu = processCpuS();
    Second &s = second(now);
    // This thread's own lateness, and what the transport threads reported since the last tick.
    const double lateMs = std::max(0.0, double(now - m_lastTickNs) / 1e6 - kTickMs);
    s.cpuS += cpu - m_lastCpuS;
    s.wallS += double(now - m_lastTickNs) / 1e9;
    s.lagSumMs += lateMs;
    ++s.probes;
    const std::int64_t probes = m_probeCount->exchange(0);
    const std::int64_t lagUs = m_probeLagUs->exchange(0);
    s.lagSumMs += double(lagUs) / 1e3;
    s.probes += int(probes);
    s.lagMaxMs = std::max({s.lagMaxMs, lateMs, double(m_probeMaxUs->exchange(0)) / 1e3});
    {
        const std::lock_guard lock(m_backlog->mutex);
        s.readBacklog.merge(std::exchange(m_backlog->tally, ReadBacklog::Tally{}));
    }
    m_lastTickNs = now;
    m_lastCpuS = cpu;
    // One probe per transport thread: how long its event loop takes to get to a posted call.
    for (QObject *probe : m_probes) {
        QMetaObject::invokeMethod(
            probe,
            [clock = m_clock, posted = now, sum = m_probeLagUs, count = m_probeCount, max = m_probeMaxUs,
             backlog = m_backlog, stallMs = m_transportStallMs] {
                const std::int64_t us = (clock.nowNs() - posted) / 1000;
                sum->fetch_add(us, std::memory_order_relaxed);
                count->fetch_add(1, std::memory_order_relaxed);
                raiseMax(*max, us);
                const ReadBacklog::Tally reads = ReadBacklog::take();
                if (!reads.isEmpty()) {
                    const std::lock_guard lock(backlog->mutex);
                    backlog->tally.merge(reads);
                }
                if (stallMs > 0)
                    spin(clock, stallMs);
            },
            Qt::QueuedConnection);
    }
    if (m_stallMs > 0)
        spin(m_clock, m_stallMs);
}

void ClientHealthMonitor::addRecord(const RequestRecord &record)
{
    if (!m_openLoopUncapped || record.warmup || record.scheduledNs < 0 || record.sentNs < record.scheduledNs)
        return;
    second(record.scheduledNs).sendLagMs.push_back(double(record.sentNs - record.scheduledNs) / 1e6);
}

void ClientHealthMonitor::Second::add(const Second &other)
{
    cpuS += other.cpuS;
    wallS += other.wallS;
    lagSumMs += other.lagSumMs;
    lagMaxMs = std::max(lagMaxMs, other.lagMaxMs);
    probes += other.probes;
    sendLagMs.insert(sendLagMs.end(), other.sendLagMs.begin(), other.sendLagMs.end());
    readBacklog.merge(other.readBacklog);
}

ClientHealthSummary ClientHealthMonitor::summary() const
{
    ClientHealthSummary h;
    h.cores = m_cores;
    Second run; // the whole run: its measured seconds summed
    for (std::size_t i = 0; i < m_seconds.size(); ++i) {
        const Second &s = m_seconds[i];
        if (s.wallS <= 0 || std::int64_t(i + 1) * 1'000'000'000 <= m_measuredFromNs)
            continue;
        const double cpuFraction = s.cpuS / s.wallS / m_cores;
        h.cpuPeakPct = std::max(h.cpuPeakPct, 100 * cpuFraction);
        run.add(s);
        // Judged on enough evidence only: a few probes of a loaded machine, or one slow request or
        // read, would flag a short run that kept up (docs/metrics.md "Client health").
        if (s.wallS < ClientHealthSummary::kMinCoveredS)
            continue;
        ++h.seconds;
        const double lagMean = s.probes ? s.lagSumMs / s.probes : 0;
        std::vector<double> secondLags = s.sendLagMs;
        const bool sendLagged = secondLags.size() >= std::size_t(ClientHealthSummary::kMinSendLags) &&
                                exactPercentile(secondLags, 0.5) >= ClientHealthSummary::kLagLimitMs;
        // The tail, not the median: the kernel merges segments that queue up behind a busy thread
        // and the merged one keeps the newest stamp, so most backlogged bytes look fresh (a Release
        // build reads a 90 ms stall as p50 0.04 ms, p99 89 ms); the reads right after it do not.
        const bool readLagged = s.readBacklog.reads >= ClientHealthSummary::kMinReads &&
                                s.readBacklog.percentileMs(0.99) >= ClientHealthSummary::kLagLimitMs;
        h.readBacklogSeconds += readLagged ? 1 : 0;
        if (cpuFraction >= ClientHealthSummary::kCpuLimit || lagMean >= ClientHealthSummary::kLagLimitMs ||
            sendLagged || readLagged) {
            ++h.saturatedSeconds;
            if (!h.firstSaturatedS)
                h.firstSaturatedS = int(i);
        }
    }
    h.cpuMeanPct = run.wallS > 0 ? 100 * run.cpuS / run.wallS / m_cores : 0;
    h.loopLagMeanMs = run.probes ? run.lagSumMs / run.probes : 0;
    h.loopLagMaxMs = run.lagMaxMs;
    if (!run.sendLagMs.empty()) {
        h.sendLagMaxMs = *std::max_element(run.sendLagMs.begin(), run.sendLagMs.end());
        h.sendLagP50Ms = exactPercentile(run.sendLagMs, 0.5);
    }
    if (!run.readBacklog.isEmpty()) {
        h.readBacklogP50Ms = run.readBacklog.percentileMs(0.5);
        h.readBacklogP99Ms = run.readBacklog.percentileMs(0.99);
        h.readBacklogMaxMs = double(run.readBacklog.maxUs) / 1e3;
    }
    h.saturated = h.saturatedSeconds > 0 && h.saturatedFraction() >= ClientHealthSummary::kFlagFraction;
    return h;
}

} // namespace tb
