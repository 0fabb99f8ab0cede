#pragma once

#include <QString>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>

namespace tb {

/// A JSON Schema of the subset TokenBench checks generated output against (docs/metrics.md
/// "Structured output"): type (object, array, string, number, integer, boolean, null, or an array
/// of them), properties, required, additionalProperties (false or a schema), items, enum, const,
/// minimum, maximum, minLength, maxLength, minItems, maxItems. Every other keyword is ignored (the
/// check is then looser than the server's, never stricter). compile() bounds what a hostile schema
/// can cost: its nesting and its number of schemas; a value is only walked where the schema goes.
class JsonSchema
{
public:
    static constexpr int kMaxDepth = 32;               ///< levels of schemas in schemas, the root the first
    static constexpr std::size_t kMaxSchemas = 10'000; ///< schemas in all (the root, each property's, items')

    /// nullopt with *why ("properties.name.type: 'text' is not a JSON type") when the schema is
    /// neither an object nor a boolean, nests deeper than kMaxDepth, has more than kMaxSchemas
    /// schemas, or gives a keyword of the subset a value of the wrong kind.
    static std::optional<JsonSchema> compile(const nlohmann::json &schema, QString *why);

    /// Empty when `value` is valid; else the first violation found, with the path to it
    /// ("$.items[2].id: not an integer").
    QString violation(const nlohmann::json &value) const;

    const nlohmann::json &json() const { return m_schema; }

private:
    explicit JsonSchema(nlohmann::json schema)
        : m_schema(std::move(schema))
    {}

    nlohmann::json m_schema;
};

} // namespace tb
