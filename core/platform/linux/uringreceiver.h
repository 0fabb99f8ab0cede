#pragma once

// Private to the platform seam's Linux backend.

#include "platform/pollhandler.h"
#include "platform/socketio.h"

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

struct io_uring;
struct io_uring_buf_ring;
struct timespec;
struct io_uring_sqe;

namespace tb {

/// The receive path of one transport thread with io_uring: every stream socket has one multishot
/// recvmsg in flight, whose reads the kernel makes into a ring of provided buffers (each with the
/// read's SO_TIMESTAMPING stamp in its header: one completion = one read = one stamp), and the
/// thread's epoll descriptor is watched by a multishot poll in the same ring, so that one
/// io_uring_enter per pass both waits (to the nanosecond) and reads whatever arrived. Compared with
/// epoll, a pass saves the readiness wait and one recvmsg per ready socket.
///
/// The ring is set up for one issuer with deferred task work (IORING_SETUP_SINGLE_ISSUER |
/// DEFER_TASKRUN): the kernel reads the sockets only inside this thread's own enter, so bytes not
/// yet handed over stay in the socket (MSG_PEEK sees them) or in the completion queue (pendingInput()
/// looks there too). Make it on the thread that uses it, and use it there only.
class UringReceiver
{
public:
    /// Whether this process uses io_uring: decided once (the first call), from TOKENBENCH_IO
    /// ("epoll" forces epoll) and a probe ring with everything create() needs.
    static bool available();
    /// Provided buffers per thread: a pass that takes more reads than this ends the receives that
    /// found none (ENOBUFS), started again once the pass gave its buffers back. 2,048 buffers of
    /// about 2 KiB: 4.4 MB of address space per transport thread, paged in only as reads use them.
    static constexpr unsigned kDefaultBuffers = 2048;
    /// A receiver watching `epollFd` (readable → wait() reports it), or null when this kernel,
    /// sandbox or environment refuses one (the thread then stays on epoll alone). `buffers`: a
    /// power of two (tests make it small to run out).
    static std::unique_ptr<UringReceiver> create(int epollFd, unsigned buffers = kDefaultBuffers);
    ~UringReceiver();
    UringReceiver(const UringReceiver &) = delete;
    UringReceiver &operator=(const UringReceiver &) = delete;

    /// Starts receiving `fd` (submitted with the next wait()); false when the ring has no room.
    bool receive(int fd, ReceiveHandler *handler);
    /// Stops receiving `fd` and cancels its receive at once: the request in flight holds the file,
    /// so the descriptor's close() would not end the connection until the cancel completes.
    void endReceive(int fd);
    /// Bytes or the end this receiver took from `fd` and has not handed over yet, else Nothing.
    PendingInput queuedInput(int fd) const;

    /// Submits what is queued, waits until a completion arrives or `timeout` passes (null: no
    /// limit; zero: no wait) and handles the completions; *epollReady is set when the epoll
    /// descriptor turned readable. Returns how many reads and ends it handed over. `mayGather`:
    /// whether the wait may gather completions (see gathers()).
    int wait(const ::timespec *timeout, bool *epollReady, bool mayGather = true);
    /// Whether wait() with `timeout` gathers completions for a while before it hands the first
    /// over (kernel 6.12's minimum wait; see kGatherNs): only a signal, or enough completions, ends
    /// such a wait before the gathering time is up — the epoll descriptor turning readable does not.
    bool gathers(const ::timespec *timeout) const;
    /// Gathers for at most `ns` from now on (kGatherNs, 0.5 ms, at most; under 1 µs: not at all).
    /// A read held back is handled late, and a closed loop's next request waits for the last read
    /// of the one before: the transport keeps this well under its exchanges' time.
    void limitGather(std::int64_t ns);

    /// Tests: how many receives ended for want of a buffer and were started again.
    std::uint64_t rearmsForBuffers() const { return m_bufferRearms; }

private:
    struct Entry {
        ReceiveHandler *handler = nullptr; ///< null: not receiving
        /// Tells a late completion of a descriptor ended (and its number reused) from the current one's.
        std::uint32_t serial = 0;
    };
    /// A completion copied out of the ring (which is then free for more while this one is handled).
    struct Completion {
        std::uint64_t userData;
        std::int32_t res;
        std::uint32_t flags;
    };
    UringReceiver(std::unique_ptr<io_uring> ring, unsigned buffers);
    /// create() without asking available().
    static std::unique_ptr<UringReceiver> make(int epollFd, unsigned buffers);
    bool setUpBuffers();
    io_uring_sqe *nextSqe();
    void publishRecycled();
    bool armPoll();
    bool arm(int fd, std::uint32_t serial);
    void handle(const Completion &c, int *handed, bool *epollReady);
    void recycle(unsigned bufferId);
    Entry *entry(int fd)
    {
        return fd >= 0 && std::size_t(fd) < m_entries.size() ? &m_entries[std::size_t(fd)] : nullptr;
    }

    std::unique_ptr<io_uring> m_ring;
    int m_epollFd = -1;
    io_uring_buf_ring *m_bufferRing = nullptr;
    std::size_t m_bufferRingBytes = 0;
    unsigned m_bufferCount;
    bool m_minimumWaits = false; ///< the kernel's waits gather completions (see kGatherNs)
    std::int64_t m_gatherNs;     ///< how long they do (limitGather())
    std::unique_ptr<char[]> m_buffers;
    /// The layout of every buffer (no name, room for the stamp's message), read by the kernel.
    ::msghdr m_layout{};
    unsigned m_recycled = 0; ///< buffers given back since the buffer ring's tail was last published
    std::vector<Entry> m_entries;
    std::uint32_t m_nextSerial = 0;
    /// Completions taken from the ring and not handled yet: pendingInput() looks at them too.
    std::vector<Completion> m_batch;
    std::size_t m_batchNext = 0;
    /// Descriptors whose receive ended with no buffer left: started again once buffers are back.
    std::vector<std::pair<int, std::uint32_t>> m_starved;
    std::uint64_t m_bufferRearms = 0;
};

} // namespace tb
