#include "engine/promptsource.h"

#include "metrics/tokenizer.h"

#include <QFile>
#include <QRegularExpression>

#include <array>

namespace tb {

namespace {

// Written for TokenBench: plain sentences about measuring services, so synthetic prompts read like
// text rather than noise.
constexpr std::array kCorpus{
    "The team measured how long each request waited before the first token arrived.",
    "A queue forms when requests arrive faster than the server can start them.",
    "Latency percentiles tell a different story from the average, especially at the tail.",
    "Every service has a point where more load only adds waiting time.",
    "The report compares three deployments under the same workload and the same prompts.",
    "Short prompts reach the first token quickly, while long contexts spend more time in prefill.",
    "Batching lets the server advance many sequences with one step of the model.",
    "When the batch grows, each step takes a little longer for every user.",
    "Goodput counts only the requests that met every target the team agreed on.",
    "An open loop keeps sending at the planned rate even when responses slow down.",
    "A closed loop waits for each answer before the next question is asked.",
    "Cached prefixes make repeated instructions cheaper to process.",
    "The dashboard shows throughput, latency and errors as the test runs.",
    "Engineers often need a chart for the afternoon meeting, not a notebook.",
    "Streaming responses show progress early, so users feel the service is fast.",
    "A rate limit answers with a polite refusal and a hint about when to retry.",
    "Timeouts protect the client, but they also hide how slow the slowest requests were.",
    "Each measurement is stamped on a monotonic clock before any parsing happens.",
    "The output tokens per second depend on both the model and the number of users.",
    "Some servers pack several tokens into one event to save bandwidth.",
    "A fair comparison sends the same requests to every model in the same order.",
    "Warm-up requests fill caches and connection pools before the measured window starts.",
    "Tail latency grows quickly once the queue starts to build up.",
    "Capacity planning asks how many users one instance can serve within the target.",
    "Load balancing spreads requests across several instances of the same model.",
    "Reasoning models think before they answer, which delays the first visible token.",
    "Input and output token counts decide most of the cost of a request.",
    "A multi-turn conversation sends the growing history with every new question.",
    "Errors are counted by status and by class, so a spike is easy to explain.",
    "The histogram keeps every percentile within one percent of the exact value.",
    "Throughput rises with concurrency until the server saturates and latency climbs.",
    "Prefill time grows with the length of the prompt and the size of the model.",
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

struct Word {
    std::string text; ///< with its leading space
    std::int64_t tokens;
};

const std::vector<Word> &corpusWords()
{
    static const std::vector<Word> words = [] {
        std::vector<Word> out;
        for (const char *sentence : kCorpus) {
            for (const QString &w : QString::fromLatin1(sentence).split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
                std::string text(1, ' ');
                text += w.toStdString();
                out.push_back({text, ApproxTokenizer::countUtf8(text.data(), text.size())});
            }
        }
        return out;
    }();
    return words;
}

} // namespace

std::string PromptSource::syntheticText(std::int64_t tokens, std::uint64_t seed, std::uint64_t salt)
{
    const std::vector<Word> &words = corpusWords();
    std::string text;
    text.reserve(std::size_t(tokens) * 5);
    std::uint64_t state = mix(seed ^ mix(salt));
    // Start at a random sentence-aligned word and walk the corpus; jump elsewhere now and then so
    // long prompts do not repeat one cycle.
    std::size_t at = std::size_t(state % words.size());
    std::int64_t left = tokens;
    while (left > 0) {
        const Word &w = words[at];
        if (w.tokens <= left) {
            text += w.text;
            left -= w.tokens;
        } else {
            text += " a"; // one token: fills the remainder exactly
            left -= 1;
        }
        if (++at == words.size() || (state = mix(state)) % 97 == 0)
            at = std::size_t(mix(state) % words.size());
    }
    if (!text.empty())
        text.erase(0, 1); // no leading space
    return text;
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

std::shared_ptr<const PromptSource> PromptSource::create(const PromptConfig &config, quint64 seed, QString *error)
{
    std::shared_ptr<PromptSource> source(new PromptSource);
    source->m_config = config;
    source->m_seed = seed;
    source->m_textSeed = saltedSeed(seed, config.salt);
    if (config.systemTokens > 0)
        source->m_system = syntheticText(config.systemTokens, source->m_textSeed, 0x5157E4ULL);
    else if (!config.systemTemplate.isEmpty())
        source->m_system = expandTemplate(config.systemTemplate, config.variables, 0, seed);
    if (config.sharedPrefixTokens > 0)
        source->m_prefix = syntheticText(config.sharedPrefixTokens, source->m_textSeed, 0x50EF1CULL);

    if (!config.promptFile.isEmpty()) {
        QFile file(config.promptFile);
        if (!file.open(QIODevice::ReadOnly)) {
            if (error)
                *error = QStringLiteral("prompt file '%1': %2").arg(config.promptFile, file.errorString());
            return nullptr;
        }
        int lineNumber = 0;
        while (!file.atEnd()) {
            const QByteArray line = file.readLine().trimmed();
            ++lineNumber;
            if (line.isEmpty())
                continue;
            const auto fail = [&](const QString &why) {
                if (error)
                    *error =
                        QStringLiteral("prompt file '%1' line %2: %3").arg(config.promptFile).arg(lineNumber).arg(why);
                return nullptr;
            };
            nlohmann::json json =
                nlohmann::json::parse(line.constData(), line.constData() + line.size(), nullptr, false);
            if (json.is_discarded() || !json.is_object())
                return fail(QStringLiteral("not a JSON object"));
            Prompt p;
            if (auto it = json.find("prompt"); it != json.end() && it->is_string()) {
                p.user = it->get<std::string>();
            } else if (auto m = json.find("messages"); m != json.end() && m->is_array() && !m->empty()) {
                for (const auto &message : *m) {
                    if (!message.is_object() || !message.contains("role") || !message.contains("content"))
                        return fail(QStringLiteral("each message needs \"role\" and \"content\""));
                }
                p.messages = *m;
            } else {
                return fail(QStringLiteral("expected {\"prompt\": \"...\"} or {\"messages\": [...]}"));
            }
            if (auto s = json.find("system"); s != json.end() && s->is_string())
                p.system = s->get<std::string>();
            source->m_lines.push_back(std::move(p));
        }
        if (source->m_lines.empty()) {
            if (error)
                *error = QStringLiteral("prompt file '%1': no prompts in it").arg(config.promptFile);
            return nullptr;
        }
    }
    return source;
}

Prompt PromptSource::prompt(std::uint64_t index) const
{
    Prompt p;
    if (!m_lines.empty()) {
        p = m_lines[index % m_lines.size()];
        if (p.system.empty())
            p.system = m_system;
    } else if (m_config.promptTokens > 0) {
        p.system = m_system;
        // After the shared prefix, a request number makes every prompt unique from there on.
        // (Appended piece by piece: GCC 12's -Wrestrict misfires on chains of string operator+.)
        std::string tag(1, '#');
        tag += std::to_string(index);
        tag += ':';
        const std::int64_t tagTokens = ApproxTokenizer::countUtf8(tag.data(), tag.size());
        std::int64_t left = m_config.promptTokens - m_config.sharedPrefixTokens;
        p.user = m_prefix;
        const auto append = [&p](const std::string &piece) {
            if (!p.user.empty())
                p.user += ' ';
            p.user += piece;
        };
        if (left >= tagTokens) {
            append(tag);
            left -= tagTokens;
        }
        if (left > 0)
            append(syntheticText(left, m_textSeed, index + 1));
    } else {
        p.system = m_system;
        p.user = expandTemplate(m_config.userTemplate.isEmpty() ? QStringLiteral("Hello") : m_config.userTemplate,
                                m_config.variables, index, m_seed);
    }
    const auto count = [](const std::string &s) { return ApproxTokenizer::countUtf8(s.data(), s.size()); };
    p.tokens = count(p.system) + count(p.user);
    if (p.messages.is_array()) {
        for (const auto &message : p.messages) {
            const auto &content = message["content"];
            if (content.is_string())
                p.tokens += count(content.get_ref<const std::string &>());
            else if (content.is_array()) {
                for (const auto &part : content) {
                    if (part.is_object() && part.contains("text") && part["text"].is_string())
                        p.tokens += count(part["text"].get_ref<const std::string &>());
                }
            }
        }
    }
    return p;
}

} // namespace tb
