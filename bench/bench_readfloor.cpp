// bench_readfloor: the floor under the engine's CPU per SSE event. A client that does only what no
// client keeping a kernel receive stamp per event can skip: one read per event (the server sends
// each in its own TCP segment), with its stamp. Same paced simulator (separate process) and streams
// as bench_engine, read through the engine's own receive path (UringReceiver: multishot recvmsg into
// provided buffers, gathering waits) or epoll + one recvmsg per ready socket; no HTTP parsing, no
// JSON, no records: it counts the blank lines that end SSE events and sends the next request on the
// connection when a response's last chunk arrives. What bench_engine costs above this figure is the
// engine's own work; this figure is the kernel's and the ring's.
//
//   bench_readfloor [--streams N[,N...]] [--seconds S] [--tokens-per-s R] [--io uring|epoll]
#include "pacedsimulator.h"
#include "platform/linux/uringreceiver.h"
#include "platform/openfilelimit.h"
#include "platform/receivestamp.h"
#include "rawchatrequest.h"

#include <QCoreApplication>
#include <QStringList>
#include <QUrl>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double cpuSeconds()
{
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/// One kept-alive connection streaming one response after another.
class Stream final : public tb::ReceiveHandler
{
public:
    Stream(int fd, std::string request, long long *events, long long *reads)
        : fd(fd)
        , m_request(std::move(request))
        , m_events(events)
        , m_reads(reads)
    {}
    bool ask() const
    {
        return ::send(fd, m_request.data(), m_request.size(), MSG_NOSIGNAL) == ssize_t(m_request.size());
    }
    void received(const char *data, std::size_t size, std::int64_t) override
    {
        ++*m_reads;
        const std::string_view bytes(data, size);
        for (std::size_t at = bytes.find("\n\n"); at != std::string_view::npos; at = bytes.find("\n\n", at + 2))
            ++*m_events;
        if (bytes.ends_with("\r\n0\r\n\r\n") || bytes == "0\r\n\r\n") // the body's last chunk
            ended = !ask();
    }
    void receiveEnded(int) override { ended = true; }

    const int fd;
    bool ended = false;

private:
    std::string m_request;
    long long *m_events;
    long long *m_reads;
};

int connectTo(quint16 port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0 || !tb::enableReceiveStamps(fd)) {
        ::close(fd);
        return -1;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QList<int> levels{200, 1000};
    int seconds = 15;
    double tokensPerS = 20000;
    bool uring = true;
    const QStringList args = app.arguments();
    for (qsizetype i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--streams")) {
            levels.clear();
            for (const QString &n : args[i + 1].split(u','))
                levels.append(std::max(1, n.toInt()));
        } else if (args[i] == QLatin1String("--seconds")) {
            seconds = std::max(1, args[i + 1].toInt());
        } else if (args[i] == QLatin1String("--tokens-per-s")) {
            tokensPerS = std::max(1.0, args[i + 1].toDouble());
        } else if (args[i] == QLatin1String("--io")) {
            uring = args[i + 1] != QLatin1String("epoll");
        } else {
            std::fprintf(stderr, "usage: bench_readfloor [--streams N[,N...]] [--seconds S] [--tokens-per-s R] "
                                 "[--io uring|epoll]\n");
            return 2;
        }
    }
    if (uring && !tb::UringReceiver::available()) {
        std::fprintf(stderr, "bench_readfloor: no io_uring here (try --io epoll)\n");
        return 1;
    }
    (void)tb::raiseOpenFileLimit();
    const QString cli = QCoreApplication::applicationDirPath() + QStringLiteral("/../app/tokenbench-cli");
    std::printf("bench_readfloor: reads only, %s; simulator paced at %.0f tokens/s in total, separate process; "
                "%d s measured after 3 s\n",
                uring ? "io_uring (the engine's UringReceiver)" : "epoll + one recvmsg per ready socket", tokensPerS,
                seconds);
    std::printf("%8s %10s %12s %12s\n", "streams", "events/s", "CPU us/evt", "reads/event");
    for (int streams : levels) {
        PacedSimulator sim;
        if (!sim.start(cli, streams, tokensPerS, 20)) {
            std::fprintf(stderr, "cannot start the simulator (%s)\n", qPrintable(cli));
            return 1;
        }
        const auto port = quint16(QUrl(sim.base()).port());
        long long events = 0;
        long long reads = 0;
        std::vector<std::unique_ptr<Stream>> all;
        std::unique_ptr<tb::UringReceiver> receiver = uring ? tb::UringReceiver::create(-1) : nullptr;
        const int epoll = uring ? -1 : ::epoll_create1(EPOLL_CLOEXEC);
        for (int i = 0; i < streams; ++i) {
            const int fd = connectTo(port);
            if (fd < 0) {
                std::fprintf(stderr, "cannot connect stream %d\n", i);
                return 1;
            }
            auto &s = all.emplace_back(
                std::make_unique<Stream>(fd, rawChatRequest(i, 60, sim.outputTokens()), &events, &reads));
            epoll_event e{};
            e.events = EPOLLIN;
            e.data.ptr = s.get();
            if (!(uring ? receiver->receive(fd, s.get()) : ::epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &e) == 0) ||
                !s->ask()) {
                std::fprintf(stderr, "cannot start stream %d\n", i);
                return 1;
            }
        }
        std::vector<epoll_event> ready(1024);
        std::vector<char> buffer(2048); // the engine's read size
        const auto pass = [&] {
            if (uring) {
                const ::timespec wait{0, 100'000'000};
                bool epollReady = false;
                receiver->wait(&wait, &epollReady);
                return;
            }
            const int n = ::epoll_wait(epoll, ready.data(), int(ready.size()), 100);
            for (int k = 0; k < n; ++k) {
                auto *s = static_cast<Stream *>(ready[std::size_t(k)].data.ptr);
                std::int64_t stamp = 0;
                const tb::SocketResult r = tb::receiveStamped(s->fd, buffer.data(), buffer.size(), &stamp);
                if (r.status == tb::SocketStatus::Ok && r.bytes > 0)
                    s->received(buffer.data(), std::size_t(r.bytes), stamp);
                else if (r.status != tb::SocketStatus::WouldBlock)
                    s->receiveEnded(r.error);
            }
        };
        const auto runFor = [&](double s) {
            const auto until = Clock::now() + std::chrono::duration<double>(s);
            while (Clock::now() < until)
                pass();
        };
        runFor(3);
        const long long events0 = events;
        const long long reads0 = reads;
        const double cpu0 = cpuSeconds();
        const auto t0 = Clock::now();
        runFor(seconds);
        const double wallS = std::chrono::duration<double>(Clock::now() - t0).count();
        const double cpuS = cpuSeconds() - cpu0;
        const long long counted = std::max(1LL, events - events0);
        int ended = 0;
        for (const auto &s : all)
            ended += s->ended ? 1 : 0;
        std::printf("%8d %10.0f %12.2f %12.3f%s\n", streams, double(counted) / wallS, 1e6 * cpuS / double(counted),
                    double(reads - reads0) / double(counted),
                    ended ? qPrintable(QStringLiteral("  (%1 streams ended early)").arg(ended)) : "");
        receiver.reset();
        for (const auto &s : all)
            ::close(s->fd);
        if (epoll >= 0)
            ::close(epoll);
    }
    return 0;
}
