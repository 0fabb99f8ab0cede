#include "sim/simserver_p.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <random>

namespace tb::sim {

namespace {

std::string errnoText(int error)
{
    return std::strerror(error);
}

} // namespace

SimServer::Impl::Impl(SimConfig config)
    : config(std::move(config))
    , model(this->config)
    , cache(this->config.prefixCacheTokens)
    , limiter(this->config.rpmLimit, this->config.tpmLimit)
    , traces(this->config.traceCapacity)
    , tokenizer(this->config.tokenizer.isEmpty() ? Tokenizer::approx()
                                                 : Tokenizer::load(this->config.tokenizer, &tokenizerError))
{
    std::random_device random;
    // Fixed widths: a random per-server part and a counter, unique across runs and requests.
    idPrefix = hex((quint64(random()) << 32) | random(), 16);
    wakeFd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    timerFd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    epollFd = epoll_create1(EPOLL_CLOEXEC);
    watch(wakeFd, kWakeId, EPOLLIN);
    watch(timerFd, kTimerId, EPOLLIN);
    startNs = nowNs();
}

SimServer::Impl::~Impl()
{
    for (int fd : {listenFd, wakeFd, timerFd, epollFd}) {
        if (fd >= 0)
            ::close(fd);
    }
}

void SimServer::Impl::watch(int fd, quint64 id, quint32 events)
{
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = id;
    epoll_ctl(epollFd, EPOLL_CTL_ADD, fd, &ev);
}

void SimServer::Impl::modify(int fd, quint64 id, quint32 events)
{
    epoll_event ev{};
    ev.events = events;
    ev.data.u64 = id;
    epoll_ctl(epollFd, EPOLL_CTL_MOD, fd, &ev);
}

void SimServer::Impl::run()
{
    // Timer slack would let the kernel fire our timer up to 50 µs late to batch wake-ups.
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    if (idleTimeoutNs() > 0)
        closeIdle(nowNs());
    std::vector<epoll_event> events(256);
    while (!stopRequested) {
        runDue();
        const qint64 next =
            std::min(model.nextDueNs(), timers.empty() ? std::numeric_limits<qint64>::max() : timers.top().dueNs);
        int timeout = -1;
        if (next <= nowNs())
            timeout = 0;
        else
            armTimer(next);
        const int n = epoll_wait(epollFd, events.data(), int(events.size()), timeout);
        for (int i = 0; i < n; ++i)
            dispatch(events[size_t(i)]);
        pumpH2();
        reapDead();
    }
    // Stopped: free the port at once (the object lives on to answer stats()).
    for (auto &[id, conn] : connections)
        closeConnection(*conn);
    reapDead();
    epoll_ctl(epollFd, EPOLL_CTL_DEL, listenFd, nullptr);
    ::close(listenFd);
    listenFd = -1;
}

void SimServer::Impl::armTimer(qint64 dueNs)
{
    if (dueNs == armedNs)
        return;
    armedNs = dueNs;
    itimerspec spec{};
    spec.it_value.tv_sec = time_t(dueNs / 1'000'000'000);
    spec.it_value.tv_nsec = long(dueNs % 1'000'000'000);
    timerfd_settime(timerFd, TFD_TIMER_ABSTIME, &spec, nullptr);
}

void SimServer::Impl::dispatch(const epoll_event &ev)
{
    switch (ev.data.u64) {
    case kListenerId:
        listenerReady();
        return;
    case kTimerId: {
        std::uint64_t expirations = 0;
        [[maybe_unused]] const auto r = ::read(timerFd, &expirations, sizeof expirations);
        armedNs = -1;
        return;
    }
    case kWakeId:
        stopRequested = true;
        return;
    default:
        break;
    }
    const auto it = connections.find(ev.data.u64);
    if (it == connections.end() || it->second->dead)
        return;
    Connection &conn = *it->second;
    try {
        if (ev.events & EPOLLOUT)
            flush(conn);
        if (!conn.dead && (ev.events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
            readable(conn);
        processInput(conn);
    } catch (const std::exception &) {
        // A bug or an allocation failure on one request must not take the server down.
        closeConnection(conn);
    }
}

void SimServer::Impl::runDue()
{
    qint64 now = nowNs();
    model.takeDue(now, [this](const Chunk &chunk) { onChunk(chunk); });
    while (!timers.empty() && timers.top().dueNs <= now) {
        const Timer timer = timers.top();
        timers.pop();
        if (timer.kind == Timer::ResumeAccept) {
            modify(listenFd, kListenerId, EPOLLIN);
            continue;
        }
        if (timer.kind == Timer::AcceptDue) {
            if (acceptAll())
                modify(listenFd, kListenerId, EPOLLIN);
            continue;
        }
        if (timer.kind == Timer::MetricsDue) {
            answerDeferredMetrics(timer.connection);
            continue;
        }
        if (timer.kind == Timer::IdleSweep) {
            closeIdle(now);
            continue;
        }
        // A request held by the slow-header fault goes to the serving model now.
        const auto it = connections.find(timer.connection);
        if (it == connections.end() || it->second->dead || !it->second->exchange || it->second->exchange->seq != 0)
            continue;
        try {
            admit(*it->second);
        } catch (const std::exception &) {
            closeConnection(*it->second);
        }
    }
    // Answering may queue more connections (a response finished at once): take a copy.
    std::vector<quint64> waiting;
    waiting.swap(ready);
    for (quint64 id : waiting) {
        const auto it = connections.find(id);
        if (it == connections.end() || it->second->dead)
            continue;
        try {
            processInput(*it->second);
        } catch (const std::exception &) {
            closeConnection(*it->second);
        }
    }
    pumpH2();
    reapDead();
}

SimServer::SimServer(SimConfig config)
    : d(std::make_unique<Impl>(std::move(config)))
{}

SimServer::~SimServer() = default;

bool SimServer::listen(const QHostAddress &address, quint16 port, QString *error)
{
    const auto fail = [&](const QString &what) {
        if (error)
            *error = what;
        if (d->listenFd >= 0) {
            ::close(d->listenFd);
            d->listenFd = -1;
        }
        return false;
    };
    if (!d->tokenizer)
        return fail(d->tokenizerError);
    if (d->epollFd < 0 || d->timerFd < 0 || d->wakeFd < 0)
        return fail(QStringLiteral("cannot create the event loop: %1").arg(QString::fromStdString(errnoText(errno))));

    sockaddr_storage storage{};
    socklen_t length = 0;
    const bool any = address == QHostAddress(QHostAddress::Any) || address == QHostAddress(QHostAddress::AnyIPv6);
    int family = AF_INET;
    if (address.protocol() == QAbstractSocket::IPv4Protocol || address == QHostAddress(QHostAddress::AnyIPv4)) {
        auto *in4 = reinterpret_cast<sockaddr_in *>(&storage);
        in4->sin_family = AF_INET;
        in4->sin_port = htons(port);
        in4->sin_addr.s_addr = htonl(address.toIPv4Address());
        length = sizeof(sockaddr_in);
    } else if (address.protocol() == QAbstractSocket::IPv6Protocol || any) {
        family = AF_INET6;
        auto *in6 = reinterpret_cast<sockaddr_in6 *>(&storage);
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(port);
        const Q_IPV6ADDR a = any ? Q_IPV6ADDR{} : address.toIPv6Address();
        std::memcpy(&in6->sin6_addr, &a, sizeof a);
        length = sizeof(sockaddr_in6);
    } else {
        return fail(QStringLiteral("not an IP address: '%1'").arg(address.toString()));
    }

    d->listenFd = ::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (d->listenFd < 0)
        return fail(QStringLiteral("cannot create a socket: %1").arg(QString::fromStdString(errnoText(errno))));
    const int one = 1;
    const int zero = 0;
    setsockopt(d->listenFd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (family == AF_INET6 && any)
        setsockopt(d->listenFd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero); // Any: IPv4 too
    if (::bind(d->listenFd, reinterpret_cast<sockaddr *>(&storage), length) != 0)
        return fail(QStringLiteral("cannot listen on %1 port %2: %3")
                        .arg(address.toString())
                        .arg(port)
                        .arg(QString::fromStdString(errnoText(errno))));
    if (::listen(d->listenFd, int(d->config.listenBacklog)) != 0)
        return fail(QStringLiteral("cannot listen: %1").arg(QString::fromStdString(errnoText(errno))));
    getsockname(d->listenFd, reinterpret_cast<sockaddr *>(&storage), &length);
    d->boundPort = ntohs(family == AF_INET ? reinterpret_cast<sockaddr_in *>(&storage)->sin_port
                                           : reinterpret_cast<sockaddr_in6 *>(&storage)->sin6_port);
    d->watch(d->listenFd, kListenerId, EPOLLIN);
    return true;
}

quint16 SimServer::port() const
{
    return d->boundPort;
}

void SimServer::run()
{
    d->run();
}

void SimServer::stop()
{
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto r = ::write(d->wakeFd, &one, sizeof one);
}

SimStats SimServer::stats() const
{
    return d->snapshot();
}

QList<RequestTrace> SimServer::requests(qint64 since, qint64 limit) const
{
    return d->traces.since(since, limit);
}

const SimConfig &SimServer::config() const
{
    return d->config;
}

} // namespace tb::sim
