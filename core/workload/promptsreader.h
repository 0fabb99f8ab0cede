#pragma once

#include "workload/jsonworkloadreader.h"

namespace tb {

/// Prompt lines (--prompt-file, and --dataset or --trace with "timestamp"): {"prompt": "…"}
/// (kind "prompts") or {"messages": […]} (kind "messages"). A prompt file sends the messages
/// whole; from a dataset they are ShareGPT's role/content variant: the messages up to the first
/// user turn are the prompt, the assistant turn after it the recorded reply.
class PromptsReader final : public JsonEntryReader
{
public:
    const char *kindOf(const nlohmann::json &j, const EntryFields &fields) const override;
    Parsed read(const nlohmann::json &j, WorkloadRole role, EntryFields &fields, WorkloadEntry &e,
                QString &why) const override;
};

} // namespace tb
