#pragma once

#include <QtGlobal>

#include <list>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tb::sim {

/// The simulator's prefix cache: prompts are cut into blocks of about kBlockBytes bytes (on UTF-8
/// character boundaries), each identified by a hash chained over all blocks before it, so a block
/// hits only when the whole prefix up to it was seen before (as in vLLM's automatic prefix caching).
/// Only full blocks are cached; the least recently used are evicted beyond the capacity in tokens.
class PrefixCache
{
public:
    static constexpr std::size_t kBlockBytes = 64;

    struct Block {
        quint64 hash;
        qint64 tokens;       ///< ApproxTokenizer tokens in the block's own bytes (for the capacity)
        std::size_t endByte; ///< offset just past the block in the prompt
    };

    explicit PrefixCache(qint64 capacityTokens);

    static std::vector<Block> blocks(std::string_view prompt);
    /// Bytes of the longest cached prefix of these blocks; marks those blocks recently used.
    std::size_t cachedBytes(const std::vector<Block> &blocks);
    /// Caches all the blocks (the prompt was computed), evicting the least recently used.
    void insert(const std::vector<Block> &blocks);

    qint64 tokens() const { return m_tokens; }

private:
    struct Entry {
        std::list<quint64>::iterator lru;
        qint64 tokens;
    };

    qint64 m_capacity;
    qint64 m_tokens = 0;
    std::list<quint64> m_lru; ///< most recently used first
    std::unordered_map<quint64, Entry> m_entries;
};

} // namespace tb::sim
