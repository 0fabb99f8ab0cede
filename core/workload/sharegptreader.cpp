#include "workload/sharegptreader.h"

namespace tb {

bool sharegpt::isHumanRole(const std::string &from)
{
    return from == "human" || from == "user";
}

bool sharegpt::isReplyRole(const std::string &from)
{
    return from == "gpt" || from == "assistant" || from == "chatgpt" || from == "bard" || from == "bing" ||
           from == "model";
}

namespace {

const char *kindOfShareGpt(const nlohmann::json &j, const EntryFields &)
{
    return j.contains("conversations") ? "sharegpt" : nullptr;
}

Parsed readShareGpt(const nlohmann::json &j, WorkloadRole, EntryFields &, WorkloadEntry &e, QString &why)
{
    const nlohmann::json &turns = j.at("conversations");
    if (!turns.is_array()) {
        why = QStringLiteral("\"conversations\" must be an array of {\"from\", \"value\"} turns");
        return Parsed::Bad;
    }
    for (std::size_t k = 0; k < turns.size(); ++k) {
        const auto &t = turns[k];
        if (!t.is_object() || !t.contains("from") || !t["from"].is_string() || !t.contains("value") ||
            !t["value"].is_string()) {
            why = QStringLiteral("conversations[%1] needs \"from\" and \"value\" strings").arg(k);
            return Parsed::Bad;
        }
    }
    for (std::size_t k = 0; k < turns.size(); ++k) {
        const std::string &from = turns[k]["from"].get_ref<const std::string &>();
        if (from == "system" && e.user.empty()) {
            e.system += turns[k]["value"].get<std::string>();
            continue;
        }
        if (!sharegpt::isHumanRole(from))
            continue;
        e.user = turns[k]["value"].get<std::string>();
        if (k + 1 < turns.size() && sharegpt::isReplyRole(turns[k + 1]["from"].get_ref<const std::string &>()))
            e.outputTokens = approxTokens(turns[k + 1]["value"].get_ref<const std::string &>());
        e.promptTokens = approxTokens(e.system) + approxTokens(e.user);
        return Parsed::Ok;
    }
    return Parsed::NoPrompt;
}

} // namespace

const JsonEntryReader kShareGptReader{&kindOfShareGpt, &readShareGpt};

} // namespace tb
