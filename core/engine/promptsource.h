#pragma once

#include "config/runconfig.h"
#include "engine/workloadfile.h"

#include <QString>

#include <memory>
#include <vector>

namespace tb {

/// One request's prompt. Either system/user text, or a full chat `messages` array (JSONL files).
struct Prompt {
    std::string system;
    std::string user;
    nlohmann::json messages;   ///< non-null only for {"messages": [...]} prompt-file lines
    std::int64_t tokens = 0;   ///< ApproxTokenizer count of everything the model reads
    int maxTokens = 0;         ///< this request's output cap from its workload entry; 0: request.max_tokens
};

/// Produces the prompt of request i, deterministically for a seed. Immutable after construction, so
/// worker threads share one instance.
///
/// Sources, first match wins: a workload file — prompt file, dataset or trace (entry i mod entries;
/// a trace entry's text is built to its input length, one block of text per hash id so that equal
/// ids give equal prefixes, unique after them) — synthetic text of exactly
/// prompt_tokens tokens (by ApproxTokenizer) drawn from an embedded corpus — unique per request
/// after an optional shared prefix, so server prefix caches do not hide prefill — or the user
/// template. Templates substitute {{name}} from the configured variables and the built-ins
/// {{index}} (request number) and {{seed}}. A synthetic system prompt of system_tokens tokens is the
/// same for every request, like a real system instruction. All synthetic text — system prompt,
/// shared prefix, user prompts — also derives from the configured salt, so runs with different
/// salts share no prefix a server could have cached; prompt files and templates are sent as written.
class PromptSource
{
public:
    /// Loads the workload file if one is configured (`trace`: LoadConfig::trace); on failure
    /// returns nullptr and sets *error to a message naming the file and line.
    static std::shared_ptr<const PromptSource> create(const PromptConfig &config, quint64 seed, QString *error,
                                                      const QString &trace = {});

    Prompt prompt(std::uint64_t index) const;
    std::size_t fileLines() const { return m_entries.size(); }
    /// Whether a workload file was read, and what it kept and dropped.
    const std::optional<WorkloadStats> &workloadStats() const { return m_stats; }
    const std::vector<WorkloadEntry> &entries() const { return m_entries; }
    /// Tokens of the system prompt sent with entries that have none of their own.
    std::int64_t defaultSystemTokens() const;
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

    /// Synthetic text of exactly `tokens` ApproxTokenizer tokens; different for each (seed, salt).
    static std::string syntheticText(std::int64_t tokens, std::uint64_t seed, std::uint64_t salt);
    /// The user variables a template uses ({{name}} placeholders other than the built-ins), in order.
    static QStringList templateVariables(const QString &text);
    /// Replaces {{name}} placeholders; unknown names are left as they are.
    static std::string expandTemplate(const QString &text, const QMap<QString, QString> &variables, std::uint64_t index,
                                      quint64 seed);

private:
    PromptSource() = default;

    PromptConfig m_config;
    quint64 m_seed = 0;
    quint64 m_textSeed = 0;    ///< the seed salted with PromptConfig::salt: what synthetic text derives from
    std::string m_system;      ///< the synthetic or template system prompt, same for all requests
    std::string m_prefix;      ///< shared synthetic prefix
    std::vector<WorkloadEntry> m_entries;
    std::optional<WorkloadStats> m_stats;
    bool m_trace = false;

    /// Appends ' ' (when not at the start) and "#index:" plus synthetic text: `tokens` tokens that
    /// no other request of the run shares.
    void appendUnique(std::string &text, std::int64_t tokens, std::uint64_t index) const;
    /// The entry's own max_tokens (Prompt::maxTokens); 0: the configured one.
    int entryMaxTokens(const WorkloadEntry &e) const;
};

} // namespace tb
