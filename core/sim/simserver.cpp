#include "sim/simserver_p.h"

#include "net/socketaddress.h"

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
    poll.add(wakeFd, EPOLLIN, &wakePoll);
    poll.add(timerFd, EPOLLIN, &timerPoll);
    startNs = nowNs();
}

SimServer::Impl::~Impl()
{
    for (int fd : {listenFd, wakeFd, timerFd}) {
        if (fd >= 0)
            ::close(fd);
    }
}

void SimPollHandler::pollReady(std::uint32_t events)
{
    m_server->dispatch(m_id, events);
}

void SimServer::Impl::run()
{
    // Timer slack would let the kernel fire our timer up to 50 µs late to batch wake-ups.
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    if (idleTimeoutNs() > 0)
        closeIdle(nowNs());
    const ::timespec noWait{};
    while (!stopRequested) {
        runDue();
        const qint64 next =
            std::min(model.nextDueNs(), timers.empty() ? std::numeric_limits<qint64>::max() : timers.top().dueNs);
        const ::timespec *timeout = nullptr; // the timerfd wakes the loop when the next piece is due
        if (next <= nowNs())
            timeout = &noWait;
        else
            armTimer(next);
        poll.wait(timeout); // dispatch() each ready descriptor
        pumpH2();
        reapDead();
    }
    // Stopped: free the port at once (the object lives on to answer stats()).
    for (auto &[id, conn] : connections)
        closeConnection(*conn);
    reapDead();
    poll.remove(listenFd);
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

void SimServer::Impl::dispatch(quint64 id, std::uint32_t events)
{
    switch (id) {
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
    const auto it = connections.find(id);
    if (it == connections.end() || it->second->dead)
        return;
    Connection &conn = *it->second;
    try {
        if (events & EPOLLOUT)
            flush(conn);
        if (!conn.dead && (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
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
            poll.modify(listenFd, EPOLLIN);
            continue;
        }
        if (timer.kind == Timer::AcceptDue) {
            if (acceptAll())
                poll.modify(listenFd, EPOLLIN);
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
    if (!d->poll.isValid() || d->timerFd < 0 || d->wakeFd < 0)
        return fail(QStringLiteral("cannot create the event loop: %1").arg(QString::fromStdString(errnoText(errno))));

    sockaddr_storage storage{};
    socklen_t length = toSocketAddress(address, port, &storage);
    if (length == 0)
        return fail(QStringLiteral("not an IP address: '%1'").arg(address.toString()));
    const int family = storage.ss_family;
    const bool any = address == QHostAddress(QHostAddress::Any) || address == QHostAddress(QHostAddress::AnyIPv6);

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
    d->boundPort = portOf(storage);
    d->poll.add(d->listenFd, EPOLLIN, &d->listenerPoll);
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
