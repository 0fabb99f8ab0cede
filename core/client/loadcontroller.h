#pragma once

#include "client/runprogress.h"
#include "metrics/requestrecord.h"
#include "net/runclock.h"
#include "platform/deadlinetimer.h"
#include "threads/ownedthread.h"
#include "workload/runplan.h"

#include <QObject>
#include <QTimer>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

class QSocketNotifier;

namespace tb {

class TransportWorker;

/// The load profile in action (docs/SPEC.md §5): decides when each request starts — closed-loop virtual
/// users, open-loop constant or Poisson arrivals with an optional in-flight cap, warm-up, stages
/// ending by time or count — and hands requests to transport workers on their own threads.
///
/// Conversations (--turns): each virtual user, or each open-loop arrival, starts a conversation;
/// its turn k carries the history — turn 1's prompt, the model's replies as received and each
/// turn's new user message — and goes out a think time after turn k−1 finished at every target
/// (an interleaved comparison keeps one history per target). A failed turn ends its conversation.
/// With --tools, a reply that called tools is followed by a turn whose new messages are the calls
/// and one result a call (ApiDialect::appendToolTurn; PromptSource::toolResult) instead of a
/// user's message: an agent loop. A reply without calls gets a user's message as before.
///
/// Lives on one thread (never the GUI's); every finished RequestRecord is passed to `onRecord` on
/// that thread, in completion order.
class LoadController : public QObject
{
    Q_OBJECT

public:
    using RecordFn = std::function<void(RequestRecord &&record)>;

    LoadController(std::shared_ptr<const RunPlan> plan, const RunClock &clock, RecordFn onRecord,
                   QObject *parent = nullptr);
    /// Stops workers and joins their threads.
    ~LoadController() override;

    /// Starts `workerThreads` transport threads (0 = one per core, at least 2) and the load.
    void start(int workerThreads = 0);
    /// Stops starting requests and cancels those in flight (they are recorded as cancelled).
    /// Safe to call more than once; `finished` follows once every request is accounted for.
    void stop();

    RunProgress progress() const;
    bool isFinished() const { return m_finished; }
    const std::shared_ptr<LiveCounters> &counters() const { return m_counters; }
    const RunClock &clock() const { return m_clock; }
    /// The transport workers, one per thread, each living on its own (event-loop lag probes post to them).
    std::vector<QObject *> transportThreadObjects() const;

Q_SIGNALS:
    void stageStarted(int stage, bool warmup);
    /// Every request has finished; `cancelled` when Stop ended the run early.
    void finished(bool cancelled);

private:
    struct Worker {
        OwnedThread<TransportWorker> thread;
        int active = 0;
    };

    void beginPhase();
    void endPhase();
    /// Arms m_phaseTimer for m_phaseEndNs; a Qt timer holds at most 24.8 days, so a longer phase
    /// re-arms until its end has come.
    void armPhaseTimer();
    void fillUsers();
    void arrivalTick();
    void scheduleArrivalTimer();
    void stopArrivalTimer();
    /// The gap to the next open-loop arrival, saturated: a rate too small for int64 nanoseconds
    /// puts the next arrival at "never", past every stage's end.
    std::int64_t nextGapNs();
    bool advanceArrival();
    bool traceArrival();
    /// A new request: the next turn of `conversation`, or (0) a new one, or an independent request.
    void issue(std::int64_t scheduledNs, std::uint64_t conversation = 0);
    void dispatch(const RequestJob &job);
    void dispatchToTargets(RequestJob job);
    int pickInstance(int target);
    std::int64_t pendingRequests() const { return std::int64_t(m_remaining.size()); }
    void completed(std::size_t worker, RequestRecord &&record);
    void recordUnsent(const RequestJob &job, RequestStatus status, const QString &message);
    /// How long and how many requests the current phase runs: the warm-up's while warming up,
    /// else the stage's (0: no limit of that kind).
    struct PhaseLimits {
        qint64 durationMs = 0;
        std::int64_t requests = 0;
    };
    PhaseLimits phaseLimits() const;
    bool phaseCountReached() const;
    void maybeFinish();
    void stopWorkers();
    const StageConfig &currentStage() const;
    bool conversations() const { return m_plan->config.load.turns > 1; }
    void turnFinished(std::uint64_t conversation);
    void thinkTick();
    void armThinkTimer();

    std::shared_ptr<const RunPlan> m_plan;
    RunClock m_clock;
    RecordFn m_onRecord;
    std::shared_ptr<LiveCounters> m_counters;
    std::vector<Worker> m_workers;

    // Phase: warm-up (at stage 0's level) then each stage in turn.
    bool m_inWarmup = false;
    int m_stage = 0;
    std::int64_t m_phaseStartNs = 0;
    std::int64_t m_phaseEndNs = 0; ///< when the phase ends by duration; 0: it has none
    std::int64_t m_phaseIssued = 0;
    bool m_issuing = false;
    bool m_stopping = false;
    bool m_finished = false;
    QTimer m_phaseTimer;

    // Open loop.
    std::int64_t m_nextArrivalNs = 0;
    std::uint64_t m_rng = 0;
    std::int64_t m_traceOriginNs = -1; ///< a trace's first entry is due here; the rest at their offsets
    std::deque<RequestJob> m_waiting;
    /// The next arrival's wake-up, to the nanosecond where the platform can (a Qt timer's whole
    /// milliseconds would leave each arrival up to a millisecond late).
    DeadlineTimer m_arrivalWake{[this] { arrivalTick(); }, this};

    /// Load balancing over each target's instances; the controller is the balancer, so its own
    /// count of dispatched-but-unfinished requests is what least-in-flight compares.
    struct Balancer {
        Balance policy = Balance::RoundRobin;
        std::vector<int> inFlight; ///< per instance
        std::size_t next = 0;      ///< round-robin position (also breaks least-in-flight ties)
    };
    std::vector<Balancer> m_balancers; ///< per target
    std::uint64_t m_balanceRng = 0;    ///< apart from m_rng, so a policy change leaves arrivals as they were

    /// A conversation between its turns and while one is in flight.
    struct Conversation {
        int turns = 0; ///< issued so far
        std::string system;
        std::string model;                    ///< its first row's "model" (a dataset's), asked for on every turn
        std::vector<nlohmann::json> messages; ///< per target: the history its next turn sends
        std::vector<std::int64_t> tokens;     ///< per target: ApproxTokenizer count of system + messages
        std::vector<std::string> replies;     ///< per target: the reply to the turn in flight
        /// --tools: per target, the tool calls of the reply to the turn in flight
        std::vector<std::vector<ReplyToolCall>> calls;
        /// --tools: per target, the tool results the next turn's history ends with; 0: it gets a
        /// user's new message instead
        std::vector<int> toolResults;
        std::size_t bytes = 0; ///< of the longest history, bounded by kMaxHistoryBytes
        bool failed = false;
    };
    /// A conversation whose history outgrows this ends (a user starts a new one).
    static constexpr std::size_t kMaxHistoryBytes = 16 * 1024 * 1024;
    std::unordered_map<std::uint64_t, Conversation> m_conversations;
    std::multimap<std::int64_t, std::uint64_t> m_thinking; ///< when each thinking conversation's next turn is due
    QTimer m_thinkTimer;
    std::uint64_t m_thinkRng = 0;
    std::uint64_t m_nextConversation = 1;

    std::uint64_t m_nextId = 1;
    std::int64_t m_pending = 0; ///< jobs dispatched to a worker, not yet finished
    /// Requests (ids) not finished at every target yet: what users and the in-flight cap count.
    std::unordered_map<std::uint64_t, int> m_remaining;
    std::int64_t m_ok = 0;
    std::int64_t m_failed = 0;
};

} // namespace tb
