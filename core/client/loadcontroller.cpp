#include "client/loadcontroller.h"

#include "api/apidialect.h"
#include "client/transportworker.h"
#include "config/saturating.h"
#include "platform/transportthread.h"
#include "tokenize/tokenizer.h"

#include <QThread>

#include <algorithm>
#include <cmath>

namespace tb {

namespace {

std::uint64_t splitmix(std::uint64_t &state)
{
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

} // namespace

LoadController::LoadController(std::shared_ptr<const RunPlan> plan, const RunClock &clock, RecordFn onRecord,
                               QObject *parent)
    : QObject(parent)
    , m_plan(std::move(plan))
    , m_clock(clock)
    , m_onRecord(std::move(onRecord))
    , m_counters(std::make_shared<LiveCounters>())
    , m_rng(shardArrivalSeed(m_plan->config.load.seed, m_plan->shard))
    , m_balanceRng(shardArrivalSeed(m_plan->config.load.seed, m_plan->shard) ^ 0xBA1A9CEULL)
    , m_thinkRng(shardArrivalSeed(m_plan->config.load.seed, m_plan->shard) ^ 0x7417CULL)
{
    for (const PlannedTarget &target : m_plan->targets)
        m_balancers.push_back({target.balance, std::vector<int>(target.instances.size(), 0), 0});
    m_phaseTimer.setParent(this);
    m_phaseTimer.setSingleShot(true);
    m_phaseTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_phaseTimer, &QTimer::timeout, this, [this] {
        if (m_clock.nowNs() < m_phaseEndNs)
            armPhaseTimer();
        else
            endPhase();
    });
    m_thinkTimer.setParent(this);
    m_thinkTimer.setSingleShot(true);
    m_thinkTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_thinkTimer, &QTimer::timeout, this, &LoadController::thinkTick);
}

LoadController::~LoadController()
{
    stopWorkers();
}

void LoadController::start(int workerThreads)
{
    if (workerThreads <= 0)
        workerThreads = std::max(2, QThread::idealThreadCount());
    m_workers.resize(std::size_t(workerThreads));
    for (std::size_t i = 0; i < m_workers.size(); ++i) {
        auto *transport = new TransportWorker(m_plan, m_clock, m_counters, [this, i](RequestRecord &&record) {
            // Runs on the worker thread: hand the record to the controller's thread.
            QMetaObject::invokeMethod(
                this, [this, i, r = std::move(record)]() mutable { completed(i, std::move(r)); }, Qt::QueuedConnection);
        });
        m_workers[i].thread.start(transport, QStringLiteral("tb-transport-%1").arg(i), newTransportDispatcher());
    }
    const LoadConfig &load = m_plan->config.load;
    m_inWarmup = load.warmupMs > 0 || load.warmupRequests > 0;
    m_stage = 0;
    m_issuing = true;
    beginPhase();
}

void LoadController::stopWorkers()
{
    for (Worker &w : m_workers)
        w.thread.stop();
}

const StageConfig &LoadController::currentStage() const
{
    return m_plan->stages.at(m_stage);
}

void LoadController::beginPhase()
{
    m_phaseStartNs = m_clock.nowNs();
    m_phaseIssued = 0;
    Q_EMIT stageStarted(m_stage, m_inWarmup);
    const LoadConfig &load = m_plan->config.load;
    const StageConfig &stage = currentStage();
    const qint64 durationMs = phaseLimits().durationMs;
    m_phaseEndNs = durationMs > 0 ? m_phaseStartNs + durationMs * 1'000'000 : 0;
    if (m_phaseEndNs > 0)
        armPhaseTimer();
    if (stage.mode == LoadMode::Concurrency) {
        fillUsers();
    } else if (m_plan->prompts->isTrace()) {
        if (m_traceOriginNs < 0)
            m_traceOriginNs = m_phaseStartNs;
        if (!traceArrival())
            return endPhase();
        arrivalTick();
    } else {
        m_nextArrivalNs = saturatingAdd(m_phaseStartNs, load.arrival == Arrival::Poisson ? nextGapNs() : 0);
        arrivalTick();
    }
}

void LoadController::armPhaseTimer()
{
    m_phaseTimer.start(timerIntervalMs(m_phaseEndNs - m_clock.nowNs()));
}

void LoadController::endPhase()
{
    if (!m_issuing)
        return;
    m_phaseTimer.stop();
    stopArrivalTimer();
    if (m_inWarmup) {
        m_inWarmup = false;
    } else if (m_stage + 1 < m_plan->stages.size()) {
        ++m_stage;
    } else {
        m_issuing = false; // drain: the requests in flight finish, no new ones start
        m_thinking.clear();
        m_thinkTimer.stop();
        maybeFinish();
        return;
    }
    beginPhase();
}

LoadController::PhaseLimits LoadController::phaseLimits() const
{
    const LoadConfig &load = m_plan->config.load;
    return m_inWarmup ? PhaseLimits{load.warmupMs, load.warmupRequests}
                      : PhaseLimits{currentStage().durationMs, currentStage().requests};
}

bool LoadController::phaseCountReached() const
{
    const std::int64_t limit = phaseLimits().requests;
    return limit > 0 && m_phaseIssued >= limit;
}

void LoadController::fillUsers()
{
    // Users carry over between stages: requests still running from the previous stage count
    // towards the new level, so concurrency steps without overshoot.
    // A conversation's user is busy while it thinks, too.
    const std::int64_t users = std::int64_t(currentStage().level);
    while (m_issuing && pendingRequests() + std::int64_t(m_thinking.size()) < users && !phaseCountReached())
        issue(m_clock.nowNs());
    if (m_issuing && phaseCountReached())
        endPhase();
}

std::int64_t LoadController::nextGapNs()
{
    const double rate = currentStage().level;
    if (m_plan->config.load.arrival == Arrival::Constant)
        return saturatingRound(1e9 / rate, 0);
    // Exponential gaps from a 53-bit uniform in (0, 1]: reproducible on every platform.
    const double u = double((splitmix(m_rng) >> 11) + 1) * 0x1.0p-53;
    return saturatingRound(-std::log(u) * 1e9 / rate, 0);
}

/// Moves m_nextArrivalNs past the arrival just issued; false when a trace has no entry left.
bool LoadController::advanceArrival()
{
    if (m_plan->prompts->isTrace())
        return traceArrival();
    m_nextArrivalNs = saturatingAdd(m_nextArrivalNs, nextGapNs());
    return true;
}

/// The next trace entry's time: the same entry as the request's prompt (its id), scaled from the
/// trace's first entry.
bool LoadController::traceArrival()
{
    const std::int64_t offset = m_plan->prompts->traceOffsetNs(shardRequestId(m_nextId, m_plan->shard) - 1);
    if (offset < 0)
        return false;
    m_nextArrivalNs =
        saturatingAdd(m_traceOriginNs, saturatingRound(double(offset) * m_plan->config.load.timeScale, 0));
    return true;
}

void LoadController::arrivalTick()
{
    if (!m_issuing || currentStage().mode != LoadMode::Rate)
        return;
    const std::int64_t now = m_clock.nowNs();
    const std::int64_t stageEndNs = m_phaseEndNs > 0 ? m_phaseEndNs : std::numeric_limits<std::int64_t>::max();
    // Late timer? Every arrival that is due goes out now, each keeping its own scheduled time:
    // latency is then measured from when the request should have started (no coordinated omission).
    while (m_issuing && m_nextArrivalNs <= now && m_nextArrivalNs < stageEndNs) {
        issue(m_nextArrivalNs);
        if (!advanceArrival() || phaseCountReached()) {
            endPhase();
            return;
        }
    }
    if (m_issuing && m_nextArrivalNs < stageEndNs)
        scheduleArrivalTimer();
}

void LoadController::scheduleArrivalTimer()
{
    m_arrivalWake.armAt(m_clock.at(m_nextArrivalNs));
}

void LoadController::stopArrivalTimer()
{
    m_arrivalWake.disarm();
}

void LoadController::issue(std::int64_t scheduledNs, std::uint64_t conversation)
{
    RequestJob job;
    job.id = shardRequestId(m_nextId++, m_plan->shard);
    job.stage = m_stage;
    job.warmup = m_inWarmup;
    job.scheduledNs = scheduledNs;
    ++m_phaseIssued;
    if (conversations()) {
        // Each turn's new user message is the prompt source's prompt for this request.
        const Prompt prompt = m_plan->promptsOf(job.stage).prompt(job.id - 1);
        const std::size_t targets = m_plan->targets.size();
        if (conversation == 0) {
            conversation = m_nextConversation++;
            Conversation &c = m_conversations[conversation];
            c.system = prompt.system;
            c.model = prompt.model;
            nlohmann::json first = prompt.messages.is_array()
                                       ? prompt.messages
                                       : nlohmann::json::array({{{"role", "user"}, {"content", prompt.user}}});
            c.messages.assign(targets, first);
            c.tokens.assign(targets, prompt.tokens);
            c.replies.assign(targets, std::string());
            c.calls.assign(targets, {});
            c.toolResults.assign(targets, 0);
            c.bytes = prompt.system.size() + prompt.user.size();
        } else {
            Conversation &c = m_conversations.at(conversation);
            std::string user = prompt.user;
            if (prompt.messages.is_array()) { // a prompt file's line: its last user message
                for (const auto &m : prompt.messages) {
                    const auto content = m.is_object() ? m.find("content") : m.end();
                    if (content != m.end() && content->is_string() && m.value("role", "") == "user")
                        user = content->get<std::string>();
                }
            }
            const std::int64_t userTokens = ApproxTokenizer::countUtf8(user.data(), user.size());
            bool asked = false;
            for (std::size_t t = 0; t < targets; ++t) {
                if (c.toolResults[t] > 0)
                    continue; // the tool results are this turn's new messages
                c.messages[t].push_back({{"role", "user"}, {"content", user}});
                c.tokens[t] += userTokens;
                asked = true;
            }
            if (asked)
                c.bytes += user.size();
        }
        job.conversation = conversation;
        job.turn = ++m_conversations.at(conversation).turns;
    }
    const int cap = m_plan->config.load.maxInFlight;
    if (currentStage().mode == LoadMode::Rate && cap > 0 && pendingRequests() >= cap) {
        m_waiting.push_back(job); // its wait shows as queue delay
        return;
    }
    dispatchToTargets(job);
}

void LoadController::dispatchToTargets(RequestJob job)
{
    // Interleaved comparisons: the same request (prompt, scheduled time) to every target at once.
    const int targets = int(m_plan->targets.size());
    m_remaining[job.id] = targets;
    const auto conversation = m_conversations.find(job.conversation);
    for (job.target = 0; job.target < targets; ++job.target) {
        if (conversation != m_conversations.end()) {
            const Conversation &c = conversation->second;
            auto prompt = std::make_shared<Prompt>();
            prompt->system = c.system;
            prompt->model = c.model;
            prompt->messages = c.messages[std::size_t(job.target)];
            prompt->tokens = c.tokens[std::size_t(job.target)];
            job.prompt = std::move(prompt);
            job.toolResults = c.toolResults[std::size_t(job.target)];
        }
        job.instance = pickInstance(job.target);
        ++m_balancers[std::size_t(job.target)].inFlight[std::size_t(job.instance)];
        dispatch(job);
    }
}

int LoadController::pickInstance(int target)
{
    Balancer &b = m_balancers[std::size_t(target)];
    const std::size_t n = b.inFlight.size();
    if (n == 1)
        return 0;
    std::size_t chosen = b.next % n;
    switch (b.policy) {
    case Balance::RoundRobin:
        break;
    case Balance::LeastInFlight:
        for (std::size_t k = 1; k < n; ++k) {
            const std::size_t i = (b.next + k) % n;
            if (b.inFlight[i] < b.inFlight[chosen])
                chosen = i;
        }
        break;
    case Balance::Random:
        chosen = std::size_t(splitmix(m_balanceRng) % n);
        break;
    }
    b.next = chosen + 1;
    return int(chosen);
}

void LoadController::dispatch(const RequestJob &job)
{
    auto least = std::min_element(m_workers.begin(), m_workers.end(),
                                  [](const Worker &a, const Worker &b) { return a.active < b.active; });
    ++least->active;
    ++m_pending;
    TransportWorker *transport = least->thread.worker();
    QMetaObject::invokeMethod(
        transport, [transport, job] { transport->execute(job); }, Qt::QueuedConnection);
}

void LoadController::completed(std::size_t worker, RequestRecord &&record)
{
    --m_workers[worker].active;
    --m_pending;
    if (record.target >= 0 && std::size_t(record.target) < m_balancers.size()) {
        std::vector<int> &inFlight = m_balancers[std::size_t(record.target)].inFlight;
        if (record.instance >= 0 && std::size_t(record.instance) < inFlight.size())
            --inFlight[std::size_t(record.instance)];
    }
    const std::uint64_t conversation = record.conversation;
    if (auto c = m_conversations.find(conversation); c != m_conversations.end()) {
        // Tool calls cut short (ToolCallTexts' bounds) cannot go back whole: the conversation
        // ends as after a failure, rather than send the server what its model did not say.
        c->second.failed = c->second.failed || !record.ok() || record.replyCallsCut;
        if (record.target >= 0 && std::size_t(record.target) < c->second.replies.size()) {
            c->second.replies[std::size_t(record.target)] = std::move(record.reply);
            c->second.calls[std::size_t(record.target)] = std::move(record.replyCalls);
        }
    }
    record.reply = std::string();
    record.replyCalls = {};
    bool done = false;
    if (auto it = m_remaining.find(record.id); it != m_remaining.end() && --it->second == 0) {
        m_remaining.erase(it);
        done = true;
    }
    // An abandoned request (--cancel-rate) is the workload's doing: neither completed nor failed.
    if (record.ok())
        ++m_ok;
    else if (record.status != RequestStatus::Abandoned)
        ++m_failed;
    if (m_onRecord)
        m_onRecord(std::move(record));
    if (done && conversation != 0)
        turnFinished(conversation);
    const int cap = m_plan->config.load.maxInFlight;
    while (!m_waiting.empty() && !m_stopping && (cap <= 0 || pendingRequests() < cap)) {
        const RequestJob job = m_waiting.front();
        m_waiting.pop_front();
        dispatchToTargets(job);
    }
    if (m_issuing && currentStage().mode == LoadMode::Concurrency)
        fillUsers();
    maybeFinish();
}

void LoadController::turnFinished(std::uint64_t conversation)
{
    const auto it = m_conversations.find(conversation);
    if (it == m_conversations.end())
        return;
    Conversation &c = it->second;
    const LoadConfig &load = m_plan->config.load;
    if (c.failed || c.turns >= load.turns || !m_issuing) {
        m_conversations.erase(it);
        return;
    }
    // Each call's result, and an id for a call the server gave none (or one not sent back). Calls
    // that came though no tools were offered go back as before: not at all.
    if (m_plan->config.request.tools.isEmpty()) {
        for (auto &calls : c.calls)
            calls.clear();
    }
    const std::int64_t resultTokens = m_plan->config.request.toolResultTokens;
    const PromptSource &prompts = m_plan->promptsOf(m_stage);
    std::vector<std::vector<std::string>> results(c.replies.size());
    std::size_t addedBytes = 0;
    for (std::size_t t = 0; t < c.replies.size(); ++t) {
        std::size_t bytes = c.replies[t].size();
        for (std::size_t i = 0; i < c.calls[t].size(); ++i) {
            ReplyToolCall &call = c.calls[t][i];
            if (call.id.empty())
                call.id =
                    "call_tb" + std::to_string(conversation) + "_" + std::to_string(c.turns) + "_" + std::to_string(i);
            results[t].push_back(prompts.toolResult(conversation, c.turns, int(i), resultTokens));
            bytes += call.id.size() + call.name.size() + call.arguments.size() + results[t].back().size();
        }
        addedBytes = std::max(addedBytes, bytes);
    }
    if (c.bytes + addedBytes > kMaxHistoryBytes) {
        m_conversations.erase(it);
        return;
    }
    const auto count = [](const std::string &text) { return ApproxTokenizer::countUtf8(text.data(), text.size()); };
    for (std::size_t t = 0; t < c.replies.size(); ++t) {
        c.tokens[t] += count(c.replies[t]);
        std::vector<ReplyToolCall> &calls = c.calls[t];
        c.toolResults[t] = int(calls.size());
        if (calls.empty()) {
            c.messages[t].push_back({{"role", "assistant"}, {"content", std::move(c.replies[t])}});
        } else {
            for (std::size_t i = 0; i < calls.size(); ++i)
                c.tokens[t] += count(calls[i].name) + count(calls[i].arguments) + count(results[t][i]);
            const ApiKind api = m_plan->targets[t].instances.front().api();
            dialectFor(api).appendToolTurn(c.messages[t], c.replies[t], calls, results[t]);
            calls.clear();
        }
        c.replies[t] = std::string();
    }
    c.bytes += addedBytes;
    double thinkNs = double(load.thinkTimeMs) * 1e6;
    if (load.thinkTimeExponential) {
        const double u = double((splitmix(m_thinkRng) >> 11) + 1) * 0x1.0p-53;
        thinkNs *= -std::log(u);
    }
    m_thinking.emplace(saturatingAdd(m_clock.nowNs(), saturatingRound(thinkNs, 0)), conversation);
    thinkTick();
}

void LoadController::thinkTick()
{
    const std::int64_t now = m_clock.nowNs();
    // Each turn keeps its due time as its scheduled time: a late timer shows as queue delay.
    while (m_issuing && !m_thinking.empty() && m_thinking.begin()->first <= now) {
        const auto [due, conversation] = *m_thinking.begin();
        m_thinking.erase(m_thinking.begin());
        issue(due, conversation);
        if (phaseCountReached()) {
            endPhase();
            break;
        }
    }
    armThinkTimer();
}

void LoadController::armThinkTimer()
{
    if (!m_issuing || m_thinking.empty()) {
        m_thinkTimer.stop();
        return;
    }
    m_thinkTimer.start(timerIntervalMs(m_thinking.begin()->first - m_clock.nowNs()));
}

void LoadController::recordUnsent(const RequestJob &job, RequestStatus status, const QString &message)
{
    for (int target = 0; target < int(m_plan->targets.size()); ++target) {
        RequestRecord r = job.record();
        r.target = target;
        r.instance = -1;
        r.doneNs = m_clock.nowNs();
        r.status = status;
        r.errorMessage = message;
        ++m_failed;
        if (m_onRecord)
            m_onRecord(std::move(r));
    }
}

void LoadController::stop()
{
    if (m_stopping || m_finished)
        return;
    m_stopping = true;
    m_issuing = false;
    m_phaseTimer.stop();
    stopArrivalTimer();
    m_thinkTimer.stop();
    m_thinking.clear();
    while (!m_waiting.empty()) {
        recordUnsent(m_waiting.front(), RequestStatus::Cancelled,
                     QStringLiteral("cancelled by Stop before it was sent"));
        m_waiting.pop_front();
    }
    for (Worker &w : m_workers) {
        TransportWorker *transport = w.thread.worker();
        QMetaObject::invokeMethod(
            transport, [transport] { transport->cancelAll(); }, Qt::QueuedConnection);
    }
    maybeFinish();
}

void LoadController::maybeFinish()
{
    if (m_finished || m_issuing || m_pending > 0 || !m_waiting.empty())
        return;
    m_finished = true;
    Q_EMIT finished(m_stopping);
}

std::vector<QObject *> LoadController::transportThreadObjects() const
{
    std::vector<QObject *> objects;
    for (const Worker &w : m_workers)
        objects.push_back(w.thread.worker());
    return objects;
}

RunProgress LoadController::progress() const
{
    RunProgress p;
    const std::int64_t now = m_clock.nowNs();
    p.elapsedNs = now;
    p.stage = m_stage;
    p.stageCount = int(m_plan->stages.size());
    p.stageName = currentStage().name;
    p.warmup = m_inWarmup;
    p.draining = !m_issuing && !m_finished;
    p.stopping = m_stopping;
    p.mode = currentStage().mode;
    p.level = currentStage().level;
    p.issued = std::int64_t(m_nextId - 1);
    p.completed = m_ok;
    p.failed = m_failed;
    p.inFlight = m_counters->inFlight.load(std::memory_order_relaxed);
    p.peakInFlight = m_counters->peakInFlight.load(std::memory_order_relaxed);
    p.waiting = std::int64_t(m_waiting.size());
    p.chunks = m_counters->chunks.load(std::memory_order_relaxed);
    p.connecting = m_counters->connecting.load(std::memory_order_relaxed);
    p.handshaking = m_counters->handshaking.load(std::memory_order_relaxed);

    // Stage fraction and ETA: exact for stages that end by time, estimated from the issue rate so
    // far for stages that end by count.
    const double elapsedS = double(now) / 1e9;
    const double issueRate = elapsedS > 0.5 ? double(p.issued) / elapsedS : 0.0;
    const auto phaseSeconds = [&](qint64 durationMs, qint64 requests) -> double {
        if (durationMs > 0)
            return double(durationMs) / 1000.0;
        if (requests > 0 && issueRate > 0)
            return double(requests) / issueRate;
        return -1;
    };
    const double inPhaseS = double(now - m_phaseStartNs) / 1e9;
    const PhaseLimits phase = phaseLimits();
    const double phaseTotal = phaseSeconds(phase.durationMs, phase.requests);
    if (m_finished) {
        p.stageFraction = 1;
        p.etaMs = 0;
        return p;
    }
    if (!m_issuing) {
        p.stageFraction = 1;
        return p; // draining: the rest depends on the requests in flight
    }
    if (phase.durationMs > 0)
        p.stageFraction = std::min(1.0, inPhaseS * 1000.0 / double(phase.durationMs));
    else if (phase.requests > 0)
        p.stageFraction = std::min(1.0, double(m_phaseIssued) / double(phase.requests));
    double remaining = phaseTotal >= 0 ? std::max(0.0, phaseTotal * (1.0 - std::max(0.0, p.stageFraction))) : -1;
    for (int s = m_inWarmup ? 0 : m_stage + 1; s < m_plan->stages.size() && remaining >= 0; ++s) {
        const double t = phaseSeconds(m_plan->stages.at(s).durationMs, m_plan->stages.at(s).requests);
        remaining = t >= 0 ? remaining + t : -1;
    }
    p.etaMs = remaining >= 0 ? saturatingRound(remaining * 1000.0) : -1;
    return p;
}

} // namespace tb
