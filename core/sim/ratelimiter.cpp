#include "sim/ratelimiter.h"

#include <algorithm>
#include <cmath>

namespace tb::sim {

namespace {

constexpr double kNsPerMinute = 60e9;

} // namespace

RateLimiter::RateLimiter(qint64 requestsPerMinute, qint64 tokensPerMinute)
{
    for (auto [bucket, limit] : {std::pair{&m_requests, requestsPerMinute}, std::pair{&m_tokens, tokensPerMinute}}) {
        bucket->capacity = double(limit);
        bucket->level = double(limit);
        bucket->perNs = double(limit) / kNsPerMinute;
    }
}

void RateLimiter::Bucket::refill(qint64 elapsedNs)
{
    level = std::min(capacity, level + double(elapsedNs) * perNs);
}

qint64 RateLimiter::Bucket::waitNs(double amount) const
{
    // Refills add up in floating point: forgive what rounding can lose (far below one token).
    constexpr double kSlack = 1e-6;
    if (capacity <= 0 || level + kSlack >= amount)
        return 0;
    return qint64(std::llround((amount - level) / perNs));
}

RateLimiter::Verdict RateLimiter::admit(qint64 tokens, qint64 nowNs)
{
    if (m_lastNs >= 0) {
        m_requests.refill(nowNs - m_lastNs);
        m_tokens.refill(nowNs - m_lastNs);
    }
    m_lastNs = nowNs;

    Verdict verdict;
    if (m_tokens.capacity > 0 && double(tokens) > m_tokens.capacity) {
        // It can never pass; say so, and suggest a full minute as hosted APIs do.
        verdict.allowed = false;
        verdict.retryAfterNs = qint64(kNsPerMinute);
        verdict.reason = "Request too large: it needs " + std::to_string(tokens) +
                         " tokens (prompt + max_tokens), more than tpm_limit " +
                         std::to_string(qint64(m_tokens.capacity)) + " per minute";
        return verdict;
    }
    const qint64 requestWait = m_requests.waitNs(1);
    const qint64 tokenWait = m_tokens.waitNs(double(tokens));
    if (requestWait > 0 || tokenWait > 0) {
        verdict.allowed = false;
        verdict.retryAfterNs = std::max(requestWait, tokenWait);
        verdict.reason = requestWait >= tokenWait ? "Rate limit reached for requests: limit " +
                                                        std::to_string(qint64(m_requests.capacity)) + " per minute"
                                                  : "Rate limit reached for tokens: limit " +
                                                        std::to_string(qint64(m_tokens.capacity)) + " per minute";
        return verdict;
    }
    if (m_requests.capacity > 0)
        m_requests.level -= 1;
    if (m_tokens.capacity > 0)
        m_tokens.level -= double(tokens);
    return verdict;
}

} // namespace tb::sim
