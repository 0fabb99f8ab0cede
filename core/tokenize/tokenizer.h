#pragma once

#include <QString>
#include <QStringView>

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace tb {

/// Counts tokens the way a target's model does: TokenBench's approximation, or a real tokenizer
/// loaded from a file (BpeTokenizer). Immutable after construction, so threads share one instance.
class Tokenizer
{
public:
    virtual ~Tokenizer() = default;
    /// "approx", or what the file is ("tokenizer.json: byte-level BPE, 128256 tokens").
    virtual QString description() const = 0;
    virtual std::int64_t count(std::string_view utf8) const = 0;
    /// Token ids, without any special tokens a chat template or post-processor would add; empty for
    /// the approximation, which has no vocabulary.
    virtual std::vector<std::int32_t> encode(std::string_view utf8) const = 0;
    /// True when counts are the model's own (a tokenizer file), not an estimate.
    virtual bool exact() const = 0;

    static std::shared_ptr<const Tokenizer> approx();
    /// `spec` is "approx", a Hugging Face tokenizer.json (or the model folder holding one) or an
    /// OpenAI .tiktoken rank file. On failure returns nullptr and sets *error to a message naming
    /// the file and the problem.
    static std::shared_ptr<const Tokenizer> load(const QString &spec, QString *error);
};

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
    /// The text of each token, in order: white space goes with the token after it (at the end,
    /// with the last). For valid UTF-8 there are as many as countUtf8() counts.
    static std::vector<std::string_view> pieces(std::string_view utf8);
};

} // namespace tb
