#include "workload/promptsource.h"

#include "api/apidialect.h"

#include "tokenize/tokenizer.h"
#include "workload/workloadlimits.h"

#include <QRegularExpression>

#include <array>
#include <cstdio>

namespace tb {

namespace {

// Written for TokenBench: plain sentences about measuring services, whose words synthetic prompts
// are drawn from. Every word is short and common, so it is one token (punctuation another)
// in ApproxTokenizer and in cl100k_base, o200k_base, Llama 3 and Qwen 3 alike (tst_tokenizeroracle
// checks): a synthetic prompt has about its requested size in any of them, which
// keeps the per-request spread small when calibration has only the target's usage to go by.
constexpr std::array kCorpus{
    "The team ran a load test to see how long each user had to wait.",
    "When more jobs come in than the box can take, a line is made and time goes up.",
    "We look at the tail, not just the mean, as the slow ones hurt most.",
    "Each new user adds a bit of work to each step of the run.",
    "Our plan was to send the same text to all of them in the same way.",
    "Long text will need more time to read in, so the lead word is late.",
    "The GPU can work on many at once, but each step gets a bit more slow.",
    "Good runs are the ones that meet all the aims the team set.",
    "An open loop will keep up its pace even when the host is slow.",
    "In a shut loop each user asks once the last one is done.",
    "If the same head is sent a lot, the host can keep it and save time.",
    "The page can show rate, wait time and the odd fail live as it runs.",
    "Some days you just need a plot for a talk, not a deep dig.",
    "When text runs out bit by bit, the user sees it move and is glad.",
    "A host that gets too much will say no and tell you when to try once more.",
    "A time cap is good for the user, but it can hide how slow it was.",
    "We mark each step by one fast tick, then read the data out.",
    "How fast the text gets out is set by the size and the load.",
    "Some of them pack more than one word into each part they send.",
    "To be fair, send the same ask to each of them, one by one.",
    "A warm up run will fill up the pool and the hot path.",
    "Once a line has to form, the tail can grow very fast.",
    "How many can one box take, and keep each wait in its goal?",
    "You can send jobs to more than one copy of the same box.",
    "Some of them will stop to plan, and that will slow the lead word.",
    "What you pay is set by how much goes in and how much is sent out.",
    "In a long chat, the full past is sent back each time.",
    "We keep a tab on each code and kind of fail, so a jump is easy to read.",
    "The plot of wait time is good to one part in a few.",
    "Work per sec goes up with load, up to the top, then wait goes up.",
    "The size of the ask and the size of the net both add to the wait.",
    "It is not hard to see when a host is full: the line just gets long.",
};

/// splitmix64: a tiny, well-mixed, platform-independent generator (std:: distributions are not
/// reproducible across standard libraries; prompts must be).
std::uint64_t mix(std::uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/// The seed of a run's synthetic text: its load seed, salted. Without a salt (tools that only
/// estimate prompts) the seed alone decides.
std::uint64_t saltedSeed(std::uint64_t seed, const QString &salt)
{
    if (salt.isEmpty())
        return seed;
    std::uint64_t hash = 0xCBF29CE484222325ULL; // FNV-1a: stable across platforms and Qt versions
    for (const char c : salt.toUtf8()) {
        hash ^= std::uint8_t(c);
        hash *= 0x100000001B3ULL;
    }
    return mix(seed ^ mix(hash));
}

/// The corpus as words, each with its leading space.
const std::vector<std::string> &corpusWords()
{
    static const std::vector<std::string> words = [] {
        std::vector<std::string> out;
        for (const char *sentence : kCorpus) {
            for (const QString &w : QString::fromLatin1(sentence).split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
                std::string text(1, ' ');
                text += w.toStdString();
                out.push_back(std::move(text));
            }
        }
        return out;
    }();
    return words;
}

/// Fillers that make one token, in order of preference: a space and a short word is one piece
/// and one token in real vocabularies; tiny ones may need the punctuation mark.
constexpr std::array<std::string_view, 3> kFillers{" a", " I", "."};

/// Digits of a synthetic prompt's request number.
constexpr std::size_t kTagDigits = 6;

/// Where salt tags come from: apart from the synthetic texts' salts.
constexpr std::uint64_t kSaltTags = 0x5A17'7A65'0000'0000ULL;
/// Where synthetic images' seeds come from: apart from both.
constexpr std::uint64_t kImageSeeds = 0x1A6E'5EED'0000'0000ULL;
/// Tool results' texts (toolResult) draw from here on, apart from every request's.
constexpr std::uint64_t kToolResults = 0x7001'4E5D'0000'0000ULL;

/// A chat message a person wrote: where a request's own part begins ("human": ShareGPT's name).
bool isUserMessage(const nlohmann::json &message)
{
    if (!message.is_object())
        return false;
    const auto role = message.find("role");
    return role != message.end() && role->is_string() && (*role == "user" || *role == "human");
}

} // namespace

std::int64_t PromptSource::tokens(const std::string &text) const
{
    return m_tokenizer->count(text);
}

std::string PromptSource::synthetic(std::int64_t tokens, std::uint64_t salt) const
{
    const std::vector<std::string> &words = corpusWords();
    std::string text;
    text.reserve(std::size_t(std::max<std::int64_t>(tokens, 0)) * 5);
    // Every word drawn from the seed. A walk through the corpus left the salt only its start and
    // its jumps: two runs' texts matched over long stretches, and a prefix cache block (64 bytes,
    // about 12 words) of one run's request was another run's about once in 450 requests.
    std::uint64_t state = mix(m_textSeed ^ mix(salt));
    std::int64_t left = tokens;
    while (left > 0) {
        const std::size_t at = std::size_t(state % words.size());
        state = mix(state);
        if (m_wordTokens[at] <= left) {
            text += words[at];
            left -= m_wordTokens[at];
        } else {
            text += m_filler; // fills the remainder exactly
            left -= 1;
        }
    }
    if (!text.empty())
        text.erase(0, 1); // no leading space
    return text;
}

std::int64_t PromptSource::fit(std::string &text, std::int64_t target, std::size_t keep) const
{
    // Words counted alone add up in context for the split patterns real tokenizers use, so this
    // usually measures once; a few rounds settle the rest.
    std::int64_t n = tokens(text);
    for (int round = 0; round < 8 && n != target; ++round) {
        if (n < target) {
            for (std::int64_t i = n; i < target; ++i)
                text += text.empty() && m_filler.front() == ' ' ? m_filler.substr(1) : m_filler;
        } else {
            for (std::int64_t i = target; i < n; ++i) {
                const std::size_t space = text.rfind(' ');
                if (space == std::string::npos || space < keep)
                    break;
                text.resize(space);
            }
        }
        n = tokens(text);
    }
    return n;
}

namespace {

const QRegularExpression &placeholderPattern()
{
    static const QRegularExpression placeholder(QStringLiteral("\\{\\{\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*\\}\\}"));
    return placeholder;
}

bool isBuiltinVariable(const QString &name)
{
    return name == QLatin1String("index") || name == QLatin1String("seed");
}

} // namespace

QStringList PromptSource::templateVariables(const QString &text)
{
    QStringList names;
    for (auto it = placeholderPattern().globalMatch(text); it.hasNext();) {
        const QString name = it.next().captured(1);
        if (!names.contains(name) && !isBuiltinVariable(name))
            names << name;
    }
    return names;
}

std::string PromptSource::expandTemplate(const QString &text, const QMap<QString, QString> &variables,
                                         std::uint64_t index, quint64 seed)
{
    const QRegularExpression &placeholder = placeholderPattern();
    QString out;
    qsizetype last = 0;
    for (auto it = placeholder.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        out += QStringView(text).mid(last, m.capturedStart() - last);
        const QString name = m.captured(1);
        if (variables.contains(name))
            out += variables.value(name);
        else if (name == QLatin1String("index"))
            out += QString::number(index);
        else if (name == QLatin1String("seed"))
            out += QString::number(seed);
        else
            out += m.captured(0);
        last = m.capturedEnd();
    }
    out += QStringView(text).mid(last);
    return out.toStdString();
}

std::shared_ptr<const PromptSource> PromptSource::create(const PromptConfig &config, quint64 seed, QString *error,
                                                         std::shared_ptr<const Tokenizer> tokenizer,
                                                         const PromptCalibration &calibration, const QString &trace)
{
    std::shared_ptr<PromptSource> source(new PromptSource);
    source->m_config = config;
    source->m_seed = seed;
    source->m_textSeed = saltedSeed(seed, config.salt);
    source->m_tokenizer = tokenizer ? std::move(tokenizer) : Tokenizer::approx();
    source->m_calibration = calibration;
    source->m_filler = kFillers.front();
    for (const std::string_view filler : kFillers) {
        if (source->tokens(std::string("word") + std::string(filler)) == source->tokens("word") + 1) {
            source->m_filler = filler;
            break;
        }
    }
    for (const std::string &word : corpusWords())
        source->m_wordTokens.push_back(std::max<std::int64_t>(1, source->tokens(word)));
    // Requested sizes are the target's; the template's overhead comes out of the user prompt.
    const double scale = calibration.scale > 0 ? calibration.scale : 1;
    const auto local = [scale](std::int64_t tokens) {
        return tokens > 0 ? std::max<std::int64_t>(1, std::llround(double(tokens) / scale)) : 0;
    };
    if (config.systemTokens > 0) {
        source->m_system = source->synthetic(local(config.systemTokens), 0x5157E4ULL);
        source->m_systemCount = source->fit(source->m_system, local(config.systemTokens), 0);
    } else if (!config.systemTemplate.isEmpty()) {
        source->m_system = expandTemplate(config.systemTemplate, config.variables, 0, seed);
        source->m_systemCount = source->tokens(source->m_system);
    }
    if (config.promptTokens > 0) {
        source->m_userTokens = std::max<std::int64_t>(
            1, local(std::max<std::int64_t>(1, config.promptTokens - calibration.overhead)) - calibration.trim);
        source->m_prefixTokens = std::min(local(config.sharedPrefixTokens), source->m_userTokens);
    }
    if (source->m_prefixTokens > 0) {
        source->m_prefix = source->synthetic(source->m_prefixTokens, 0x50EF1CULL);
        source->fit(source->m_prefix, source->m_prefixTokens, 0);
    }
    // The body leaves room for the request number (as many tokens in every request), so that no
    // request drops words of its own to fit: their counts in the target would differ.
    std::int64_t bodyTokens = source->m_userTokens - source->m_prefixTokens;
    if (const std::int64_t tagTokens = source->tokens(source->requestTag(0)); tagTokens <= bodyTokens)
        bodyTokens -= tagTokens;
    if (bodyTokens > 0) {
        source->m_body = source->synthetic(bodyTokens, 0xB0D1ULL);
        for (std::size_t i = 0; i < source->m_body.size(); ++i) {
            if (source->m_body[i] == ' ')
                source->m_bodyCuts.push_back(i);
        }
    }

    // The rows every request's k-th image shares, compressed once (PngImage).
    if (const auto size = parseImageSize(config.imageSize); size && config.images > 0) {
        for (int k = 0; k < std::min(config.images, limits::kMaxImages); ++k)
            source->m_images.emplace_back(size->first, size->second,
                                          mix(source->m_textSeed ^ mix(kImageSeeds - 1 - std::uint64_t(k))));
    }
    const bool dataset = !config.dataset.isEmpty();
    const QString path = !trace.isEmpty() ? trace : dataset ? config.dataset : config.promptFile;
    if (!path.isEmpty()) {
        WorkloadOptions options;
        options.promptLen = {config.promptLenMin, config.promptLenMax};
        options.outputLen = {config.outputLenMin, config.outputLenMax};
        options.sample = config.datasetSample;
        options.seed = seed;
        options.skipBadLines = config.skipBadLines;
        const WorkloadRole role = !trace.isEmpty() ? WorkloadRole::Trace
                                  : dataset        ? WorkloadRole::Dataset
                                                   : WorkloadRole::PromptFile;
        auto file = WorkloadFile::load(path, role, options, error);
        if (!file)
            return nullptr;
        source->m_stats = file->stats();
        source->m_entries = file->entries();
        source->m_trace = role == WorkloadRole::Trace;
    }
    return source;
}

std::string PromptSource::requestTag(std::uint64_t index) const
{
    // Zero-padded, so that every request's number is as many tokens in the vocabularies that split
    // numbers into digit groups (cl100k, o200k, Llama 3, Qwen) and in the local one, which would
    // not see the digit more of request 10 that a byte-heavy vocabulary counts.
    // (Appended piece by piece: GCC 12's -Wrestrict misfires on chains of string operator+.)
    std::string tag(m_prefix.empty() ? "#" : " #");
    const std::string number = std::to_string(index);
    tag.append(number.size() < kTagDigits ? kTagDigits - number.size() : 0, '0');
    tag += number;
    tag += ':';
    return tag;
}

void PromptSource::appendUnique(std::string &text, std::int64_t wanted, std::uint64_t index) const
{
    // A request number makes the text unique from here on.
    // (Appended piece by piece: GCC 12's -Wrestrict misfires on chains of string operator+.)
    std::string tag(1, '#');
    tag += std::to_string(index);
    tag += ':';
    const std::int64_t tagTokens = tokens(tag);
    const auto append = [&text](const std::string &piece) {
        if (!text.empty())
            text += ' ';
        text += piece;
    };
    if (wanted >= tagTokens) {
        append(tag);
        wanted -= tagTokens;
    }
    if (wanted > 0)
        append(synthetic(wanted, index + 1));
}

void PromptSource::saltFirstUserMessage(Prompt &p, std::uint64_t index) const
{
    char tag[24];
    std::snprintf(tag, sizeof tag, "[%016llx] ",
                  static_cast<unsigned long long>(mix(m_textSeed ^ mix(kSaltTags + index))));
    if (!p.messages.is_array()) {
        p.user.insert(0, tag);
        return;
    }
    for (nlohmann::json &message : p.messages) {
        if (!isUserMessage(message))
            continue;
        nlohmann::json &content = message["content"];
        if (content.is_string())
            content = tag + content.get<std::string>();
        else if (content.is_array()) // content parts: a text part of its own before them
            content.insert(content.begin(), nlohmann::json{{"type", "text"}, {"text", tag}});
        return;
    }
}

std::optional<std::int64_t> PromptSource::sharedTokens() const
{
    if (m_config.repeat)
        return std::nullopt;
    if (m_entries.empty())
        return m_systemCount + m_prefixTokens;
    std::int64_t most = 0;
    for (const WorkloadEntry &e : m_entries) {
        if (!e.hashIds.empty())
            return std::nullopt;
        Prompt shared;
        shared.system = e.system.empty() ? m_system : e.system;
        if (e.messages.is_array()) {
            shared.messages = nlohmann::json::array();
            for (const nlohmann::json &message : e.messages) {
                if (isUserMessage(message))
                    break;
                shared.messages.push_back(message);
            }
        }
        most = std::max(most, count(shared, *m_tokenizer));
    }
    return most;
}

PromptSource::ContextOverflow PromptSource::overContext(std::int64_t contextTokens, int maxTokens) const
{
    ContextOverflow o;
    const auto look = [&](std::int64_t prompt, int cap) {
        ++o.of;
        o.longest = std::max(o.longest, prompt + cap);
        if (prompt > contextTokens)
            ++o.promptAlone;
        else if (prompt + cap > contextTokens)
            ++o.withOutput;
    };
    if (m_entries.empty()) {
        const Prompt p = prompt(0);
        look(p.tokens, maxTokens);
        return o;
    }
    // The counts prompt() gives, without building a trace entry's text.
    const std::int64_t system = defaultSystemTokens();
    for (const WorkloadEntry &e : m_entries) {
        const int cap = entryMaxTokens(e);
        look(e.promptTokens + (e.system.empty() ? system : 0), cap > 0 ? cap : maxTokens);
    }
    return o;
}

QString PromptSource::ContextOverflow::warning(std::int64_t contextTokens) const
{
    if (promptAlone + withOutput == 0)
        return {};
    return QStringLiteral("%1 of %2 requests exceed the model's context of %3 tokens (%4 by the prompt alone, %5 with "
                          "their max_tokens; longest %6 tokens): the server will refuse them")
        .arg(promptAlone + withOutput)
        .arg(of)
        .arg(contextTokens)
        .arg(promptAlone)
        .arg(withOutput)
        .arg(longest);
}

std::int64_t PromptSource::defaultSystemTokens() const
{
    return m_systemCount;
}

int PromptSource::entryMaxTokens(const WorkloadEntry &e) const
{
    if (e.outputIsCap || (m_config.outputLenAsMaxTokens && e.outputTokens > 0))
        return int(std::max<std::int64_t>(1, e.outputTokens));
    return 0;
}

std::int64_t PromptSource::traceOffsetNs(std::uint64_t index) const
{
    if (!m_trace || index >= m_entries.size())
        return -1;
    return m_entries[index].timeNs - m_entries.front().timeNs;
}

Prompt PromptSource::prompt(std::uint64_t index) const
{
    // Repeated prompts: an entry's text as written, and one synthetic text for every request.
    if (m_config.repeat && m_entries.empty())
        return make(0, 1);
    return make(index, index + 1);
}

double PromptSource::unitDraw(std::uint64_t stream, std::uint64_t index) const
{
    // The top 53 bits: every double in [0, 1) at that spacing, none rounding up to 1.
    return double(mix(mix(m_textSeed ^ mix(stream)) ^ index) >> 11) * 0x1.0p-53;
}

std::string PromptSource::toolResult(std::uint64_t conversation, int turn, int call, std::int64_t tokens) const
{
    std::string text =
        synthetic(tokens, mix(mix(kToolResults ^ conversation) ^ std::uint64_t(turn)) ^ std::uint64_t(call));
    fit(text, tokens, 0);
    return text;
}

Prompt PromptSource::probe(std::uint64_t index) const
{
    return make(index, index + 1, Use::Probe);
}

void PromptSource::addImages(Prompt &prompt, std::uint64_t index) const
{
    // Repeated prompts repeat request 0's images too; else each request's are its own, so that
    // a server's cache of images (vLLM's multimodal cache) serves none of them.
    const std::uint64_t request = m_config.repeat ? 0 : index;
    for (std::size_t k = 0; k < m_images.size(); ++k) {
        const quint64 seed = mix(m_textSeed ^ mix(kImageSeeds + request * limits::kMaxImages + k));
        const QByteArray png = m_images[k].withOwnRows(seed);
        auto image = std::make_shared<PromptImage>();
        image->bytes = png.size();
        image->url = "data:image/png;base64,";
        image->url += png.toBase64().toStdString();
        prompt.images.push_back(std::move(image));
    }
}

Prompt PromptSource::make(std::uint64_t index, std::uint64_t rotation, Use use) const
{
    Prompt p;
    if (use == Use::Request) // a calibration probe measures text only
        addImages(p, index);
    if (!m_entries.empty()) {
        const WorkloadEntry &e = m_entries[index % m_entries.size()];
        p.system = e.system.empty() ? m_system : e.system;
        // The row's own images first, then any synthetic ones (--images).
        p.images.insert(p.images.begin(), e.images.begin(), e.images.end());
        if (e.synthetic) {
            // One text per hash id, the same in every request that names it (a prefix cache sees
            // the blocks shared); the block salts are apart from the unique texts' (index + 1).
            std::int64_t left = e.promptTokens;
            for (const std::uint64_t id : e.hashIds) {
                if (left <= 0)
                    break;
                const std::int64_t n = std::min(left, workloadlimits::kHashBlockTokens);
                if (!p.user.empty())
                    p.user += ' ';
                p.user += synthetic(n, id ^ 0xB10C'0000'0000'0000ULL);
                left -= n;
            }
            if (left > 0)
                appendUnique(p.user, left, index);
        } else {
            p.user = e.user;
            p.messages = e.messages;
            if (!m_config.repeat)
                saltFirstUserMessage(p, index);
        }
        p.maxTokens = entryMaxTokens(e);
        p.model = e.model;
    } else if (m_config.promptTokens > 0) {
        p.system = m_system;
        // After the shared prefix, a request number makes every prompt unique from there on.
        p.user = m_prefix;
        const std::string tag = requestTag(index);
        std::int64_t used = m_prefixTokens;
        if (const std::int64_t tagTokens = tokens(tag); used + tagTokens <= m_userTokens) {
            p.user += tag;
            used += tagTokens;
        }
        const std::size_t keep = p.user.size();
        if (m_userTokens > used) {
            if (!p.user.empty())
                p.user += ' ';
            // The run's body, rotated to start at a word of this request's own: texts differ
            // while their words, and so their count in any tokenizer, stay those the calibration
            // probes measured (fresh text per request varies by a few percent in a tokenizer
            // whose tokens per word are not the local one's).
            // A probe starts half a turn from the request with its number: a rotation of its own
            // drawn from the same few hundred cuts was now and then that request's, whose whole text
            // the probe then put in the server's cache (tst_runcli saw 13-23% cached).
            const std::size_t cuts = m_bodyCuts.size();
            const std::size_t at =
                cuts == 0
                    ? 0
                    : (std::size_t(mix(m_textSeed ^ mix(rotation)) % cuts) + (use == Use::Probe ? cuts / 2 : 0)) % cuts;
            const std::size_t cut = cuts == 0 ? 0 : m_bodyCuts[at];
            if (cut == 0) {
                p.user += m_body;
            } else {
                p.user.append(m_body, cut + 1);
                p.user += ' ';
                p.user.append(m_body, 0, cut);
            }
        }
        std::int64_t user = fit(p.user, m_userTokens, keep);
        if (m_calibration.pad > 0) // fillers only, after every word (keeping them all)
            user = fit(p.user, user + m_calibration.pad, p.user.size());
        p.tokens = m_systemCount + user;
        return p;
    } else {
        p.system = m_system;
        p.user = expandTemplate(m_config.userTemplate.isEmpty() ? QStringLiteral("Hello") : m_config.userTemplate,
                                m_config.variables, index, m_seed);
        if (!m_config.repeat)
            saltFirstUserMessage(p, index);
    }
    p.tokens = count(p, *m_tokenizer);
    return p;
}

Prompt PromptSource::batch(std::uint64_t index, int size, bool systemApart) const
{
    Prompt b;
    const auto n = std::uint64_t(std::max(size, 1));
    b.inputs.reserve(n);
    for (std::uint64_t k = 0; k < n; ++k) {
        Prompt one = prompt(index * n + k);
        if (systemApart) {
            if (k == 0)
                b.system = one.system;
            one.system.clear();
        }
        b.inputs.push_back(ApiDialect::promptText(one));
        b.tokens += one.tokens;
    }
    if (systemApart)
        b.tokens = count(b, *m_tokenizer);
    return b;
}

std::int64_t PromptSource::count(const Prompt &p, const Tokenizer &tokenizer)
{
    std::int64_t n = tokenizer.count(p.system) + tokenizer.count(p.user);
    for (const std::string &input : p.inputs)
        n += tokenizer.count(input);
    if (p.messages.is_array()) {
        for (const auto &message : p.messages) {
            const auto &content = message["content"];
            if (content.is_string())
                n += tokenizer.count(content.get_ref<const std::string &>());
            else if (content.is_array()) {
                for (const auto &part : content) {
                    if (part.is_object() && part.contains("text") && part["text"].is_string())
                        n += tokenizer.count(part["text"].get_ref<const std::string &>());
                }
            }
        }
    }
    return n;
}

} // namespace tb
