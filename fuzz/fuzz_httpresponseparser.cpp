// HttpResponseParser: no crash or over-read on any response, a NeedMore always consumes its whole
// read (the engine does not re-offer bytes), and the outcome (head, body bytes, end) does not depend
// on how the response is cut into reads.
#include "fuzzinput.h"
#include "net/httpresponseparser.h"

#include <string>
#include <vector>

namespace {

std::string outcome(const std::vector<std::string_view> &reads)
{
    tb::HttpResponseParser parser;
    std::string head;
    std::string body;
    const auto onHead = [&head](const tb::ResponseHead &h) {
        if (!head.empty())
            tb::fuzz::violated("onHead called twice for one response");
        head = std::to_string(h.status) + ' ' + h.contentType.toStdString() + ' ' + std::to_string(h.retryAfterS) +
               (h.keepAlive ? " keep-alive" : " close");
    };
    const auto onBody = [&body](const char *piece, std::size_t size) { body.append(piece, size); };
    std::string end = "truncated";
    for (const std::string_view read : reads) {
        std::size_t consumed = 0;
        const auto result = parser.feed(read.data(), read.size(), &consumed, onHead, onBody);
        if (consumed > read.size())
            tb::fuzz::violated("consumed more than was fed");
        if (result == tb::HttpResponseParser::Result::Error) {
            end = "error: " + parser.errorText();
            break;
        }
        if (result == tb::HttpResponseParser::Result::Complete) {
            end = "complete";
            break; // the engine closes a connection that sends past its response
        }
        if (consumed != read.size())
            tb::fuzz::violated("NeedMore left bytes of the read unconsumed");
    }
    if (end == "truncated" && parser.closeCompletes())
        end = "complete at close";
    if (parser.headReceived() == head.empty())
        tb::fuzz::violated("headReceived() disagrees with onHead");
    return head + '\n' + body + '\n' + end;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size > tb::fuzz::kMaxInput)
        return 0;
    tb::fuzz::checkSplitsAgree(data, size, outcome, "the response's parses");
    return 0;
}
