#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace tb {

/// One request's prompt. Either system/user text, or a full chat `messages` array (JSONL files).
struct Prompt {
    std::string system;
    std::string user;
    nlohmann::json messages; ///< non-null only for {"messages": [...]} prompt-file lines
    std::int64_t tokens = 0; ///< the source's tokenizer's count of everything the model reads (no chat template)
    int maxTokens = 0;       ///< this request's output cap from its workload entry; 0: request.max_tokens
    /// A batch (embeddings, request.batch_size > 1): every input's text, each a prompt of its own;
    /// `tokens` is then their sum. Empty: one input, the text above.
    std::vector<std::string> inputs;
    /// The model its workload entry names ("model"); empty: the one --model draws (ModelMix).
    std::string model;
};

} // namespace tb
