#include "sim/simserver_p.h"

#include "sim/schemaoutput.h"
#include "sim/simapi.h"
#include "sim/simjson.h"

namespace tb::sim {

namespace {

/// The next piece of a structured reply, for a content chunk of `tokens`: the JSON text's share
/// by tokens so far, the rest with the last chunk.
std::string_view structuredSlice(Exchange &ex, qint64 tokens, bool last)
{
    ex.jsonTokensDone += tokens;
    const std::size_t end =
        last || ex.jsonTokensDone >= ex.jsonTokens
            ? ex.json.size()
            : std::size_t(double(ex.json.size()) * double(ex.jsonTokensDone) / double(ex.jsonTokens));
    const std::string_view piece = std::string_view(ex.json).substr(ex.jsonSent, end - ex.jsonSent);
    ex.jsonSent = end;
    return piece;
}

} // namespace

void SimServer::Impl::generate(Connection &conn, Endpoint endpoint, HttpRequest &request)
{
    const qint64 now = nowNs();
    {
        std::lock_guard lock(statsMutex);
        ++stats.requestsReceived;
    }
    conn.trace.emplace();
    RequestTrace &trace = *conn.trace;
    trace.endpoint = QLatin1String(endpointName(endpoint));
    trace.receivedNs = conn.lastReadNs > 0 ? conn.lastReadNs : now;

    auto parsed = parseGenerationRequest(endpoint, request.body, config);
    if (const auto *error = std::get_if<ApiError>(&parsed))
        return respondError(conn, endpoint, *error);
    auto ex = std::make_unique<Exchange>();
    ex->request = std::move(std::get<GenerationRequest>(parsed));
    const GenerationRequest &req = ex->request;
    trace.model = QString::fromStdString(req.model);
    trace.stream = req.stream;

    const SimApi &api = simApiFor(endpoint);
    // Images cost their tokens (SimImage's rule) like text: in usage, the prefill and the slot.
    const qint64 wholePrompt =
        tokenizer->count(req.prompt) + req.promptTokenIds + req.imageTokens + (api.chat() ? config.templateTokens : 0);
    // llama.cpp cuts what does not fit its slot without a word; usage reports what is left.
    ex->droppedTokens = slotTruncatedTokens(wholePrompt, config.slotContext);
    const qint64 promptTokens = wholePrompt - ex->droppedTokens;
    trace.promptTokens = promptTokens;
    PlanInput input;
    input.index = generationIndex++;
    input.promptTokens = promptTokens;
    input.maxTokens = req.maxTokens;
    input.minTokens = req.minTokens;
    input.ignoreEos = req.ignoreEos;
    input.reasoning = api.chat();
    ex->plan = planRequest(config, input);
    if (!api.generates()) {
        // The serving model's first token is due when the prefill ends: all an embedding costs.
        ex->plan.outputTokens = 1;
        ex->plan.reasoningTokens = 0;
        ex->plan.stoppedByLength = false;
    }
    ex->text = TextSource(ex->plan.textSeed, config.repeatShare);

    ex->meta.endpoint = endpoint;
    ex->meta.id = api.idPrefix() + idPrefix + hex(++responseCounter, 8);
    ex->meta.model = req.model;
    ex->meta.created = QDateTime::currentSecsSinceEpoch();
    ex->meta.includeUsage = req.includeUsage;
    ex->meta.usageDialect = config.usageDialect;
    ex->meta.inputs = req.inputs;
    ex->meta.base64 = req.base64;
    ex->meta.seed = ex->plan.textSeed;
    ex->usage.promptTokens = promptTokens;
    ex->chunked = !conn.stream && request.minorVersion >= 1; // HTTP/2 frames it in DATA
    ex->hideReasoning = config.hideReasoning && api.hidesReasoning();
    if (!ex->chunked)
        conn.keepAlive = false; // an HTTP/1.0 stream ends when the connection does
    trace.id = QString::fromStdString(ex->meta.id);

    const RateLimiter::Verdict verdict = limiter.admit(promptTokens + req.maxTokens.value_or(0), now);
    if (!verdict.allowed) {
        const qint64 retryMs = (verdict.retryAfterNs + 999'999) / 1'000'000;
        const std::string headers = "retry-after: " + std::to_string(std::max<qint64>(1, (retryMs + 999) / 1000)) +
                                    "\r\nretry-after-ms: " + std::to_string(retryMs) + "\r\n";
        return respondError(conn, endpoint, {429, verdict.reason, {}, "rate_limit_exceeded"}, headers);
    }
    if (ex->plan.serverError)
        return respondError(conn, endpoint,
                            {500, "The server had an error while processing your request (simulated fault)", {}, {}});

    // A tool call's arguments are sent as a structured reply's JSON is, over the content tokens.
    if (req.toolCall) {
        ex->json = SchemaOutput::generate(req.toolParameters, ex->plan.textSeed);
        if (SchemaOutput::brokenAt(++toolCallReplies, config.invalidToolCallRate))
            SchemaOutput::breakJson(ex->json);
        ex->meta.toolName = req.toolName;
        ex->meta.toolCallId = idPrefix + hex(responseCounter, 8);
    } else if (req.jsonOutput) {
        ex->json = SchemaOutput::generate(req.outputSchema, ex->plan.textSeed);
        if (SchemaOutput::brokenAt(++structuredOutputs, config.invalidJsonRate))
            SchemaOutput::breakJson(ex->json);
    }
    ex->jsonReply = req.toolCall || req.jsonOutput;
    if (ex->jsonReply)
        ex->jsonTokens =
            std::max<qint64>(1, ex->plan.outputTokens - std::min(ex->plan.reasoningTokens, ex->plan.outputTokens));
    conn.exchange = std::move(ex);
    exchangeCountChanged(+1);
    if (conn.exchange->plan.headerDelayNs > 0) {
        timers.push({now + conn.exchange->plan.headerDelayNs, Timer::HeaderDelay, conn.id});
        return;
    }
    admit(conn);
}

void SimServer::Impl::admit(Connection &conn)
{
    Exchange &ex = *conn.exchange;
    const std::string &prompt = ex.request.prompt;
    const auto blocks = PrefixCache::blocks(prompt);
    const std::size_t cachedBytes = cache.cachedBytes(blocks);
    // A server computes at least the last prompt token itself, so never all are cached. A
    // truncated prompt lost its first tokens: what is cached of the rest.
    ex.usage.cachedTokens =
        std::clamp<qint64>(tokenizer->count(std::string_view(prompt).substr(0, cachedBytes)) - ex.droppedTokens, 0,
                           std::max<qint64>(ex.usage.promptTokens - 1, 0));

    const bool cut = ex.plan.cutAfter >= 0;
    Job job;
    job.promptTokens = ex.usage.promptTokens;
    job.cachedTokens = ex.usage.cachedTokens;
    job.outputTokens = cut && ex.request.stream ? ex.plan.cutAfter : ex.plan.outputTokens;
    job.reasoningTokens = std::min(ex.plan.reasoningTokens, job.outputTokens);
    job.chunkTokens = ex.request.stream ? config.tokensPerChunk : job.outputTokens;
    const auto seq = model.submit(job, nowNs());
    if (!seq) {
        const Endpoint endpoint = ex.request.endpoint;
        endExchange(conn);
        return respondError(conn, endpoint,
                            {503,
                             "The server is overloaded: the batch and the queue are full (queue_limit " +
                                 std::to_string(config.queueLimit) + ")",
                             {},
                             "overloaded"},
                            "retry-after: 1\r\n");
    }
    cache.insert(blocks);
    ex.seq = *seq;
    bySeq.emplace(*seq, conn.id);
    ex.request.prompt = std::string(); // not needed any more; long prompts are big
    conn.trace->cachedTokens = ex.usage.cachedTokens;
    {
        std::lock_guard lock(statsMutex);
        stats.promptTokens += ex.usage.promptTokens;
        stats.cachedTokens += ex.usage.cachedTokens;
        stats.promptsTruncated += ex.droppedTokens > 0 ? 1 : 0;
    }
    updateGauges();

    if (ex.request.stream) {
        ex.sse.emplace(ex.meta);
        conn.trace->status = 200;
        std::string out = head(conn, 200, "text/event-stream; charset=utf-8", -1,
                               "cache-control: no-cache\r\nx-request-id: " + ex.meta.id + "\r\n");
        std::string events;
        ex.sse->start(events, ex.usage);
        if (config.nagleWrites && !conn.stream)
            ex.heldStart = std::move(events); // httplib writes the headers alone
        else
            appendBody(conn, out, events);
        write(conn, out, StampHeaders);
    }
}

void SimServer::Impl::appendBody(const Connection &conn, std::string &out, std::string_view data)
{
    if (data.empty())
        return;
    if (!conn.exchange->chunked) {
        out += data;
        return;
    }
    out += hex(data.size());
    out += "\r\n";
    out += data;
    out += "\r\n";
}

void SimServer::Impl::onChunk(const Chunk &chunk)
{
    const auto at = bySeq.find(chunk.seq);
    if (at == bySeq.end()) { // only a sequence ignore_cancel kept running has no connection
        {
            std::lock_guard lock(statsMutex);
            stats.tokensAfterClientLeft += chunk.tokens;
        }
        if (chunk.last) // its slot is free now: the gauges say so
            updateGauges();
        return;
    }
    const auto it = connections.find(at->second);
    if (it == connections.end() || it->second->dead || !it->second->exchange)
        return;
    Connection &conn = *it->second;
    try {
        deliver(conn, chunk);
    } catch (const std::exception &) {
        closeConnection(conn);
    }
}

void SimServer::Impl::deliver(Connection &conn, const Chunk &chunk)
{
    Exchange &ex = *conn.exchange;
    const bool first = ex.usage.completionTokens == ex.hiddenTokens; // nothing sent yet
    const bool hidden = chunk.reasoning && ex.hideReasoning;
    if (ex.request.stream) {
        // As vLLM measures it: the gap between two outputs of the sequence, per token.
        const qint64 now = nowNs();
        if (ex.lastTokenNs != 0)
            itlHistogram.observe(double(now - ex.lastTokenNs) / 1e9 / double(chunk.tokens),
                                 std::uint64_t(chunk.tokens));
        ex.lastTokenNs = now;
    }
    ex.usage.completionTokens += chunk.tokens;
    if (chunk.reasoning)
        ex.usage.reasoningTokens += chunk.tokens;
    const bool cut = chunk.last && ex.plan.cutAfter >= 0;
    const bool complete = chunk.last && !cut;
    const std::optional<Timings> timings = countLlamacpp(ex, chunk);
    const Timings *sentTimings = config.timings && timings ? &*timings : nullptr;

    scratchFrame.clear();
    unsigned stamps = 0;
    if (hidden) {
        // Generated and counted (the trace says what usage says), but nothing leaves.
        ex.hiddenTokens += chunk.tokens;
        conn.trace->completionTokens += chunk.tokens;
        conn.trace->reasoningTokens += chunk.tokens;
    } else if (ex.request.stream) {
        scratchText.clear();
        if (!ex.jsonReply || chunk.reasoning) {
            ex.text.append(scratchText, chunk.tokens);
        } else {
            // Deltas carry text that needs no escaping: the JSON piece goes escaped.
            const std::string quoted = jsonString(structuredSlice(ex, chunk.tokens, chunk.last));
            scratchText.assign(quoted, 1, quoted.size() - 2);
        }
        scratchEvents.clear();
        ex.sse->delta(scratchEvents, chunk.reasoning, scratchText);
        if (complete)
            ex.sse->finish(scratchEvents, ex.plan.stoppedByLength, ex.usage, sentTimings);
        countSent(conn, chunk.tokens, chunk.reasoning ? chunk.tokens : 0);
        stamps = (first ? unsigned(StampFirstToken) : 0U) | (chunk.last ? unsigned(StampLastToken) : 0U);
        if (config.nagleWrites && !conn.stream) {
            // httplib: one write per event (the held opening events first, the token's event with
            // the stamps), then the last chunk; the last write goes below.
            std::string events = std::exchange(ex.heldStart, std::string()) + scratchEvents;
            const std::size_t tokenEvent = events.size() - scratchEvents.size();
            for (std::size_t at = 0; at < events.size();) {
                const std::size_t end = std::min(events.find("\n\n", at), events.size() - 2) + 2;
                scratchFrame.clear();
                appendBody(conn, scratchFrame, std::string_view(events).substr(at, end - at));
                const unsigned these = at == tokenEvent ? stamps : 0U;
                at = end;
                if (at == events.size() && !(complete && ex.chunked)) {
                    stamps = these;
                    break;
                }
                write(conn, scratchFrame, these);
                if (conn.dead)
                    return;
            }
            if (complete && ex.chunked) {
                // httplib writes the last chunk's line and its closing CRLF apart.
                write(conn, "0\r\n", 0);
                if (conn.dead)
                    return;
                scratchFrame = "\r\n";
                stamps = 0;
            }
        } else {
            appendBody(conn, scratchFrame, scratchEvents);
            if (complete && ex.chunked)
                scratchFrame += "0\r\n\r\n";
        }
    } else {
        if (!ex.jsonReply || chunk.reasoning)
            ex.text.append(chunk.reasoning ? ex.reasoningText : ex.contentText, chunk.tokens);
        else
            ex.contentText += structuredSlice(ex, chunk.tokens, chunk.last);
        if (!chunk.last)
            return;
        const std::string body =
            completeBody(ex.meta, ex.reasoningText, ex.contentText, ex.plan.stoppedByLength, ex.usage, sentTimings);
        conn.trace->status = 200;
        // A cut response promises the whole body in its headers, and half of it arrives.
        scratchFrame =
            head(conn, 200, "application/json", qint64(body.size()), "x-request-id: " + ex.meta.id + "\r\n") +
            (cut ? body.substr(0, body.size() / 2) : body);
        if (cut) {
            stamps = StampHeaders;
        } else {
            // An embedding's one planned token is its prefill's end, not output.
            const qint64 sent =
                simApiFor(ex.meta.endpoint).generates() ? ex.usage.completionTokens - ex.hiddenTokens : 0;
            countSent(conn, sent, ex.usage.reasoningTokens - ex.hiddenTokens);
            stamps = StampHeaders | StampFirstToken | StampLastToken;
        }
    }

    if (!complete) {
        const qint64 writtenNs = write(conn, scratchFrame, stamps);
        recordPacing(writtenNs - chunk.dueNs);
        if (cut && !conn.dead) {
            // The stream ends abruptly, as when a server process dies or a proxy drops it.
            conn.trace->outcome = QStringLiteral("cut");
            {
                std::lock_guard lock(statsMutex);
                ++stats.streamsCut;
            }
            closeConnection(conn);
        }
        return;
    }
    conn.trace->outcome = QStringLiteral("ok");
    ++(ex.plan.stoppedByLength ? successLength : successStop);
    // httplib ends a chunked response whose provider returns false by closing the connection:
    // the last chunk leaves, the close follows at once, whatever the headers promised.
    if (ex.request.stream && config.closeAfterStream)
        conn.keepAlive = false;
    endExchange(conn);
    {
        std::lock_guard lock(statsMutex);
        ++stats.requestsServed;
    }
    recordPacing(writeLast(conn, scratchFrame, stamps) - chunk.dueNs);
}

std::optional<Timings> SimServer::Impl::countLlamacpp(Exchange &ex, const Chunk &chunk)
{
    LlamacppCounters &c = llamacpp;
    const qint64 evaluated = ex.usage.promptTokens - ex.usage.cachedTokens;
    if (ex.firstDueNs < 0) {
        ex.firstDueNs = chunk.dueNs;
        ex.promptNs = chunk.dueNs - chunk.admittedNs;
        const auto ms = quint64(ex.promptNs / 1'000'000);
        c.promptTokens += evaluated;
        c.promptMs += ms;
        c.windowPromptTokens += evaluated;
        c.windowPromptMs += ms;
    }
    // The batch held this sequence and the others: each of its tokens is that share of a step.
    c.decodes += double(chunk.tokens) / double(std::max<qint64>(chunk.batch, 1));
    c.busySlots += chunk.tokens;
    if (!chunk.last || ex.plan.cutAfter >= 0)
        return std::nullopt;
    // llama.cpp reads a clock: even one token took some time.
    const double predictedMs = std::max(double(chunk.dueNs - ex.firstDueNs) / 1e6, 1e-3);
    c.predictedTokens += ex.usage.completionTokens;
    c.predictedMs += quint64(predictedMs);
    c.windowPredictedTokens += ex.usage.completionTokens;
    c.windowPredictedMs += quint64(predictedMs);
    return Timings{evaluated, double(ex.promptNs) / 1e6, ex.usage.completionTokens, predictedMs};
}

void SimServer::Impl::recordPacing(qint64 lateNs)
{
    std::lock_guard lock(statsMutex);
    pacing.record(double(lateNs) / 1000.0); // µs
}

void SimServer::Impl::countSent(Connection &conn, qint64 tokens, qint64 reasoningTokens)
{
    conn.trace->completionTokens += tokens;
    conn.trace->reasoningTokens += reasoningTokens;
    std::lock_guard lock(statsMutex);
    stats.tokensSent += tokens;
    stats.reasoningTokensSent += reasoningTokens;
}

void SimServer::Impl::endExchange(Connection &conn)
{
    if (!conn.exchange)
        return;
    if (const quint64 seq = conn.exchange->seq) {
        // ignore_cancel: the sequence runs on in the model, holding its slot; its chunks find no
        // connection (onChunk) and go nowhere. Only a client that left ends a sequence still running:
        // a finished one, a cut one (its plan ends at the cut) and a refused one have none to cancel.
        if (!config.ignoreCancel)
            model.cancel(seq, nowNs()); // a no-op when it already finished
        bySeq.erase(seq);
    }
    conn.exchange.reset();
    exchangeCountChanged(-1);
}

void SimServer::Impl::exchangeCountChanged(int delta)
{
    inProgress += delta;
    updateGauges();
}

} // namespace tb::sim
