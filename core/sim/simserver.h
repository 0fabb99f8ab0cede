#pragma once

#include "sim/simconfig.h"
#include "sim/simstats.h"

#include <QHostAddress>
#include <QList>

#include <memory>

namespace tb::sim {

/// The simulated LLM server: an HTTP/1.1 server with keep-alive on an event loop of its own
/// (core/platform's PollSet), the serving model (ServingModel), the APIs (simprotocol.h), faults,
/// the prefix cache and the statistics, all driven by one thread.
///
/// Why not Qt's event loop: with 2,000 open sockets a Qt event-loop iteration polls every socket
/// (poll(): ~160 µs on the build machine), which rules out sub-millisecond token pacing at
/// thousands of wake-ups per second; on Linux the PollSet is epoll (~0.2 µs per wake-up whatever
/// the number of connections) with a timerfd that wakes the loop at the exact nanosecond a chunk is
/// due. The portable backend's PollSet is poll() with millisecond deadlines: pacing there is only as
/// good as that. See docs/simulator.md.
///
/// Use: listen() on any thread, then run() on the thread that serves until stop(). SimulatorHost
/// does both for you.
class SimServer
{
public:
    explicit SimServer(SimConfig config);
    ~SimServer();
    SimServer(const SimServer &) = delete;
    SimServer &operator=(const SimServer &) = delete;

    /// Binds and listens; port 0 picks a free one. On failure *error says why.
    bool listen(const QHostAddress &address, quint16 port, QString *error);
    quint16 port() const;

    /// Serves on the calling thread until stop(); then closes every connection.
    void run();
    /// Makes run() return soon. Thread-safe and async-signal-safe.
    void stop();

    /// Thread-safe snapshot (the data of GET /sim/stats).
    SimStats stats() const;
    /// Thread-safe: finished requests with seq > since (the data of GET /sim/requests).
    QList<RequestTrace> requests(qint64 since = 0, qint64 limit = 0) const;
    const SimConfig &config() const;

private:
    class Impl;
    friend class SimPollHandler; // hands the event loop's events to Impl
    std::unique_ptr<Impl> d;
};

} // namespace tb::sim
