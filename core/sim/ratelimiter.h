#pragma once

#include <QtGlobal>

#include <string>

namespace tb::sim {

/// Requests-per-minute and tokens-per-minute limits as token buckets that start full and refill
/// continuously (limit/60 per second), the way hosted APIs meter. A limit of 0 is no limit.
class RateLimiter
{
public:
    RateLimiter(qint64 requestsPerMinute, qint64 tokensPerMinute);

    struct Verdict {
        bool allowed = true;
        qint64 retryAfterNs = 0; ///< when refused: how long until the request would pass
        std::string reason;      ///< when refused: which limit, for the error message
    };
    /// Charges one request and `tokens` when both buckets hold enough; refused requests cost nothing.
    Verdict admit(qint64 tokens, qint64 nowNs);

private:
    struct Bucket {
        double capacity = 0; ///< 0: unlimited
        double level = 0;
        double perNs = 0;
        void refill(qint64 elapsedNs);
        qint64 waitNs(double amount) const;
    };

    Bucket m_requests;
    Bucket m_tokens;
    qint64 m_lastNs = -1;
};

} // namespace tb::sim
