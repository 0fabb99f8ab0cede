// SseParser: no crash on any byte stream, and the events do not depend on how the stream is cut
// into reads (whole, at fuzzer-chosen points, byte by byte).
#include "engine/sseparser.h"
#include "fuzzinput.h"

#include <string>
#include <utility>
#include <vector>

namespace {

using Events = std::vector<std::pair<std::string, std::string>>;

Events events(const std::vector<std::string_view> &reads)
{
    tb::SseParser parser;
    Events out;
    for (const std::string_view read : reads) {
        parser.feed(read.data(), read.size(), [&out](std::string_view event, std::string_view data) {
            out.emplace_back(std::string(event), std::string(data));
        });
    }
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size > tb::fuzz::kMaxInput)
        return 0;
    const Events whole = events({tb::fuzz::text(data, size)});
    if (events(tb::fuzz::pieces(data, size)) != whole)
        tb::fuzz::violated("SSE events differ when the stream is split at the chosen points");
    if (events(tb::fuzz::bytes(data, size)) != whole)
        tb::fuzz::violated("SSE events differ when the stream arrives byte by byte");
    return 0;
}
