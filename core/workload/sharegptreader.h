#pragma once

#include "workload/jsonworkloadreader.h"

namespace tb {

/// ShareGPT (--dataset, kind "sharegpt"): {"conversations": [{"from": "human", "value": …},
/// {"from": "gpt", "value": …}, …]}; the first human turn is the prompt (with the system turns
/// before it), the reply after it the recorded output. A conversation without a human turn is
/// dropped and counted, as vLLM does.
extern const JsonEntryReader kShareGptReader;

namespace sharegpt {

/// The roles ShareGPT's "from" (and a chat's "role") give the asker and the replier.
bool isHumanRole(const std::string &from);
bool isReplyRole(const std::string &from);

} // namespace sharegpt

} // namespace tb
