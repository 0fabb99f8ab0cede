#pragma once

#include "api/requestbuilder.h"
#include "metrics/requestrecord.h"
#include "net/runclock.h"
#include "workload/runplan.h"

#include <QObject>
#include <QTimer>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace tb {

class ActiveRequest;
class Exchange;
struct Hop;
class NativeTransport;
class QnamTransport;
class Transport;
class RequestBuilder;

/// Makes requests on the thread it lives in: takes jobs, sends them through their target's
/// Transport (native or qnam), decodes responses, enforces deadlines, and hands each finished RequestRecord to
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

    /// How long a response that said its last word ([DONE], its API's finish event, its JSON
    /// body's value) waits for the end of its HTTP body: a server ends it in the same read or the
    /// next. One that has not by then never will (a chunked body without its last chunk, a
    /// Content-Length larger than the body, a connection it keeps open): the connection is closed
    /// and the response recorded as complete, as of its last word (RequestRecord::unendedBody).
    static constexpr std::int64_t kBodyEndGraceNs = 1'000'000'000;

private:
    friend class ActiveRequest;
    Transport *transportFor(const RequestBuilder &builder);
    /// Sends `hop` for `request` through its transport (its first, a redirect's next hop, or
    /// again after a stale connection on a `fresh` one), the connect deadline running while a
    /// connection is opened.
    void sendOn(ActiveRequest *request, const Hop &hop, std::int64_t nowNs, bool fresh);
    void finish(ActiveRequest *request);
    /// Ends a request from the outside (its deadline, Stop, a response it must not read on):
    /// abandons its exchange and records it with `status`. Deletes `request`.
    void endRequest(ActiveRequest *request, RequestStatus status, const QString &message, std::int64_t nowNs);
    /// `request`'s response said its last word at `stampNs`: its total deadline comes no later
    /// than kBodyEndGraceNs after it.
    void awaitBodyEnd(ActiveRequest *request, std::int64_t stampNs);
    /// Ends a request whose response said its last word (its deadline, Stop): closes the
    /// connection whose body never ended and records the response as complete. Deletes `request`.
    void endUnended(ActiveRequest *request);

    /// A request's deadlines, earliest first: the total deadline, the connect deadline while
    /// its connection is being opened, and when --cancel-rate chose it, when it is abandoned.
    enum class Deadline { Total, Connect, Cancel };
    using Deadlines = std::multimap<std::int64_t, std::pair<ActiveRequest *, Deadline>>;
    Deadlines::iterator addDeadline(std::int64_t dueNs, ActiveRequest *request, Deadline kind);
    void armDeadlineTimer(std::int64_t dueNs);
    void checkDeadlines();
    /// Abandons `request`, which --cancel-rate chose (its Cancel deadline), as Abandoned.
    void abandonChosen(ActiveRequest *request, std::int64_t nowNs);

    std::shared_ptr<const RunPlan> m_plan;
    RunClock m_clock;
    std::shared_ptr<LiveCounters> m_counters;
    CompletedFn m_completed;
    std::unordered_map<ActiveRequest *, std::unique_ptr<ActiveRequest>> m_active;
    Deadlines m_deadlines;
    /// Single-shot, precise, armed for the earliest deadline (not a periodic check: a deadline
    /// fires within a millisecond or two of its time).
    QTimer m_deadlineTimer;
    std::int64_t m_armedNs = 0;
    /// --cancel-after, parsed once; none without --cancel-rate.
    std::optional<CancelAfter> m_cancelAfter;
    /// Children of this worker (they move to its thread with it); qnam made on first use.
    NativeTransport *m_native = nullptr;
    QnamTransport *m_qnam = nullptr;
};

} // namespace tb
