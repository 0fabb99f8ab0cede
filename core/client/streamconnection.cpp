#include "client/streamconnection.h"

namespace tb {

StreamConnection::StreamConnection(const Endpoint &endpoint, const RunClock &clock, QObject *parent)
    : QObject(parent)
    , m_endpoint(endpoint)
    , m_clock(clock)
{}

void StreamConnection::openOnce()
{
    if (!m_opening) {
        m_opening = true;
        m_stream->open();
    }
}

} // namespace tb
