#pragma once

#include "sim/simconfig.h"
#include "sim/simstats.h"

#include <QHostAddress>
#include <QObject>
#include <QUrl>

#include <memory>

class QThread;

namespace tb::sim {

class SimServer;

/// Runs a simulated LLM server (SimServer) on its own thread, so that the GUI thread never
/// carries it. start() returns once the server listens; stop() and the destructor join the thread.
class SimulatorHost : public QObject
{
    Q_OBJECT

public:
    explicit SimulatorHost(SimConfig config, QObject *parent = nullptr);
    ~SimulatorHost() override;

    /// Listens on address:port (0 = a free port) and starts serving. False with *error when the
    /// address cannot be bound or the host is already running.
    bool start(const QHostAddress &address = QHostAddress(QHostAddress::LocalHost), quint16 port = 0,
               QString *error = nullptr);
    /// Stops serving and joins the thread; safe to call twice. stats() and requests() still
    /// answer from the stopped server until the next start().
    void stop();

    bool isRunning() const;
    quint16 port() const;
    /// http://HOST:PORT/v1 (127.0.0.1 when listening on all addresses).
    QUrl baseUrl() const;
    /// Thread-safe snapshot: the same data as GET /sim/stats.
    SimStats stats() const;
    /// Thread-safe: finished requests with seq > since, as GET /sim/requests.
    QList<RequestTrace> requests(qint64 since = 0, qint64 limit = 0) const;
    const SimConfig &config() const { return m_config; }

private:
    SimConfig m_config;
    QHostAddress m_address;
    std::unique_ptr<SimServer> m_server;
    std::unique_ptr<QThread> m_thread;
};

} // namespace tb::sim
