#pragma once

#include "api/prompt.h"
#include "config/runconfig.h"
#include "formats/pngimage.h"
#include "workload/workloadfile.h"

#include <QString>

#include <memory>
#include <vector>

namespace tb {

class Tokenizer;

/// How the target's count of a prompt relates to the local tokenizer's, from --calibrate:
/// target ≈ overhead + scale × local. The identity when not calibrated.
/// A local token of words may be several of the target's (a byte-heavy vocabulary), too coarse a
/// step to hit a size within 1%: the checks then take whole words off (`trim`) and add fillers
/// (`pad`), whose cost in the target's tokens they measure, to land within half a filler.
struct PromptCalibration {
    double scale = 1;
    std::int64_t overhead = 0; ///< tokens the chat template adds to every request
    std::int64_t trim = 0;     ///< local tokens of words taken off every user prompt
    std::int64_t pad = 0;      ///< fillers appended to every user prompt
    bool operator==(const PromptCalibration &) const = default;
};

/// Produces the prompt of request i, deterministically for a seed. Immutable after construction, so
/// worker threads share one instance.
///
/// Sources, first match wins: a workload file — prompt file, dataset or trace (entry i mod entries;
/// a trace entry's text is built to its input length, one block of text per hash id so that equal
/// ids give equal prefixes, unique after them) — synthetic text of exactly prompt_tokens tokens
/// drawn from an embedded corpus — unique per request after an optional shared prefix (the request
/// number, then the run's text rotated to a word of its own), so server prefix caches do not hide
/// prefill — or the user template. Templates substitute {{name}} from the configured variables and
/// the built-ins {{index}} (request number) and {{seed}}. A synthetic system prompt of
/// system_tokens tokens is the same for every request, like a real system instruction.
///
/// Every request's prompt is its own, whatever the source: a file's entries and templates get a
/// salt tag (from the run's salt and the request number) at the start of their first user
/// message, after what requests share by design (system prompt, a file's system messages), so
/// a prefix cache serves only that. prompt.repeat turns this off: entries and templates are sent
/// as written and every synthetic request sends request 0's text, so repeats hit the cache.
///
/// Sizes are in the given tokenizer (ApproxTokenizer when none): exact, measured on the finished
/// text. A calibration maps the requested sizes to local ones, so the target's own count (chat
/// template included) is system_tokens + prompt_tokens. All synthetic text — system prompt, shared
/// prefix, user prompts — also derives from the configured salt, so runs with different salts share
/// no prefix a server could have cached.
class PromptSource
{
public:
    /// Loads the workload file if one is configured (`trace`: LoadConfig::trace); on failure
    /// returns nullptr and sets *error to a message naming the file and line.
    static std::shared_ptr<const PromptSource> create(const PromptConfig &config, quint64 seed, QString *error,
                                                      std::shared_ptr<const Tokenizer> tokenizer = nullptr,
                                                      const PromptCalibration &calibration = {},
                                                      const QString &trace = {});

    Prompt prompt(std::uint64_t index) const;
    /// Request `index`'s batch of `size` inputs (embeddings): the prompts index × size … +size−1,
    /// each as one text (ApiDialect::promptText), so every input is a prompt of its own.
    /// `systemApart` (rerank): the system prompt once, as the batch's system text (the query),
    /// and the inputs without it.
    Prompt batch(std::uint64_t index, int size, bool systemApart = false) const;
    /// What calibration sends for request `index`: its size, its number and the run's words, in
    /// another order than that request's (others have other numbers), so probing warms no cache
    /// for the run's user text.
    Prompt probe(std::uint64_t index) const;
    /// The result a conversation's (--turns with --tools) next turn sends for call `call` of turn
    /// `turn`'s reply: synthetic text of exactly `tokens` tokens in the sizing tokenizer, from the
    /// run's salt, its own for each conversation, turn and call.
    std::string toolResult(std::uint64_t conversation, int turn, int call, std::int64_t tokens) const;
    std::size_t fileLines() const { return m_entries.size(); }
    /// Whether a workload file was read, and what it kept and dropped.
    const std::optional<WorkloadStats> &workloadStats() const { return m_stats; }
    const std::vector<WorkloadEntry> &entries() const { return m_entries; }
    /// Tokens of the system prompt sent with entries that have none of their own.
    std::int64_t defaultSystemTokens() const;
    /// The most tokens a request's prompt shares with other requests by design, in the sizing
    /// tokenizer: system prompt and shared prefix, or an entry's system prompt and messages before
    /// its first user message (the rest is salted). None when requests repeat one another by
    /// design: prompt.repeat, or a trace's hash blocks.
    std::optional<std::int64_t> sharedTokens() const;
    /// Requests whose prompt, or prompt plus max_tokens (the entry's, else `maxTokens`), exceed a
    /// context of `contextTokens`: the server refuses them. Counted over the file's entries once
    /// (or the one synthetic size).
    struct ContextOverflow {
        std::int64_t promptAlone = 0; ///< the prompt by itself is longer
        std::int64_t withOutput = 0;  ///< only with its max_tokens
        std::int64_t of = 0;          ///< requests looked at
        std::int64_t longest = 0;     ///< longest prompt + max_tokens
        /// "" when none; else "3 of 500 requests exceed the model's context of 2048 tokens …"
        QString warning(std::int64_t contextTokens) const;
    };
    ContextOverflow overContext(std::int64_t contextTokens, int maxTokens) const;
    /// A trace: entry i is due traceOffsetNs(i) after the first (unscaled); -1 past the end.
    bool isTrace() const { return m_trace; }
    std::int64_t traceOffsetNs(std::uint64_t index) const;

    /// Draw `index` of the run's stream `stream` of uniform numbers in [0, 1), from the salted seed:
    /// the same run and salt draw the same numbers on every platform (what a workload chooses per
    /// request by chance, e.g. which requests --cancel-rate abandons).
    double unitDraw(std::uint64_t stream, std::uint64_t index) const;
    const Tokenizer &tokenizer() const { return *m_tokenizer; }
    std::shared_ptr<const Tokenizer> sharedTokenizer() const { return m_tokenizer; }
    /// Everything the model reads of a prompt (system, user, messages' text, a batch's inputs), in
    /// `tokenizer`.
    static std::int64_t count(const Prompt &prompt, const Tokenizer &tokenizer);
    const PromptCalibration &calibration() const { return m_calibration; }
    /// The synthetic sizes in the local tokenizer after calibration (0 when not synthetic).
    std::int64_t localSystemTokens() const { return m_systemCount; }
    std::int64_t localPromptTokens() const { return m_userTokens + m_calibration.pad; }
    /// The user variables a template uses ({{name}} placeholders other than the built-ins), in order.
    static QStringList templateVariables(const QString &text);
    /// Replaces {{name}} placeholders; unknown names are left as they are.
    static std::string expandTemplate(const QString &text, const QMap<QString, QString> &variables, std::uint64_t index,
                                      quint64 seed);

private:
    PromptSource() = default;
    enum class Use { Request, Probe };
    /// Request `index`'s prompt; its synthetic body rotated as `rotation` draws it, or half a turn
    /// from there for a calibration probe.
    Prompt make(std::uint64_t index, std::uint64_t rotation, Use use = Use::Request) const;

    /// Request `index`'s synthetic images (prompt.images, --images): PNGs whose first rows are
    /// drawn from the salted seed, the request and their place (m_images has the rest).
    void addImages(Prompt &prompt, std::uint64_t index) const;
    /// Synthetic text of `tokens` tokens, the first word without its space; different for each `salt`
    /// and each run (m_textSeed).
    std::string synthetic(std::int64_t tokens, std::uint64_t salt) const;
    /// Makes text exactly `target` tokens long by the tokenizer, adding or dropping words after
    /// `keep` bytes; returns its count.
    std::int64_t fit(std::string &text, std::int64_t target, std::size_t keep) const;
    std::int64_t tokens(const std::string &text) const;

    PromptConfig m_config;
    std::shared_ptr<const Tokenizer> m_tokenizer;
    PromptCalibration m_calibration;
    std::vector<std::int64_t> m_wordTokens; ///< each corpus word's tokens (with its space)
    std::string_view m_filler;              ///< text that adds one token
    std::int64_t m_systemCount = 0;
    std::int64_t m_prefixTokens = 0;
    std::int64_t m_userTokens = 0; ///< the whole synthetic user prompt but its pad, local tokens
    quint64 m_seed = 0;
    quint64 m_textSeed = 0;              ///< the seed salted with PromptConfig::salt: what synthetic text derives from
    std::string m_system;                ///< the synthetic or template system prompt, same for all requests
    std::string m_prefix;                ///< shared synthetic prefix
    std::string m_body;                  ///< the synthetic user text every request sends a rotation of
    std::vector<std::size_t> m_bodyCuts; ///< m_body's spaces: where a rotation may start
    std::vector<WorkloadEntry> m_entries;
    std::optional<WorkloadStats> m_stats;
    bool m_trace = false;
    std::vector<PngImage> m_images; ///< --images: the k-th image's shared rows, compressed once

    /// "#000042:" after the shared prefix (" #000042:" when there is one).
    std::string requestTag(std::uint64_t index) const;
    /// Appends ' ' (when not at the start) and "#index:" plus synthetic text: `wanted` tokens that
    /// no other request of the run shares.
    void appendUnique(std::string &text, std::int64_t wanted, std::uint64_t index) const;
    /// Puts request `index`'s salt tag ("[16 hex digits] ", from the salted seed and the index) at
    /// the start of the prompt's first user message.
    void saltFirstUserMessage(Prompt &prompt, std::uint64_t index) const;
    /// The entry's own max_tokens (Prompt::maxTokens); 0: the configured one.
    int entryMaxTokens(const WorkloadEntry &e) const;
};

} // namespace tb
