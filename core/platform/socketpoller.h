#pragma once

#include "platform/pollhandler.h"
#include "platform/socketio.h"

#include <QObject>

#include <memory>

namespace tb {

/// Watches many sockets for one thread that runs a Qt event loop (the client's transport threads).
/// Linux: one epoll descriptor — the transport dispatcher's own (newTransportDispatcher()), whose
/// one blocking wait hands ready sockets straight to their handlers; elsewhere an epoll descriptor
/// of its own behind one QSocketNotifier. Portable: a QSocketNotifier per socket and direction.
/// Level-triggered; use it on the thread it was made on.
class SocketPoller : public QObject
{
public:
    explicit SocketPoller(QObject *parent = nullptr);
    ~SocketPoller() override;

    /// `events`: PollEvent::Read and/or Write. False (lastSocketError() set) when refused.
    bool add(SocketHandle socket, std::uint32_t events, PollHandler *handler);
    void modify(SocketHandle socket, std::uint32_t events);
    void remove(SocketHandle socket);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace tb
