#include "net/epollpoller.h"

#include "net/epolleventdispatcher.h"

#include <QAbstractEventDispatcher>
#include <QSocketNotifier>

#include <cerrno>

#include <time.h>

namespace tb {

EpollPoller::EpollPoller(QObject *parent)
    : QObject(parent)
{}

EpollPoller::~EpollPoller()
{
    delete m_notifier;
}

EpollSet *EpollPoller::set()
{
    if (m_own)
        return m_own.get();
    return m_dispatcher ? &m_dispatcher->epollSet() : nullptr;
}

bool EpollPoller::add(int fd, std::uint32_t events, PollHandler *handler)
{
    if (!m_own && !m_dispatcher) {
        m_dispatcher = qobject_cast<EpollEventDispatcher *>(QAbstractEventDispatcher::instance());
        if (!m_dispatcher) {
            m_own = std::make_unique<EpollSet>();
            if (!m_own->isValid())
                return false;
            m_notifier = new QSocketNotifier(m_own->fd(), QSocketNotifier::Read, this);
            connect(m_notifier, &QSocketNotifier::activated, this, [this] {
                const ::timespec now{};
                m_own->wait(&now);
            });
        }
    }
    EpollSet *s = set();
    if (!s) {
        errno = ESHUTDOWN;
        return false;
    }
    return s->add(fd, events, handler);
}

void EpollPoller::modify(int fd, std::uint32_t events)
{
    if (EpollSet *s = set())
        s->modify(fd, events);
}

void EpollPoller::remove(int fd)
{
    if (EpollSet *s = set())
        s->remove(fd);
}

} // namespace tb
