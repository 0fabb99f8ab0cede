#include "platform/linux/uringreceiver.h"

#include <liburing.h>
#include <linux/net_tstamp.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <poll.h>

namespace tb {

namespace {

constexpr unsigned kSubmissionEntries = 256;
/// Room for a pass's completions: a multishot receive that finds the queue full ends (and is
/// started again), so a small queue costs re-arms, not reads.
constexpr unsigned kCompletionEntries = 8192;
constexpr unsigned short kBufferGroup = 0;
/// Room for the one SO_TIMESTAMPING message (three timespecs: software, deprecated, hardware).
constexpr std::size_t kControlSize = CMSG_SPACE(sizeof(::timespec) * 3);
/// Each buffer: the recvmsg header, the control message, then the payload — TcpStream::kReadSize
/// (2048), small so that one read rarely spans events that arrived at different times.
constexpr std::size_t kPayloadSize = 2048;
constexpr std::size_t kBufferSize = sizeof(io_uring_recvmsg_out) + kControlSize + kPayloadSize;

/// IORING_FEAT_MIN_TIMEOUT (kernel 6.12; newer than liburing 2.3's header): the wait takes a
/// minimum wait in io_uring_getevents_arg's third field (2.3's `pad`).
constexpr unsigned kFeatureMinTimeout = 1U << 15;
/// How long a wait gathers completions before it hands over the first: the reads' stamps are the
/// kernel's, so reading a little later does not move them, and a pass that handles several reads
/// saves a wake-up (a context switch both ways) per event. Only when the kernel has minimum waits,
/// and never past the wait's own timeout (the next timer's due time stays exact). Not longer: the
/// receives run as deferred task work, so the ACK a read sends waits for the gathering too, and a
/// server writing with Nagle's algorithm on (llama.cpp) holds its next small write until that ACK
/// (the simulator's nagle_writes at 200 streams: first-token error p99 2.0–2.2 ms with 2 ms,
/// 0.56–0.65 with 0.5; docs/measuring.md).
constexpr std::int64_t kGatherNs = 500'000;
/// Completions that end the gathering at once.
constexpr unsigned kGatherCompletions = 64;
constexpr std::int64_t kNoTimeoutS = 86'400;

/// user_data of the epoll descriptor's poll and of cancels: a descriptor number of ~0 or ~0 − 1
/// never reaches a receive's tag.
constexpr std::uint64_t kPollTag = ~std::uint64_t(0);
constexpr std::uint64_t kCancelTag = ~std::uint64_t(0) - 1;

std::uint64_t tag(int fd, std::uint32_t serial)
{
    return (std::uint64_t(serial) << 32) | std::uint32_t(fd);
}

/// TOKENBENCH_IO=epoll forces the epoll path; any other value (or none) leaves the choice to the
/// kernel. Compared within its first six bytes, whatever the variable's length.
bool epollForced()
{
    const char *value = std::getenv("TOKENBENCH_IO");
    return value && std::strncmp(value, "epoll", 5) == 0 && value[5] == '\0';
}

} // namespace

bool UringReceiver::available()
{
    static const bool usable = !epollForced() && make(-1, kDefaultBuffers) != nullptr;
    return usable;
}

std::unique_ptr<UringReceiver> UringReceiver::create(int epollFd, unsigned buffers)
{
    return available() ? make(epollFd, buffers) : nullptr;
}

std::unique_ptr<UringReceiver> UringReceiver::make(int epollFd, unsigned buffers)
{
    if (buffers == 0 || buffers > 32768 || (buffers & (buffers - 1)) != 0)
        return nullptr; // the kernel takes a power of two up to 32,768
    auto ring = std::make_unique<io_uring>();
    io_uring_params params{};
    // Deferred task work: the kernel reads the sockets inside this thread's own enter, all that
    // arrived since the last pass in one go, instead of interrupting the thread for each arrival.
    params.flags =
        IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_CQSIZE | IORING_SETUP_SUBMIT_ALL;
    params.cq_entries = kCompletionEntries;
    // ENOSYS (no io_uring), EPERM (seccomp, io_uring_disabled), EINVAL (a kernel before 6.1).
    if (io_uring_queue_init_params(kSubmissionEntries, ring.get(), &params) < 0)
        return nullptr;
    std::unique_ptr<UringReceiver> receiver(new UringReceiver(std::move(ring), buffers));
    receiver->m_minimumWaits = (params.features & kFeatureMinTimeout) != 0;
    // One enter waits with a nanosecond timeout (IORING_FEAT_EXT_ARG, 5.11).
    if (!(params.features & IORING_FEAT_EXT_ARG))
        return nullptr;
    io_uring_probe *probe = io_uring_get_probe_ring(receiver->m_ring.get());
    const bool opcodes = probe && io_uring_opcode_supported(probe, IORING_OP_RECVMSG) &&
                         io_uring_opcode_supported(probe, IORING_OP_POLL_ADD) &&
                         io_uring_opcode_supported(probe, IORING_OP_ASYNC_CANCEL);
    if (probe)
        io_uring_free_probe(probe);
    // Multishot recvmsg came with 6.0, before DEFER_TASKRUN (6.1): the setup above vouches for it.
    if (!opcodes || !receiver->setUpBuffers())
        return nullptr;
    receiver->m_epollFd = epollFd;
    if (epollFd >= 0 && !receiver->armPoll())
        return nullptr;
    return receiver;
}

UringReceiver::UringReceiver(std::unique_ptr<io_uring> ring, unsigned buffers)
    : m_ring(std::move(ring))
    , m_bufferCount(buffers)
    , m_gatherNs(kGatherNs)
{
    m_layout.msg_controllen = kControlSize;
}

UringReceiver::~UringReceiver()
{
    // Closing the ring ends every request in flight (and drops the files they hold).
    io_uring_queue_exit(m_ring.get());
    if (m_bufferRing)
        ::munmap(m_bufferRing, m_bufferRingBytes);
}

bool UringReceiver::setUpBuffers()
{
    m_bufferRingBytes = m_bufferCount * sizeof(io_uring_buf);
    void *memory = ::mmap(nullptr, m_bufferRingBytes, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
    if (memory == MAP_FAILED)
        return false;
    m_bufferRing = static_cast<io_uring_buf_ring *>(memory);
    io_uring_buf_reg registration{};
    registration.ring_addr = reinterpret_cast<std::uintptr_t>(memory);
    registration.ring_entries = m_bufferCount;
    registration.bgid = kBufferGroup;
    if (io_uring_register_buf_ring(m_ring.get(), &registration, 0) != 0)
        return false;
    io_uring_buf_ring_init(m_bufferRing);
    // Not zeroed: a page costs memory only once the kernel has read into it.
    m_buffers = std::make_unique_for_overwrite<char[]>(m_bufferCount * kBufferSize);
    for (unsigned i = 0; i < m_bufferCount; ++i)
        io_uring_buf_ring_add(m_bufferRing, m_buffers.get() + i * kBufferSize, unsigned(kBufferSize),
                              static_cast<unsigned short>(i), io_uring_buf_ring_mask(m_bufferCount), int(i));
    io_uring_buf_ring_advance(m_bufferRing, int(m_bufferCount));
    return true;
}

io_uring_sqe *UringReceiver::nextSqe()
{
    io_uring_sqe *sqe = io_uring_get_sqe(m_ring.get());
    if (!sqe) { // the queue is full: hand it to the kernel, which frees it
        io_uring_submit(m_ring.get());
        sqe = io_uring_get_sqe(m_ring.get());
    }
    return sqe;
}

bool UringReceiver::armPoll()
{
    io_uring_sqe *sqe = nextSqe();
    if (!sqe)
        return false;
    io_uring_prep_poll_multishot(sqe, m_epollFd, POLLIN);
    io_uring_sqe_set_data64(sqe, kPollTag);
    return io_uring_submit(m_ring.get()) >= 0;
}

bool UringReceiver::arm(int fd, std::uint32_t serial)
{
    io_uring_sqe *sqe = nextSqe();
    if (!sqe)
        return false;
    io_uring_prep_recvmsg_multishot(sqe, fd, &m_layout, 0);
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = kBufferGroup;
    io_uring_sqe_set_data64(sqe, tag(fd, serial));
    return true;
}

bool UringReceiver::receive(int fd, ReceiveHandler *handler)
{
    if (fd < 0)
        return false;
    if (std::size_t(fd) >= m_entries.size())
        m_entries.resize(std::size_t(fd) + 1);
    const std::uint32_t serial = ++m_nextSerial;
    if (!arm(fd, serial))
        return false;
    m_entries[std::size_t(fd)] = Entry{handler, serial};
    return true;
}

void UringReceiver::endReceive(int fd)
{
    Entry *known = entry(fd);
    if (!known || !known->handler)
        return;
    known->handler = nullptr;
    // Submitted and completed now (deferred task work runs inside this enter): the receive lets go
    // of the file, so the close() that follows ends the connection at once.
    if (io_uring_sqe *sqe = nextSqe()) {
        io_uring_prep_cancel64(sqe, tag(fd, known->serial), 0);
        io_uring_sqe_set_data64(sqe, kCancelTag);
    }
    publishRecycled();
    io_uring_submit_and_get_events(m_ring.get());
}

PendingInput UringReceiver::queuedInput(int fd) const
{
    const Entry *known = fd >= 0 && std::size_t(fd) < m_entries.size() ? &m_entries[std::size_t(fd)] : nullptr;
    if (!known || !known->handler)
        return PendingInput::Nothing;
    const std::uint64_t wanted = tag(fd, known->serial);
    const auto classify = [](std::int32_t res) {
        const std::int32_t header = std::int32_t(sizeof(io_uring_recvmsg_out) + kControlSize);
        if (res == -ENOBUFS || res == -ECANCELED)
            return PendingInput::Nothing;
        return res > header ? PendingInput::Bytes : PendingInput::End;
    };
    for (std::size_t i = m_batchNext; i < m_batch.size(); ++i)
        if (m_batch[i].userData == wanted)
            if (const PendingInput p = classify(m_batch[i].res); p != PendingInput::Nothing)
                return p;
    unsigned head = 0;
    io_uring_cqe *cqe = nullptr;
    io_uring_for_each_cqe(m_ring.get(), head, cqe)
    {
        if (cqe->user_data == wanted)
            if (const PendingInput p = classify(cqe->res); p != PendingInput::Nothing)
                return p;
    }
    return PendingInput::Nothing;
}

void UringReceiver::recycle(unsigned bufferId)
{
    if (bufferId >= m_bufferCount)
        return;
    io_uring_buf_ring_add(m_bufferRing, m_buffers.get() + std::size_t(bufferId) * kBufferSize, unsigned(kBufferSize),
                          static_cast<unsigned short>(bufferId), io_uring_buf_ring_mask(m_bufferCount),
                          int(m_recycled));
    ++m_recycled;
}

void UringReceiver::publishRecycled()
{
    if (m_recycled > 0) {
        io_uring_buf_ring_advance(m_bufferRing, int(m_recycled));
        m_recycled = 0;
    }
}

bool UringReceiver::gathers(const ::timespec *timeout) const
{
    return m_minimumWaits && m_gatherNs >= 1000 &&
           (!timeout || std::int64_t(timeout->tv_sec) * 1'000'000'000 + timeout->tv_nsec > m_gatherNs);
}

void UringReceiver::limitGather(std::int64_t ns)
{
    m_gatherNs = std::clamp<std::int64_t>(ns, 0, kGatherNs);
}

int UringReceiver::wait(const ::timespec *timeout, bool *epollReady, bool mayGather)
{
    *epollReady = false;
    publishRecycled();
    const std::int64_t ns = timeout ? std::int64_t(timeout->tv_sec) * 1'000'000'000 + timeout->tv_nsec : -1;
    int entered = 0;
    if (ns == 0) {
        entered = io_uring_submit_and_get_events(m_ring.get());
    } else if (mayGather && gathers(timeout)) {
        if (io_uring_sq_ready(m_ring.get()) > 0)
            io_uring_submit(m_ring.get());
        // Without a timeout the kernel would end the wait when the minimum wait ends, with nothing
        // to hand over: an idle thread would wake 2,000 times a second. A day stands for "none".
        __kernel_timespec wait{timeout ? timeout->tv_sec : kNoTimeoutS, timeout ? timeout->tv_nsec : 0};
        io_uring_getevents_arg arg{};
        arg.pad = std::uint32_t(m_gatherNs / 1000); // min_wait_usec
        arg.ts = reinterpret_cast<std::uintptr_t>(&wait);
        entered = io_uring_enter2(unsigned(m_ring->ring_fd), 0, kGatherCompletions,
                                  IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, reinterpret_cast<sigset_t *>(&arg),
                                  sizeof arg);
    } else if (!timeout) {
        entered = io_uring_submit_and_wait(m_ring.get(), 1);
    } else {
        __kernel_timespec wait{timeout->tv_sec, timeout->tv_nsec};
        io_uring_cqe *first = nullptr;
        entered = io_uring_submit_and_wait_timeout(m_ring.get(), &first, 1, &wait, nullptr);
    }
    (void)entered; // ETIME, EINTR: handle what is there (maybe nothing)

    m_batch.clear();
    m_batchNext = 0;
    unsigned head = 0;
    unsigned count = 0;
    io_uring_cqe *cqe = nullptr;
    io_uring_for_each_cqe(m_ring.get(), head, cqe)
    {
        m_batch.push_back(Completion{cqe->user_data, cqe->res, cqe->flags});
        ++count;
    }
    io_uring_cq_advance(m_ring.get(), count);

    int handed = 0;
    while (m_batchNext < m_batch.size()) {
        const Completion c = m_batch[m_batchNext++];
        handle(c, &handed, epollReady);
    }
    m_batch.clear();
    m_batchNext = 0;
    publishRecycled();
    // Receives that found no buffer: the pass gave its buffers back, so they can read again.
    for (const auto &[fd, serial] : m_starved) {
        const Entry *known = entry(fd);
        if (known && known->handler && known->serial == serial && arm(fd, serial))
            ++m_bufferRearms;
    }
    m_starved.clear();
    return handed;
}

void UringReceiver::handle(const Completion &c, int *handed, bool *epollReady)
{
    if (c.userData == kPollTag) {
        *epollReady = true;
        if (!(c.flags & IORING_CQE_F_MORE))
            armPoll();
        return;
    }
    if (c.userData == kCancelTag)
        return;
    const int fd = int(std::uint32_t(c.userData));
    const std::uint32_t serial = std::uint32_t(c.userData >> 32);
    const bool hasBuffer = (c.flags & IORING_CQE_F_BUFFER) != 0;
    const unsigned bufferId = c.flags >> IORING_CQE_BUFFER_SHIFT;
    const bool more = (c.flags & IORING_CQE_F_MORE) != 0;
    const auto current = [this, fd, serial] {
        const Entry *known = entry(fd);
        return known && known->handler && known->serial == serial ? known->handler : nullptr;
    };
    ReceiveHandler *handler = current();
    if (!handler) { // a late completion of a receive ended (its descriptor maybe reused)
        if (hasBuffer)
            recycle(bufferId);
        return;
    }
    if (c.res < 0 || !hasBuffer || bufferId >= m_bufferCount) {
        if (hasBuffer)
            recycle(bufferId);
        if (c.res == -ENOBUFS) {
            m_starved.emplace_back(fd, serial);
            return;
        }
        if (more)
            return;
        if (c.res == -ECANCELED) { // not by us (endReceive() forgot it): the kernel's, start again
            arm(fd, serial);
            return;
        }
        entry(fd)->handler = nullptr;
        ++*handed;
        handler->receiveEnded(c.res < 0 ? -c.res : EIO);
        return;
    }
    char *buffer = m_buffers.get() + std::size_t(bufferId) * kBufferSize;
    io_uring_recvmsg_out *out = io_uring_recvmsg_validate(buffer, c.res, &m_layout);
    const std::size_t size = out ? std::size_t(io_uring_recvmsg_payload_length(out, c.res, &m_layout)) : 0;
    if (size == 0) { // the peer's end (a read of nothing ends a multishot receive)
        recycle(bufferId);
        if (more)
            return;
        entry(fd)->handler = nullptr;
        ++*handed;
        handler->receiveEnded(0);
        return;
    }
    std::int64_t realtimeNs = 0;
    for (cmsghdr *m = io_uring_recvmsg_cmsg_firsthdr(out, &m_layout); m;
         m = io_uring_recvmsg_cmsg_nexthdr(out, &m_layout, m)) {
        if (m->cmsg_level != SOL_SOCKET || m->cmsg_type != SO_TIMESTAMPING ||
            m->cmsg_len < CMSG_LEN(sizeof(::timespec) * 3))
            continue;
        ::timespec stamps[3]; // software, (deprecated), hardware
        std::memcpy(stamps, CMSG_DATA(m), sizeof stamps);
        // The kernel leaves it zero when it did not stamp these bytes.
        realtimeNs = std::int64_t(stamps[0].tv_sec) * 1'000'000'000 + stamps[0].tv_nsec;
        break;
    }
    ++*handed;
    handler->received(static_cast<const char *>(io_uring_recvmsg_payload(out, &m_layout)), size, realtimeNs);
    recycle(bufferId);
    // The kernel ended this multishot receive (its queue full, say): start it again unless the
    // handler ended it.
    if (!more && current())
        arm(fd, serial);
}

} // namespace tb
