#pragma once

#include <QtGlobal>

#include <nlohmann/json.hpp>

#include <string>

namespace tb::sim {

/// The simulator's structured output: JSON text valid for a request's schema (the subset the
/// client checks, formats/jsonschema.h), drawn from a seed so that a run can be repeated, and a
/// way to break it for --invalid-json-rate. Bounded against hostile schemas from the wire: nesting
/// past kMaxDepth writes null, and once kMaxValues values are written arrays stop at minItems
/// (capped at kMaxItems) — the output may then not be valid for such a schema.
class SchemaOutput
{
public:
    static constexpr int kMaxDepth = 32;
    static constexpr int kMaxValues = 10'000;
    static constexpr quint64 kMaxItems = 1000;

    /// Compact JSON text valid for `schema`; a null schema (json_object) gives an object of a few
    /// words. Only ASCII: a cut anywhere leaves whole characters.
    static std::string generate(const nlohmann::json &schema, quint64 seed);
    /// Makes valid JSON text invalid as a reply cut short is: its closing bracket or quote goes,
    /// and a bare number, true, false or null gets a trailing comma.
    static void breakJson(std::string &text);
    /// Whether the `k`-th structured request (1-based) of a server breaking a share `rate` is
    /// broken: when ⌊k·rate⌋ passes a whole number, so that after n requests exactly ⌊n·rate⌋ are.
    static bool brokenAt(quint64 k, double rate);
};

} // namespace tb::sim
