#pragma once

#include "config/runconfig.h"

#include <QString>

#include <memory>
#include <vector>

namespace tb {

/// One request's prompt. Either system/user text, or a full chat `messages` array (JSONL files).
struct Prompt {
    std::string system;
    std::string user;
    nlohmann::json messages; ///< non-null only for {"messages": [...]} prompt-file lines
    std::int64_t tokens = 0; ///< ApproxTokenizer count of everything the model reads
};

/// Produces the prompt of request i, deterministically for a seed. Immutable after construction, so
/// worker threads share one instance.
///
/// Sources, first match wins: a JSONL prompt file (line i mod lines), synthetic text of exactly
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
    /// Loads the prompt file if one is configured; on failure returns nullptr and sets *error to a
    /// message naming the file and line.
    static std::shared_ptr<const PromptSource> create(const PromptConfig &config, quint64 seed, QString *error);

    Prompt prompt(std::uint64_t index) const;
    std::size_t fileLines() const { return m_lines.size(); }

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
    quint64 m_textSeed = 0; ///< the seed salted with PromptConfig::salt: what synthetic text derives from
    std::string m_system;   ///< the synthetic or template system prompt, same for all requests
    std::string m_prefix;   ///< shared synthetic prefix
    std::vector<Prompt> m_lines;
};

} // namespace tb
