#pragma once

#include "sim/simjson.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace tb::sim {

/// The simulator's image inputs (docs/simulator.md "Images"): a content part of chat
/// ({"type": "image_url", "image_url": {"url": …}}), the Responses API ({"type": "input_image",
/// "image_url": …}) or Anthropic's messages ({"type": "image", "source": {"type": "base64",
/// "media_type": …, "data": …}}), whose data must be a base64 PNG. Its size comes from the PNG's
/// IHDR; it costs ceil(W/28)·ceil(H/28) + 2 prompt tokens, as Qwen2-VL counts an image (one
/// token a 28×28 patch, after merging 2×2 patches of 14, and its vision_start and vision_end).
class SimImage
{
public:
    /// Pixels a side of the patch one token stands for.
    static constexpr int kPatch = 28;
    /// The image's start and end markers.
    static constexpr int kMarkerTokens = 2;

    /// Whether a content part's type is one of the image parts above.
    static bool isImagePart(std::string_view type);
    /// Reads an image part at `where` into the request (GenerationRequest::images, imageTokens);
    /// a 400 when it is not a base64 PNG the simulator can read.
    static std::optional<ApiError> read(const nlohmann::json &part, const std::string &where,
                                        GenerationRequest &request);
    /// The tokens of an image of width × height pixels.
    static qint64 tokens(int width, int height);
};

} // namespace tb::sim
