#pragma once

// The JSON pieces the simulator's APIs (SimApi) share: checked readers of a request body's
// fields, whose refusals are the ApiErrors a real server sends, and SSE event writing.

#include "sim/simprotocol.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tb::sim {

/// Either a value or the reason the request is refused.
template<typename T> using Checked = std::variant<T, ApiError>;

/// A 400 for a parameter.
ApiError invalid(std::string param, std::string message);
/// A JSON string, safely quoted.
std::string jsonString(std::string_view s);
/// The member, or nullptr when it is absent or null.
const nlohmann::json *member(const nlohmann::json &object, const char *key);
Checked<bool> optionalBool(const nlohmann::json &object, const char *key, bool fallback);
/// An integer >= min, or nullopt when absent.
Checked<std::optional<qint64>> optionalInt(const nlohmann::json &object, const char *key, qint64 min);
/// Text of a content value: a string, or an array of parts whose text parts count; with
/// `request`, its image parts are read into it (SimImage::read).
Checked<std::string> contentText(const nlohmann::json &content, const std::string &param,
                                 GenerationRequest *request = nullptr);
/// Appends a text to the prompt, '\n' between (which is no token).
void appendPrompt(std::string &prompt, const std::string &text);
/// A chat's `messages`: each role one of `roles`, each content's text appended to the request's
/// prompt and its images read; contentRequired: a message without content is refused.
std::optional<ApiError> readMessages(const nlohmann::json &body, const std::vector<std::string> &roles,
                                     bool contentRequired, GenerationRequest &request);
/// "event: NAME\ndata: JSON\n\n"
void appendEvent(std::string &out, const char *name, const nlohmann::json &data);

} // namespace tb::sim
