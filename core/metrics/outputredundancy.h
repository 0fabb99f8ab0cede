#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace tb {

class Tokenizer;

/// How repetitive a generated text is (docs/metrics.md "Output redundancy"): the share of its
/// trigrams — three consecutive units — that repeat a trigram seen earlier in the same text.
/// "a b c a b c a b c" has 7 trigrams; the last 4 (from the second "a b c" on) repeat one before
/// them: 4/7. A text of fewer than 3 units has no trigram and no redundancy.
///
/// Units are the target's tokens when it has a tokenizer (token ids of a tokenizer file; the
/// approximation's pieces, which have no ids), else words: runs of characters between ASCII white
/// space, compared byte for byte — case and punctuation count, as they do for tokens.
class OutputRedundancy
{
public:
    /// Only the first this many bytes of a text are examined (cut at a character boundary), so
    /// memory and time per request stay bounded whatever a server sends.
    static constexpr std::size_t kMaxExaminedBytes = 64 * 1024;
    static constexpr int kN = 3;

    /// Over tokens with `tokenizer`, else over words; std::nullopt below 3 units.
    static std::optional<double> measure(std::string_view text, const Tokenizer *tokenizer);
    static std::optional<double> ofWords(std::string_view text);
    static std::optional<double> ofTokens(std::string_view text, const Tokenizer &tokenizer);
    /// Over units given as dense ids (equal units, equal ids).
    static std::optional<double> ofIds(const std::vector<std::uint32_t> &ids);
    /// `text` cut to at most kMaxExaminedBytes at a UTF-8 character boundary.
    static std::string_view examined(std::string_view text);
};

} // namespace tb
