#pragma once

#include "workload/jsonworkloadreader.h"

namespace tb {

/// ShareGPT (--dataset, kind "sharegpt"): {"conversations": [{"from": "human", "value": …},
/// {"from": "gpt", "value": …}, …]}; the first human turn is the prompt (with the system turns
/// before it), the reply after it the recorded output. A conversation without a human turn is
/// dropped and counted, as vLLM does.
class ShareGptReader final : public JsonEntryReader
{
public:
    const char *kindOf(const nlohmann::json &j, const EntryFields &fields) const override;
    Parsed read(const nlohmann::json &j, WorkloadRole role, EntryFields &fields, WorkloadEntry &e,
                QString &why) const override;

    /// The roles ShareGPT's "from" (and a chat's "role") give the asker and the replier.
    static bool isHumanRole(const std::string &from);
    static bool isReplyRole(const std::string &from);
};

} // namespace tb
