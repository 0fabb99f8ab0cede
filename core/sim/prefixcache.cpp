#include "sim/prefixcache.h"

#include "tokenize/tokenizer.h"

namespace tb::sim {

PrefixCache::PrefixCache(qint64 capacityTokens)
    : m_capacity(capacityTokens)
{}

std::vector<PrefixCache::Block> PrefixCache::blocks(std::string_view prompt)
{
    std::vector<Block> out;
    quint64 hash = 14695981039346656037ULL; // FNV-1a offset basis; chained from block to block
    std::size_t start = 0;
    while (prompt.size() - start >= kBlockBytes) {
        std::size_t end = start + kBlockBytes;
        while (end < prompt.size() && (static_cast<unsigned char>(prompt[end]) & 0xC0) == 0x80)
            ++end; // never split a UTF-8 sequence
        for (std::size_t i = start; i < end; ++i) {
            hash ^= static_cast<unsigned char>(prompt[i]);
            hash *= 1099511628211ULL;
        }
        out.push_back({hash, ApproxTokenizer::countUtf8(prompt.data() + start, end - start), end});
        start = end;
    }
    return out;
}

std::size_t PrefixCache::cachedBytes(const std::vector<Block> &blocks)
{
    std::size_t hits = 0;
    while (hits < blocks.size() && m_entries.contains(blocks[hits].hash))
        ++hits;
    // Touched back to front, so that a prefix's first block is the most recently used and the
    // ends of long prompts are evicted before their beginnings (which other prompts share).
    for (std::size_t i = hits; i-- > 0;)
        m_lru.splice(m_lru.begin(), m_lru, m_entries.at(blocks[i].hash).lru);
    return hits == 0 ? 0 : blocks[hits - 1].endByte;
}

void PrefixCache::insert(const std::vector<Block> &blocks)
{
    if (m_capacity <= 0)
        return;
    for (auto block = blocks.rbegin(); block != blocks.rend(); ++block) { // back to front: see cachedBytes()
        if (const auto it = m_entries.find(block->hash); it != m_entries.end()) {
            m_lru.splice(m_lru.begin(), m_lru, it->second.lru);
            continue;
        }
        m_lru.push_front(block->hash);
        m_entries.emplace(block->hash, Entry{m_lru.begin(), block->tokens});
        m_tokens += block->tokens;
    }
    while (m_tokens > m_capacity && !m_lru.empty()) {
        const auto it = m_entries.find(m_lru.back());
        m_tokens -= it->second.tokens;
        m_entries.erase(it);
        m_lru.pop_back();
    }
}

} // namespace tb::sim
