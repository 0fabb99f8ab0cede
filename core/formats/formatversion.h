#pragma once

// The head every JSON file of ours starts with — {"format": "tokenbench-run", "format_version": 1,
// …} — checked one way for run.json, summary.json and session.json.

#include <QString>

#include <nlohmann/json.hpp>

#include <cstdint>

namespace tb {

/// "written by a newer format version 3 (this build reads up to 1)".
QString newerFormatVersion(int version, int readsUpTo);
/// Empty when `json` is an object of `format` at a format_version up to `readsUpTo`; else why not
/// ("not a JSON object", "format: not \"tokenbench-run\"", "format_version: missing", or
/// newerFormatVersion()).
QString checkFormatHead(const nlohmann::json &json, const char *format, int readsUpTo);

// A field that an older or damaged file of ours may lack or hold wrongly, read one way: such a
// file still loads, the field empty.
/// The string under `key` of `object`; empty when it is absent or not a string.
QString lenientString(const nlohmann::json &object, const char *key);
/// The whole number under `key` of `object`; 0 when it is absent or not a whole number.
std::int64_t lenientInteger(const nlohmann::json &object, const char *key);

} // namespace tb
