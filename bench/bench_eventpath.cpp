// bench_eventpath: what the engine's own code costs per SSE event, without the kernel. The bytes of
// streamed chat responses, as the simulator sends them (chunked, one SSE event per chunk, one chunk
// per read), are fed to what a transport thread reads them with — HttpResponseParser, SseParser,
// StreamDecoder into a RequestRecord — for 1 … 10,000 streams taking turns one read at a time, as
// the reads of many connections come off the ring. With one stream all of its state stays in the
// CPU's caches; with many, each read finds its stream's parsers, decoder and record cold, as in a
// real run. `--evict KiB` also writes that much other memory between two reads, as the kernel's
// receive and acknowledgement of each segment do on a transport thread: what the same code costs
// when even the last stream's state has left the caches. The figures are the part of bench_engine's
// CPU per event above bench_readfloor's that is parsing and decoding (the rest: the transport's
// dispatch, deadlines, the request's own bookkeeping).
//
//   bench_eventpath [--streams N[,N...]] [--tokens T] [--events E] [--evict KiB]
#include "api/streamdecoder.h"
#include "metrics/requestrecord.h"
#include "net/httpresponseparser.h"
#include "net/sseparser.h"

#include <QCoreApplication>
#include <QStringList>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using namespace tb;

std::string chunked(const std::string &payload)
{
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", payload.size());
    return size + payload + "\r\n";
}

std::string chatEvent(const std::string &delta, const char *finish)
{
    return R"(data: {"id":"chatcmpl-62f793b59ad870e300000001","object":"chat.completion.chunk",)"
           R"("created":1796432849,"model":"fast","system_fingerprint":"fp_tokenbench_sim","choices":[{"index":0,)"
           R"("delta":)" +
           delta + R"(,"logprobs":null,"finish_reason":)" + finish + R"(}],"usage":null})" + "\n\n";
}

/// The reads of one response, as the simulator writes them: the head with the role event, one read
/// per token, then the finish, the usage and [DONE] with the body's end.
std::vector<std::string> responseReads(int tokens)
{
    static const char *const words[] = {R"(" code")", R"(" rate")", R"(" all")", R"(" the")", R"(" model")"};
    std::vector<std::string> reads;
    reads.push_back("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\ntransfer-encoding: "
                    "chunked\r\nconnection: keep-alive\r\nserver: tokenbench-sim\r\ncache-control: no-cache\r\n"
                    "x-request-id: chatcmpl-62f793b59ad870e300000001\r\n\r\n" +
                    chunked(chatEvent(R"({"role":"assistant","content":""})", "null")));
    for (int t = 0; t < tokens; ++t)
        reads.push_back(chunked(chatEvent(std::string(R"({"content":)") + words[t % 5] + "}", "null")));
    const std::string usage =
        R"(data: {"id":"chatcmpl-62f793b59ad870e300000001","object":"chat.completion.chunk","created":1796432849,)"
        R"("model":"fast","system_fingerprint":"fp_tokenbench_sim","choices":[],"usage":{"completion_tokens":)" +
        std::to_string(tokens) +
        R"(,"completion_tokens_details":{"reasoning_tokens":0},"prompt_tokens":1,)"
        R"("prompt_tokens_details":{"cached_tokens":0},"total_tokens":)" +
        std::to_string(tokens + 1) + "}}\n\n";
    reads.push_back(chunked(chatEvent("{}", R"("length")") + usage + "data: [DONE]\n\n") + "0\r\n\r\n");
    return reads;
}

/// One connection's reading state, as the engine keeps it per stream.
struct Stream {
    HttpResponseParser http;
    SseParser sse;
    StreamDecoder decoder{ApiKind::OpenAIChat};
    RequestRecord record;

    void begin()
    {
        http.reset();
        sse.reset();
        record = RequestRecord{};
        decoder.begin(&record);
    }
    /// One read; false when the response is not read as it should be.
    bool read(const std::string &bytes, std::int64_t stampNs, bool last)
    {
        std::size_t consumed = 0;
        const auto result = http.feed(
            bytes.data(), bytes.size(), &consumed, [](const ResponseHead &) {},
            [this, stampNs](const char *body, std::size_t size) {
                sse.feed(body, size, [this, stampNs](std::string_view event, std::string_view payload) {
                    decoder.onEvent(event, payload, stampNs);
                });
            });
        if (result == HttpResponseParser::Result::Error || decoder.failed())
            return false;
        return !last || (result == HttpResponseParser::Result::Complete && decoder.streamEnded());
    }
};

struct Level {
    int streams = 0;
    double nsPerEvent = 0;
    double nsPerRead = 0;
    std::uint64_t events = 0;
};

Level measure(int streamCount, int tokens, std::uint64_t wantedEvents, std::vector<char> &evict)
{
    const std::vector<std::string> reads = responseReads(tokens);
    // Events per response: the role event, the tokens, the finish, the usage and [DONE].
    const std::uint64_t eventsPerResponse = std::uint64_t(tokens) + 4;
    std::vector<std::unique_ptr<Stream>> streams;
    for (int i = 0; i < streamCount; ++i) {
        streams.push_back(std::make_unique<Stream>());
        streams.back()->begin();
    }
    const std::uint64_t rounds =
        std::max<std::uint64_t>(1, wantedEvents / (eventsPerResponse * std::uint64_t(streamCount)));
    std::int64_t stamp = 0;
    std::uint64_t failed = 0;
    // With eviction, only the reads are timed (two clock readings each, ~40 ns, counted in).
    const bool timeEachRead = !evict.empty();
    std::int64_t readingNs = 0;
    const Clock::time_point start = Clock::now();
    for (std::uint64_t round = 0; round < rounds; ++round) {
        for (std::size_t r = 0; r < reads.size(); ++r) {
            const bool last = r + 1 == reads.size();
            for (const auto &stream : streams) {
                const Clock::time_point before = timeEachRead ? Clock::now() : Clock::time_point();
                failed += !stream->read(reads[r], stamp += 1000, last);
                if (last)
                    stream->begin();
                if (!timeEachRead)
                    continue;
                readingNs += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - before).count();
                // One byte a cache line: each line leaves whatever it held.
                for (std::size_t i = 0; i < evict.size(); i += 64)
                    ++evict[i];
            }
        }
    }
    const double ns = timeEachRead
                          ? double(readingNs)
                          : double(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
    if (failed != 0)
        std::fprintf(stderr, "bench_eventpath: %llu reads were not read as they should be\n",
                     static_cast<unsigned long long>(failed));
    Level level;
    level.streams = streamCount;
    level.events = rounds * eventsPerResponse * std::uint64_t(streamCount);
    level.nsPerEvent = ns / double(level.events);
    level.nsPerRead = ns / double(rounds * reads.size() * std::uint64_t(streamCount));
    return level;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QList<int> streamCounts{1, 200, 1000, 10000};
    int tokens = 50;
    std::uint64_t events = 4'000'000;
    int evictKiB = 0;
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        bool ok = false;
        if (args[i] == QLatin1String("--streams")) {
            streamCounts.clear();
            for (const QString &n : args[i + 1].split(QLatin1Char(','))) {
                const int v = n.toInt(&ok);
                if (!ok || v < 1 || v > 100'000)
                    break;
                streamCounts << v;
            }
        } else if (args[i] == QLatin1String("--tokens")) {
            tokens = args[i + 1].toInt(&ok);
            ok = ok && tokens >= 1 && tokens <= 100'000;
        } else if (args[i] == QLatin1String("--evict")) {
            evictKiB = args[i + 1].toInt(&ok);
            ok = ok && evictKiB >= 0 && evictKiB <= 1024 * 1024;
        } else if (args[i] == QLatin1String("--events")) {
            events = args[i + 1].toULongLong(&ok);
            ok = ok && events >= 1000 && events <= 1'000'000'000ULL;
        }
        if (!ok) {
            std::fprintf(stderr, "usage: bench_eventpath [--streams N[,N...]] [--tokens 1..100000] [--events E] "
                                 "[--evict KiB]\n");
            return 2;
        }
    }
    std::vector<char> evict(std::size_t(evictKiB) * 1024);
    std::printf("bench_eventpath: chat responses of %d tokens, chunked SSE as the simulator sends them, one event "
                "per read; HttpResponseParser + SseParser + StreamDecoder, no kernel; %d KiB written between reads "
                "(not timed)\n",
                tokens, evictKiB);
    std::printf("%8s %12s %12s %12s\n", "streams", "ns/event", "ns/read", "events");
    for (const int n : streamCounts) {
        measure(n, tokens, events / 10, evict); // warm the allocator and the code
        const Level level = measure(n, tokens, events, evict);
        std::printf("%8d %12.0f %12.0f %12llu\n", level.streams, level.nsPerEvent, level.nsPerRead,
                    static_cast<unsigned long long>(level.events));
    }
    return 0;
}
