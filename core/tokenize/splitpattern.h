#pragma once

#include <QString>

#include <optional>
#include <vector>

namespace tb {

/// The pre-tokenizer regexes of the tokenizers people run, matched by hand: GPT-2's ByteLevel
/// split, cl100k_base's (also Llama 3's), Qwen 2/3's (cl100k_base with single digits) and
/// o200k_base's. They find the same matches as the regexes on Qt's PCRE2 with Unicode properties
/// (tst_splitpattern compares them), about ten times faster: counting a 16k-token prompt spent most
/// of its time in one QRegularExpressionMatch per piece.
class SplitPattern
{
public:
    /// The hand-written form of this regex, if it is one of the known patterns (exact text).
    static std::optional<SplitPattern> fromRegex(const QString &pattern);
    /// The known patterns' regexes (tiktoken files carry none; ByteLevel's use_regex means GPT-2's).
    static QString cl100kRegex();
    static QString o200kRegex();
    static QString gpt2Regex();

    struct Span {
        qsizetype start, end; ///< UTF-16 units
    };
    /// The non-empty matches in text, left to right, as a global match of the regex finds them.
    void matches(QStringView text, std::vector<Span> &out) const;

private:
    enum class Kind { Gpt2, Cl100k, O200k };
    SplitPattern(Kind kind, int maxDigits)
        : m_kind(kind)
        , m_maxDigits(maxDigits)
    {}
    qsizetype matchAt(QStringView text, qsizetype i) const;

    Kind m_kind;
    int m_maxDigits; ///< \p{N}{1,m_maxDigits}; 0: \p{N}+ (GPT-2)
};

} // namespace tb
