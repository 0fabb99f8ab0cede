#include "metrics/requestmetrics.h"

#include <algorithm>
#include <numeric>

namespace tb {

TokenTimeline::TokenTimeline(const RequestRecord &record)
    : m_record(record)
    , m_chunks(record.tokenChunks)
    , m_tokens(apportion(record.tokenChunks, record.streamedTokens()))
{}

std::vector<std::int64_t> TokenTimeline::apportion(const std::vector<ChunkStamp> &chunks, std::int64_t tokens)
{
    const auto n = std::int64_t(chunks.size());
    std::vector<std::int64_t> result(chunks.size(), 0);
    if (n == 0 || tokens <= 0)
        return result;
    const bool floorOfOne = tokens >= n;
    const std::int64_t spread = floorOfOne ? tokens - n : tokens;

    std::vector<std::int64_t> weights(chunks.size());
    std::transform(chunks.begin(), chunks.end(), weights.begin(),
                   [](const ChunkStamp &c) { return std::int64_t(std::max(c.chars, 0)); });
    std::int64_t total = std::accumulate(weights.begin(), weights.end(), std::int64_t(0));
    // spread·weight must fit in 64 bits (chars are 32-bit); beyond that — billions of tokens, not
    // a real response — an even split keeps the arithmetic exact.
    if (total == 0 || spread > (std::int64_t(1) << 31)) {
        std::fill(weights.begin(), weights.end(), 1);
        total = n;
    }

    std::vector<std::int64_t> remainders(chunks.size());
    std::int64_t given = 0;
    for (std::size_t i = 0; i < chunks.size(); ++i) {
        const std::int64_t exact = spread * weights[i];
        result[i] = (floorOfOne ? 1 : 0) + exact / total;
        remainders[i] = exact % total;
        given += exact / total;
    }
    const auto left = std::size_t(spread - given);
    if (left == 0) // one token per chunk, the common case: nothing to rank
        return result;
    std::vector<std::size_t> order(chunks.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(left), order.end(),
                      [&remainders](std::size_t a, std::size_t b) {
                          return remainders[a] != remainders[b] ? remainders[a] > remainders[b] : a < b;
                      });
    for (std::size_t k = 0; k < left; ++k)
        ++result[order[k]];
    return result;
}

std::optional<double> TokenTimeline::itlMeanMs() const
{
    double sumMs = 0;
    std::int64_t tokens = 0;
    forEachItl([&](double perTokenMs, std::int64_t n) {
        sumMs += perTokenMs * double(n);
        tokens += n;
    });
    if (tokens == 0)
        return std::nullopt;
    return sumMs / double(tokens);
}

} // namespace tb
