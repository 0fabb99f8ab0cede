#pragma once

#include "config/runconfig.h"
#include "formats/jsonschema.h"
#include "metrics/requestrecord.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tb {

struct ToolCallTexts;

/// The tools a run offers (--tools): read once from an OpenAI chat tools file, each tool's
/// parameters compiled for the check of the calls that come back (formats/jsonschema.h), and
/// written into each API's request body by its dialect (ApiDialect::writeTools).
class ToolSet
{
public:
    static constexpr qint64 kMaxFileBytes = qint64(1) << 20; ///< the file goes with every request
    static constexpr std::size_t kMaxTools = 128;            ///< OpenAI's own limit

    struct Tool {
        std::string name;
        std::string description;
        nlohmann::json parameters; ///< a JSON Schema object; {"type": "object"} when the file gives none
        std::shared_ptr<const JsonSchema> schema;
    };

    /// The tools of a file's JSON, an array of {"type": "function", "function": {name,
    /// description, parameters}}: nullopt with *why when it is not that, a name is not 1 to 64 of
    /// [A-Za-z0-9_-] or is given twice, a description is not a string, or parameters do not compile.
    static std::optional<ToolSet> fromJson(const nlohmann::json &json, QString *why);
    /// The file's tools (config/inputfile.h's rules, at most kMaxFileBytes), and the choice
    /// checked against them: *why names the file or the choice.
    static std::optional<ToolSet> load(const QString &path, const ToolChoice &choice, QString *why);

    const std::vector<Tool> &tools() const { return m_tools; }
    const Tool *find(std::string_view name) const;
    const ToolChoice &choice() const { return m_choice; }

    /// The check of a response's calls: the worst of them (RequestRecord::toolCallCheck).
    ToolCallCheck check(const ToolCallTexts &calls) const;

private:
    std::vector<Tool> m_tools;
    ToolChoice m_choice;
};

} // namespace tb
