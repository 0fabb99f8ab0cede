// SseParser: no crash on any byte stream, and the events do not depend on how the stream is cut
// into reads (whole, at fuzzer-chosen points, byte by byte).
#include "fuzzinput.h"
#include "net/sseparser.h"

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
    tb::fuzz::checkSplitsAgree(data, size, events, "the SSE events");
    return 0;
}
