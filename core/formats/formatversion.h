#pragma once

// The head every JSON file of ours starts with — {"format": "tokenbench-run", "format_version": 1,
// …} — checked one way for run.json, summary.json and session.json.

#include <QString>

#include <nlohmann/json.hpp>

namespace tb {

/// "written by a newer format version 3 (this build reads up to 1)".
QString newerFormatVersion(int version, int readsUpTo);
/// Empty when `json` is an object of `format` at a format_version up to `readsUpTo`; else why not
/// ("not a JSON object", "format: not \"tokenbench-run\"", "format_version: missing", or
/// newerFormatVersion()).
QString checkFormatHead(const nlohmann::json &json, const char *format, int readsUpTo);

} // namespace tb
