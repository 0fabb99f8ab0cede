#pragma once

#include "sim/simconfig.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tb::sim {

/// The simulator's one pseudo-random step (SplitMix64): every decision and text is drawn from it.
quint64 splitmix64(quint64 x);

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
///
/// With a repeat share r > 0 (SimConfig::repeatShare) words are also copied from earlier in the
/// same text, so that r of its word trigrams repeat an earlier one: before each word, when the
/// repeated trigrams so far fall short of r × the trigrams the text will have with this word, the
/// word continues a copy of earlier words (or starts one at a random earlier word), else it is
/// drawn at random and ends the copy. Repeats are counted as they occur, chance ones included, so
/// the share stays at ⌈r·T⌉/T of T trigrams, except where a copy's first two words (which repeat
/// nothing yet) come last or first: 128 words at r = 0.4 give 0.397 to 0.413, mean 0.400. The
/// first two trigrams never repeat (r = 1 gives 1 − 2/T). At r = 0, chance alone: about T/2^19.
/// Kept per text: its words (a byte each) and the trigrams seen (32 KiB).
class TextSource
{
public:
    explicit TextSource(quint64 seed, double repeatShare = 0)
        : m_state(seed)
        , m_repeatShare(repeatShare)
    {}
    void append(std::string &out, qint64 tokens);

private:
    quint64 m_state;
    double m_repeatShare;
    std::vector<std::uint8_t> m_words; ///< index of every word so far (with a repeat share only)
    std::size_t m_copyFrom = 0;        ///< the next word to copy, while m_copying
    bool m_copying = false;
    std::int64_t m_repeats = 0;       ///< trigrams so far that repeat an earlier one
    std::vector<bool> m_seenTrigrams; ///< by the three words' indices (6 bits each)
};

} // namespace tb::sim
