#pragma once

#include "tokenize/splitpattern.h"
#include "tokenize/tokenizer.h"

#include <QRegularExpression>

#include <string>
#include <unordered_map>

namespace tb {

/// A byte-pair-encoding tokenizer as the models' own files describe it, for exact token counts:
///  - a Hugging Face tokenizer.json with a BPE model: byte-level (GPT-2, Llama 3, Qwen: ByteLevel
///    pre-tokenizer, the Split regex the file gives) or character-level with byte fallback
///    (Llama 2, Mistral: Metaspace "▁", <0xXX> tokens), its normalizers and its added tokens;
///  - an OpenAI .tiktoken rank file (base64 token, rank per line) with the cl100k_base or
///    o200k_base split pattern, chosen by the file's name or, failing that, its size.
/// Text runs through: added tokens split out, normalizers, pre-tokenizers (regex splits), then
/// lowest-rank-first merges inside each piece.
class BpeTokenizer final : public Tokenizer
{
public:
    /// A tokenizer.json or a .tiktoken file, told apart by content.
    static std::shared_ptr<const BpeTokenizer> fromFile(const QString &path, QString *error);

    QString description() const override { return m_description; }
    std::int64_t count(std::string_view utf8) const override;
    std::vector<std::int32_t> encode(std::string_view utf8) const override;
    bool exact() const override { return true; }

    /// One normalizer step of a tokenizer.json ("Sequence"s flattened).
    struct Normalizer {
        enum Kind { Nfc, Nfd, Nfkc, Nfkd, Lowercase, Prepend, Replace, Strip } kind;
        QString text;                     ///< Prepend: what; Replace: the literal pattern (when no regex)
        QString content;                  ///< Replace: the replacement
        QRegularExpression regex;         ///< Replace: the regex pattern, if the file gives one
        bool left = false, right = false; ///< Strip
    };
    /// One pre-tokenizer step ("Sequence"s flattened; ByteLevel with use_regex becomes a Split).
    struct PreTokenizer {
        enum Kind { Split, PrefixSpace, Metaspace } kind;
        enum Behavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };
        QRegularExpression regex; ///< Split: the delimiters
        Behavior behavior = Isolated;
        bool invert = false;                                    ///< Split: the non-matches are the delimiters
        QChar replacement;                                      ///< Metaspace: stands for ' ' ("▁")
        enum Prepend { Always, First, Never } prepend = Always; ///< Metaspace
        bool split = true;                                      ///< Metaspace: split before each replacement
        std::optional<SplitPattern> known;                      ///< Split: the regex matched by hand
    };
    /// A token matched in the raw text before anything else (special tokens, added vocabulary).
    struct AddedToken {
        QString content;
        std::int32_t id;
        bool lstrip = false, rstrip = false, singleWord = false;
    };

private:
    friend struct BpeLoader;
    BpeTokenizer() = default;
    struct Context;

    struct StringHash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    struct Merge {
        std::uint32_t rank;
        std::int32_t id;
    };

    void run(std::string_view utf8, Context &c) const;
    void normalizeAndSplit(QStringView text, bool atStart, Context &c) const;
    void preTokenize(std::size_t step, QStringView text, bool atStart, Context &c) const;
    void bytePairs(std::string_view bytes, Context &c) const;
    /// The merge of two adjacent symbols: by the merges list (tokenizer.json), or (tiktoken) the
    /// token their bytes together make, whose rank is its id.
    bool merge(std::int32_t leftId, std::int32_t rightId, std::string_view bytes, Merge *out) const;
    std::int32_t tokenId(std::string_view bytes) const;

    QString m_description;
    std::vector<Normalizer> m_normalizers;
    std::vector<PreTokenizer> m_preTokenizers;
    std::vector<AddedToken> m_added;
    std::vector<bool> m_addedFirst; ///< by UTF-16 unit: could an added token start there
    std::unordered_map<std::string, std::int32_t, StringHash, std::equal_to<>> m_vocab; ///< raw bytes -> id
    std::unordered_map<std::uint64_t, Merge> m_merges; ///< (left id << 32 | right id); empty: ranks are ids (tiktoken)
    bool m_byteLevel = true;                           ///< symbols start as bytes; otherwise as characters
    bool m_ignoreMerges = false;                       ///< a piece that is a token is that token (Llama 3, tiktoken)
    bool m_byteFallback = false;                       ///< unknown characters become <0xXX> tokens
    bool m_fuseUnknown = false;
    std::int32_t m_unknown = -1;
    std::int32_t m_byteIds[256]; ///< byte-level: each byte's token; byte fallback: <0xXX>
};

} // namespace tb
