// bench_rxstamp: which kernel receive stamp (SO_TIMESTAMPING) a TCP read carries when several
// segments queued up before it. Over 127.0.0.1 it sends N small segments D ms apart, waits, then
// peeks one byte and reads the rest, printing each segment's send time and the stamp each call
// got. Both readers of the engine (the client's TcpStream, the simulator) rely on what it prints:
// a read's stamp is that of the newest segment it takes.
//
//   bench_rxstamp [--segments N] [--gap-ms D]
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>

namespace {

double realMs()
{
    timespec t{};
    ::clock_gettime(CLOCK_REALTIME, &t); // the clock the kernel stamps on
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

/// One recvmsg() of up to `size` bytes; returns the bytes taken, `*stampMs` the stamp (or -1).
ssize_t readStamped(int fd, std::size_t size, int flags, double *stampMs)
{
    std::array<char, 4096> buffer{};
    alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(timespec) * 3)> control{};
    iovec io{buffer.data(), std::min(size, buffer.size())};
    msghdr message{};
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    message.msg_control = control.data();
    message.msg_controllen = control.size();
    const ssize_t n = ::recvmsg(fd, &message, flags);
    *stampMs = -1;
    for (cmsghdr *c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPING) {
            timespec stamps[3];
            std::memcpy(stamps, CMSG_DATA(c), sizeof stamps);
            *stampMs = double(stamps[0].tv_sec) * 1e3 + double(stamps[0].tv_nsec) / 1e6;
        }
    }
    return n;
}

} // namespace

int main(int argc, char **argv)
{
    int segments = 3;
    double gapMs = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--segments") == 0)
            segments = std::clamp(std::atoi(argv[i + 1]), 1, 100);
        else if (std::strcmp(argv[i], "--gap-ms") == 0)
            gapMs = std::clamp(std::atof(argv[i + 1]), 0.0, 1000.0);
    }
    const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    const int one = 1;
    const int stampFlags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
    const int sender = ::socket(AF_INET, SOCK_STREAM, 0);
    if (::bind(listener, reinterpret_cast<sockaddr *>(&address), length) != 0 || ::listen(listener, 1) != 0 ||
        ::getsockname(listener, reinterpret_cast<sockaddr *>(&address), &length) != 0 ||
        ::connect(sender, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0) {
        std::perror("bench_rxstamp: loopback connection");
        return 1;
    }
    const int receiver = ::accept(listener, nullptr, nullptr);
    ::setsockopt(sender, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); // a segment per send()
    if (receiver < 0 || ::setsockopt(receiver, SOL_SOCKET, SO_TIMESTAMPING, &stampFlags, sizeof stampFlags) != 0) {
        std::perror("bench_rxstamp: SO_TIMESTAMPING");
        return 1;
    }
    const double origin = realMs();
    for (int i = 0; i < segments; ++i) {
        if (::send(sender, "data", 4, 0) != 4)
            return 1;
        std::printf("segment %d sent at %8.3f ms\n", i + 1, realMs() - origin);
        std::this_thread::sleep_for(std::chrono::microseconds(std::int64_t(gapMs * 1000)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20)); // a reader that comes late
    double stamp = 0;
    ssize_t n = readStamped(receiver, 1, MSG_PEEK, &stamp);
    std::printf("1-byte MSG_PEEK at %8.3f ms: %zd byte, stamp %8.3f ms\n", realMs() - origin, n, stamp - origin);
    n = readStamped(receiver, 4096, 0, &stamp);
    std::printf("one read        at %8.3f ms: %zd bytes, stamp %8.3f ms\n", realMs() - origin, n, stamp - origin);
    ::close(sender);
    ::close(receiver);
    ::close(listener);
    return 0;
}
