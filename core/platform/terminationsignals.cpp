#include "platform/terminationsignals.h"

namespace tb {

TerminationSignals::TerminationSignals()
{
    if (socketPair(m_pair))
        install(m_pair[0]);
}

TerminationSignals::~TerminationSignals()
{
    if (m_pair[0] == kNoSocket)
        return;
    uninstall();
    closeSocket(m_pair[0]);
    closeSocket(m_pair[1]);
}

int TerminationSignals::take()
{
    unsigned char byte = 0;
    const SocketResult read = receiveSome(m_pair[1], reinterpret_cast<char *>(&byte), 1);
    return read.status == SocketStatus::Ok ? int(byte) : 0;
}

} // namespace tb
