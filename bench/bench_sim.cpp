// bench_sim: how many concurrent streams one simulator thread holds, and how precisely it paces
// their tokens. One SimulatorHost (one thread) serves N streaming connections from a minimal
// epoll client in this process; after every stream has its first token the statistics are reset
// and a steady window is measured: tokens/s delivered, the pacing error of every chunk (write time
// minus the serving model's schedule), and the CPU time of the simulator's thread.
//
//   bench_sim [--connections N] [--tokens-per-s R] [--seconds S] [--tokens-per-chunk K]
#include "platform/iobackend.h"
#include "platform/openfilelimit.h"
#include "rawchatrequest.h"
#include "sim/simserver.h"
#include "sim/simulatorhost.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>

#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace tb::sim;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
    int connections = 2000;
    double tokensPerSecond = 20000;
    double seconds = 20;
    int tokensPerChunk = 1;
};

struct Stream {
    int fd = -1;
    std::string request;
    std::size_t sent = 0;
    qint64 events = 0;
    bool finished = false;
};

double secondsSince(Clock::time_point t)
{
    return std::chrono::duration<double>(Clock::now() - t).count();
}

/// CPU seconds used by this process's thread named `name` (the simulator's QThread).
double threadCpuSeconds(const QString &name)
{
    const QDir tasks(QStringLiteral("/proc/self/task"));
    for (const QString &tid : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile comm(tasks.filePath(tid + QStringLiteral("/comm")));
        if (!comm.open(QIODevice::ReadOnly) || QString::fromUtf8(comm.readAll()).trimmed() != name)
            continue;
        QFile stat(tasks.filePath(tid + QStringLiteral("/stat")));
        if (!stat.open(QIODevice::ReadOnly))
            return -1;
        // Fields after the ")" that closes the command name: utime is the 12th, stime the 13th.
        const QByteArray text = stat.readAll();
        const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
        return double(fields.value(11).toLongLong() + fields.value(12).toLongLong()) / double(sysconf(_SC_CLK_TCK));
    }
    return -1;
}

/// One blocking request on its own connection ("Connection: close"); returns the body.
std::string httpOnce(quint16 port, const std::string &method, const std::string &path)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::string response;
    if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0) {
        const std::string request =
            method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        [[maybe_unused]] const auto n = ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
        char buf[65536];
        ssize_t got = 0;
        while ((got = ::recv(fd, buf, sizeof buf, 0)) > 0)
            response.append(buf, std::size_t(got));
    }
    ::close(fd);
    const std::size_t body = response.find("\r\n\r\n");
    return body == std::string::npos ? std::string() : response.substr(body + 4);
}

qint64 countEvents(const char *data, std::size_t size)
{
    qint64 n = 0;
    for (const char *p = data; (p = static_cast<const char *>(memmem(p, std::size_t(data + size - p), "data: ", 6)));
         p += 6)
        ++n;
    return n;
}

Options parseOptions(const QStringList &args)
{
    Options o;
    for (qsizetype i = 1; i + 1 < args.size(); i += 2) {
        const QString flag = args[i];
        const double value = args[i + 1].toDouble();
        if (flag == QLatin1String("--connections"))
            o.connections = int(value);
        else if (flag == QLatin1String("--tokens-per-s"))
            o.tokensPerSecond = value;
        else if (flag == QLatin1String("--seconds"))
            o.seconds = value;
        else if (flag == QLatin1String("--tokens-per-chunk"))
            o.tokensPerChunk = int(value);
    }
    return o;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const Options o = parseOptions(app.arguments());
    const qint64 fdLimit = tb::raiseOpenFileLimit();
    if (fdLimit < 2 * o.connections + 64) {
        std::fprintf(stderr, "bench_sim: need %d open files, the limit is %lld\n", 2 * o.connections + 64,
                     static_cast<long long>(fdLimit));
        return 1;
    }

    // Every stream gets rate/connections tokens per second: a full batch steps at that pace.
    SimConfig config = *SimConfig::preset(QStringLiteral("fast"));
    config.maxBatch = o.connections;
    config.queueLimit = o.connections;
    config.ttftMs = 0;
    config.stepMs = 1000.0 * o.connections / o.tokensPerSecond;
    config.stepMsPerSeq = 0;
    config.tokensPerChunk = o.tokensPerChunk;
    // Serial prefill of 0.5 ms per request spreads the streams' phases over the first second.
    config.prefillMsPer1k = 5;
    config.prefillQuadraticMs = 0;
    const double perStream = o.tokensPerSecond / o.connections;
    const qint64 maxTokens = qint64(perStream * (o.seconds + 15));

    SimulatorHost host(config);
    QString error;
    if (!host.start(QHostAddress(QHostAddress::LocalHost), 0, &error)) {
        std::fprintf(stderr, "bench_sim: %s\n", qPrintable(error));
        return 1;
    }
    const quint16 port = host.port();
    std::printf("bench_sim: %d streaming connections, %.0f tokens/s in total (%.1f per stream, step %.1f ms), %d "
                "token(s) per chunk\n",
                o.connections, o.tokensPerSecond, perStream, config.stepMs, o.tokensPerChunk);
    // The simulator's loop waits on this build's backend (epoll and timerfd, or poll and a whole-ms
    // timeout): the pacing error below is that backend's.
    std::printf("simulator I/O backend: %s (%s; timers %s)\n", qPrintable(tb::ioBackend().name),
                qPrintable(tb::ioBackend().poller), qPrintable(tb::ioBackend().timerPrecision));

    const int ep = epoll_create1(0);
    std::vector<Stream> streams(std::size_t(o.connections));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int i = 0; i < o.connections; ++i) {
        Stream &s = streams[std::size_t(i)];
        s.request = rawChatRequest(i, 100, maxTokens); // ~100-token prompts
        s.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        const int one = 1;
        setsockopt(s.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        ::connect(s.fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr);
        epoll_event ev{};
        ev.events = EPOLLIN | EPOLLOUT;
        ev.data.u32 = std::uint32_t(i);
        epoll_ctl(ep, EPOLL_CTL_ADD, s.fd, &ev);
    }

    std::vector<epoll_event> events(1024);
    std::vector<char> buf(1 << 16);
    int streaming = 0;
    qint64 failed = 0;
    const auto pump = [&](int timeoutMs) {
        const int n = epoll_wait(ep, events.data(), int(events.size()), timeoutMs);
        for (int k = 0; k < n; ++k) {
            Stream &s = streams[events[std::size_t(k)].data.u32];
            if ((events[std::size_t(k)].events & EPOLLOUT) && s.sent < s.request.size()) {
                const ssize_t w = ::send(s.fd, s.request.data() + s.sent, s.request.size() - s.sent, MSG_NOSIGNAL);
                if (w > 0)
                    s.sent += std::size_t(w);
                if (s.sent == s.request.size()) {
                    epoll_event ev{};
                    ev.events = EPOLLIN;
                    ev.data.u32 = events[std::size_t(k)].data.u32;
                    epoll_ctl(ep, EPOLL_CTL_MOD, s.fd, &ev);
                }
            }
            if (!(events[std::size_t(k)].events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
                continue;
            const ssize_t r = ::recv(s.fd, buf.data(), buf.size(), 0);
            if (r <= 0) {
                if (!s.finished) {
                    ++failed;
                    s.finished = true;
                    epoll_ctl(ep, EPOLL_CTL_DEL, s.fd, nullptr);
                }
                continue;
            }
            const qint64 before = s.events;
            s.events += countEvents(buf.data(), std::size_t(r));
            if (before <= 1 && s.events > 1) // past the role chunk: tokens flow
                ++streaming;
        }
    };

    const auto start = Clock::now();
    while (streaming < o.connections && secondsSince(start) < 60)
        pump(100);
    const double rampS = secondsSince(start);
    if (streaming < o.connections) {
        std::fprintf(stderr, "bench_sim: only %d of %d streams started (%lld failed)\n", streaming, o.connections,
                     static_cast<long long>(failed));
        return 1;
    }
    std::printf("all %d streams delivering tokens after %.2f s\n", o.connections, rampS);

    httpOnce(port, "POST", "/sim/reset");
    qint64 receivedBefore = 0;
    for (const Stream &s : streams)
        receivedBefore += s.events;
    const double cpuStart = threadCpuSeconds(QStringLiteral("tokenbench-sim"));
    const auto windowStart = Clock::now();
    while (secondsSince(windowStart) < o.seconds)
        pump(100);
    const double window = secondsSince(windowStart);
    const double cpu = threadCpuSeconds(QStringLiteral("tokenbench-sim")) - cpuStart;
    const nlohmann::json stats = nlohmann::json::parse(httpOnce(port, "GET", "/sim/stats"), nullptr, false);
    qint64 received = -receivedBefore;
    for (const Stream &s : streams)
        received += s.events;

    const qint64 tokens = stats.value("tokens_sent", qint64(0));
    const auto &pacing = stats["pacing_error_us"];
    std::printf("window %.1f s: %lld tokens sent = %.0f tokens/s (%lld SSE events received by the client)\n", window,
                static_cast<long long>(tokens), double(tokens) / window, static_cast<long long>(received));
    std::printf("open connections %lld (peak %lld), requests in progress %lld, failed streams %lld\n",
                static_cast<long long>(stats.value("open_connections", qint64(0))),
                static_cast<long long>(stats.value("peak_open_connections", qint64(0))),
                static_cast<long long>(stats.value("requests_in_progress", qint64(0))), static_cast<long long>(failed));
    std::printf("pacing error (write time - schedule) over %lld chunks: p50 %.1f us, p99 %.1f us, max %.1f us\n",
                static_cast<long long>(pacing.value("count", qint64(0))), pacing.value("p50", 0.0),
                pacing.value("p99", 0.0), pacing.value("max", 0.0));
    std::printf("simulator thread CPU: %.2f s in %.1f s = %.1f%% of one core, %.2f us per token\n", cpu, window,
                100 * cpu / window, tokens > 0 ? 1e6 * cpu / double(tokens) : 0.0);

    for (const Stream &s : streams)
        ::close(s.fd);
    ::close(ep);
    host.stop();
    return 0;
}
