#pragma once

#include "sim/simconfig.h"

#include <deque>
#include <functional>
#include <optional>
#include <queue>
#include <unordered_map>
#include <vector>

namespace tb::sim {

/// One request as the serving model sees it.
struct Job {
    qint64 promptTokens = 0;
    qint64 cachedTokens = 0;
    qint64 outputTokens = 1;    ///< tokens to produce (>= 1)
    qint64 reasoningTokens = 0; ///< the first ones are reasoning
    qint64 chunkTokens = 1;     ///< tokens per chunk after the first
};

/// Tokens that became available for one sequence at dueNs.
struct Chunk {
    quint64 seq = 0;
    qint64 dueNs = 0;
    qint64 tokens = 0;
    bool reasoning = false;
    bool last = false;
    qint64 admittedNs = 0; ///< when the sequence got its batch slot
    qint64 batch = 0;      ///< sequences in the batch when the chunk's last token was produced
};

/// The simulated inference engine, in virtual time (nanoseconds on the caller's clock), with no
/// I/O, so that it can be tested exactly.
///
/// - Admission: up to max_batch sequences hold a batch slot from admission to their last token;
///   more wait in a FIFO queue of at most queue_limit (beyond it submit() refuses: 503).
/// - Prefill: after ttft_ms (per request, in parallel), the prompt's uncached tokens go through one
///   prefill unit that serves requests one at a time in admission order, so concurrent prompts wait
///   for each other; the first token is produced when its prefill ends.
/// - Decode (continuous batching): every sequence in the batch gets one token per step, and a step
///   takes step_ms + step_ms_per_seq * (sequences in the batch), evaluated when a chunk is scheduled.
///   Each sequence steps on its own phase (from its first token), so the tokens of one step leave
///   spread out rather than in one burst; rates and latencies are those of a batched engine.
/// - Warm-up (a cold engine): prefill and decode steps scheduled t after the first submit take
///   warmup_factor − (warmup_factor − 1)·t / warmup_s times as long while t < warmup_s.
/// - Stalls: every stall_every-th decode step of a sequence (counted from its first token) takes
///   stall_ms longer, so about 1/stall_every of its token gaps are long.
/// - Chunks: the first token comes alone, later ones chunk_tokens at a time (never mixing reasoning
///   and content), at the step in which the chunk's last token is produced.
/// A chunk's dueNs derives from the schedule only, never from when the caller got to it, so a late
/// caller does not shift the model.
class ServingModel
{
public:
    explicit ServingModel(const SimConfig &config);

    /// A sequence id, or std::nullopt when the batch and the queue are full.
    std::optional<quint64> submit(const Job &job, qint64 nowNs);
    /// Drops a sequence (its client left); its slot goes to the next queued one.
    void cancel(quint64 seq, qint64 nowNs);

    /// When the next chunk is due; INT64_MAX when nothing is scheduled.
    qint64 nextDueNs() const;
    /// Hands out every chunk due by nowNs in time order. The model's state is updated before each
    /// call of `sink`, which may submit or cancel.
    void takeDue(qint64 nowNs, const std::function<void(const Chunk &)> &sink);

    qint64 active() const { return m_active; }
    qint64 queued() const { return qint64(m_queue.size()); }
    /// Tokens whose KV entries the batch holds: prompts and the output so far of admitted sequences.
    qint64 kvTokens() const { return m_kvTokens; }
    qint64 stepNs(qint64 batch) const;
    /// The stalls (SimConfig::stallEvery) of a chunk of `tokens` after `emitted` tokens, ns.
    qint64 stallNs(qint64 emitted, qint64 tokens) const;
    qint64 prefillNs(qint64 promptTokens, qint64 cachedTokens) const;
    /// When the prefill running at nowNs ends; -1 when none runs then.
    qint64 prefillEndNs(qint64 nowNs) const;

private:
    struct Sequence {
        Job job;
        qint64 emitted = 0;
        qint64 pendingTokens = 0; ///< tokens of the scheduled chunk
        qint64 admittedNs = 0;
        bool admitted = false;
    };
    struct Event {
        qint64 dueNs;
        quint64 seq;
        bool operator>(const Event &o) const { return dueNs != o.dueNs ? dueNs > o.dueNs : seq > o.seq; }
    };

    void admit(quint64 seq, Sequence &s, qint64 atNs);
    void fillSlots(qint64 atNs);
    void schedule(quint64 seq, Sequence &s, qint64 dueNs, qint64 tokens);
    /// `ns` stretched by the cold engine's slowdown at `atNs`.
    qint64 cold(qint64 ns, qint64 atNs) const;

    const SimConfig m_config;
    std::unordered_map<quint64, Sequence> m_sequences;
    std::deque<quint64> m_queue;
    std::priority_queue<Event, std::vector<Event>, std::greater<>> m_events;
    /// Scheduled prefills as [start, end), in order (the prefill unit serves one at a time);
    /// those that ended are dropped at the next admission.
    std::deque<std::pair<qint64, qint64>> m_prefills;
    qint64 m_active = 0;
    qint64 m_kvTokens = 0;
    qint64 m_prefillFreeNs = 0;
    quint64 m_nextSeq = 1;
    qint64 m_firstSubmitNs = -1; ///< the engine warms up from its first request
};

} // namespace tb::sim
