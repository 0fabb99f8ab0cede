#pragma once

#include "api/requestbuilder.h"
#include "metrics/requestrecord.h"
#include "net/runclock.h"
#include "workload/runplan.h"

#include <QObject>
#include <QTimer>

#include <deque>
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

    /// Starts a request now, or, once this pass of the thread's event loop has spent
    /// kStartSliceNs starting requests, in the next pass after those already waiting. Call on the
    /// worker's thread.
    void execute(const RequestJob &job);
    /// Ends every request in flight, and every one still waiting to start, as Cancelled and closes
    /// all connections. Call on the worker's thread; safe to call again.
    void cancelAll();
    int activeRequests() const { return int(m_active.size()); }

    /// How long one pass of the event loop may spend starting requests before it reads again. A
    /// start costs ~50 µs (prompt, body, connect): 10,000 users that begin together, started in
    /// one pass, left the streams already open unread for a quarter of a second, and the client
    /// flagged itself saturated for it (docs/measuring.md "10,000 streams").
    static constexpr std::int64_t kStartSliceNs = 1'000'000;

    /// How long a response that said its last word ([DONE], its API's finish event, its JSON
    /// body's value) waits for the end of its HTTP body: a server ends it in the same read or the
    /// next. One that has not by then never will (a chunked body without its last chunk, a
    /// Content-Length larger than the body, a connection it keeps open): the connection is closed
    /// and the response recorded as complete, as of its last word (RequestRecord::unendedBody).
    static constexpr std::int64_t kBodyEndGraceNs = 1'000'000'000;

private:
    friend class ActiveRequest;
    /// Makes `job`'s request, in flight from here on, unsent.
    ActiveRequest *admit(const RequestJob &job, std::int64_t nowNs);
    void start(const RequestJob &job);
    /// Starts waiting jobs, oldest first, for one slice; asks for another pass while some wait.
    void startQueued();
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
    /// Jobs that came after this pass's slice was spent, oldest first.
    std::deque<RequestJob> m_queued;
    std::int64_t m_sliceUsedNs = 0; ///< spent starting requests in this pass of the event loop
    bool m_drainPosted = false;     ///< startQueued() will run in the next pass
    bool m_passesWatched = false;   ///< the thread's dispatcher says when a pass begins
    Deadlines m_deadlines;
    /// Single-shot, precise, armed for the earliest deadline (not a periodic check: a deadline
    /// fires within a millisecond or two of its time).
    QTimer m_deadlineTimer;
    std::int64_t m_armedNs = 0;
    /// --cancel-after, parsed once; none without --cancel-rate.
    std::optional<CancelAfter> m_cancelAfter;
    /// Requests' exchange time, sent to done, a running mean (Transport::exchangesTake); -1: none yet.
    std::int64_t m_exchangeMeanNs = -1;
    /// Children of this worker (they move to its thread with it); qnam made on first use.
    NativeTransport *m_native = nullptr;
    QnamTransport *m_qnam = nullptr;
};

} // namespace tb
