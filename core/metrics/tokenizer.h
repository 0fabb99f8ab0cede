#pragma once

#include <QStringView>

#include <cstdint>

namespace tb {

/// TokenBench's deterministic approximate tokenizer, shared by the simulator (to count prompt and
/// completion tokens) and the client (the "tokenizer" token source when a server reports no usage,
/// and to size synthetic prompts).
///
/// Rules, applied to the text from left to right:
///  - white space is never a token by itself (it belongs to the word after it);
///  - a run of letters or digits is split into pieces of at most 4 characters, one token each
///    ("the" = 1, "model" = 2, "tokenization" = 3);
///  - every other character (punctuation, symbols, emoji) is one token.
/// Real BPE tokenizers average about 4 characters of English per token, so counts are of the same
/// order as a model's, and exact for the simulator, which uses the same rules.
class ApproxTokenizer
{
public:
    static std::int64_t count(QStringView text);
    /// Tokens in UTF-8 bytes (as they arrive off the wire), without building a QString.
    static std::int64_t countUtf8(const char *data, std::size_t size);
};

} // namespace tb
