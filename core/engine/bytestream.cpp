#include "engine/bytestream.h"

#include "engine/qtsocketstream.h"
#include "engine/tcpstream.h"

namespace tb {

std::unique_ptr<ByteStream> ByteStream::create(const Endpoint &endpoint, const RunClock &clock,
                                               ByteStreamHandler *handler, EpollPoller *poller, QObject *parent)
{
    if (endpoint.tls)
        return std::make_unique<QtSocketStream>(endpoint, clock, handler, parent);
    return std::make_unique<TcpStream>(endpoint, clock, handler, poller, parent);
}

} // namespace tb
