#include "sim/servingmodel.h"

#include "config/runconfig.h"
#include "config/saturating.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tb::sim {

ServingModel::ServingModel(const SimConfig &config)
    : m_config(config)
{}

qint64 ServingModel::stepNs(qint64 batch) const
{
    return qint64(std::llround((m_config.stepMs + m_config.stepMsPerSeq * double(batch)) * 1e6));
}

qint64 ServingModel::stallNs(qint64 emitted, qint64 tokens) const
{
    if (m_config.stallEvery <= 0 || m_config.stallMs <= 0)
        return 0;
    // After `emitted` tokens (the first came from prefill) the chunk's tokens come from decode
    // steps emitted … emitted + tokens − 1 of the sequence: count the multiples of stallEvery.
    const qint64 n = m_config.stallEvery;
    const qint64 stalls = (emitted + tokens - 1) / n - (emitted - 1) / n;
    return saturatingRound(double(stalls) * m_config.stallMs * 1e6, 0, limits::kMaxDurationMs * 1'000'000);
}

qint64 ServingModel::prefillNs(qint64 promptTokens, qint64 cachedTokens) const
{
    const double p = double(promptTokens) / 1000.0;
    const double c = double(cachedTokens) / 1000.0;
    const double e = m_config.prefillExponent;
    const double power = m_config.prefillPowerMs > 0 ? m_config.prefillPowerMs * (std::pow(p, e) - std::pow(c, e)) : 0;
    // A client's prompt of billions of tokens would take longer than int64 nanoseconds hold (and
    // than any sum of times could): a prefill takes at most the longest duration a run has.
    return saturatingRound((m_config.prefillMsPer1k * (p - c) + m_config.prefillQuadraticMs * (p * p - c * c) + power) *
                               1e6,
                           0, limits::kMaxDurationMs * 1'000'000);
}

qint64 ServingModel::cold(qint64 ns, qint64 atNs) const
{
    const double warmupNs = m_config.warmupS * 1e9;
    const double t = double(atNs - m_firstSubmitNs);
    if (m_config.warmupFactor <= 1 || warmupNs <= 0 || t >= warmupNs)
        return ns;
    const double factor = m_config.warmupFactor - (m_config.warmupFactor - 1) * std::max(t, 0.0) / warmupNs;
    return saturatingRound(double(ns) * factor, 0, limits::kMaxDurationMs * 1'000'000);
}

std::optional<quint64> ServingModel::submit(const Job &job, qint64 nowNs)
{
    if (m_firstSubmitNs < 0)
        m_firstSubmitNs = nowNs;
    const bool slotFree = m_active < m_config.maxBatch && m_queue.empty();
    if (!slotFree && qint64(m_queue.size()) >= m_config.queueLimit)
        return std::nullopt;
    const quint64 seq = m_nextSeq++;
    Sequence &s = m_sequences[seq];
    s.job = job;
    s.job.outputTokens = std::max<qint64>(job.outputTokens, 1);
    s.job.chunkTokens = std::max<qint64>(job.chunkTokens, 1);
    if (slotFree)
        admit(seq, s, nowNs);
    else
        m_queue.push_back(seq);
    return seq;
}

void ServingModel::cancel(quint64 seq, qint64 nowNs)
{
    const auto it = m_sequences.find(seq);
    if (it == m_sequences.end())
        return;
    const bool admitted = it->second.admitted;
    const qint64 held = it->second.job.promptTokens + it->second.emitted;
    m_sequences.erase(it); // its scheduled event, if any, is skipped as stale
    if (admitted) {
        m_kvTokens -= held;
        --m_active;
        fillSlots(nowNs);
    } else {
        m_queue.erase(std::find(m_queue.begin(), m_queue.end(), seq));
    }
}

void ServingModel::admit(quint64 seq, Sequence &s, qint64 atNs)
{
    s.admitted = true;
    s.admittedNs = atNs;
    ++m_active;
    m_kvTokens += s.job.promptTokens;
    const qint64 start = std::max(atNs + qint64(std::llround(m_config.ttftMs * 1e6)), m_prefillFreeNs);
    m_prefillFreeNs = start + cold(prefillNs(s.job.promptTokens, s.job.cachedTokens), start);
    while (!m_prefills.empty() && m_prefills.front().second <= atNs)
        m_prefills.pop_front();
    m_prefills.emplace_back(start, m_prefillFreeNs);
    schedule(seq, s, m_prefillFreeNs, 1);
}

void ServingModel::fillSlots(qint64 atNs)
{
    while (m_active < m_config.maxBatch && !m_queue.empty()) {
        const quint64 seq = m_queue.front();
        m_queue.pop_front();
        admit(seq, m_sequences.at(seq), atNs);
    }
}

void ServingModel::schedule(quint64 seq, Sequence &s, qint64 dueNs, qint64 tokens)
{
    s.pendingTokens = tokens;
    m_events.push({dueNs, seq});
}

qint64 ServingModel::prefillEndNs(qint64 nowNs) const
{
    for (const auto &[start, end] : m_prefills) {
        if (start > nowNs)
            break;
        if (nowNs < end)
            return end;
    }
    return -1;
}

qint64 ServingModel::nextDueNs() const
{
    return m_events.empty() ? std::numeric_limits<qint64>::max() : m_events.top().dueNs;
}

void ServingModel::takeDue(qint64 nowNs, const std::function<void(const Chunk &)> &sink)
{
    while (!m_events.empty() && m_events.top().dueNs <= nowNs) {
        const Event event = m_events.top();
        m_events.pop();
        const auto it = m_sequences.find(event.seq);
        if (it == m_sequences.end())
            continue; // cancelled
        Sequence &s = it->second;
        Chunk chunk;
        chunk.seq = event.seq;
        chunk.dueNs = event.dueNs;
        chunk.admittedNs = s.admittedNs;
        chunk.batch = m_active;
        chunk.tokens = s.pendingTokens;
        chunk.reasoning = s.emitted < s.job.reasoningTokens;
        s.emitted += chunk.tokens;
        m_kvTokens += chunk.tokens;
        chunk.last = s.emitted >= s.job.outputTokens;
        if (chunk.last) {
            m_kvTokens -= s.job.promptTokens + s.emitted;
            m_sequences.erase(it);
            --m_active;
            fillSlots(event.dueNs);
        } else {
            const qint64 phaseEnd = s.emitted < s.job.reasoningTokens ? s.job.reasoningTokens : s.job.outputTokens;
            const qint64 tokens = std::min(s.job.chunkTokens, phaseEnd - s.emitted);
            schedule(event.seq, s,
                     event.dueNs + cold(tokens * stepNs(m_active), event.dueNs) + stallNs(s.emitted, tokens), tokens);
        }
        sink(chunk);
    }
}

} // namespace tb::sim
