#pragma once

#include "sim/simconfig.h"

#include <optional>
#include <string>

namespace tb::sim {

/// What the serving model needs to know about a request to plan it.
struct PlanInput {
    qint64 index = 0; ///< the n-th generation request since the server started
    qint64 promptTokens = 0;
    std::optional<qint64> maxTokens;
    qint64 minTokens = 0;
    bool ignoreEos = false;
    bool reasoning = false; ///< the endpoint can carry reasoning (chat, messages)
};

/// Everything random about one request. Each decision is a pure function of (seed, request
/// index), never of timing or of other requests, so a seed reproduces the same faults and
/// outputs for the n-th request whatever the load.
struct RequestPlan {
    qint64 outputTokens = 0;      ///< completion tokens of the whole response (reasoning included)
    qint64 reasoningTokens = 0;   ///< the first ones are reasoning
    bool stoppedByLength = false; ///< ended by max_tokens (finish_reason "length")
    bool serverError = false;     ///< answer 500
    qint64 cutAfter = -1;         ///< close the connection after this many tokens; -1: not cut
    qint64 headerDelayNs = 0;     ///< hold the request this long before anything is written
    quint64 textSeed = 0;
};

RequestPlan planRequest(const SimConfig &config, const PlanInput &input);

/// Prompt tokens llama.cpp drops from a prompt that does not fit its slot's context (0 when it
/// fits or slotContext is 0): with n_keep 0, whole blocks of half the context from the start,
/// until fewer tokens than the context remain (4,106 tokens in a 4,096 context: 2,048 dropped).
qint64 slotTruncatedTokens(qint64 promptTokens, qint64 slotContext);

/// The generated text: every token is a space and a word of 1-4 ASCII letters, so each is exactly
/// one ApproxTokenizer token and a client counting tokens locally agrees with usage.
class TextSource
{
public:
    explicit TextSource(quint64 seed)
        : m_state(seed)
    {}
    void append(std::string &out, qint64 tokens);

private:
    quint64 m_state;
};

} // namespace tb::sim
