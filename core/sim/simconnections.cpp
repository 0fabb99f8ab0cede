#include "sim/simserver_p.h"

#include "platform/receivestamp.h"

#include <algorithm>
#include <chrono>

namespace tb::sim {

namespace {

constexpr std::size_t kReadBytes = 64 * 1024;
/// A client that stops reading is dropped when this much output waits for it.
constexpr std::size_t kMaxPendingOutput = 64 * 1024 * 1024;
constexpr qint64 kAcceptRetryNs = 100'000'000;
/// How often idle connections are looked for: a connection goes within a quarter of the idle
/// timeout after it (at most a second) — one wake-up per interval whatever the connections.
constexpr qint64 kMaxIdleSweepNs = 1'000'000'000;
constexpr qint64 kMinIdleSweepNs = 10'000'000;
/// No read waits this long in the kernel; an older stamp means the wall clock stepped.
constexpr qint64 kMaxStampAgeNs = 10'000'000'000;

/// When the kernel received a read's bytes (its software receive stamp on the system clock, 0 for
/// none), on the steady clock of readNs: a loop that woke late, busy or descheduled, still records
/// when the request arrived, not when it got round to reading it.
qint64 arrivalOf(std::int64_t realtimeNs, qint64 readNs)
{
    if (realtimeNs == 0)
        return readNs;
    const qint64 ageNs =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count() -
        realtimeNs;
    // The kernel stamps on the wall clock: a step of it must not move arrivals by more than a read's wait.
    return readNs - std::clamp<qint64>(ageNs, 0, kMaxStampAgeNs);
}

void applyStamps(RequestTrace &trace, unsigned stamps, qint64 ns)
{
    if (stamps & StampHeaders)
        trace.headersNs = ns;
    if (stamps & StampFirstToken)
        trace.firstTokenNs = ns;
    if (stamps & StampLastToken)
        trace.lastTokenNs = ns;
    if (stamps & StampDone)
        trace.doneNs = ns;
}

} // namespace

void SimServer::Impl::listenerReady()
{
    if (config.acceptDelayMs <= 0) {
        acceptAll();
        return;
    }
    // Not watched until then: what arrives meanwhile waits in the kernel's queue, or is dropped
    // when the backlog is full (the client's SYN is retried a second later).
    poll.modify(listener, 0);
    timers.push({nowNs() + qint64(config.acceptDelayMs * 1e6), Timer::AcceptDue, 0});
}

bool SimServer::Impl::acceptAll()
{
    while (true) {
        SocketHandle socket = kNoSocket;
        const SocketResult accepted = acceptTcp(listener, &socket);
        if (accepted.status == SocketStatus::WouldBlock)
            return true;
        if (accepted.status != SocketStatus::Ok) {
            if (isOutOfDescriptors(accepted.error)) {
                // Out of descriptors: stop accepting for a while instead of spinning on a
                // listener that stays readable.
                poll.modify(listener, 0);
                timers.push({nowNs() + kAcceptRetryNs, Timer::ResumeAccept, 0});
                return false;
            }
            return true;
        }
        enableReceiveStamps(socket); // else: the read's own time
        if (config.nagleWrites)
            enableNagle(socket);
        auto conn = std::make_unique<Connection>(std::size_t(config.maxBodyBytes));
        conn->id = nextConnectionId++;
        conn->pollHandler = SimPollHandler(this, conn->id);
        conn->socket = socket;
        conn->idleSinceNs = nowNs();
        poll.add(socket, PollEvent::Read, &conn->pollHandler);
        connections.emplace(conn->id, std::move(conn));
        std::lock_guard lock(statsMutex);
        ++stats.openConnections;
        stats.peakOpenConnections = std::max(stats.peakOpenConnections, stats.openConnections);
    }
}

void SimServer::Impl::closeIdle(qint64 now)
{
    const qint64 timeout = idleTimeoutNs();
    for (auto &[id, conn] : connections) {
        if (!conn->dead && !conn->stream && !conn->responding && !conn->exchange && !h2Answering(*conn) &&
            now - std::max(conn->lastReadNs, conn->idleSinceNs) >= timeout)
            closeConnection(*conn);
    }
    timers.push({now + std::clamp(timeout / 4, kMinIdleSweepNs, kMaxIdleSweepNs), Timer::IdleSweep, 0});
}

void SimServer::Impl::readable(Connection &conn)
{
    char buf[kReadBytes];
    std::int64_t realtimeNs = 0;
    const SocketResult read = receiveStamped(conn.socket, buf, sizeof buf, &realtimeNs);
    if (read.status == SocketStatus::WouldBlock)
        return;
    if (read.status != SocketStatus::Ok) {
        closeConnection(conn); // peer closed (or reset): frees its batch slot
        return;
    }
    conn.lastReadNs = arrivalOf(realtimeNs, nowNs());
    conn.in.append(buf, read.bytes);
    // Bytes that arrive while a response is under way wait; a flood of them is abuse.
    if (conn.responding && conn.in.size() > std::size_t(config.maxBodyBytes) + HttpRequestParser::kMaxHeaderBytes)
        closeConnection(conn);
}

void SimServer::Impl::processInput(Connection &conn)
{
    if (conn.fresh && !conn.in.empty()) {
        bool wait = false;
        if (detectH2(conn, &wait) && wait)
            return;
        conn.fresh = false;
    }
    if (conn.h2)
        return h2Input(conn);
    while (!conn.dead && !conn.responding && !conn.in.empty()) {
        const auto result = conn.parser.feed(conn.in);
        if (result == HttpRequestParser::Result::NeedMore) {
            if (conn.parser.awaitingBody() && conn.parser.expectsContinue() && !conn.continueSent) {
                conn.continueSent = true;
                send(conn, "HTTP/1.1 100 Continue\r\n\r\n");
            }
            return;
        }
        if (result == HttpRequestParser::Result::Error) {
            conn.responding = true;
            conn.keepAlive = false; // where the next message starts is unknown
            respondError(conn, Endpoint::Chat, {conn.parser.errorStatus(), conn.parser.errorText(), {}, {}});
            return;
        }
        HttpRequest request = std::move(conn.parser.request());
        conn.parser.reset();
        conn.continueSent = false;
        conn.responding = true;
        conn.responseComplete = false;
        conn.keepAlive = request.keepAlive();
        // httplib's Keep-Alive max: the last request a connection may carry is told so.
        if (config.keepAliveMax > 0 && ++conn.requests >= config.keepAliveMax)
            conn.keepAlive = false;
        route(conn, request);
    }
}

void SimServer::Impl::send(Connection &conn, std::string_view data)
{
    if (conn.dead || data.empty())
        return;
    if (conn.stream)
        return h2Send(conn, data);
    conn.queuedTotal += data.size();
    if (conn.outSent < conn.out.size()) {
        conn.out.append(data);
        if (conn.out.size() - conn.outSent > kMaxPendingOutput)
            closeConnection(conn);
        return;
    }
    const SocketResult sent = sendSome(conn.socket, data.data(), data.size());
    if (sent.status == SocketStatus::Failed) {
        closeConnection(conn);
        return;
    }
    const std::size_t written = sent.bytes;
    conn.flushedTotal += written;
    if (written < data.size()) {
        conn.out.assign(data.substr(written));
        conn.outSent = 0;
        if (!conn.writeWatched) {
            conn.writeWatched = true;
            poll.modify(conn.socket, PollEvent::Read | PollEvent::Write);
        }
    }
}

void SimServer::Impl::flush(Connection &conn, qint64 stampNs)
{
    while (!conn.stream && conn.outSent < conn.out.size()) {
        const SocketResult sent = sendSome(conn.socket, conn.out.data() + conn.outSent, conn.out.size() - conn.outSent);
        if (sent.status == SocketStatus::WouldBlock)
            break;
        if (sent.status != SocketStatus::Ok) {
            closeConnection(conn);
            return;
        }
        conn.outSent += sent.bytes;
        conn.flushedTotal += sent.bytes;
    }
    const qint64 now = stampNs > 0 ? stampNs : nowNs();
    std::erase_if(conn.marks, [&](const Mark &m) {
        if (m.offset > conn.flushedTotal)
            return false;
        if (conn.trace)
            applyStamps(*conn.trace, m.stamps, now);
        return true;
    });
    if (conn.h2) {
        h2Flushed(conn);
        h2MarkDirty(conn); // room for more of its frames
    }
    if (!drained(conn))
        return;
    conn.out.clear();
    conn.outSent = 0;
    if (conn.writeWatched) {
        conn.writeWatched = false;
        poll.modify(conn.socket, PollEvent::Read);
    }
    if (conn.responseComplete) {
        publishTrace(conn);
        finishResponse(conn);
    }
}

qint64 SimServer::Impl::write(Connection &conn, std::string_view data, unsigned stamps)
{
    const qint64 now = nowNs();
    if (conn.dead)
        return now;
    if (conn.trace && stamps) {
        if (!conn.stream && drained(conn)) // a stream's bytes wait for the next pump
            applyStamps(*conn.trace, stamps, now);
        else
            conn.marks.push_back({conn.queuedTotal + data.size(), stamps});
    }
    send(conn, data);
    return now;
}

qint64 SimServer::Impl::writeLast(Connection &conn, std::string_view data, unsigned stamps)
{
    qint64 now = 0;
    if (conn.trace && !conn.stream && drained(conn)) {
        now = nowNs();
        applyStamps(*conn.trace, stamps | StampDone, now);
        publishTrace(conn);
        send(conn, data);
    } else {
        now = write(conn, data, stamps | StampDone);
    }
    if (conn.dead)
        return now;
    conn.responseComplete = true;
    if (drained(conn)) {
        publishTrace(conn);
        finishResponse(conn);
    }
    return now;
}

void SimServer::Impl::publishTrace(Connection &conn)
{
    if (conn.trace) {
        observeLatencies(*conn.trace);
        traces.append(std::move(*conn.trace));
        conn.trace.reset();
    }
}

void SimServer::Impl::finishResponse(Connection &conn)
{
    conn.responding = false;
    conn.idleSinceNs = nowNs();
    conn.responseComplete = false;
    conn.marks.clear();
    if (!conn.keepAlive) {
        closeConnection(conn);
        return;
    }
    ready.push_back(conn.id);
}

void SimServer::Impl::closeConnection(Connection &conn)
{
    if (conn.dead)
        return;
    conn.dead = true;
    if (conn.exchange) {
        // The client left (or the stream was cut): free the batch slot for the next request.
        if (conn.trace && conn.trace->outcome.isEmpty()) {
            conn.trace->outcome = QStringLiteral("client_closed");
            std::lock_guard lock(statsMutex);
            ++stats.clientDisconnects;
        }
        endExchange(conn);
    }
    if (conn.trace && conn.trace->doneNs < 0)
        conn.trace->doneNs = nowNs();
    publishTrace(conn);
    if (conn.stream)
        return h2StreamClosed(conn);
    if (conn.h2)
        h2ConnectionClosed(conn);
    poll.remove(conn.socket);
    closeSocket(conn.socket);
    dead.push_back(conn.id);
    std::lock_guard lock(statsMutex);
    --stats.openConnections;
}

void SimServer::Impl::reapDead()
{
    for (quint64 id : dead)
        connections.erase(id);
    dead.clear();
}

} // namespace tb::sim
