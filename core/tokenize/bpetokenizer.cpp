#include "tokenize/bpetokenizer.h"

#include "config/inputfile.h"
#include "tokenize/splitpattern.h"

#include <QFileInfo>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <queue>

namespace tb {

namespace {

// Tokenizer files are a few MB (Llama 3's tokenizer.json is 9 MB); anything far larger is not one.
constexpr qint64 kMaxFileBytes = 256LL * 1024 * 1024;

void appendUtf8(QStringView text, std::string &out)
{
    for (qsizetype i = 0; i < text.size(); ++i) {
        char32_t c = text[i].unicode();
        if (c < 0x80) {
            out += char(c);
            continue;
        }
        if (QChar::isHighSurrogate(c) && i + 1 < text.size() && text[i + 1].isLowSurrogate())
            c = QChar::surrogateToUcs4(char16_t(c), text[++i].unicode());
        else if (QChar::isSurrogate(c))
            c = 0xFFFD; // a lone surrogate, as QString::toUtf8 writes it
        if (c < 0x800) {
            out += char(0xC0 | (c >> 6));
        } else if (c < 0x10000) {
            out += char(0xE0 | (c >> 12));
            out += char(0x80 | ((c >> 6) & 0x3F));
        } else {
            out += char(0xF0 | (c >> 18));
            out += char(0x80 | ((c >> 12) & 0x3F));
            out += char(0x80 | ((c >> 6) & 0x3F));
        }
        out += char(0x80 | (c & 0x3F));
    }
}

std::size_t utf8Length(unsigned char lead)
{
    return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

/// GPT-2's byte-to-unicode table, inverted: the byte each vocabulary character stands for.
/// Printable bytes stand for themselves; the others were moved to U+0100 upwards, in order.
int byteOfChar(char32_t c)
{
    static const std::vector<int> table = [] {
        std::vector<int> t(324, -1);
        int moved = 0;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
            t[printable ? b : 256 + moved++] = b;
        }
        return t;
    }();
    return c < table.size() ? table[c] : -1;
}

/// A byte-level vocabulary entry back to the bytes it stands for; false if it is not byte-level.
bool byteLevelDecode(const std::string &key, std::string *bytes)
{
    bytes->clear();
    const QString text = QString::fromStdString(key);
    for (qsizetype i = 0; i < text.size(); ++i) {
        char32_t c = text[i].unicode();
        if (text[i].isHighSurrogate() && i + 1 < text.size()) {
            c = QChar::surrogateToUcs4(text[i], text[i + 1]);
            ++i;
        }
        const int b = byteOfChar(c);
        if (b < 0)
            return false;
        *bytes += char(b);
    }
    return true;
}

QString normalizeText(const std::vector<BpeTokenizer::Normalizer> &steps, QStringView in)
{
    QString text = in.toString();
    using N = BpeTokenizer::Normalizer;
    for (const N &n : steps) {
        switch (n.kind) {
        case N::Nfc:
            // Below U+0300 every character is its own NFC form: skip the work for such text.
            if (std::any_of(text.cbegin(), text.cend(), [](QChar c) { return c.unicode() >= 0x300; }))
                text = text.normalized(QString::NormalizationForm_C);
            break;
        case N::Nfd:
            text = text.normalized(QString::NormalizationForm_D);
            break;
        case N::Nfkc:
            text = text.normalized(QString::NormalizationForm_KC);
            break;
        case N::Nfkd:
            text = text.normalized(QString::NormalizationForm_KD);
            break;
        case N::Lowercase:
            text = text.toLower();
            break;
        case N::Prepend:
            if (!text.isEmpty())
                text.prepend(n.text);
            break;
        case N::Replace:
            if (n.regex.pattern().isEmpty())
                text.replace(n.text, n.content);
            else
                text.replace(n.regex, n.content);
            break;
        case N::Strip: {
            qsizetype from = 0, to = text.size();
            while (n.left && from < to && text[from].isSpace())
                ++from;
            while (n.right && to > from && text[to - 1].isSpace())
                --to;
            text = text.mid(from, to - from);
            break;
        }
        }
    }
    return text;
}

} // namespace

/// Per-call scratch space: the ids so far, and the merge state of the current piece.
struct BpeTokenizer::Context {
    std::vector<std::int32_t> ids;
    std::string utf8;
    struct Symbol {
        std::uint32_t start, length;
        std::int32_t id;
        std::int32_t prev, next;
    };
    std::vector<Symbol> symbols;
    struct Candidate {
        std::uint32_t rank, start;
        std::int32_t left, right;
        std::uint32_t leftLength, rightLength;
        std::int32_t id;
        bool operator>(const Candidate &o) const { return rank != o.rank ? rank > o.rank : start > o.start; }
    };
    std::vector<Candidate> heap;
    std::vector<SplitPattern::Span> spans;
    /// Pieces merged so far in this call, to their ids in `mergedIds`: text repeats its words, and
    /// merging is most of the cost where pieces are not tokens whole.
    std::unordered_map<std::string, std::pair<std::uint32_t, std::uint32_t>, StringHash, std::equal_to<>> merged;
    std::vector<std::int32_t> mergedIds;
};

std::int32_t BpeTokenizer::tokenId(std::string_view bytes) const
{
    const auto it = m_vocab.find(bytes);
    return it == m_vocab.end() ? -1 : it->second;
}

bool BpeTokenizer::merge(std::int32_t leftId, std::int32_t rightId, std::string_view bytes, Merge *out) const
{
    if (m_merges.empty()) {
        const std::int32_t id = tokenId(bytes);
        *out = {std::uint32_t(id), id};
        return id >= 0;
    }
    if (leftId < 0 || rightId < 0)
        return false;
    const auto it = m_merges.find(std::uint64_t(std::uint32_t(leftId)) << 32 | std::uint32_t(rightId));
    if (it == m_merges.end())
        return false;
    *out = it->second;
    return true;
}

void BpeTokenizer::bytePairs(std::string_view bytes, Context &c) const
{
    if (bytes.empty())
        return;
    if (m_ignoreMerges) {
        if (const std::int32_t id = tokenId(bytes); id >= 0) {
            c.ids.push_back(id);
            return;
        }
    }
    constexpr std::size_t kMaxRemembered = 64; // bytes: longer pieces rarely repeat
    const bool remember = bytes.size() <= kMaxRemembered;
    if (remember) {
        if (const auto it = c.merged.find(bytes); it != c.merged.end()) {
            const auto from = c.mergedIds.begin() + it->second.first;
            c.ids.insert(c.ids.end(), from, from + it->second.second);
            return;
        }
    }
    const std::size_t firstId = c.ids.size();
    auto &symbols = c.symbols;
    symbols.clear();
    const auto add = [&symbols](std::size_t start, std::size_t length, std::int32_t id) {
        const auto n = std::int32_t(symbols.size());
        symbols.push_back({std::uint32_t(start), std::uint32_t(length), id, n - 1, n + 1});
    };
    if (m_byteLevel) {
        for (std::size_t i = 0; i < bytes.size(); ++i)
            add(i, 1, m_byteIds[static_cast<unsigned char>(bytes[i])]);
    } else {
        for (std::size_t i = 0; i < bytes.size();) {
            const std::size_t n = std::min(utf8Length(static_cast<unsigned char>(bytes[i])), bytes.size() - i);
            if (const std::int32_t id = tokenId(bytes.substr(i, n)); id >= 0) {
                add(i, n, id);
            } else if (m_byteFallback) {
                for (std::size_t b = i; b < i + n; ++b)
                    add(b, 1, m_byteIds[static_cast<unsigned char>(bytes[b])]);
            } else if (m_unknown >= 0) {
                if (m_fuseUnknown && !symbols.empty() && symbols.back().id == m_unknown)
                    symbols.back().length += std::uint32_t(n);
                else
                    add(i, n, m_unknown);
            }
            i += n;
        }
    }
    if (symbols.empty())
        return;
    symbols.back().next = -1;

    // Lowest rank first, leftmost among equals; a candidate whose symbols changed since it was
    // queued is stale and skipped.
    auto &heap = c.heap;
    heap.clear();
    const auto consider = [&](std::int32_t left) {
        if (left < 0 || symbols[left].next < 0)
            return;
        const auto &l = symbols[left];
        const auto &r = symbols[l.next];
        Merge m;
        if (merge(l.id, r.id, bytes.substr(l.start, l.length + r.length), &m)) {
            heap.push_back({m.rank, l.start, left, l.next, l.length, r.length, m.id});
            std::push_heap(heap.begin(), heap.end(), std::greater<>());
        }
    };
    for (std::int32_t i = 0; i + 1 < std::int32_t(symbols.size()); ++i)
        consider(i);
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), std::greater<>());
        const Context::Candidate best = heap.back();
        heap.pop_back();
        auto &l = symbols[best.left];
        if (l.length != best.leftLength || l.next != best.right || symbols[best.right].length != best.rightLength)
            continue;
        auto &r = symbols[best.right];
        l.length += r.length;
        l.id = best.id;
        l.next = r.next;
        r.length = 0; // dead: no candidate matches a zero length
        if (l.next >= 0)
            symbols[l.next].prev = best.left;
        consider(l.prev);
        consider(best.left);
    }
    for (std::int32_t i = 0; i >= 0; i = symbols[i].next)
        c.ids.push_back(symbols[i].id);
    if (remember) {
        c.merged.emplace(std::string(bytes),
                         std::pair{std::uint32_t(c.mergedIds.size()), std::uint32_t(c.ids.size() - firstId)});
        c.mergedIds.insert(c.mergedIds.end(), c.ids.begin() + std::ptrdiff_t(firstId), c.ids.end());
    }
}

void BpeTokenizer::preTokenize(std::size_t step, QStringView text, bool atStart, Context &c) const
{
    if (text.isEmpty())
        return;
    if (step == m_preTokenizers.size()) {
        c.utf8.clear();
        appendUtf8(text, c.utf8);
        bytePairs(c.utf8, c);
        return;
    }
    using P = PreTokenizer;
    const P &p = m_preTokenizers[step];
    switch (p.kind) {
    case P::PrefixSpace:
        if (text.front() != QLatin1Char(' ')) {
            QString spaced(QLatin1Char(' '));
            spaced += text;
            preTokenize(step + 1, spaced, atStart, c);
        } else {
            preTokenize(step + 1, text, atStart, c);
        }
        return;
    case P::Metaspace: {
        QString replaced = text.toString();
        replaced.replace(QLatin1Char(' '), p.replacement);
        if (!replaced.startsWith(p.replacement) && (p.prepend == P::Always || (p.prepend == P::First && atStart)))
            replaced.prepend(p.replacement);
        if (!p.split) {
            preTokenize(step + 1, replaced, atStart, c);
            return;
        }
        // Each replacement character starts a piece (merged with what follows it).
        qsizetype from = 0;
        for (qsizetype i = 1; i <= replaced.size(); ++i) {
            if (i == replaced.size() || replaced[i] == p.replacement) {
                preTokenize(step + 1, QStringView(replaced).mid(from, i - from), atStart && from == 0, c);
                from = i;
            }
        }
        return;
    }
    case P::Split:
        break;
    }
    // Split: the text alternates between non-matches and matches; the behaviour says what becomes
    // of the delimiters (the matches, or with invert the non-matches).
    struct Part {
        qsizetype start, end;
        bool delimiter;
    };
    std::vector<Part> parts;
    qsizetype last = 0;
    const auto matched = [&](qsizetype start, qsizetype end) {
        if (start > last)
            parts.push_back({last, start, p.invert});
        parts.push_back({start, end, !p.invert});
        last = end;
    };
    if (p.known) {
        std::vector<SplitPattern::Span> &spans = c.spans;
        spans.clear();
        p.known->matches(text, spans);
        parts.reserve(spans.size());
        for (const SplitPattern::Span &m : spans)
            matched(m.start, m.end);
    } else {
        for (auto it = p.regex.globalMatch(text); it.hasNext();) {
            const QRegularExpressionMatch m = it.next();
            if (m.capturedLength() > 0)
                matched(m.capturedStart(), m.capturedEnd());
        }
    }
    if (last < text.size())
        parts.push_back({last, text.size(), p.invert});
    std::vector<Part> pieces;
    switch (p.behavior) {
    case P::Removed:
        for (const Part &part : parts) {
            if (!part.delimiter)
                pieces.push_back(part);
        }
        break;
    case P::Isolated:
        pieces = std::move(parts);
        break;
    case P::MergedWithPrevious:
        for (std::size_t i = 0; i < parts.size(); ++i) {
            if (parts[i].delimiter && !pieces.empty() && !(i > 0 && parts[i - 1].delimiter))
                pieces.back().end = parts[i].end;
            else
                pieces.push_back(parts[i]);
        }
        break;
    case P::MergedWithNext:
        for (std::size_t i = parts.size(); i-- > 0;) {
            if (parts[i].delimiter && !pieces.empty() && !(i + 1 < parts.size() && parts[i + 1].delimiter))
                pieces.back().start = parts[i].start;
            else
                pieces.push_back(parts[i]);
        }
        std::reverse(pieces.begin(), pieces.end());
        break;
    case P::Contiguous:
        for (std::size_t i = 0; i < parts.size(); ++i) {
            if (parts[i].delimiter && i > 0 && parts[i - 1].delimiter)
                pieces.back().end = parts[i].end;
            else
                pieces.push_back(parts[i]);
        }
        break;
    }
    for (const Part &piece : pieces)
        preTokenize(step + 1, text.mid(piece.start, piece.end - piece.start), atStart && piece.start == 0, c);
}

void BpeTokenizer::normalizeAndSplit(QStringView text, bool atStart, Context &c) const
{
    if (text.isEmpty())
        return;
    if (m_normalizers.empty()) {
        preTokenize(0, text, atStart, c);
        return;
    }
    const QString normalized = normalizeText(m_normalizers, text);
    preTokenize(0, normalized, atStart, c);
}

void BpeTokenizer::run(std::string_view utf8, Context &c) const
{
    const QString text = QString::fromUtf8(utf8.data(), qsizetype(utf8.size()));
    qsizetype segmentStart = 0;
    for (qsizetype i = 0; i < text.size() && !m_added.empty(); ++i) {
        if (!m_addedFirst[text[i].unicode()])
            continue;
        // m_added is sorted longest first, so the first match here is the longest at i.
        for (const AddedToken &t : m_added) {
            if (text[i] != t.content.front() || !QStringView(text).mid(i).startsWith(t.content))
                continue;
            qsizetype from = i, to = i + t.content.size();
            if (t.singleWord &&
                ((from > 0 && text[from - 1].isLetterOrNumber()) || (to < text.size() && text[to].isLetterOrNumber())))
                continue;
            while (t.lstrip && from > segmentStart && text[from - 1].isSpace())
                --from;
            while (t.rstrip && to < text.size() && text[to].isSpace())
                ++to;
            normalizeAndSplit(QStringView(text).mid(segmentStart, from - segmentStart), segmentStart == 0, c);
            c.ids.push_back(t.id);
            segmentStart = to;
            i = to - 1;
            break;
        }
    }
    normalizeAndSplit(QStringView(text).mid(segmentStart), segmentStart == 0, c);
}

std::int64_t BpeTokenizer::count(std::string_view utf8) const
{
    Context c;
    run(utf8, c);
    return std::int64_t(c.ids.size());
}

std::vector<std::int32_t> BpeTokenizer::encode(std::string_view utf8) const
{
    Context c;
    run(utf8, c);
    return std::move(c.ids);
}

// ---- loading -------------------------------------------------------------------------------------

struct BpeLoader {
    QString path;
    QString *error;
    std::shared_ptr<BpeTokenizer> t{new BpeTokenizer};

    std::nullptr_t fail(const QString &why) const
    {
        if (error)
            *error = QStringLiteral("tokenizer file '%1': %2").arg(path, why);
        return nullptr;
    }

    bool compile(QRegularExpression *re, const QString &pattern, const QString &where)
    {
        *re = QRegularExpression(pattern, QRegularExpression::UseUnicodePropertiesOption);
        if (!re->isValid()) {
            fail(QStringLiteral("%1: regex not supported (%2)").arg(where, re->errorString()));
            return false;
        }
        re->optimize();
        return true;
    }

    /// {"String": s} or {"Regex": r} as a regex.
    bool pattern(const nlohmann::json &json, QRegularExpression *re, QString *literal, const QString &where)
    {
        if (json.is_object() && json.contains("Regex") && json["Regex"].is_string())
            return compile(re, QString::fromStdString(json["Regex"].get<std::string>()), where);
        if (json.is_object() && json.contains("String") && json["String"].is_string()) {
            const QString s = QString::fromStdString(json["String"].get<std::string>());
            if (literal) {
                *literal = s;
                return true;
            }
            return compile(re, QRegularExpression::escape(s), where);
        }
        fail(QStringLiteral("%1: pattern must be {\"String\": …} or {\"Regex\": …}").arg(where));
        return false;
    }

    static QString typeOf(const nlohmann::json &json)
    {
        return json.is_object() && json.contains("type") && json["type"].is_string()
                   ? QString::fromStdString(json["type"].get<std::string>())
                   : QString();
    }
    static bool flag(const nlohmann::json &json, const char *key, bool fallback)
    {
        const auto it = json.find(key);
        return it != json.end() && it->is_boolean() ? it->get<bool>() : fallback;
    }
    static QString text(const nlohmann::json &json, const char *key)
    {
        const auto it = json.find(key);
        return it != json.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
    }

    bool normalizer(const nlohmann::json &json)
    {
        if (json.is_null())
            return true;
        using N = BpeTokenizer::Normalizer;
        const QString type = typeOf(json);
        if (type == QLatin1String("Sequence")) {
            const auto it = json.find("normalizers");
            if (it == json.end() || !it->is_array())
                return fail(QStringLiteral("normalizer Sequence without \"normalizers\"")), false;
            for (const auto &n : *it) {
                if (!normalizer(n))
                    return false;
            }
            return true;
        }
        N n{N::Nfc, {}, {}, {}, false, false};
        if (type == QLatin1String("NFC"))
            n.kind = N::Nfc;
        else if (type == QLatin1String("NFD"))
            n.kind = N::Nfd;
        else if (type == QLatin1String("NFKC"))
            n.kind = N::Nfkc;
        else if (type == QLatin1String("NFKD"))
            n.kind = N::Nfkd;
        else if (type == QLatin1String("Lowercase"))
            n.kind = N::Lowercase;
        else if (type == QLatin1String("Prepend")) {
            n.kind = N::Prepend;
            n.text = text(json, "prepend");
        } else if (type == QLatin1String("Replace")) {
            n.kind = N::Replace;
            // QString::replace(regex, after) reads \1 as a capture: keep the file's text literal.
            n.content = text(json, "content").replace(QLatin1Char('\\'), QLatin1String("\\\\"));
            if (!pattern(json.value("pattern", nlohmann::json()), &n.regex, &n.text,
                         QStringLiteral("normalizer Replace")))
                return false;
            if (n.regex.pattern().isEmpty())
                n.content = text(json, "content");
        } else if (type == QLatin1String("Strip")) {
            n.kind = N::Strip;
            n.left = flag(json, "strip_left", false) || flag(json, "left", false);
            n.right = flag(json, "strip_right", false) || flag(json, "right", false);
        } else {
            return fail(QStringLiteral("normalizer type '%1' is not supported (supported: Sequence, NFC, NFD, NFKC, "
                                       "NFKD, Lowercase, Prepend, Replace, Strip)")
                            .arg(type)),
                   false;
        }
        t->m_normalizers.push_back(std::move(n));
        return true;
    }

    bool preTokenizer(const nlohmann::json &json, bool *byteLevel)
    {
        if (json.is_null())
            return true;
        using P = BpeTokenizer::PreTokenizer;
        const QString type = typeOf(json);
        P p{P::Split, {}, P::Isolated, false, QChar(), P::Always, true, std::nullopt};
        if (type == QLatin1String("Sequence")) {
            const auto it = json.find("pretokenizers");
            if (it == json.end() || !it->is_array())
                return fail(QStringLiteral("pre_tokenizer Sequence without \"pretokenizers\"")), false;
            for (const auto &n : *it) {
                if (!preTokenizer(n, byteLevel))
                    return false;
            }
            return true;
        }
        if (type == QLatin1String("ByteLevel")) {
            *byteLevel = true;
            if (flag(json, "add_prefix_space", true)) {
                P prefix = p;
                prefix.kind = P::PrefixSpace;
                t->m_preTokenizers.push_back(std::move(prefix));
            }
            if (!flag(json, "use_regex", true))
                return true;
            if (!compile(&p.regex, SplitPattern::gpt2Regex(), QStringLiteral("pre_tokenizer ByteLevel")))
                return false;
        } else if (type == QLatin1String("Split")) {
            if (!pattern(json.value("pattern", nlohmann::json()), &p.regex, nullptr,
                         QStringLiteral("pre_tokenizer Split")))
                return false;
            p.invert = flag(json, "invert", false);
            const QString behavior = text(json, "behavior");
            static const QMap<QString, P::Behavior> behaviors{
                {QStringLiteral("Removed"), P::Removed},
                {QStringLiteral("Isolated"), P::Isolated},
                {QStringLiteral("MergedWithPrevious"), P::MergedWithPrevious},
                {QStringLiteral("MergedWithNext"), P::MergedWithNext},
                {QStringLiteral("Contiguous"), P::Contiguous}};
            if (!behaviors.contains(behavior))
                return fail(QStringLiteral("pre_tokenizer Split: unknown behavior '%1'").arg(behavior)), false;
            p.behavior = behaviors.value(behavior);
        } else if (type == QLatin1String("Metaspace")) {
            p.kind = P::Metaspace;
            const QString replacement = text(json, "replacement");
            if (replacement.size() != 1)
                return fail(QStringLiteral("pre_tokenizer Metaspace: replacement must be one character")), false;
            p.replacement = replacement.front();
            const QString scheme = text(json, "prepend_scheme");
            if (scheme.isEmpty())
                p.prepend = flag(json, "add_prefix_space", true) ? P::Always : P::Never;
            else if (scheme == QLatin1String("always"))
                p.prepend = P::Always;
            else if (scheme == QLatin1String("first"))
                p.prepend = P::First;
            else if (scheme == QLatin1String("never"))
                p.prepend = P::Never;
            else
                return fail(QStringLiteral("pre_tokenizer Metaspace: unknown prepend_scheme '%1'").arg(scheme)), false;
            p.split = flag(json, "split", true);
        } else if (type == QLatin1String("Digits")) {
            compile(&p.regex,
                    flag(json, "individual_digits", false) ? QStringLiteral("\\p{N}") : QStringLiteral("\\p{N}+"),
                    QStringLiteral("pre_tokenizer Digits"));
        } else if (type == QLatin1String("Whitespace")) {
            compile(&p.regex, QStringLiteral("\\w+|[^\\w\\s]+"), QStringLiteral("pre_tokenizer Whitespace"));
            p.invert = true;
            p.behavior = P::Removed;
        } else if (type == QLatin1String("WhitespaceSplit")) {
            compile(&p.regex, QStringLiteral("\\s+"), QStringLiteral("pre_tokenizer WhitespaceSplit"));
            p.behavior = P::Removed;
        } else {
            return fail(QStringLiteral(
                            "pre_tokenizer type '%1' is not supported (supported: Sequence, ByteLevel, Split, "
                            "Metaspace, Digits, Whitespace, WhitespaceSplit)")
                            .arg(type)),
                   false;
        }
        if (p.kind == P::Split)
            p.known = SplitPattern::fromRegex(p.regex.pattern());
        t->m_preTokenizers.push_back(std::move(p));
        return true;
    }

    /// A vocabulary entry's bytes: byte-level entries decode through GPT-2's table.
    bool keyBytes(const std::string &key, std::string *bytes) const
    {
        if (!t->m_byteLevel) {
            *bytes = key;
            return true;
        }
        return byteLevelDecode(key, bytes);
    }

    std::shared_ptr<const BpeTokenizer> huggingFace(const QByteArray &data)
    {
        const nlohmann::json json =
            nlohmann::json::parse(data.constData(), data.constData() + data.size(), nullptr, false);
        if (json.is_discarded() || !json.is_object())
            return fail(QStringLiteral("not JSON (expected a Hugging Face tokenizer.json or a .tiktoken file)"));
        const auto model = json.find("model");
        if (model == json.end() || !model->is_object())
            return fail(QStringLiteral("no \"model\" object"));
        const QString type = typeOf(*model);
        if (type != QLatin1String("BPE") && !(type.isEmpty() && model->contains("merges")))
            return fail(QStringLiteral("model type '%1' is not supported (only BPE)").arg(type));
        for (const char *key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
            if (!text(*model, key).isEmpty())
                return fail(QStringLiteral("model.%1 is not supported").arg(QLatin1String(key)));
        }
        bool byteLevel = false;
        if (!normalizer(json.value("normalizer", nlohmann::json())) ||
            !preTokenizer(json.value("pre_tokenizer", nlohmann::json()), &byteLevel))
            return nullptr;
        t->m_byteLevel = byteLevel;
        t->m_ignoreMerges = flag(*model, "ignore_merges", false);
        t->m_byteFallback = flag(*model, "byte_fallback", false);
        t->m_fuseUnknown = flag(*model, "fuse_unk", false);

        const auto vocab = model->find("vocab");
        if (vocab == model->end() || !vocab->is_object() || vocab->empty())
            return fail(QStringLiteral("model.vocab is missing or empty"));
        std::unordered_map<std::string, std::int32_t> fileIds; // the file's spelling -> id
        fileIds.reserve(vocab->size());
        t->m_vocab.reserve(vocab->size());
        std::string bytes;
        for (const auto &[key, id] : vocab->items()) {
            if (!id.is_number_integer() || id.get<std::int64_t>() < 0 || id.get<std::int64_t>() > INT32_MAX)
                return fail(QStringLiteral("model.vocab: '%1' has no valid id").arg(QString::fromStdString(key)));
            fileIds.emplace(key, id.get<std::int32_t>());
            if (keyBytes(key, &bytes))
                t->m_vocab.emplace(bytes, id.get<std::int32_t>());
        }
        if (const QString unk = text(*model, "unk_token"); !unk.isEmpty()) {
            const auto it = fileIds.find(unk.toStdString());
            if (it == fileIds.end())
                return fail(QStringLiteral("model.unk_token '%1' is not in the vocabulary").arg(unk));
            t->m_unknown = it->second;
        }
        std::fill(std::begin(t->m_byteIds), std::end(t->m_byteIds), -1);
        for (int b = 0; b < 256; ++b) {
            if (byteLevel) {
                t->m_byteIds[b] = t->tokenId(std::string(1, char(b)));
                if (t->m_byteIds[b] < 0)
                    return fail(
                        QStringLiteral("byte-level vocabulary lacks byte 0x%1").arg(b, 2, 16, QLatin1Char('0')));
            } else if (t->m_byteFallback) {
                const QString name = QString::asprintf("<0x%02X>", b);
                const auto it = fileIds.find(name.toStdString());
                if (it == fileIds.end())
                    return fail(QStringLiteral("byte_fallback is set but token %1 is missing").arg(name));
                t->m_byteIds[b] = it->second;
            }
        }

        const auto merges = model->find("merges");
        if (merges == model->end() || !merges->is_array())
            return fail(QStringLiteral("model.merges is missing"));
        t->m_merges.reserve(merges->size());
        std::string a, b;
        std::uint32_t rank = 0;
        for (const auto &m : *merges) {
            if (m.is_string()) {
                const std::string &s = m.get_ref<const std::string &>();
                const auto space = s.find(' ');
                if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos)
                    return fail(
                        QStringLiteral("merge %1 '%2' is not two tokens").arg(rank).arg(QString::fromStdString(s)));
                a = s.substr(0, space);
                b = s.substr(space + 1);
            } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
                a = m[0].get<std::string>();
                b = m[1].get<std::string>();
            } else {
                return fail(QStringLiteral("merge %1 is neither \"a b\" nor [\"a\", \"b\"]").arg(rank));
            }
            const auto left = fileIds.find(a), right = fileIds.find(b), both = fileIds.find(a + b);
            if (left == fileIds.end() || right == fileIds.end() || both == fileIds.end())
                return fail(QStringLiteral("merge %1 '%2 %3' uses a token that is not in the vocabulary")
                                .arg(rank)
                                .arg(QString::fromStdString(a), QString::fromStdString(b)));
            t->m_merges.emplace(std::uint64_t(std::uint32_t(left->second)) << 32 | std::uint32_t(right->second),
                                BpeTokenizer::Merge{rank, both->second});
            ++rank;
        }

        if (const auto added = json.find("added_tokens"); added != json.end() && added->is_array()) {
            for (const auto &a : *added) {
                const QString content = text(a, "content");
                if (content.isEmpty() || !a.contains("id") || !a["id"].is_number_integer())
                    return fail(QStringLiteral("added_tokens: each needs \"id\" and \"content\""));
                t->m_added.push_back({content, a["id"].get<std::int32_t>(), flag(a, "lstrip", false),
                                      flag(a, "rstrip", false), flag(a, "single_word", false)});
            }
            std::stable_sort(t->m_added.begin(), t->m_added.end(),
                             [](const auto &x, const auto &y) { return x.content.size() > y.content.size(); });
            t->m_addedFirst.assign(0x10000, false);
            for (const auto &a : t->m_added)
                t->m_addedFirst[a.content.front().unicode()] = true;
        }
        t->m_description = QStringLiteral("%1: %2 BPE, %3 tokens")
                               .arg(QFileInfo(path).fileName(),
                                    byteLevel ? QStringLiteral("byte-level") : QStringLiteral("character-level"))
                               .arg(fileIds.size() + t->m_added.size());
        return t;
    }

    std::shared_ptr<const BpeTokenizer> tiktoken(const QByteArray &data)
    {
        int lineNumber = 0;
        for (const QByteArray &raw : data.split('\n')) {
            ++lineNumber;
            const QByteArray line = raw.trimmed();
            if (line.isEmpty())
                continue;
            const qsizetype space = line.indexOf(' ');
            bool ok = space > 0;
            const auto decoded =
                QByteArray::fromBase64Encoding(line.left(space), QByteArray::AbortOnBase64DecodingErrors);
            const qint64 rank = ok ? line.mid(space + 1).toLongLong(&ok) : -1;
            if (!ok || !decoded || decoded.decoded.isEmpty() || rank < 0 || rank > INT32_MAX)
                return fail(QStringLiteral("line %1: expected \"<base64 token> <rank>\"").arg(lineNumber));
            if (!t->m_vocab.emplace(decoded.decoded.toStdString(), std::int32_t(rank)).second)
                return fail(QStringLiteral("line %1: token listed twice").arg(lineNumber));
        }
        for (int b = 0; b < 256; ++b) {
            t->m_byteIds[b] = t->tokenId(std::string(1, char(b)));
            if (t->m_byteIds[b] < 0)
                return fail(
                    QStringLiteral("no token for byte 0x%1 (every byte needs one)").arg(b, 2, 16, QLatin1Char('0')));
        }
        // The file carries no pattern: o200k_base by name or by size (200k ranks), else cl100k_base.
        const QString name = QFileInfo(path).fileName();
        const bool o200k = name.contains(QLatin1String("o200k")) ||
                           (!name.contains(QLatin1String("cl100k")) && t->m_vocab.size() > 150000);
        BpeTokenizer::PreTokenizer split{BpeTokenizer::PreTokenizer::Split,
                                         {},
                                         BpeTokenizer::PreTokenizer::Isolated,
                                         false,
                                         QChar(),
                                         BpeTokenizer::PreTokenizer::Never,
                                         false,
                                         std::nullopt};
        if (!compile(&split.regex, o200k ? SplitPattern::o200kRegex() : SplitPattern::cl100kRegex(),
                     QStringLiteral("pattern")))
            return nullptr;
        split.known = SplitPattern::fromRegex(split.regex.pattern());
        t->m_preTokenizers.push_back(std::move(split));
        t->m_byteLevel = true;
        t->m_ignoreMerges = true;
        t->m_description = QStringLiteral("%1: tiktoken, %2 pattern, %3 tokens")
                               .arg(name, o200k ? QStringLiteral("o200k_base") : QStringLiteral("cl100k_base"))
                               .arg(t->m_vocab.size());
        return t;
    }
};

std::shared_ptr<const BpeTokenizer> BpeTokenizer::fromFile(const QString &path, QString *error)
{
    BpeLoader loader{path, error};
    QString why;
    const auto read = readInputFile(path, kMaxFileBytes, &why);
    if (!read)
        return loader.fail(why);
    const QByteArray &data = *read;
    const QByteArray start = data.left(64).trimmed();
    if (start.isEmpty())
        return loader.fail(QStringLiteral("empty"));
    return start.startsWith('{') ? loader.huggingFace(data) : loader.tiktoken(data);
}

} // namespace tb
