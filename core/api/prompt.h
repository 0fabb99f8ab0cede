#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tb {

/// An image a request carries (--images, a dataset row's "images"), as the data URL every API's
/// image part is made of. Shared, not copied, by the prompts that carry it (a dataset row's).
struct PromptImage {
    std::string url;        ///< "data:image/png;base64,…"
    std::int64_t bytes = 0; ///< the file's size, before base64
    /// "image/png": between "data:" and ";base64,"
    std::string_view mediaType() const
    {
        const std::size_t end = url.find(';');
        return end == std::string::npos ? std::string_view() : std::string_view(url).substr(5, end - 5);
    }
    /// What follows the comma.
    std::string_view base64() const
    {
        const std::size_t comma = url.find(',');
        return comma == std::string::npos ? std::string_view() : std::string_view(url).substr(comma + 1);
    }
};

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
    /// Images after the text of the (last) user message, in each API's image part
    /// (ApiDialect::imagePart); `tokens` counts none of them.
    std::vector<std::shared_ptr<const PromptImage>> images;
    /// The model its workload entry names ("model"); empty: the one --model draws (ModelMix).
    std::string model;
};

} // namespace tb
