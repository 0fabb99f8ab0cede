#include "sim/simimage.h"

#include "formats/pngimage.h"

#include <algorithm>

namespace tb::sim {

using json = nlohmann::json;

namespace {

/// Whether `data` is whole base64 (RFC 4648's alphabet, padded to a multiple of 4): checked
/// before anything is decoded, as a server's image decoder would refuse it.
bool isWholeBase64(std::string_view data)
{
    if (data.empty() || data.size() % 4 != 0)
        return false;
    const std::size_t padding = data.ends_with("==") ? 2 : data.ends_with('=') ? 1 : 0;
    for (std::size_t i = 0; i < data.size() - padding; ++i) {
        const char c = data[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/'))
            return false;
    }
    return true;
}

/// The string member `key` of `object`, or nullptr.
const std::string *imageStringMember(const json &object, const char *key)
{
    const json *v = object.is_object() ? member(object, key) : nullptr;
    return v && v->is_string() ? &v->get_ref<const std::string &>() : nullptr;
}

} // namespace

bool SimImage::isImagePart(std::string_view type)
{
    return type == "image_url" || type == "input_image" || type == "image";
}

qint64 SimImage::tokens(int width, int height)
{
    return qint64((width + kPatch - 1) / kPatch) * ((height + kPatch - 1) / kPatch) + kMarkerTokens;
}

std::optional<ApiError> SimImage::read(const json &part, const std::string &where, GenerationRequest &request)
{
    // Where each API keeps the media type and the data: a data URL, or Anthropic's source.
    std::string param;
    std::string_view mediaType;
    std::string_view data;
    const std::string type = part.value("type", "");
    if (type == "image") {
        param = where + ".source";
        const json *source = member(part, "source");
        const std::string *kind = source ? imageStringMember(*source, "type") : nullptr;
        const std::string *media = source ? imageStringMember(*source, "media_type") : nullptr;
        const std::string *bytes = source ? imageStringMember(*source, "data") : nullptr;
        if (!kind || *kind != "base64" || !media || !bytes)
            return invalid(param, "'" + param +
                                      "' must be {\"type\": \"base64\", \"media_type\", \"data\"}: the simulator "
                                      "fetches no image URLs");
        mediaType = *media;
        data = *bytes;
    } else {
        const json *image = member(part, "image_url");
        const std::string *url = nullptr;
        if (type == "image_url") {
            param = where + ".image_url.url";
            url = image ? imageStringMember(*image, "url") : nullptr;
        } else {
            param = where + ".image_url";
            url = image && image->is_string() ? &image->get_ref<const std::string &>() : nullptr;
        }
        if (!url)
            return invalid(param, "'" + param + "' must be a string");
        const std::string_view text = *url;
        const std::size_t marker = text.find(";base64,");
        if (!text.starts_with("data:") || marker == std::string_view::npos)
            return invalid(param, "'" + param +
                                      "' must be a data URL (data:image/png;base64,…): the simulator fetches no "
                                      "image URLs");
        mediaType = text.substr(5, marker - 5);
        data = text.substr(marker + 8);
    }
    if (mediaType != "image/png")
        return invalid(param, "the simulator reads PNG images only (image/png), not '" +
                                  std::string(mediaType.substr(0, 40)) + "'");
    if (!isWholeBase64(data))
        return invalid(param, "'" + param + "': the image data is not valid base64");
    // Only the header is decoded: its size is all the token count needs.
    const QByteArray head =
        QByteArray::fromBase64(QByteArray::fromRawData(data.data(), qsizetype(std::min<std::size_t>(data.size(), 44))));
    const auto size = PngImage::headerSize(head);
    if (!size)
        return invalid(param, "'" + param + "': the image is not a PNG (signature, IHDR, its CRC and sides of 1 to " +
                                  std::to_string(PngImage::kMaxSide) + " pixels)");
    ++request.images;
    request.imageTokens += tokens(size->width(), size->height());
    return std::nullopt;
}

} // namespace tb::sim
