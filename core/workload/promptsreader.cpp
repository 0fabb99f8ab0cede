#include "workload/promptsreader.h"

#include "workload/sharegptreader.h"

#include <algorithm>

namespace tb {

namespace {

/// The text of a chat message's content: a string, or the text parts of a content array.
std::int64_t contentTokens(const nlohmann::json &content)
{
    if (content.is_string())
        return approxTokens(content.get_ref<const std::string &>());
    std::int64_t n = 0;
    if (content.is_array()) {
        for (const auto &part : content) {
            if (part.is_object() && part.contains("text") && part["text"].is_string())
                n += approxTokens(part["text"].get_ref<const std::string &>());
        }
    }
    return n;
}

Parsed chatMessages(const nlohmann::json &messages, WorkloadRole role, WorkloadEntry &e, QString &why)
{
    if (!messages.is_array() || messages.empty()) {
        why = QStringLiteral("\"messages\" must be a non-empty array");
        return Parsed::Bad;
    }
    for (const auto &m : messages) {
        if (!m.is_object() || !m.contains("role") || !m["role"].is_string() || !m.contains("content")) {
            why = QStringLiteral("each message needs \"role\" and \"content\"");
            return Parsed::Bad;
        }
    }
    std::size_t end = messages.size();
    if (role == WorkloadRole::Dataset) {
        const auto user = std::find_if(messages.begin(), messages.end(), [](const auto &m) {
            return sharegpt::isHumanRole(m["role"].template get<std::string>());
        });
        if (user == messages.end())
            return Parsed::NoPrompt;
        end = std::size_t(user - messages.begin()) + 1;
        if (end < messages.size() && sharegpt::isReplyRole(messages[end]["role"].get<std::string>()))
            e.outputTokens = contentTokens(messages[end]["content"]);
    }
    e.messages = nlohmann::json::array();
    for (std::size_t k = 0; k < end; ++k) {
        e.messages.push_back(messages[k]);
        e.promptTokens += contentTokens(messages[k]["content"]);
    }
    return Parsed::Ok;
}

const char *kindOfPrompts(const nlohmann::json &j, const EntryFields &)
{
    if (j.contains("messages"))
        return "messages";
    if (const auto p = j.find("prompt"); p != j.end() && p->is_string())
        return "prompts";
    return nullptr;
}

Parsed readPrompts(const nlohmann::json &j, WorkloadRole role, EntryFields &, WorkloadEntry &e, QString &why)
{
    if (const auto m = j.find("messages"); m != j.end())
        return chatMessages(*m, role, e, why);
    e.user = j.at("prompt").get<std::string>();
    e.promptTokens = approxTokens(e.user);
    return Parsed::Ok;
}

} // namespace

const JsonEntryReader kPromptsReader{&kindOfPrompts, &readPrompts};

} // namespace tb
