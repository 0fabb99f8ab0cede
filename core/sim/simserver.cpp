#include "sim/simserver_p.h"

#include "platform/transportthread.h"

#include <limits>
#include <random>

namespace tb::sim {

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
    startNs = nowNs();
}

SimServer::Impl::~Impl()
{
    closeSocket(listener);
}

void SimPollHandler::pollReady(std::uint32_t events)
{
    m_server->dispatch(m_id, events);
}

void SimServer::Impl::run()
{
    requestPreciseWakeUps();
    if (idleTimeoutNs() > 0)
        closeIdle(nowNs());
    while (!stopRequested) {
        runDue();
        const qint64 next =
            std::min(model.nextDueNs(), timers.empty() ? std::numeric_limits<qint64>::max() : timers.top().dueNs);
        // dispatch() each ready socket; wake when the next piece is due, or stop() is called
        if (poll.waitUntil(next == std::numeric_limits<qint64>::max() ? -1 : next))
            stopRequested = true;
        pumpH2();
        reapDead();
    }
    // Stopped: free the port at once (the object lives on to answer stats()).
    for (auto &[id, conn] : connections)
        closeConnection(*conn);
    reapDead();
    poll.remove(listener);
    closeSocket(listener);
    listener = kNoSocket;
}

void SimServer::Impl::dispatch(quint64 id, std::uint32_t events)
{
    switch (id) {
    case kListenerId:
        listenerReady();
        return;
    default:
        break;
    }
    const auto it = connections.find(id);
    if (it == connections.end() || it->second->dead)
        return;
    Connection &conn = *it->second;
    try {
        if (events & PollEvent::Write)
            flush(conn);
        if (!conn.dead && (events & (PollEvent::Read | PollEvent::Hangup | PollEvent::Error)))
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
            poll.modify(listener, PollEvent::Read);
            continue;
        }
        if (timer.kind == Timer::AcceptDue) {
            if (acceptAll())
                poll.modify(listener, PollEvent::Read);
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
        return false;
    };
    if (!d->tokenizer)
        return fail(d->tokenizerError);
    if (!d->poll.isValid())
        return fail(QStringLiteral("cannot create the event loop: %1").arg(socketErrorText(lastSocketError())));
    QString why;
    d->listener = listenTcp(address, port, int(d->config.listenBacklog), &d->boundPort, &why);
    if (d->listener == kNoSocket)
        return fail(why);
    if (!d->poll.add(d->listener, PollEvent::Read, &d->listenerPoll)) {
        closeSocket(d->listener);
        d->listener = kNoSocket;
        return fail(QStringLiteral("cannot watch the listener: %1").arg(socketErrorText(lastSocketError())));
    }
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
    d->poll.wakeUp();
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
