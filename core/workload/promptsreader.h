#pragma once

#include "workload/jsonworkloadreader.h"

namespace tb {

/// Prompt lines (--prompt-file, and --dataset or --trace with "timestamp"): {"prompt": "…"}
/// (kind "prompts") or {"messages": […]} (kind "messages"). A prompt file sends the messages
/// whole; from a dataset they are ShareGPT's role/content variant: the messages up to the first
/// user turn are the prompt, the assistant turn after it the recorded reply.
extern const JsonEntryReader kPromptsReader;

} // namespace tb
