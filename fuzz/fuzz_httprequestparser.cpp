// The simulator's HttpRequestParser: no crash on any bytes a client sends; every refusal carries one
// of the documented statuses and a reason; no body passes its limit; and the requests read (with
// pipelining) and the status it ends with do not depend on how the bytes are cut into reads.
// Each body read is then parsed as a request of every generation endpoint, as the server does.
#include "fuzzinput.h"
#include "sim/httprequestparser.h"
#include "sim/simconfig.h"
#include "sim/simprotocol.h"

#include <string>
#include <vector>

namespace {

constexpr std::size_t kMaxBody = 4096; // small, so 413 is within reach

std::string describe(tb::sim::HttpRequest &r)
{
    std::string out = r.method + ' ' + r.path + " ? " + r.query + " HTTP/1." + std::to_string(r.minorVersion) +
                      (r.keepAlive() ? " keep-alive\n" : " close\n");
    for (const auto &[name, value] : r.headers)
        out += name + ": " + value + '\n';
    return out + "body " + std::to_string(r.body.size()) + ": " + r.body + '\n';
}

std::string outcome(const std::vector<std::string_view> &reads)
{
    tb::sim::HttpRequestParser parser(kMaxBody);
    std::string buffer;
    std::string out;
    for (const std::string_view read : reads) {
        buffer.append(read);
        for (;;) {
            const auto result = parser.feed(buffer);
            if (result == tb::sim::HttpRequestParser::Result::NeedMore)
                break;
            if (result == tb::sim::HttpRequestParser::Result::Error) {
                const int status = parser.errorStatus();
                if (status != 400 && status != 413 && status != 431 && status != 501 && status != 505)
                    tb::fuzz::violated("an error status outside 400, 413, 431, 501, 505");
                if (parser.errorText().empty())
                    tb::fuzz::violated("an error without a reason");
                return out + "error " + std::to_string(status);
            }
            if (parser.request().body.size() > kMaxBody)
                tb::fuzz::violated("a body larger than the limit was accepted");
            static const tb::sim::SimConfig config;
            for (const auto endpoint :
                 {tb::sim::Endpoint::Chat, tb::sim::Endpoint::Completions, tb::sim::Endpoint::Messages})
                tb::sim::parseGenerationRequest(endpoint, parser.request().body, config);
            out += describe(parser.request());
            parser.reset();
        }
    }
    return out + (parser.awaitingBody() ? "awaiting body" : "waiting");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size > tb::fuzz::kMaxInput)
        return 0;
    tb::fuzz::checkSplitsAgree(data, size, outcome, "the requests");
    return 0;
}
