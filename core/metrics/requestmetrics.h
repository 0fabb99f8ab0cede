#pragma once

// Per-request token timing (docs/SPEC.md §3: ITL, ICL, tokens per chunk). The plain durations (TTFB, TTFT,
// E2E, queue delay, TPOT, decode speed) are RequestRecord's own methods.
//
// Apportioning: a server reports one completion_tokens count (or the count comes from the local
// tokenizer, or is the number of chunks), while the stream arrives in token-bearing chunks of
// varying size. How many tokens each chunk carried is estimated as follows:
//  - every token-bearing chunk carries at least one token (it carried generated text, which is made
//    of tokens), when completion_tokens ≥ the number of chunks;
//  - the tokens beyond one per chunk (or all of them, in the rare case of fewer tokens than chunks)
//    are apportioned in proportion to each chunk's characters, by largest remainder: each chunk
//    gets the integer part of its exact share, the tokens left go to the largest fractional
//    parts, earlier chunks first on ties; when all chunks report 0 characters, evenly.
// The one-token floor makes the common one-token-per-event stream exact (a pure proportional split
// would call a 1-character token 0.25 tokens and a 12-character one 3), and servers that pack k
// tokens per event still get about k per chunk. The counts are integers summing to
// completion_tokens, so ITL is aggregated over whole tokens.
//
// Hidden reasoning (RequestRecord::hiddenReasoningTokens) never arrived in any chunk: the chunks
// share the streamed tokens only (completion_tokens − hidden), and wherever this file says
// completion_tokens for the chunks, it means those. For throughput over time the hidden tokens
// arrive with the first chunk — the client cannot see them earlier, and they were generated
// before it.
//
// ITL: for each chunk after the first that carries n ≥ 1 tokens, the gap g since the previous
// chunk that carried tokens is divided evenly over its tokens: the value g/n is recorded with
// weight n. A chunk apportioned 0 tokens passes its gap on to the next one. Per request, the mean
// ITL is Σg / Σn = (t_last − t_first) / (completion_tokens − tokens of the first chunk).
// ICL: the raw gaps between consecutive token-bearing chunks, whatever they carried.

#include "metrics/requestrecord.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tb {

/// The token timeline of one record. Holds a reference to the record's chunks: use it while the
/// record lives.
class TokenTimeline
{
public:
    explicit TokenTimeline(const RequestRecord &record);

    /// Tokens carried by each chunk (see the file comment); sums to `tokens` when chunks exist.
    static std::vector<std::int64_t> apportion(const std::vector<ChunkStamp> &chunks, std::int64_t tokens);

    const std::vector<std::int64_t> &tokensPerChunk() const { return m_tokens; }

    /// f(perTokenMs, tokens) for each ITL sample.
    template<typename F> void forEachItl(F &&f) const
    {
        forEachItlAt([&f](std::int64_t, double perTokenMs, std::int64_t tokens) { f(perTokenMs, tokens); });
    }
    /// f(tNs, perTokenMs, tokens): each ITL sample with the time of the chunk that ended its gap.
    template<typename F> void forEachItlAt(F &&f) const
    {
        std::int64_t previousNs = -1;
        for (std::size_t i = 0; i < m_chunks.size(); ++i) {
            if (m_tokens[i] == 0)
                continue;
            if (previousNs >= 0)
                f(m_chunks[i].tNs, double(m_chunks[i].tNs - previousNs) / 1e6 / double(m_tokens[i]), m_tokens[i]);
            previousNs = m_chunks[i].tNs;
        }
    }

    /// f(gapMs) for each gap between consecutive chunks.
    template<typename F> void forEachIcl(F &&f) const
    {
        for (std::size_t i = 1; i < m_chunks.size(); ++i)
            f(double(m_chunks[i].tNs - m_chunks[i - 1].tNs) / 1e6);
    }

    /// f(tNs, tokens): when output tokens arrived — per chunk when the chunks are known (hidden
    /// reasoning with the first), otherwise all completion tokens at the last token (or at done,
    /// for a non-streamed response).
    template<typename F> void forEachArrival(F &&f) const
    {
        if (!m_chunks.empty()) {
            for (std::size_t i = 0; i < m_chunks.size(); ++i)
                f(m_chunks[i].tNs, m_tokens[i] + (i == 0 ? m_record.hiddenReasoningTokens : 0));
        } else if (m_record.completionTokens > 0) {
            f(m_record.lastTokenNs >= 0 ? m_record.lastTokenNs : m_record.doneNs, m_record.completionTokens);
        }
    }

    /// Mean ITL of this request (requests.csv's itl_mean_ms); nullopt without two token-carrying
    /// chunks.
    std::optional<double> itlMeanMs() const;

private:
    const RequestRecord &m_record;
    const std::vector<ChunkStamp> &m_chunks;
    std::vector<std::int64_t> m_tokens;
};

} // namespace tb
