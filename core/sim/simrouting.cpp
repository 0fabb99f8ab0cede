#include "sim/simserver_p.h"

#include "sim/simapi.h"

namespace tb::sim {

namespace {

/// Llama 3's <|begin_of_text|>, which llama.cpp's /tokenize puts first with "add_special".
constexpr qint64 kBosId = 128000;
constexpr std::string_view kBosPiece = "<|begin_of_text|>";

/// A stand-in id for an approx token (the approximation has no vocabulary): the same text always
/// gets the same id, below Llama 3's special tokens.
qint64 approxTokenId(std::string_view piece)
{
    std::uint32_t hash = 2166136261U; // FNV-1a
    for (const char c : piece)
        hash = (hash ^ static_cast<unsigned char>(c)) * 16777619U;
    return qint64(hash % std::uint32_t(kBosId));
}

const char *reasonPhrase(int status)
{
    switch (status) {
    case 100:
        return "Continue";
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 413:
        return "Content Too Large";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 503:
        return "Service Unavailable";
    case 505:
        return "HTTP Version Not Supported";
    default:
        return "Unknown";
    }
}

} // namespace

std::string SimServer::Impl::head(const Connection &conn, int status, std::string_view contentType,
                                  qint64 contentLength, std::string_view extraHeaders) const
{
    std::string h = "HTTP/1.1 " + std::to_string(status) + " " + reasonPhrase(status) + "\r\ncontent-type: ";
    h += contentType;
    h += "\r\n";
    if (contentLength >= 0)
        h += "content-length: " + std::to_string(contentLength) + "\r\n";
    else if (conn.exchange && conn.exchange->chunked)
        h += "transfer-encoding: chunked\r\n";
    h += conn.keepAlive ? "connection: keep-alive\r\n" : "connection: close\r\n";
    if (conn.keepAlive && config.keepAliveMax > 0) {
        // httplib's promise, which its streamed responses then break (close_after_stream).
        h += "keep-alive: ";
        if (config.idleTimeoutS > 0)
            h += "timeout=" + std::to_string(std::llround(config.idleTimeoutS)) + ", ";
        h += "max=" + std::to_string(config.keepAliveMax) + "\r\n";
    }
    h += "server: tokenbench-sim\r\n";
    h += extraHeaders;
    h += "\r\n";
    return h;
}

void SimServer::Impl::respond(Connection &conn, int status, std::string_view contentType, std::string_view body,
                              std::string_view extraHeaders)
{
    if (status >= 400) {
        std::lock_guard lock(statsMutex);
        ++stats.rejections[status];
    }
    if (conn.trace) {
        conn.trace->status = status;
        if (conn.trace->outcome.isEmpty())
            conn.trace->outcome = status == 200 ? QStringLiteral("ok") : QStringLiteral("error");
    }
    writeLast(conn, head(conn, status, contentType, qint64(body.size()), extraHeaders) + std::string(body),
              StampHeaders);
}

void SimServer::Impl::respondError(Connection &conn, Endpoint endpoint, const ApiError &error,
                                   std::string_view extraHeaders)
{
    respond(conn, error.status, "application/json", errorBody(endpoint, error), extraHeaders);
}

void SimServer::Impl::route(Connection &conn, HttpRequest &request)
{
    const std::string &path = request.path;
    const bool get = request.method == "GET";
    const bool post = request.method == "POST";
    for (const SimApi *api : simApis()) {
        if (path == api->path()) {
            if (!post)
                return methodNotAllowed(conn, "POST");
            return generate(conn, api->endpoint(), request);
        }
    }
    if (path == "/v1/models" || path.starts_with("/v1/models/")) {
        if (!get)
            return methodNotAllowed(conn, "GET");
        return models(conn, request);
    }
    if (path == "/tokenize") {
        if (!post)
            return methodNotAllowed(conn, "POST");
        return tokenize(conn, request);
    }
    if (path == "/metrics") {
        if (!get)
            return methodNotAllowed(conn, "GET");
        if (config.metricsStallWhilePrefilling) {
            if (const qint64 endNs = model.prefillEndNs(nowNs()); endNs >= 0) {
                conn.metricsDeferred = true;
                timers.push({endNs, Timer::MetricsDue, conn.id});
                return;
            }
        }
        return respondMetrics(conn);
    }
    if (path == "/dcgm") {
        if (!get)
            return methodNotAllowed(conn, "GET");
        return respond(conn, 200, "text/plain; version=0.0.4; charset=utf-8", dcgmText());
    }
    if (path == "/health" || path == "/sim/stats" || path == "/sim/requests" || path == "/sim/config") {
        if (!get)
            return methodNotAllowed(conn, "GET");
        if (path == "/health")
            return respondJson(conn, {{"status", "ok"}});
        if (path == "/sim/stats")
            return respondJson(conn, snapshot().toJson());
        if (path == "/sim/config")
            return respondJson(conn, config.toJson());
        return requestLog(conn, request);
    }
    if (path == "/sim/reset") {
        if (!post)
            return methodNotAllowed(conn, "POST");
        resetStats();
        return respondJson(conn, {{"reset", true}});
    }
    respondError(conn, Endpoint::Chat, {404, "Unknown path '" + path + "' (try /v1/models)", {}, "not_found"});
}

void SimServer::Impl::respondMetrics(Connection &conn)
{
    if (config.metricsDialect == Dialect::Llamacpp)
        return respond(conn, 200, "text/plain; version=0.0.4", llamacppMetricsText());
    respond(conn, 200, "text/plain; version=0.0.4; charset=utf-8", prometheusText());
}

void SimServer::Impl::answerDeferredMetrics(quint64 connection)
{
    const auto it = connections.find(connection);
    if (it == connections.end() || it->second->dead || !it->second->metricsDeferred)
        return;
    it->second->metricsDeferred = false;
    try {
        respondMetrics(*it->second);
    } catch (const std::exception &) {
        closeConnection(*it->second);
    }
}

void SimServer::Impl::tokenize(Connection &conn, const HttpRequest &request)
{
    if (config.tokenizeDialect == Dialect::Llamacpp)
        return tokenizeLlamacpp(conn, request);
    const json body = json::parse(request.body, nullptr, false);
    const bool chat = body.is_object() && body.contains("messages");
    const Endpoint endpoint = chat ? Endpoint::Chat : Endpoint::Completions;
    auto parsed = parseGenerationRequest(endpoint, request.body, config);
    if (const auto *error = std::get_if<ApiError>(&parsed))
        return respondError(conn, endpoint, *error);
    const GenerationRequest &req = std::get<GenerationRequest>(parsed);
    const qint64 count = tokenizer->count(req.prompt) + req.promptTokenIds + (chat ? qint64(config.templateTokens) : 0);
    respondJson(conn, {{"count", count}});
}

void SimServer::Impl::respondLlamacpp(Connection &conn, int status, const json &body)
{
    respond(conn, status, "application/json; charset=utf-8", body.dump(-1, ' ', false, json::error_handler_t::replace));
}

void SimServer::Impl::tokenizeLlamacpp(Connection &conn, const HttpRequest &request)
{
    // llama.cpp's json_value(): a flag of the wrong type is its default.
    const auto flag = [](const json &body, const char *key) {
        const auto it = body.find(key);
        return it != body.end() && it->is_boolean() && it->get<bool>();
    };
    json tokens = json::array();
    try {
        const json body = json::parse(request.body);
        // Without "content" (a vLLM body: "prompt", "messages") there is nothing to count: an
        // empty list, status 200.
        if (body.is_object() && body.contains("content")) {
            const bool addSpecial = flag(body, "add_special");
            const bool withPieces = flag(body, "with_pieces");
            if (withPieces && tokenizer->exact())
                return respondLlamacpp(
                    conn, 501,
                    {{"error",
                      {{"code", 501},
                       {"message", "with_pieces: the simulator has pieces only for its approx tokenizer"},
                       {"type", "not_supported_error"}}}});
            const auto add = [&](qint64 id, std::string_view piece) {
                if (withPieces)
                    tokens.push_back({{"id", id}, {"piece", std::string(piece)}});
                else
                    tokens.push_back(id);
            };
            const auto addText = [&](const std::string &text, bool first) {
                if (first && addSpecial)
                    add(kBosId, kBosPiece);
                if (tokenizer->exact()) {
                    for (const std::int32_t id : tokenizer->encode(text))
                        add(id, {});
                    return;
                }
                for (const std::string_view piece : ApproxTokenizer::pieces(text))
                    add(approxTokenId(piece), piece);
            };
            // tokenize_mixed(): a string, or an array of strings and token ids.
            const json &content = body["content"];
            if (content.is_array()) {
                bool first = true;
                for (const json &part : content) {
                    if (part.is_string())
                        addText(part.get<std::string>(), first);
                    else
                        add(part.get<std::int32_t>(), {});
                    first = false;
                }
            } else {
                addText(content.get<std::string>(), true);
            }
        }
    } catch (const json::exception &e) {
        // What llama.cpp's exception handler makes of a body it cannot read.
        return respondLlamacpp(conn, 500,
                               {{"error", {{"code", 500}, {"message", e.what()}, {"type", "server_error"}}}});
    }
    respondLlamacpp(conn, 200, {{"tokens", tokens}});
}

void SimServer::Impl::methodNotAllowed(Connection &conn, const char *allowed)
{
    respondError(conn, Endpoint::Chat, {405, std::string("Method not allowed; use ") + allowed, {}, {}},
                 std::string("allow: ") + allowed + "\r\n");
}

void SimServer::Impl::models(Connection &conn, const HttpRequest &request)
{
    const bool anthropic = request.header("anthropic-version") != nullptr;
    const qint64 created = startSeconds;
    const auto entry = [&](const QString &name) -> json {
        if (anthropic) {
            return {{"type", "model"},
                    {"id", name.toStdString()},
                    {"display_name", name.toStdString()},
                    {"created_at", QDateTime::fromSecsSinceEpoch(created).toUTC().toString(Qt::ISODate).toStdString()}};
        }
        json model = {
            {"id", name.toStdString()}, {"object", "model"}, {"created", created}, {"owned_by", "tokenbench-sim"}};
        if (config.maxModelLen > 0)
            model["max_model_len"] = config.maxModelLen;
        if (config.models.contains(name)) // as vLLM lists a LoRA adapter: on its base model
            model["parent"] = config.model.toStdString();
        return model;
    };
    const QStringList names = QStringList{config.model} + config.aliases + config.models;
    if (request.path.size() > std::string_view("/v1/models/").size()) {
        const QString id = QString::fromStdString(request.path.substr(std::string_view("/v1/models/").size()));
        if (!config.servesModel(id))
            return respondError(
                conn, anthropic ? Endpoint::Messages : Endpoint::Chat,
                {404, "The model '" + id.toStdString() + "' does not exist", "model", "model_not_found"});
        return respondJson(conn, entry(id));
    }
    json data = json::array();
    for (const QString &name : names)
        data.push_back(entry(name));
    json body = {{"object", "list"}, {"data", data}};
    if (anthropic) {
        body = {{"data", data},
                {"has_more", false},
                {"first_id", names.first().toStdString()},
                {"last_id", names.last().toStdString()}};
    }
    respondJson(conn, body);
}

void SimServer::Impl::requestLog(Connection &conn, const HttpRequest &request)
{
    const auto number = [&](const char *key) -> std::optional<qint64> {
        const std::string text = request.queryValue(key);
        if (text.empty())
            return qint64(0);
        bool ok = false;
        const qint64 v = QString::fromStdString(text).toLongLong(&ok);
        return ok && v >= 0 ? std::optional<qint64>(v) : std::nullopt;
    };
    const auto since = number("since");
    const auto limit = number("limit");
    if (!since || !limit)
        return respondError(conn, Endpoint::Chat,
                            {400, "'since' and 'limit' must be whole numbers >= 0", since ? "limit" : "since", {}});
    json list = json::array();
    for (const RequestTrace &t : traces.since(*since, *limit))
        list.push_back(t.toJson());
    respondJson(conn, {{"requests", list}, {"last_seq", traces.lastSeq()}});
}

} // namespace tb::sim
