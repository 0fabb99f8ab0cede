#pragma once

#include "engine/epollpoller.h"
#include "engine/runclock.h"
#include "engine/transport.h"

#include <QObject>
#include <QSet>

#include <vector>

namespace tb {

class HttpConnection;
struct Endpoint;

/// TokenBench's own HTTP/1.1 client (HttpConnection on epoll, QSslSocket for TLS): a keep-alive
/// pool of connections, one exchange on each at a time.
class NativeTransport : public QObject, public Transport
{
    Q_OBJECT

public:
    NativeTransport(const RunClock &clock, QObject *parent = nullptr);
    ~NativeTransport() override;

    Exchange *acquire(const Endpoint &endpoint) override;
    void send(Exchange *exchange, const RequestBuilder &builder, const Hop &hop, ResponseSink *sink) override;
    void release(Exchange *exchange) override;
    void abandon(Exchange *exchange) override;
    void closeIdle() override;

private:
    void dropConnection(HttpConnection *connection);

    RunClock m_clock;
    QSet<HttpConnection *> m_connections;
    std::vector<HttpConnection *> m_idle;
    EpollPoller m_poller; ///< every plain-TCP connection of this transport
};

} // namespace tb
