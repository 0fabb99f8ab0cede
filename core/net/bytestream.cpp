#include "net/bytestream.h"

#include "net/qtsocketstream.h"
#include "net/tcpstream.h"

#include <QSslConfiguration>

namespace tb {

QList<QByteArray> alpnProtocols(Alpn alpn)
{
    if (alpn == Alpn::Http1)
        return {QSslConfiguration::NextProtocolHttp1_1};
    return {QSslConfiguration::ALPNProtocolHTTP2, QSslConfiguration::NextProtocolHttp1_1};
}

Alpn alpnFor(HttpVersion version)
{
    return version == HttpVersion::Http1 ? Alpn::Http1 : Alpn::Http2OrHttp1;
}

QString notHttp2ByAlpn(const QByteArray &picked)
{
    return QStringLiteral("the server did not pick HTTP/2 (h2) by ALPN; it picked %1")
        .arg(picked.isEmpty() ? QStringLiteral("none") : QString::fromLatin1(picked.left(40)));
}

std::unique_ptr<ByteStream> ByteStream::create(const Endpoint &endpoint, const RunClock &clock,
                                               ByteStreamHandler *handler, SocketPoller *poller, QObject *parent,
                                               Alpn alpn)
{
    if (endpoint.tls)
        return std::make_unique<QtSocketStream>(endpoint, clock, handler, parent, alpn);
    return std::make_unique<TcpStream>(endpoint, clock, handler, poller, parent);
}

} // namespace tb
