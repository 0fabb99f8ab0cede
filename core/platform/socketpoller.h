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
///
/// A transport thread on Linux whose kernel offers io_uring (UringReceiver) also reads sockets
/// itself: receive() hands each read, with its kernel receive stamp, to the socket's handler, in
/// one system call per pass for all sockets instead of a readiness event and a read per socket.
class SocketPoller : public QObject
{
public:
    explicit SocketPoller(QObject *parent = nullptr);
    ~SocketPoller() override;

    /// `events`: PollEvent::Read and/or Write. False (lastSocketError() set) when refused.
    bool add(SocketHandle socket, std::uint32_t events, PollHandler *handler);
    void modify(SocketHandle socket, std::uint32_t events);
    void remove(SocketHandle socket);

    /// Reads `socket` for its owner from now on, handing each read to `handler` until the end, an
    /// error or endReceive(). False when this thread cannot (the portable backend, the epoll path,
    /// a thread without the transport dispatcher): the owner then watches PollEvent::Read itself.
    /// A socket being received needs add() only while it waits to write.
    bool receive(SocketHandle socket, ReceiveHandler *handler);
    /// Stops receive() before the socket is closed (at once: the peer sees the close at once).
    void endReceive(SocketHandle socket);
    /// Holds receive()'s reads back for at most `ns` to hand several over in one pass (io_uring's
    /// gathering, at most 0.5 ms; nothing elsewhere): this thread's reads from now on.
    void limitReadDelay(std::int64_t ns);
    /// What waits unread for `socket`: bytes receive() took and has not handed over yet, else what
    /// waits in the socket itself (pendingInput()).
    PendingInput pendingInput(SocketHandle socket) const;

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace tb
