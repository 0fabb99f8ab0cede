#include "sim/simulatorhost.h"

#include "sim/simserver.h"
#include "threads/threadhandoff.h"

#include <QThread>

namespace tb::sim {

SimulatorHost::SimulatorHost(SimConfig config, QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
{}

SimulatorHost::~SimulatorHost()
{
    stop();
}

bool SimulatorHost::start(const QHostAddress &address, quint16 port, QString *error)
{
    if (isRunning()) {
        if (error)
            *error = QStringLiteral("the simulator is already running on port %1").arg(this->port());
        return false;
    }
    auto server = std::make_unique<SimServer>(m_config);
    if (!server->listen(address, port, error))
        return false;
    m_server = std::move(server);
    m_address = address;
    SimServer *s = m_server.get();
    m_thread.reset(QThread::create([s] {
        s->run();
        threadhandoff::handOver(s);
    }));
    m_thread->setObjectName(QStringLiteral("tokenbench-sim"));
    m_thread->start();
    return true;
}

void SimulatorHost::stop()
{
    if (!m_thread)
        return;
    m_server->stop();
    m_thread->wait();
    threadhandoff::takeOver(m_server.get()); // the server is read and freed here after its thread
    m_thread.reset();
}

bool SimulatorHost::isRunning() const
{
    return m_thread != nullptr;
}

quint16 SimulatorHost::port() const
{
    return m_server ? m_server->port() : 0;
}

QUrl SimulatorHost::baseUrl() const
{
    if (!m_server)
        return {};
    QHostAddress host = m_address;
    if (host == QHostAddress(QHostAddress::Any) || host == QHostAddress(QHostAddress::AnyIPv4))
        host = QHostAddress(QHostAddress::LocalHost);
    else if (host == QHostAddress(QHostAddress::AnyIPv6))
        host = QHostAddress(QHostAddress::LocalHostIPv6);
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(host.toString());
    url.setPort(port());
    url.setPath(QStringLiteral("/v1"));
    return url;
}

SimStats SimulatorHost::stats() const
{
    return m_server ? m_server->stats() : SimStats();
}

QList<RequestTrace> SimulatorHost::requests(qint64 since, qint64 limit) const
{
    return m_server ? m_server->requests(since, limit) : QList<RequestTrace>();
}

} // namespace tb::sim
