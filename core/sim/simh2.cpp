// HTTP/2 cleartext by prior knowledge: a connection whose first bytes are the client preface gets
// an nghttp2 server session. Each request stream becomes a Connection of its own (no descriptor)
// that the routing and generation code answers exactly as an HTTP/1.1 request; only framing
// differs — the head it writes goes out as HEADERS, the body as DATA, the end as END_STREAM.
// Bytes leave through the TCP connection's send(), and a stream's stamps are taken when the kernel
// has its bytes, as on HTTP/1.1.

#include "sim/simserver_p.h"

#include <algorithm>
#include <cstring>

namespace tb::sim {

namespace {

constexpr std::string_view kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// No more of nghttp2's frames are taken while this much output waits for the kernel: a client
/// that stops reading holds its data in the streams' buffers (flow-controlled), not in ours.
constexpr std::size_t kPumpBacklog = 256 * 1024;
/// As HTTP/1.1's per-connection bound: a stream whose client does not open its window is dropped.
constexpr std::size_t kMaxStreamPending = 64 * 1024 * 1024;

/// Connection-specific fields (RFC 9113 §8.2.2) of the HTTP/1.1 head that must not go into HEADERS.
bool connectionSpecific(std::string_view name)
{
    return name == "connection" || name == "transfer-encoding" || name == "keep-alive" || name == "upgrade" ||
           name == "proxy-connection";
}

/// No exception may cross nghttp2's C frames: one that would (out of memory) ends the connection.
template<typename F> int guarded(F &&f)
{
    try {
        return f();
    } catch (const std::exception &) {
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    }
}

int addHeader(H2Stream &st, std::string_view n, std::string_view v)
{
    st.headerBytes += n.size() + v.size() + 32; // RFC 9113's size of a field
    if (st.headerBytes > HttpRequestParser::kMaxHeaderBytes) {
        st.errorStatus = 431;
        return 0;
    }
    if (n == ":method") {
        st.request.method = v;
    } else if (n == ":path") {
        const std::size_t q = v.find('?');
        st.request.path = v.substr(0, q);
        st.request.query = q == std::string_view::npos ? std::string_view() : v.substr(q + 1);
    } else if (n == ":authority") {
        st.request.headers.emplace_back("host", v);
    } else if (!n.starts_with(':')) {
        while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
            v.remove_prefix(1);
        while (!v.empty() && (v.back() == ' ' || v.back() == '\t'))
            v.remove_suffix(1);
        st.request.headers.emplace_back(n, v); // nghttp2 let only lower-case names through
    }
    return 0;
}

} // namespace

H2Session::~H2Session()
{
    nghttp2_session_del(session);
}

bool SimServer::Impl::detectH2(Connection &conn, bool *wait)
{
    *wait = false;
    const std::size_t n = std::min(conn.in.size(), kPreface.size());
    if (conn.in.compare(0, n, kPreface.substr(0, n)) != 0)
        return false;
    if (n < kPreface.size()) {
        *wait = true;
        return true;
    }
    nghttp2_session_callbacks *callbacks = nullptr;
    if (nghttp2_session_callbacks_new(&callbacks) != 0)
        throw std::bad_alloc();
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, &Impl::h2OnBeginHeaders);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, &Impl::h2OnHeader);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &Impl::h2OnData);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &Impl::h2OnFrame);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &Impl::h2OnStreamClose);
    nghttp2_option *option = nullptr;
    nghttp2_option_new(&option);
    // The HPACK table a client may make us keep; header lists are bounded in h2OnHeader.
    nghttp2_option_set_max_deflate_dynamic_table_size(option, 4096);
    auto h2 = std::make_unique<H2Session>();
    const int rv = nghttp2_session_server_new2(&h2->session, callbacks, this, option);
    nghttp2_option_del(option);
    nghttp2_session_callbacks_del(callbacks);
    if (rv != 0)
        throw std::bad_alloc();
    const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, std::uint32_t(config.maxStreams)},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, std::uint32_t(HttpRequestParser::kMaxHeaderBytes)},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1U << 20},
    };
    nghttp2_submit_settings(h2->session, NGHTTP2_FLAG_NONE, settings, std::size(settings));
    conn.h2 = std::move(h2);
    conn.fresh = false;
    {
        std::lock_guard lock(statsMutex);
        ++stats.h2Connections;
    }
    h2MarkDirty(conn);
    return true;
}

void SimServer::Impl::h2Input(Connection &conn)
{
    if (conn.in.empty())
        return;
    Connection *const outer = h2Current;
    h2Current = &conn;
    const ssize_t rv = nghttp2_session_mem_recv(conn.h2->session,
                                                reinterpret_cast<const std::uint8_t *>(conn.in.data()), conn.in.size());
    h2Current = outer;
    conn.in.clear();
    if (rv < 0) {
        // Not HTTP/2 after the preface, or out of memory: nothing more can be framed on it.
        closeConnection(conn);
        return;
    }
    h2MarkDirty(conn);
}

Connection *SimServer::Impl::h2Stream(qint32 id)
{
    if (!h2Current || !h2Current->h2)
        return nullptr;
    const auto at = h2Current->h2->streams.find(id);
    if (at == h2Current->h2->streams.end())
        return nullptr;
    const auto it = connections.find(at->second);
    return it == connections.end() ? nullptr : it->second.get();
}

int SimServer::Impl::h2OnBeginHeaders(nghttp2_session *, const nghttp2_frame *frame, void *self)
{
    return guarded([&] { return static_cast<Impl *>(self)->h2BeginStream(frame); });
}

int SimServer::Impl::h2BeginStream(const nghttp2_frame *frame)
{
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    // nghttp2 refuses streams over SETTINGS_MAX_CONCURRENT_STREAMS itself; this is the safety net.
    // (Finished streams may linger until the kernel takes their last bytes: twice the limit.)
    if (h2Current->h2->streams.size() >= 2 * std::size_t(config.maxStreams))
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    auto conn = std::make_unique<Connection>(0);
    conn->id = nextConnectionId++;
    conn->keepAlive = false; // a stream carries one request
    conn->fresh = false;
    conn->stream = std::make_unique<H2Stream>();
    conn->stream->id = frame->hd.stream_id;
    conn->stream->parent = h2Current->id;
    h2Current->h2->streams.emplace(frame->hd.stream_id, conn->id);
    connections.emplace(conn->id, std::move(conn));
    return 0;
}

int SimServer::Impl::h2OnHeader(nghttp2_session *, const nghttp2_frame *frame, const std::uint8_t *name,
                                std::size_t nameLength, const std::uint8_t *value, std::size_t valueLength,
                                std::uint8_t, void *self)
{
    auto &impl = *static_cast<Impl *>(self);
    Connection *conn = impl.h2Stream(frame->hd.stream_id);
    if (!conn || conn->stream->errorStatus)
        return 0;
    return guarded([&] {
        return addHeader(*conn->stream, std::string_view(reinterpret_cast<const char *>(name), nameLength),
                         std::string_view(reinterpret_cast<const char *>(value), valueLength));
    });
}

int SimServer::Impl::h2OnData(nghttp2_session *, std::uint8_t, qint32 id, const std::uint8_t *data, std::size_t length,
                              void *self)
{
    auto &impl = *static_cast<Impl *>(self);
    Connection *conn = impl.h2Stream(id);
    if (!conn || conn->stream->errorStatus || conn->responding)
        return 0;
    std::string &body = conn->stream->request.body;
    if (body.size() + length > std::size_t(impl.config.maxBodyBytes)) {
        conn->stream->errorStatus = 413;
        body = std::string();
        return 0;
    }
    return guarded([&] {
        body.append(reinterpret_cast<const char *>(data), length);
        return 0;
    });
}

int SimServer::Impl::h2OnFrame(nghttp2_session *, const nghttp2_frame *frame, void *self)
{
    auto &impl = *static_cast<Impl *>(self);
    if ((frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) ||
        !(frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
        return 0;
    Connection *conn = impl.h2Stream(frame->hd.stream_id);
    if (!conn || conn->dead || conn->responding)
        return 0;
    conn->lastReadNs = impl.h2Current->lastReadNs; // the read that completed the request
    try {
        impl.h2Dispatch(*conn);
    } catch (const std::exception &) {
        // As on HTTP/1.1, a failure answering one request costs that request only (and no
        // exception may cross nghttp2's C frames).
        impl.closeConnection(*conn);
    }
    return 0;
}

void SimServer::Impl::h2Dispatch(Connection &stream)
{
    H2Stream &st = *stream.stream;
    stream.responding = true;
    if (st.errorStatus == 431)
        return respondError(stream, Endpoint::Chat, {431, "Request header fields too large", {}, {}});
    if (st.errorStatus == 413)
        return respondError(
            stream, Endpoint::Chat,
            {413, "Request body larger than max_body_bytes (" + std::to_string(config.maxBodyBytes) + ")", {}, {}});
    HttpRequest request = std::move(st.request);
    st.request = HttpRequest();
    route(stream, request);
}

int SimServer::Impl::h2OnStreamClose(nghttp2_session *, qint32 id, std::uint32_t, void *self)
{
    auto &impl = *static_cast<Impl *>(self);
    Connection *conn = impl.h2Stream(id);
    if (!conn)
        return 0;
    conn->stream->closed = true;
    if (conn->dead) {
        impl.h2StreamClosed(*conn);
        return 0;
    }
    // Sent in full: the stamps and the trace wait for the kernel to take the last bytes.
    if (conn->responseComplete && conn->outSent >= conn->out.size())
        return 0;
    impl.closeConnection(*conn); // the client reset it: its generation stops, as on a closed socket
    return 0;
}

ssize_t SimServer::Impl::h2Read(nghttp2_session *, qint32 id, std::uint8_t *buf, std::size_t length,
                                std::uint32_t *flags, nghttp2_data_source *, void *self)
{
    auto &impl = *static_cast<Impl *>(self);
    Connection *conn = impl.h2Stream(id);
    if (!conn)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    const std::size_t n = std::min(length, conn->out.size() - conn->outSent);
    // Bytes of a frame body, not a C string: nothing to terminate.
    std::memcpy(buf, conn->out.data() + conn->outSent, n); // NOLINT(bugprone-not-null-terminated-result)
    conn->outSent += n;
    if (n > 0) {
        conn->stream->taken += n;
        auto &touched = impl.h2Current->h2->touched;
        if (touched.empty() || touched.back() != conn->id)
            touched.push_back(conn->id);
    }
    if (conn->outSent < conn->out.size())
        return ssize_t(n);
    conn->out.clear();
    conn->outSent = 0;
    if (conn->responseComplete) {
        *flags |= NGHTTP2_DATA_FLAG_EOF;
        return ssize_t(n);
    }
    if (n > 0)
        return ssize_t(n);
    // Cut or abandoned by the server: what was written is out, now RST_STREAM (INTERNAL_ERROR).
    return conn->dead ? NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE : NGHTTP2_ERR_DEFERRED;
}

void SimServer::Impl::h2Send(Connection &stream, std::string_view data)
{
    H2Stream &st = *stream.stream;
    const auto parent = connections.find(st.parent);
    if (parent == connections.end() || parent->second->dead || !parent->second->h2)
        return closeConnection(stream);
    Connection &tcp = *parent->second;
    if (!st.headersSubmitted) {
        // The head routing wrote for HTTP/1.1 becomes HEADERS: ":status" from its status line,
        // the fields but those HTTP/2 forbids.
        const std::size_t end = data.find("\r\n\r\n");
        if (end == std::string_view::npos || !data.starts_with("HTTP/1.1 ") || data.size() < 12)
            return closeConnection(stream);
        const std::string_view head = data.substr(0, end + 2);
        std::vector<std::string> fields{":status", std::string(data.substr(9, 3))};
        std::size_t pos = head.find("\r\n") + 2;
        while (pos < head.size()) {
            const std::size_t eol = head.find("\r\n", pos);
            const std::string_view line = head.substr(pos, eol - pos);
            pos = eol + 2;
            const std::size_t colon = line.find(':');
            if (colon == std::string_view::npos)
                continue;
            std::string name(line.substr(0, colon));
            std::transform(name.begin(), name.end(), name.begin(),
                           [](unsigned char c) { return char(std::tolower(c)); });
            if (connectionSpecific(name))
                continue;
            std::string_view value = line.substr(colon + 1);
            while (value.starts_with(' '))
                value.remove_prefix(1);
            fields.push_back(std::move(name));
            fields.emplace_back(value);
        }
        std::vector<nghttp2_nv> nva;
        for (std::size_t i = 0; i + 1 < fields.size(); i += 2) {
            nva.push_back({reinterpret_cast<std::uint8_t *>(fields[i].data()),
                           reinterpret_cast<std::uint8_t *>(fields[i + 1].data()), fields[i].size(),
                           fields[i + 1].size(), NGHTTP2_NV_FLAG_NONE});
        }
        nghttp2_data_provider provider{};
        provider.read_callback = &Impl::h2Read;
        if (nghttp2_submit_response(tcp.h2->session, st.id, nva.data(), nva.size(), &provider) != 0)
            return closeConnection(stream);
        st.headersSubmitted = true;
        const std::size_t headSize = end + 4;
        stream.queuedTotal += headSize;
        st.taken += headSize;
        tcp.h2->touched.push_back(stream.id);
        data.remove_prefix(headSize);
    }
    stream.queuedTotal += data.size();
    stream.out.append(data);
    if (stream.out.size() - stream.outSent > kMaxStreamPending)
        return closeConnection(stream);
    nghttp2_session_resume_data(tcp.h2->session, st.id);
    h2MarkDirty(tcp);
}

void SimServer::Impl::h2StreamClosed(Connection &stream)
{
    H2Stream &st = *stream.stream;
    const auto parent = connections.find(st.parent);
    Connection *tcp = parent == connections.end() ? nullptr : parent->second.get();
    if (!st.closed && tcp && !tcp->dead && tcp->h2) {
        // Still open in nghttp2: let it send what was written, then reset the stream.
        if (st.headersSubmitted)
            nghttp2_session_resume_data(tcp->h2->session, st.id);
        else
            nghttp2_submit_rst_stream(tcp->h2->session, NGHTTP2_FLAG_NONE, st.id, NGHTTP2_INTERNAL_ERROR);
        h2MarkDirty(*tcp);
        return; // reaped when nghttp2 closes it
    }
    if (tcp && tcp->h2) {
        tcp->h2->streams.erase(st.id);
        tcp->idleSinceNs = nowNs(); // the idle timeout counts from its last stream
    }
    dead.push_back(stream.id);
}

void SimServer::Impl::h2ConnectionClosed(Connection &conn)
{
    std::vector<quint64> streams;
    for (const auto &[id, connId] : conn.h2->streams)
        streams.push_back(connId);
    for (quint64 id : streams) {
        const auto it = connections.find(id);
        if (it == connections.end())
            continue;
        Connection &stream = *it->second;
        stream.stream->closed = true;
        if (stream.dead)
            h2StreamClosed(stream);
        else
            closeConnection(stream);
    }
    if (drained(conn)) {
        // Shutting down, idle or given up on: GOAWAY says which streams were processed (best effort).
        nghttp2_session_terminate_session(conn.h2->session, NGHTTP2_NO_ERROR);
        Connection *const outer = h2Current;
        h2Current = &conn;
        const std::uint8_t *bytes = nullptr;
        ssize_t n = 0;
        while ((n = nghttp2_session_mem_send(conn.h2->session, &bytes)) > 0) {
            const SocketResult sent = sendSome(conn.socket, reinterpret_cast<const char *>(bytes), std::size_t(n));
            if (sent.status != SocketStatus::Ok || sent.bytes != std::size_t(n))
                break;
        }
        h2Current = outer;
    }
}

bool SimServer::Impl::h2Answering(const Connection &conn) const
{
    if (!conn.h2)
        return false;
    return std::any_of(conn.h2->streams.begin(), conn.h2->streams.end(), [this](const auto &entry) {
        const auto it = connections.find(entry.second);
        return it != connections.end() && it->second->responding;
    });
}

void SimServer::Impl::h2MarkDirty(Connection &conn)
{
    if (conn.h2 && !conn.h2->dirty) {
        conn.h2->dirty = true;
        h2Dirty.push_back(conn.id);
    }
}

void SimServer::Impl::pumpH2()
{
    while (!h2Dirty.empty()) {
        std::vector<quint64> dirty;
        dirty.swap(h2Dirty);
        for (quint64 id : dirty) {
            const auto it = connections.find(id);
            if (it == connections.end() || it->second->dead || !it->second->h2)
                continue;
            it->second->h2->dirty = false;
            try {
                h2Pump(*it->second);
            } catch (const std::exception &) {
                closeConnection(*it->second);
            }
        }
    }
}

void SimServer::Impl::h2Pump(Connection &conn)
{
    H2Session &h2 = *conn.h2;
    if (conn.out.size() - conn.outSent < kPumpBacklog) {
        // Every frame nghttp2 has ready goes in one send (one syscall for many streams' chunks).
        scratchH2.clear();
        Connection *const outer = h2Current;
        h2Current = &conn;
        const std::uint8_t *bytes = nullptr;
        ssize_t n = 0;
        while (scratchH2.size() < kPumpBacklog && (n = nghttp2_session_mem_send(h2.session, &bytes)) > 0)
            scratchH2.append(reinterpret_cast<const char *>(bytes), std::size_t(n));
        h2Current = outer;
        if (n < 0)
            return closeConnection(conn);
        // As on HTTP/1.1, bytes that go straight to the kernel are stamped just before the write,
        // so no client can read them before their stamp exists.
        const qint64 sendNs = drained(conn) ? nowNs() : 0;
        send(conn, scratchH2);
        if (conn.dead)
            return;
        // The streams' bytes taken in this pump are in the kernel once all of this is.
        for (quint64 id : h2.touched) {
            const auto it = connections.find(id);
            if (it != connections.end() && it->second->stream)
                h2.flushes.push_back({conn.queuedTotal, id, it->second->stream->taken});
        }
        h2.touched.clear();
        h2Flushed(conn, sendNs);
        if (scratchH2.size() >= kPumpBacklog)
            h2MarkDirty(conn); // more may wait
    }
    if (!conn.dead && drained(conn) && !nghttp2_session_want_read(h2.session) &&
        !nghttp2_session_want_write(h2.session))
        closeConnection(conn); // GOAWAY exchanged or a fatal protocol error answered
}

void SimServer::Impl::h2Flushed(Connection &conn, qint64 stampNs)
{
    auto &flushes = conn.h2->flushes;
    std::size_t done = 0;
    while (done < flushes.size() && flushes[done].offset <= conn.flushedTotal)
        ++done;
    if (done == 0)
        return;
    const std::vector<H2Session::Flush> settled(flushes.begin(), flushes.begin() + std::ptrdiff_t(done));
    flushes.erase(flushes.begin(), flushes.begin() + std::ptrdiff_t(done));
    for (const H2Session::Flush &f : settled) {
        const auto it = connections.find(f.stream);
        if (it == connections.end() || it->second->dead)
            continue;
        Connection &stream = *it->second;
        stream.flushedTotal = std::max(stream.flushedTotal, f.streamOffset);
        flush(stream, stampNs); // its stamps, and its end when that was the last byte
    }
}

} // namespace tb::sim
