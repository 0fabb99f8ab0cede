#include "metrics/outputredundancy.h"

#include "tokenize/tokenizer.h"

#include <unordered_map>
#include <unordered_set>

namespace tb {

namespace {

bool isAsciiSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/// Equal strings get equal ids, in order of first appearance.
std::vector<std::uint32_t> denseIds(const std::vector<std::string_view> &units)
{
    std::unordered_map<std::string_view, std::uint32_t> ids;
    std::vector<std::uint32_t> out;
    out.reserve(units.size());
    for (const std::string_view unit : units)
        out.push_back(ids.try_emplace(unit, std::uint32_t(ids.size())).first->second);
    return out;
}

} // namespace

std::string_view OutputRedundancy::examined(std::string_view text)
{
    if (text.size() <= kMaxExaminedBytes)
        return text;
    std::size_t end = kMaxExaminedBytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
        --end;
    return text.substr(0, end);
}

std::optional<double> OutputRedundancy::ofIds(const std::vector<std::uint32_t> &ids)
{
    if (ids.size() < std::size_t(kN))
        return std::nullopt;
    // Ids below 2^21 pack three to a 64-bit key; the examined text cannot hold more units.
    static_assert(kMaxExaminedBytes < (std::size_t(1) << 21));
    std::unordered_set<std::uint64_t> seen;
    const std::size_t trigrams = ids.size() - std::size_t(kN) + 1;
    seen.reserve(trigrams);
    std::size_t repeated = 0;
    for (std::size_t i = 0; i < trigrams; ++i) {
        const std::uint64_t key = (std::uint64_t(ids[i]) << 42) | (std::uint64_t(ids[i + 1]) << 21) | ids[i + 2];
        repeated += seen.insert(key).second ? 0 : 1;
    }
    return double(repeated) / double(trigrams);
}

std::optional<double> OutputRedundancy::ofWords(std::string_view text)
{
    text = examined(text);
    std::vector<std::string_view> words;
    for (std::size_t at = 0; at < text.size();) {
        while (at < text.size() && isAsciiSpace(text[at]))
            ++at;
        const std::size_t from = at;
        while (at < text.size() && !isAsciiSpace(text[at]))
            ++at;
        if (at > from)
            words.push_back(text.substr(from, at - from));
    }
    return ofIds(denseIds(words));
}

std::optional<double> OutputRedundancy::ofTokens(std::string_view text, const Tokenizer &tokenizer)
{
    text = examined(text);
    if (!tokenizer.exact()) // the approximation has pieces, not ids
        return ofIds(denseIds(ApproxTokenizer::pieces(text)));
    const std::vector<std::int32_t> tokens = tokenizer.encode(text);
    std::vector<std::uint32_t> ids;
    ids.reserve(tokens.size());
    std::unordered_map<std::int32_t, std::uint32_t> dense; // token ids may exceed 2^21
    for (const std::int32_t token : tokens)
        ids.push_back(dense.try_emplace(token, std::uint32_t(dense.size())).first->second);
    return ofIds(ids);
}

std::optional<double> OutputRedundancy::measure(std::string_view text, const Tokenizer *tokenizer)
{
    return tokenizer ? ofTokens(text, *tokenizer) : ofWords(text);
}

} // namespace tb
