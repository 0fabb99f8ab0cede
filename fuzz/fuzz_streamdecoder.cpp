// StreamDecoder, for each API kind, with and without the local tokenizer: no crash on any stream
// of events or any body, and the record it fills stays consistent (chunk count, non-negative token
// counts, a bounded error message whenever it failed).
#include "api/streamdecoder.h"
#include "fuzzinput.h"
#include "net/sseparser.h"
#include "tokenize/tokenizer.h"

namespace {

constexpr qsizetype kMaxMessage = 300; // StreamDecoder shortens every message to this

void check(const tb::StreamDecoder &decoder, const tb::RequestRecord &r)
{
    if (r.chunks != int(r.tokenChunks.size()))
        tb::fuzz::violated("chunks differs from tokenChunks.size()");
    if (r.promptTokens < 0 || r.completionTokens < 0 || r.cachedTokens < 0 || r.reasoningTokens < 0)
        tb::fuzz::violated("a negative token count");
    if (decoder.failed() && r.errorMessage.isEmpty())
        tb::fuzz::violated("failed() without an error message");
    if (r.errorMessage.size() > kMaxMessage)
        tb::fuzz::violated("error message longer than the decoder's limit");
    if (r.reply.size() > tb::StreamDecoder::kMaxReplyBytes)
        tb::fuzz::violated("reply longer than the decoder's limit");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size > tb::fuzz::kMaxInput)
        return 0;
    const std::string_view input = tb::fuzz::text(data, size);
    for (const tb::ApiKind api : {tb::ApiKind::OpenAIChat, tb::ApiKind::OpenAICompletions,
                                  tb::ApiKind::AnthropicMessages, tb::ApiKind::OpenAIResponses}) {
        for (const tb::Tokenizer *tokenizer :
             {static_cast<const tb::Tokenizer *>(nullptr), tb::Tokenizer::approx().get()}) {
            tb::StreamDecoder decoder(api, tokenizer, tokenizer != nullptr); // a conversation's reply kept, or not

            tb::RequestRecord streamed;
            decoder.begin(&streamed);
            tb::SseParser sse;
            std::int64_t stampNs = 1000;
            sse.feed(input.data(), input.size(), [&](std::string_view event, std::string_view payload) {
                decoder.onEvent(event, payload, stampNs);
                stampNs += 1000;
            });
            decoder.finish(7, tb::TokenSource::Estimate);
            check(decoder, streamed);

            tb::RequestRecord body;
            decoder.begin(&body);
            decoder.onBody(input, 1000);
            decoder.finish(7, tb::TokenSource::Estimate);
            check(decoder, body);
        }
    }
    if (tb::StreamDecoder::errorMessageFromBody(input).size() > kMaxMessage)
        tb::fuzz::violated("error message from a body longer than the decoder's limit");
    return 0;
}
