#pragma once

#include "engine/epollpoller.h"
#include "engine/runclock.h"
#include "engine/runplan.h"
#include "metrics/requestrecord.h"

#include <QObject>
#include <QSet>
#include <QTimer>

#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

namespace tb {

class HttpConnection;
class ActiveRequest;

/// Makes requests on the thread it lives in: takes jobs, keeps a keep-alive pool of connections,
/// stamps and decodes responses, enforces deadlines, and hands each finished RequestRecord to
/// `completed` (called on this thread; the controller forwards it across threads).
///
/// One worker carries any number of concurrent requests (one connection each); the engine runs a
/// few workers on their own threads so that decoding spreads over the cores.
class TransportWorker : public QObject
{
    Q_OBJECT

public:
    using CompletedFn = std::function<void(RequestRecord &&record)>;

    TransportWorker(std::shared_ptr<const RunPlan> plan, const RunClock &clock, std::shared_ptr<LiveCounters> counters,
                    CompletedFn completed);
    ~TransportWorker() override;

    /// Starts a request now. Call on the worker's thread.
    void execute(const RequestJob &job);
    /// Ends every request in flight as Cancelled and closes all connections. Call on the worker's
    /// thread; safe to call again.
    void cancelAll();
    int activeRequests() const { return int(m_active.size()); }

private:
    friend class ActiveRequest;
    HttpConnection *acquireConnection(const Endpoint &endpoint);
    void releaseConnection(HttpConnection *connection);
    void dropConnection(HttpConnection *connection);
    void finish(ActiveRequest *request);
    void checkDeadlines();

    std::shared_ptr<const RunPlan> m_plan;
    RunClock m_clock;
    std::shared_ptr<LiveCounters> m_counters;
    CompletedFn m_completed;
    std::unordered_map<ActiveRequest *, std::unique_ptr<ActiveRequest>> m_active;
    QSet<HttpConnection *> m_connections;
    std::vector<HttpConnection *> m_idle;
    QTimer m_deadlineTimer;
    EpollPoller m_poller; ///< every plain-TCP connection of this worker
};

} // namespace tb
