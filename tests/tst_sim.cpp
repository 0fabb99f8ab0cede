// The simulated LLM server over real sockets on 127.0.0.1: the three APIs' bodies, the serving
// model under load, faults, limits, bad input, and the ground truth it reports.
#include "formats/prometheustext.h"
#include "metrics/servermetrics.h"
#include "sim/servingmodel.h"
#include "sim/simprotocol.h"
#include "sim/simulatorhost.h"
#include "tokenize/tokenizer.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QSet>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <random>

using json = nlohmann::json;
using tb::ApproxTokenizer;
using tb::detectServerEngine;
using tb::histogramQuantile;
using tb::mapServerMetrics;
using tb::parsePrometheusText;
using tb::PromExposition;
using tb::PromSample;
using tb::ServerPoint;
using namespace tb::sim;

namespace {

qint64 nowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

double msBetween(qint64 fromNs, qint64 toNs)
{
    return double(toNs - fromNs) / 1e6;
}

/// Runs the event loop until `predicate` holds. Unlike QTest::qWaitFor, which sleeps 10 ms between
/// rounds, this wakes for every socket event, so reads are stamped when they happen.
bool waitUntil(const std::function<bool()> &predicate, int timeoutMs)
{
    QElapsedTimer elapsed;
    elapsed.start();
    QEventLoop loop;
    QTimer check;
    check.setInterval(1);
    QObject::connect(&check, &QTimer::timeout, &loop, [&] {
        if (predicate() || elapsed.hasExpired(timeoutMs))
            loop.quit();
    });
    check.start();
    if (!predicate())
        loop.exec();
    return predicate();
}

struct SseEvent {
    QByteArray event;
    QByteArray data;
};

/// A small HTTP/1.1 client on one socket, run by the test's event loop. It stamps every read on
/// steady_clock (as a benchmark client does) and reads one response at a time, so several
/// requests can share the connection.
class Client : public QObject
{
public:
    explicit Client(quint16 port)
    {
        connect(&m_socket, &QTcpSocket::readyRead, this, [this] {
            m_raw += m_socket.readAll();
            parse(nowNs());
        });
        connect(&m_socket, &QTcpSocket::disconnected, this, [this] {
            closed = true;
            parse(nowNs());
        });
        m_socket.connectToHost(QHostAddress(QHostAddress::LocalHost), port);
    }

    void sendRaw(const QByteArray &raw)
    {
        if (m_socket.state() != QAbstractSocket::ConnectedState)
            m_socket.waitForConnected(10000);
        sentNs = nowNs();
        m_socket.write(raw);
        m_socket.flush();
    }

    void post(const QByteArray &path, const QByteArray &body, const QByteArray &headers = {})
    {
        sendRaw("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " +
                QByteArray::number(body.size()) + "\r\n" + headers + "\r\n" + body);
    }
    void post(const QByteArray &path, const json &body, const QByteArray &headers = {})
    {
        post(path, QByteArray::fromStdString(body.dump()), headers);
    }
    void get(const QByteArray &path, const QByteArray &headers = {})
    {
        sendRaw("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + "\r\n");
    }

    /// Until the response is complete or the connection closed; true when complete.
    bool wait(int timeoutMs = 30000)
    {
        return waitUntil([this] { return done || closed; }, timeoutMs) && done;
    }
    /// Forget the current response; the next one on this connection follows.
    void next()
    {
        status = 0;
        headers.clear();
        body.clear();
        done = false;
        headersNs = firstTokenNs = firstBodyNs = -1;
        m_headDone = false;
        parse(nowNs());
    }
    void abort() { m_socket.abort(); }

    json bodyJson() const { return json::parse(body.toStdString(), nullptr, false); }
    QList<SseEvent> events() const
    {
        QList<SseEvent> list;
        for (const QByteArray &block : body.split('\n')) {
            if (block.startsWith("event: "))
                list.append(SseEvent{block.mid(7), {}});
            else if (block.startsWith("data: ")) {
                if (list.isEmpty() || !list.last().data.isNull())
                    list.append(SseEvent{});
                list.last().data = block.mid(6);
            }
        }
        return list;
    }

    int status = 0;
    QMap<QByteArray, QByteArray> headers; ///< lower-case names
    QByteArray body;                      ///< de-chunked
    bool done = false;
    bool closed = false;
    qint64 sentNs = -1;
    qint64 headersNs = -1;
    qint64 firstTokenNs = -1; ///< first read carrying a generated token
    qint64 firstBodyNs = -1;  ///< first read carrying body bytes

private:
    void parse(qint64 stampNs)
    {
        while (!done) {
            if (!m_headDone) {
                const qsizetype end = m_raw.indexOf("\r\n\r\n");
                if (end < 0)
                    return;
                const QList<QByteArray> lines = m_raw.left(end).split('\n');
                m_raw.remove(0, end + 4);
                status = lines.value(0).split(' ').value(1).toInt();
                if (status == 100)
                    continue; // interim response
                for (qsizetype i = 1; i < lines.size(); ++i) {
                    const qsizetype colon = lines[i].indexOf(':');
                    headers.insert(lines[i].left(colon).trimmed().toLower(), lines[i].mid(colon + 1).trimmed());
                }
                m_headDone = true;
                headersNs = stampNs;
                m_chunked = headers.value("transfer-encoding") == "chunked";
                m_length = headers.contains("content-length") ? headers.value("content-length").toLongLong() : -1;
            }
            if (m_chunked) {
                const qsizetype lineEnd = m_raw.indexOf("\r\n");
                if (lineEnd < 0)
                    return;
                const qint64 size = m_raw.left(lineEnd).toLongLong(nullptr, 16);
                if (m_raw.size() < lineEnd + 2 + size + 2)
                    return;
                body += m_raw.mid(lineEnd + 2, size);
                m_raw.remove(0, lineEnd + 2 + size + 2);
                done = size == 0;
            } else if (m_length >= 0) {
                const qint64 take = std::min<qint64>(m_length - body.size(), m_raw.size());
                body += m_raw.left(take);
                m_raw.remove(0, take);
                done = body.size() == m_length;
                if (!done)
                    break;
            } else {
                body += m_raw;
                m_raw.clear();
                done = closed;
                break;
            }
            stampToken(stampNs);
        }
        stampToken(stampNs);
    }

    void stampToken(qint64 stampNs)
    {
        if (firstBodyNs < 0 && !body.isEmpty())
            firstBodyNs = stampNs;
        // Every generated token starts with a space: `"content":" word"`, `"text":" word"`.
        if (firstTokenNs < 0 && (body.contains("\":\" ") || (m_length >= 0 && !body.isEmpty())))
            firstTokenNs = stampNs;
    }

    QTcpSocket m_socket;
    QByteArray m_raw;
    bool m_headDone = false;
    bool m_chunked = false;
    qint64 m_length = -1;
};

QByteArray pathOf(Endpoint endpoint)
{
    switch (endpoint) {
    case Endpoint::Chat:
        return "/v1/chat/completions";
    case Endpoint::Completions:
        return "/v1/completions";
    case Endpoint::Messages:
        return "/v1/messages";
    case Endpoint::Responses:
        return "/v1/responses";
    case Endpoint::Embeddings:
        return "/v1/embeddings";
    case Endpoint::Rerank:
        return "/v1/rerank";
    case Endpoint::Score:
        return "/v1/score";
    }
    return {};
}

/// A request body for an endpoint with the given prompt.
json requestBody(Endpoint endpoint, const QString &prompt, bool stream, const QString &model = QStringLiteral("fast"))
{
    json body = {{"model", model.toStdString()}, {"stream", stream}};
    if (endpoint == Endpoint::Completions)
        body["prompt"] = prompt.toStdString();
    else
        body["messages"] = json::array({{{"role", "user"}, {"content", prompt.toStdString()}}});
    if (endpoint == Endpoint::Messages)
        body["max_tokens"] = 1000;
    if (stream && endpoint != Endpoint::Messages)
        body["stream_options"] = {{"include_usage", true}};
    return body;
}

/// What a streamed or complete response said, normalised across the APIs.
struct Reply {
    QString content;
    QString reasoning;
    qint64 promptTokens = -1;
    qint64 completionTokens = -1;
    qint64 cachedTokens = -1;
    qint64 reasoningTokens = -1;
    QString finishReason;
    QString id;
    int tokenEvents = 0;
    QList<qint64> tokensPerEvent;
    QStringList eventTypes;
    bool terminated = false; ///< [DONE] or message_stop
};

QString str(const json &j)
{
    return j.is_string() ? QString::fromStdString(j.get<std::string>()) : QString();
}

qint64 num(const json &j)
{
    return j.is_number() ? j.get<qint64>() : -1;
}

void readOpenAiUsage(const json &usage, Reply &reply)
{
    reply.promptTokens = usage.value("prompt_tokens", qint64(-1));
    reply.completionTokens = usage.value("completion_tokens", qint64(-1));
    // llama.cpp's usage has no details: -1, as for any count a reply lacks.
    reply.cachedTokens = usage.value("prompt_tokens_details", json::object()).value("cached_tokens", qint64(-1));
    reply.reasoningTokens =
        usage.value("completion_tokens_details", json::object()).value("reasoning_tokens", qint64(-1));
}

void readAnthropicUsage(const json &usage, Reply &reply)
{
    if (usage.contains("input_tokens"))
        reply.promptTokens = usage["input_tokens"].get<qint64>() + usage.value("cache_read_input_tokens", qint64(0));
    if (usage.contains("cache_read_input_tokens"))
        reply.cachedTokens = usage["cache_read_input_tokens"].get<qint64>();
    reply.completionTokens = usage.value("output_tokens", reply.completionTokens);
}

Reply parseStream(Endpoint endpoint, const Client &client)
{
    Reply reply;
    for (const SseEvent &e : client.events()) {
        if (e.data == "[DONE]") {
            reply.terminated = true;
            continue;
        }
        const json data = json::parse(e.data.toStdString(), nullptr, false);
        if (data.is_discarded())
            continue;
        QString text;
        bool reasoning = false;
        if (endpoint == Endpoint::Messages) {
            const QString type = str(data["type"]);
            reply.eventTypes << type;
            if (QString::fromUtf8(e.event) != type)
                reply.eventTypes << QStringLiteral("MISMATCH:") + QString::fromUtf8(e.event);
            if (type == QLatin1String("message_start")) {
                reply.id = str(data["message"]["id"]);
                readAnthropicUsage(data["message"]["usage"], reply);
            } else if (type == QLatin1String("content_block_delta")) {
                text = str(data["delta"].value("text", json())) + str(data["delta"].value("thinking", json()));
                reasoning = data["delta"]["type"] == "thinking_delta";
            } else if (type == QLatin1String("message_delta")) {
                reply.finishReason = str(data["delta"]["stop_reason"]);
                readAnthropicUsage(data["usage"], reply);
            } else if (type == QLatin1String("message_stop")) {
                reply.terminated = true;
            }
        } else {
            reply.id = str(data["id"]);
            if (data.contains("usage") && data["usage"].is_object()) {
                if (!data["choices"].empty())
                    reply.eventTypes << QStringLiteral("usage-with-choices");
                readOpenAiUsage(data["usage"], reply);
            }
            for (const json &choice : data["choices"]) {
                if (!choice["finish_reason"].is_null())
                    reply.finishReason = str(choice["finish_reason"]);
                if (endpoint == Endpoint::Completions) {
                    text = str(choice["text"]);
                } else {
                    text = str(choice["delta"].value("content", json()));
                    if (choice["delta"].contains("reasoning_content")) {
                        text = str(choice["delta"]["reasoning_content"]);
                        reasoning = true;
                    }
                }
            }
        }
        if (!text.isEmpty()) {
            ++reply.tokenEvents;
            reply.tokensPerEvent << ApproxTokenizer::count(text);
            if (reasoning) {
                if (!reply.content.isEmpty())
                    reply.eventTypes << QStringLiteral("reasoning-after-content");
                reply.reasoning += text;
            } else {
                reply.content += text;
            }
        }
    }
    return reply;
}

Reply parseComplete(Endpoint endpoint, const json &body)
{
    Reply reply;
    reply.id = str(body["id"]);
    if (endpoint == Endpoint::Messages) {
        for (const json &block : body["content"]) {
            if (block["type"] == "thinking")
                reply.reasoning += str(block["thinking"]);
            else if (block["type"] == "text")
                reply.content += str(block["text"]);
        }
        reply.finishReason = str(body["stop_reason"]);
        readAnthropicUsage(body["usage"], reply);
    } else {
        const json &choice = body["choices"][0];
        if (endpoint == Endpoint::Completions) {
            reply.content = str(choice["text"]);
        } else {
            reply.content = str(choice["message"]["content"]);
            reply.reasoning = str(choice["message"].value("reasoning_content", json()));
        }
        reply.finishReason = str(choice["finish_reason"]);
        readOpenAiUsage(body["usage"], reply);
    }
    return reply;
}

SimConfig fastConfig()
{
    SimConfig config = *SimConfig::preset(QStringLiteral("fast"));
    return config;
}

/// One request on a fresh connection, waited for.
std::unique_ptr<Client> call(const SimulatorHost &host, Endpoint endpoint, const json &body,
                             const QByteArray &headers = {})
{
    auto client = std::make_unique<Client>(host.port());
    client->post(pathOf(endpoint), body, headers);
    client->wait();
    return client;
}

std::unique_ptr<Client> fetch(const SimulatorHost &host, const QByteArray &path, const QByteArray &headers = {})
{
    auto client = std::make_unique<Client>(host.port());
    client->get(path, headers);
    client->wait();
    return client;
}

const QString kPrompt = QStringLiteral("Summarise the benchmark: throughput, latency and token efficiency, please.");

/// A prompt of exactly `tokens` ApproxTokenizer tokens (and of as many on a completions request).
QString promptOfTokens(qint64 tokens)
{
    return QStringLiteral(" the").repeated(tokens);
}

/// A prompt a cache can serve most of a second time: whole 64-byte blocks of it.
QString sharedPrompt()
{
    QString shared;
    for (int i = 0; i < 60; ++i)
        shared += QStringLiteral("Context line %1 of the shared system prompt. ").arg(i);
    return shared;
}

/// llama.cpp's `timings` of a response: top level in a body, in the finish reason's chunk of a
/// stream (null when absent).
json timingsOf(const Client &client, bool stream)
{
    if (!stream)
        return client.bodyJson().value("timings", json());
    for (const SseEvent &e : client.events()) {
        const json data = json::parse(e.data.toStdString(), nullptr, false);
        if (data.is_object() && !data["choices"].empty() && !data["choices"][0]["finish_reason"].is_null())
            return data.value("timings", json());
    }
    return json();
}

/// How long each of `n` connections opened at once took to connect, ms (-1: not in timeoutMs),
/// on plain non-blocking sockets so that the connects leave together.
QList<double> connectAllAtOnce(quint16 port, int n, int timeoutMs)
{
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::vector<pollfd> fds;
    std::vector<qint64> startNs;
    for (int i = 0; i < n; ++i) {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        startNs.push_back(nowNs());
        ::connect(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address); // EINPROGRESS
        fds.push_back({fd, POLLOUT, 0});
    }
    QList<double> ms(n, -1);
    const qint64 endNs = nowNs() + qint64(timeoutMs) * 1'000'000;
    int pending = n;
    while (pending > 0 && nowNs() < endNs) {
        if (::poll(fds.data(), fds.size(), 10) <= 0)
            continue;
        for (int i = 0; i < n; ++i) {
            if (fds[size_t(i)].fd < 0 || !(fds[size_t(i)].revents & (POLLOUT | POLLERR | POLLHUP)))
                continue;
            int error = 0;
            socklen_t length = sizeof error;
            getsockopt(fds[size_t(i)].fd, SOL_SOCKET, SO_ERROR, &error, &length);
            if (error == 0)
                ms[i] = msBetween(startNs[size_t(i)], nowNs());
            ::close(fds[size_t(i)].fd);
            fds[size_t(i)].fd = -1; // poll() skips it
            --pending;
        }
    }
    for (const pollfd &p : fds) {
        if (p.fd >= 0)
            ::close(p.fd);
    }
    return ms;
}

/// `n` streaming requests at once, each on its own connection.
std::vector<std::unique_ptr<Client>> startStreams(const SimulatorHost &host, int n, Endpoint endpoint = Endpoint::Chat)
{
    std::vector<std::unique_ptr<Client>> clients;
    for (int i = 0; i < n; ++i) {
        clients.push_back(std::make_unique<Client>(host.port()));
        clients.back()->post(pathOf(endpoint), requestBody(endpoint, kPrompt, true));
    }
    return clients;
}

} // namespace

class TestSim : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void idleConnectionsAreClosedSoOthersAreServed_data()
    {
        QTest::addColumn<QByteArray>("sent");
        QTest::newRow("never sends") << QByteArray();
        QTest::newRow("partial request") << QByteArray("GET /v1/mod");
        QTest::newRow("idle after a response") << QByteArray("GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    }

    void idleConnectionsAreClosedSoOthersAreServed()
    {
        // Regression: with no idle timeout, idle connections could hold every descriptor.
        QFETCH(QByteArray, sent);
        SimConfig config = fastConfig();
        config.idleTimeoutS = 0.3;
        config.ttftMs = 800; // a request under way for longer than the idle timeout
        SimulatorHost host(config);
        QVERIFY(host.start());
        std::vector<std::unique_ptr<Client>> idle;
        for (int i = 0; i < 5; ++i) {
            idle.push_back(std::make_unique<Client>(host.port()));
            if (!sent.isEmpty())
                idle.back()->sendRaw(sent);
        }
        Client busy(host.port());
        busy.post(pathOf(Endpoint::Chat), requestBody(Endpoint::Chat, kPrompt, true));
        QVERIFY(waitUntil(
            [&idle] { return std::all_of(idle.begin(), idle.end(), [](const auto &c) { return c->closed; }); }, 10000));
        // The request under way was not taken for idle, and a new client is served.
        QVERIFY(busy.wait());
        QCOMPARE(busy.status, 200);
        QVERIFY(!busy.closed);
        QVERIFY(host.stats().peakOpenConnections >= 6); // they were all accepted first
        Client fresh(host.port());
        fresh.get("/v1/models");
        QVERIFY(fresh.wait());
        QCOMPARE(fresh.status, 200);
    }

    void modelsListsNameAndAliases()
    {
        SimConfig config = fastConfig();
        config.aliases = {QStringLiteral("gpt-4"), QStringLiteral("tb-mini")};
        SimulatorHost host(config);
        QVERIFY(host.start());
        QCOMPARE(host.baseUrl().toString(), QStringLiteral("http://127.0.0.1:%1/v1").arg(host.port()));

        auto list = fetch(host, "/v1/models");
        QCOMPARE(list->status, 200);
        const json body = list->bodyJson();
        QCOMPARE(str(body["object"]), QStringLiteral("list"));
        QStringList ids;
        for (const json &m : body["data"])
            ids << str(m["id"]);
        QCOMPARE(ids, (QStringList{QStringLiteral("fast"), QStringLiteral("gpt-4"), QStringLiteral("tb-mini")}));

        auto one = fetch(host, "/v1/models/tb-mini");
        QCOMPARE(one->status, 200);
        QCOMPARE(str(one->bodyJson()["id"]), QStringLiteral("tb-mini"));
        QCOMPARE(fetch(host, "/v1/models/other")->status, 404);

        // Anthropic's client sends anthropic-version and expects its list format.
        auto anthropic = fetch(host, "/v1/models", "anthropic-version: 2023-06-01\r\n");
        QCOMPARE(str(anthropic->bodyJson()["data"][0]["type"]), QStringLiteral("model"));
        QCOMPARE(anthropic->bodyJson()["has_more"].get<bool>(), false);
    }

    void streamingBodies_data()
    {
        QTest::addColumn<Endpoint>("endpoint");
        QTest::newRow("chat") << Endpoint::Chat;
        QTest::newRow("completions") << Endpoint::Completions;
        QTest::newRow("messages") << Endpoint::Messages;
    }

    void streamingBodies()
    {
        QFETCH(Endpoint, endpoint);
        SimulatorHost host(fastConfig());
        QVERIFY(host.start());

        auto client = call(host, endpoint, requestBody(endpoint, kPrompt, true));
        QVERIFY2(client->done, "stream did not complete");
        QCOMPARE(client->status, 200);
        QVERIFY(client->headers.value("content-type").startsWith("text/event-stream"));
        QCOMPARE(client->headers.value("transfer-encoding"), QByteArray("chunked"));
        const Reply reply = parseStream(endpoint, *client);
        QVERIFY(reply.terminated);
        QCOMPARE(reply.completionTokens, 16); // the fast preset's fixed output
        QCOMPARE(ApproxTokenizer::count(reply.content), reply.completionTokens);
        QCOMPARE(reply.tokenEvents, 16); // one token per event
        QCOMPARE(reply.promptTokens, ApproxTokenizer::count(kPrompt));
        QCOMPARE(reply.cachedTokens, 0);
        QCOMPARE(reply.finishReason,
                 endpoint == Endpoint::Messages ? QStringLiteral("end_turn") : QStringLiteral("stop"));
        QVERIFY(!reply.id.isEmpty());
        QVERIFY2(!reply.eventTypes.contains(QStringLiteral("usage-with-choices")),
                 "the usage chunk must have choices: []");
        if (endpoint == Endpoint::Messages) {
            QCOMPARE(reply.eventTypes.first(), QStringLiteral("message_start"));
            QCOMPARE(reply.eventTypes.mid(reply.eventTypes.size() - 3),
                     (QStringList{QStringLiteral("content_block_stop"), QStringLiteral("message_delta"),
                                  QStringLiteral("message_stop")}));
            QVERIFY(reply.eventTypes.contains(QStringLiteral("content_block_start")));
        } else {
            QCOMPARE(client->events().last().data, QByteArray("[DONE]"));
        }

        // The server's record of the same request agrees with what the client saw.
        const QList<RequestTrace> traces = host.requests();
        QCOMPARE(traces.size(), 1);
        const RequestTrace &t = traces.first();
        QCOMPARE(t.id, reply.id);
        QCOMPARE(t.completionTokens, 16);
        QCOMPARE(t.outcome, QStringLiteral("ok"));
        QCOMPARE(t.endpoint, QLatin1String(endpointName(endpoint)));
        QVERIFY(t.stream);
        // Same machine, same steady_clock: the server's stamps fall between the client's.
        QVERIFY(client->sentNs <= t.receivedNs);
        QVERIFY(t.receivedNs <= t.headersNs && t.headersNs <= t.firstTokenNs);
        QVERIFY(t.firstTokenNs <= t.lastTokenNs && t.lastTokenNs <= t.doneNs);
        QVERIFY(t.firstTokenNs <= client->firstTokenNs);
    }

    void responsesApi_data()
    {
        QTest::addColumn<bool>("stream");
        QTest::addColumn<bool>("hideReasoning");
        QTest::newRow("streaming") << true << false;
        QTest::newRow("whole") << false << false;
        QTest::newRow("streaming, hidden reasoning") << true << true;
    }

    // POST /v1/responses: instructions and input messages count as the prompt; the events (or the
    // response object) carry the text once per kind and usage with cached and reasoning tokens.
    void responsesApi()
    {
        QFETCH(bool, stream);
        QFETCH(bool, hideReasoning);
        SimConfig config = fastConfig();
        config.outputTokens = 20;
        config.reasoningRatio = 0.5;
        config.hideReasoning = hideReasoning;
        SimulatorHost host(config);
        QVERIFY(host.start());
        const json body = {
            {"model", "fast"},
            {"instructions", "Be terse."},
            {"input",
             json::array(
                 {{{"role", "user"}, {"content", kPrompt.toStdString()}},
                  {{"role", "assistant"}, {"content", json::array({{{"type", "output_text"}, {"text", "Earlier."}}})}},
                  {{"role", "user"}, {"content", json::array({{{"type", "input_text"}, {"text", "And now?"}}})}}})},
            {"stream", stream}};
        auto client = call(host, Endpoint::Responses, body);
        QCOMPARE(client->status, 200);
        QString content, reasoning;
        json response;
        QStringList types;
        if (stream) {
            qint64 sequence = 0;
            for (const SseEvent &e : client->events()) {
                const json event = json::parse(e.data.toStdString());
                const QString type = str(event["type"]);
                QCOMPARE(QString::fromLatin1(e.event), type);
                QCOMPARE(event["sequence_number"].get<qint64>(), sequence++);
                types << type;
                if (type == QLatin1String("response.output_text.delta"))
                    content += str(event["delta"]);
                else if (type == QLatin1String("response.reasoning_summary_text.delta"))
                    reasoning += str(event["delta"]);
                else if (type == QLatin1String("response.completed"))
                    response = event["response"];
            }
            QCOMPARE(types.first(), QStringLiteral("response.created"));
            QCOMPARE(types.last(), QStringLiteral("response.completed"));
        } else {
            response = client->bodyJson();
            for (const json &item : response["output"]) {
                if (item["type"] == "message")
                    content += str(item["content"][0]["text"]);
                else
                    for (const json &part : item["summary"])
                        reasoning += str(part["text"]);
            }
        }
        QCOMPARE(str(response["object"]), QStringLiteral("response"));
        QCOMPARE(str(response["status"]), QStringLiteral("completed"));
        QVERIFY(str(response["id"]).startsWith(QLatin1String("resp_")));
        const json &usage = response["usage"];
        const int promptTokens =
            ApproxTokenizer::count(QStringLiteral("Be terse.\n") + kPrompt + QStringLiteral("\nEarlier.\nAnd now?"));
        QCOMPARE(usage["input_tokens"].get<int>(), promptTokens);
        QCOMPARE(usage["input_tokens_details"]["cached_tokens"].get<int>(), 0);
        QCOMPARE(usage["output_tokens"].get<int>(), 20);
        QCOMPARE(usage["output_tokens_details"]["reasoning_tokens"].get<int>(), 10);
        QCOMPARE(ApproxTokenizer::count(content), 10);
        QCOMPARE(ApproxTokenizer::count(reasoning), hideReasoning ? 0 : 10);
        const RequestTrace t = host.requests().first();
        QCOMPARE(t.endpoint, QStringLiteral("responses"));
        QCOMPARE(t.id, str(response["id"]));
        QCOMPARE(t.promptTokens, qint64(promptTokens));
    }

    void responsesApiBadInput_data()
    {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<QString>("param");
        QTest::newRow("no input") << QByteArray(R"({"model": "fast"})") << QStringLiteral("input");
        QTest::newRow("empty input") << QByteArray(R"({"model": "fast", "input": []})") << QStringLiteral("input");
        QTest::newRow("bad role") << QByteArray(R"({"model": "fast", "input": [{"role": "robot", "content": "x"}]})")
                                  << QStringLiteral("input[0].role");
        QTest::newRow("bad max_output_tokens")
            << QByteArray(R"({"model": "fast", "input": "x", "max_output_tokens": 0})")
            << QStringLiteral("max_output_tokens");
        QTest::newRow("instructions not text")
            << QByteArray(R"({"model": "fast", "input": "x", "instructions": 5})") << QStringLiteral("instructions");
    }

    void responsesApiBadInput()
    {
        QFETCH(QByteArray, body);
        QFETCH(QString, param);
        SimulatorHost host(fastConfig());
        QVERIFY(host.start());
        auto client = call(host, Endpoint::Responses, json::parse(body.toStdString()));
        QCOMPARE(client->status, 400);
        QCOMPARE(str(client->bodyJson()["error"]["param"]), param);
    }

    void responseIdsAreUnique()
    {
        SimulatorHost host(fastConfig());
        QVERIFY(host.start());
        QSet<QString> ids;
        for (Endpoint endpoint :
             {Endpoint::Chat, Endpoint::Chat, Endpoint::Completions, Endpoint::Messages, Endpoint::Messages}) {
            for (bool stream : {false, true}) {
                auto client = call(host, endpoint, requestBody(endpoint, kPrompt, stream));
                const Reply reply =
                    stream ? parseStream(endpoint, *client) : parseComplete(endpoint, client->bodyJson());
                QVERIFY(!reply.id.isEmpty());
                QVERIFY2(!ids.contains(reply.id), qPrintable(reply.id));
                ids.insert(reply.id);
            }
        }
    }

    void nonStreamingBodies_data() { streamingBodies_data(); }

    void nonStreamingBodies()
    {
        QFETCH(Endpoint, endpoint);
        SimulatorHost host(fastConfig());
        QVERIFY(host.start());

        auto client = call(host, endpoint, requestBody(endpoint, kPrompt, false));
        QVERIFY(client->done);
        QCOMPARE(client->status, 200);
        QCOMPARE(client->headers.value("content-type"), QByteArray("application/json"));
        const json body = client->bodyJson();
        QVERIFY(!body.is_discarded());
        const Reply reply = parseComplete(endpoint, body);
        QCOMPARE(reply.completionTokens, 16);
        QCOMPARE(ApproxTokenizer::count(reply.content), 16);
        QCOMPARE(reply.promptTokens, ApproxTokenizer::count(kPrompt));
        QCOMPARE(reply.cachedTokens, 0);
        if (endpoint == Endpoint::Messages) {
            QCOMPARE(str(body["type"]), QStringLiteral("message"));
            QCOMPARE(str(body["role"]), QStringLiteral("assistant"));
        } else {
            QCOMPARE(str(body["object"]), endpoint == Endpoint::Chat ? QStringLiteral("chat.completion")
                                                                     : QStringLiteral("text_completion"));
            QCOMPARE(reply.finishReason, QStringLiteral("stop"));
        }
        QCOMPARE(host.stats().tokensSent, 16);
    }

    void outputLengthControls_data()
    {
        QTest::addColumn<QString>("extra");
        QTest::addColumn<qint64>("tokens");
        QTest::addColumn<QString>("finish");
        // The fast preset's natural length is 16.
        QTest::newRow("max_tokens truncates")
            << QStringLiteral(R"({"max_tokens": 5})") << qint64(5) << QStringLiteral("length");
        QTest::newRow("max_completion_tokens truncates")
            << QStringLiteral(R"({"max_completion_tokens": 7})") << qint64(7) << QStringLiteral("length");
        QTest::newRow("max_tokens above natural")
            << QStringLiteral(R"({"max_tokens": 100})") << qint64(16) << QStringLiteral("stop");
        QTest::newRow("ignore_eos runs to max_tokens")
            << QStringLiteral(R"({"max_tokens": 40, "ignore_eos": true})") << qint64(40) << QStringLiteral("length");
        QTest::newRow("min_tokens raises")
            << QStringLiteral(R"({"min_tokens": 30})") << qint64(30) << QStringLiteral("stop");
    }

    void outputLengthControls()
    {
        QFETCH(QString, extra);
        QFETCH(qint64, tokens);
        QFETCH(QString, finish);
        SimulatorHost host(fastConfig());
        QVERIFY(host.start());
        json body = requestBody(Endpoint::Chat, kPrompt, true);
        body.update(json::parse(extra.toStdString()));
        auto client = call(host, Endpoint::Chat, body);
        const Reply reply = parseStream(Endpoint::Chat, *client);
        QCOMPARE(reply.completionTokens, tokens);
        QCOMPARE(ApproxTokenizer::count(reply.content), tokens);
        QCOMPARE(reply.finishReason, finish);
    }

    void reasoningComesFirst_data() { streamingBodies_data(); }

    void reasoningComesFirst()
    {
        QFETCH(Endpoint, endpoint);
        SimConfig config = fastConfig();
        config.outputTokens = 20;
        config.reasoningRatio = 0.5;
        SimulatorHost host(config);
        QVERIFY(host.start());

        auto streamed = call(host, endpoint, requestBody(endpoint, kPrompt, true));
        const Reply reply = parseStream(endpoint, *streamed);
        QVERIFY2(!reply.eventTypes.contains(QStringLiteral("reasoning-after-content")),
                 qPrintable(reply.eventTypes.join(QLatin1Char(','))));
        QCOMPARE(reply.completionTokens, 20);
        const qint64 reasoning = endpoint == Endpoint::Completions ? 0 : 10; // completions carry no reasoning
        QCOMPARE(ApproxTokenizer::count(reply.reasoning), reasoning);
        QCOMPARE(ApproxTokenizer::count(reply.content), 20 - reasoning);
        if (endpoint != Endpoint::Messages)
            QCOMPARE(reply.reasoningTokens, reasoning);
        if (endpoint == Endpoint::Messages) {
            QVERIFY(streamed->body.contains("\"type\":\"thinking\""));
            QVERIFY(streamed->body.contains("signature_delta"));
        }

        auto complete = call(host, endpoint, requestBody(endpoint, kPrompt, false));
        const Reply whole = parseComplete(endpoint, complete->bodyJson());
        QCOMPARE(ApproxTokenizer::count(whole.reasoning), reasoning);
        QCOMPARE(ApproxTokenizer::count(whole.content), 20 - reasoning);
        QCOMPARE(host.stats().reasoningTokensSent, 2 * reasoning);
    }

    void hiddenReasoningIsCountedNotSent_data()
    {
        QTest::addColumn<bool>("stream");
        QTest::newRow("streaming") << true;
        QTest::newRow("whole response") << false;
    }
    void hiddenReasoningIsCountedNotSent()
    {
        QFETCH(bool, stream);
        SimConfig config = fastConfig();
        config.outputTokens = 20;
        config.reasoningRatio = 0.5;
        config.hideReasoning = 1;
        SimulatorHost host(config);
        QVERIFY(host.start());

        json body = requestBody(Endpoint::Chat, kPrompt, stream);
        body["max_tokens"] = 100;
        auto refused = call(host, Endpoint::Chat, body);
        QCOMPARE(refused->status, 400); // as OpenAI's o-series answer max_tokens
        QCOMPARE(str(refused->bodyJson()["error"]["param"]), QStringLiteral("max_tokens"));
        QVERIFY(str(refused->bodyJson()["error"]["message"]).contains(QStringLiteral("max_completion_tokens")));

        body.erase("max_tokens");
        body["max_completion_tokens"] = 100;
        auto client = call(host, Endpoint::Chat, body);
        QCOMPARE(client->status, 200);
        const Reply reply =
            stream ? parseStream(Endpoint::Chat, *client) : parseComplete(Endpoint::Chat, client->bodyJson());
        QVERIFY(reply.reasoning.isEmpty());
        QVERIFY(!client->body.contains("reasoning_content"));
        QCOMPARE(ApproxTokenizer::count(reply.content), 10);
        QCOMPARE(reply.completionTokens, 20); // usage counts what was generated
        QCOMPARE(reply.reasoningTokens, 10);
        if (stream)
            QCOMPARE(reply.tokenEvents, 10);
        QCOMPARE(host.stats().tokensSent, 10);
        QCOMPARE(host.stats().reasoningTokensSent, 0);
        const QList<RequestTrace> traces = host.requests();
        QCOMPARE(traces.size(), qsizetype(2));
        const RequestTrace &t = traces.last();
        QCOMPARE(t.completionTokens, 20);
        QCOMPARE(t.reasoningTokens, 10);
        // The first token written is visible content: it waited for the ten hidden steps.
        QVERIFY(t.firstTokenNs > t.headersNs || !stream);

        // Anthropic's thinking is not what the mode hides: it still streams there.
        auto messages = call(host, Endpoint::Messages, requestBody(Endpoint::Messages, kPrompt, true));
        QCOMPARE(ApproxTokenizer::count(parseStream(Endpoint::Messages, *messages).reasoning), 10);
    }

    void tokensPerChunkPacksEvents()
    {
        SimConfig config = fastConfig();
        config.outputTokens = 18;
        config.tokensPerChunk = 4;
        SimulatorHost host(config);
        QVERIFY(host.start());
        auto client = call(host, Endpoint::Chat, requestBody(Endpoint::Chat, kPrompt, true));
        const Reply reply = parseStream(Endpoint::Chat, *client);
        // The first token comes alone (time to first token is not delayed), then 4 at a time.
        QCOMPARE(reply.tokensPerEvent, (QList<qint64>{1, 4, 4, 4, 4, 1}));
        QCOMPARE(reply.completionTokens, 18);
        QCOMPARE(ApproxTokenizer::count(reply.content), 18);
    }

    void keepAliveServesSeveralRequestsOnOneConnection()
    {
        SimulatorHost host(fastConfig());
        QVERIFY(host.start());
        Client client(host.port());
        client.post(pathOf(Endpoint::Chat), requestBody(Endpoint::Chat, kPrompt, true));
        QVERIFY(client.wait());
        QCOMPARE(client.status, 200);
        QCOMPARE(client.headers.value("connection"), QByteArray("keep-alive"));
        client.next();
        client.post(pathOf(Endpoint::Completions), requestBody(Endpoint::Completions, kPrompt, false));
        QVERIFY(client.wait());
        QCOMPARE(client.status, 200);
        QCOMPARE(parseComplete(Endpoint::Completions, client.bodyJson()).completionTokens, 16);

        // Pipelined: two requests in one write are answered in order.
        client.next();
        const QByteArray one = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
        client.sendRaw(one + "GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        QVERIFY(client.wait());
        QCOMPARE(str(client.bodyJson()["status"]), QStringLiteral("ok"));
        client.next();
        QVERIFY(client.wait());
        QCOMPARE(str(client.bodyJson()["object"]), QStringLiteral("list"));
        QVERIFY(!client.closed);

        const SimStats stats = host.stats();
        QCOMPARE(stats.requestsServed, 2);
        QCOMPARE(stats.peakOpenConnections, 1);
    }

    void chunkedRequestBodyAndExpectContinue()
    {
        SimulatorHost host(fastConfig());
        QVERIFY(host.start());
        const QByteArray body = QByteArray::fromStdString(requestBody(Endpoint::Chat, kPrompt, false).dump());
        Client client(host.port());
        client.sendRaw("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
                       "Expect: 100-continue\r\n\r\n");
        QTest::qWait(50);
        client.sendRaw(QByteArray::number(10, 16) + "\r\n" + body.left(10) + "\r\n" +
                       QByteArray::number(body.size() - 10, 16) + "\r\n" + body.mid(10) + "\r\n0\r\n\r\n");
        QVERIFY(client.wait());
        QCOMPARE(client.status, 200);
        QCOMPARE(parseComplete(Endpoint::Chat, client.bodyJson()).completionTokens, 16);
    }

    void http10StreamEndsWithTheConnection()
    {
        SimulatorHost host(fastConfig());
        QVERIFY(host.start());
        const QByteArray body = QByteArray::fromStdString(requestBody(Endpoint::Chat, kPrompt, true).dump());
        Client client(host.port());
        client.sendRaw("POST /v1/chat/completions HTTP/1.0\r\nContent-Length: " + QByteArray::number(body.size()) +
                       "\r\n\r\n" + body);
        QVERIFY(client.wait());
        QVERIFY(client.closed);
        QVERIFY(!client.headers.contains("transfer-encoding"));
        QCOMPARE(parseStream(Endpoint::Chat, client).completionTokens, 16);
    }

    void badInputGetsAnErrorAndTheServerKeepsServing_data()
    {
        QTest::addColumn<QByteArray>("raw");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("mentions"); ///< in the error message or param
        QTest::addColumn<bool>("anthropicStyle");

        const auto post = [](const QByteArray &path, const QByteArray &body) {
            return "POST " + path +
                   " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" +
                   body;
        };
        const QByteArray messages = R"("messages": [{"role": "user", "content": "hi"}])";
        QTest::newRow("malformed JSON") << post("/v1/chat/completions", R"({"model": "fast", "messages": [)") << 400
                                        << QStringLiteral("parse") << false;
        QTest::newRow("number beyond double got no answer")
            << post("/v1/chat/completions", R"({"model": "fast", "max_tokens": 1e400, )" + messages + "}") << 400
            << QStringLiteral("parse") << false;
        QTest::newRow("body not an object")
            << post("/v1/chat/completions", "[1, 2]") << 400 << QStringLiteral("object") << false;
        QTest::newRow("missing messages")
            << post("/v1/chat/completions", R"({"model": "fast"})") << 400 << QStringLiteral("messages") << false;
        QTest::newRow("empty messages") << post("/v1/chat/completions", R"({"model": "fast", "messages": []})") << 400
                                        << QStringLiteral("messages") << false;
        QTest::newRow("bad role") << post("/v1/chat/completions",
                                          R"({"model": "fast", "messages": [{"role": "robot", "content": "x"}]})")
                                  << 400 << QStringLiteral("messages[0].role") << false;
        QTest::newRow("missing model") << post("/v1/chat/completions", "{" + messages + "}") << 400
                                       << QStringLiteral("model") << false;
        QTest::newRow("negative max_tokens")
            << post("/v1/chat/completions", R"({"model": "fast", "max_tokens": -5, )" + messages + "}") << 400
            << QStringLiteral("max_tokens") << false;
        QTest::newRow("fractional max_tokens")
            << post("/v1/chat/completions", R"({"model": "fast", "max_tokens": 2.5, )" + messages + "}") << 400
            << QStringLiteral("max_tokens") << false;
        QTest::newRow("stream not boolean")
            << post("/v1/chat/completions", R"({"model": "fast", "stream": "yes", )" + messages + "}") << 400
            << QStringLiteral("stream") << false;
        const QByteArray deep(100000, '[');
        QTest::newRow("deeply nested value overflowed the stack")
            << post("/v1/chat/completions",
                    R"({"model": "fast", "stream": )" + deep + QByteArray(100000, ']') + ", " + messages + "}")
            << 400 << QStringLiteral("stream") << false;
        QTest::newRow("stream_options without stream")
            << post("/v1/chat/completions",
                    R"({"model": "fast", "stream_options": {"include_usage": true}, )" + messages + "}")
            << 400 << QStringLiteral("stream_options") << false;
        QTest::newRow("n > 1") << post("/v1/chat/completions", R"({"model": "fast", "n": 3, )" + messages + "}") << 400
                               << QStringLiteral("'n'") << false;
        QTest::newRow("unknown model") << post("/v1/chat/completions", R"({"model": "gpt-5", )" + messages + "}") << 404
                                       << QStringLiteral("gpt-5") << false;
        QTest::newRow("completions without prompt")
            << post("/v1/completions", R"({"model": "fast"})") << 400 << QStringLiteral("prompt") << false;
        QTest::newRow("completions batched prompt")
            << post("/v1/completions", R"({"model": "fast", "prompt": ["a", "b"]})") << 400 << QStringLiteral("batched")
            << false;
        QTest::newRow("messages without max_tokens") << post("/v1/messages", R"({"model": "fast", )" + messages + "}")
                                                     << 400 << QStringLiteral("max_tokens") << true;
        QTest::newRow("messages with system role")
            << post("/v1/messages",
                    R"({"model": "fast", "max_tokens": 5, "messages": [{"role": "system", "content": "x"}]})")
            << 400 << QStringLiteral("role") << true;
        QTest::newRow("messages unknown model")
            << post("/v1/messages", R"({"model": "claude", "max_tokens": 5, )" + messages + "}") << 404
            << QStringLiteral("claude") << true;
        QTest::newRow("unknown path") << QByteArray("GET /v2/everything HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") << 404
                                      << QStringLiteral("/v2/everything") << false;
        QTest::newRow("wrong method") << QByteArray("GET /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                                      << 405 << QStringLiteral("POST") << false;
        QTest::newRow("oversize body")
            << QByteArray("POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 999999999\r\n\r\n{") << 413
            << QStringLiteral("larger") << false;
        QTest::newRow("malformed request line")
            << QByteArray("HELLO\r\n\r\n") << 400 << QStringLiteral("request line") << false;
        QTest::newRow("bad HTTP/2 preface")
            << QByteArray("PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n") << 505 << QStringLiteral("HTTP version") << false;
        QTest::newRow("bad chunk size")
            << QByteArray("POST /v1/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n") << 400
            << QStringLiteral("chunk") << false;
        QTest::newRow("bad Content-Length")
            << QByteArray("POST /v1/completions HTTP/1.1\r\nContent-Length: ten\r\n\r\n") << 400
            << QStringLiteral("Content-Length") << false;
        QTest::newRow("invalid UTF-8 in path")
            << QByteArray("GET /\xff\xfe HTTP/1.1\r\n\r\n") << 404 << QStringLiteral("Unknown path") << false;
    }

    void badInputGetsAnErrorAndTheServerKeepsServing()
    {
        QFETCH(QByteArray, raw);
        QFETCH(int, status);
        QFETCH(QString, mentions);
        QFETCH(bool, anthropicStyle);
        SimConfig config = fastConfig();
        config.maxBodyBytes = 1 << 20;
        SimulatorHost host(config);
        QVERIFY(host.start());

        Client client(host.port());
        client.sendRaw(raw);
        QVERIFY2(client.wait(), "no complete response");
        QCOMPARE(client.status, status);
        const json body = client.bodyJson();
        QVERIFY2(!body.is_discarded(), client.body.constData());
        const json &error = anthropicStyle ? body["error"] : body["error"];
        if (anthropicStyle)
            QCOMPARE(str(body["type"]), QStringLiteral("error"));
        const QString said = str(error["message"]) + QLatin1Char(' ') + str(error.value("param", json()));
        QVERIFY2(said.contains(mentions), qPrintable(said));
        QVERIFY(!str(error["type"]).isEmpty());
        QCOMPARE(host.stats().rejections.value(status), 1);

        // The server is unharmed: it answers a good request on a new connection.
        auto good = call(host, Endpoint::Chat, requestBody(Endpoint::Chat, kPrompt, false));
        QCOMPARE(good->status, 200);
        QCOMPARE(parseComplete(Endpoint::Chat, good->bodyJson()).completionTokens, 16);
    }

    void garbageDoesNotCrash()
    {
        SimulatorHost host(fastConfig());
        QVERIFY(host.start());
        std::mt19937 random(7);
        for (int i = 0; i < 50; ++i) {
            Client client(host.port());
            QByteArray junk(int(random() % 3000) + 1, Qt::Uninitialized);
            for (char &c : junk)
                c = char(random());
            if (i % 2)
                junk.prepend("POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 40\r\n\r\n");
            client.sendRaw(junk);
            client.abort();
        }
        auto good = call(host, Endpoint::Messages, requestBody(Endpoint::Messages, kPrompt, true));
        QVERIFY(good->done);
        QCOMPARE(parseStream(Endpoint::Messages, *good).completionTokens, 16);
    }

    void batchingMakesTtftGrowWithLoad()
    {
        // Two slots, 20 tokens of 10 ms each: the third and fourth waves must wait for whole
        // generations, so their first token comes no earlier than ~2 x 190 ms after sending.
        SimConfig config = fastConfig();
        config.ttftMs = 0;
        config.prefillMsPer1k = 0;
        config.stepMs = 10;
        config.stepMsPerSeq = 0;
        config.maxBatch = 2;
        config.outputTokens = 20;
        SimulatorHost host(config);
        QVERIFY(host.start());

        auto alone = call(host, Endpoint::Chat, requestBody(Endpoint::Chat, kPrompt, true));
        const double unloadedTtft = msBetween(alone->sentNs, alone->firstTokenNs);

        QList<double> ttfts;
        for (auto &c : startStreams(host, 6)) {
            QVERIFY(c->wait());
            ttfts << msBetween(c->sentNs, c->firstTokenNs);
        }
        std::sort(ttfts.begin(), ttfts.end());
        qInfo("TTFT unloaded %.1f ms; under load (6 requests, batch 2): %.1f .. %.1f ms", unloadedTtft, ttfts.first(),
              ttfts.last());
        QVERIFY2(ttfts.last() >= 350, qPrintable(QString::number(ttfts.last())));
        QVERIFY(ttfts.last() > unloadedTtft);
        // The server saw the queue build up.
        QCOMPARE(host.stats().peakConcurrentRequests, 6);
        QVERIFY(host.stats().requestsQueued == 0);
    }

    void stepTimeGrowsWithTheBatch()
    {
        // step = 2 ms + 5 ms per sequence: alone 7 ms a token, eight at once 42 ms a token.
        SimConfig config = fastConfig();
        config.ttftMs = 0;
        config.stepMs = 2;
        config.stepMsPerSeq = 5;
        config.outputTokens = 20;
        SimulatorHost host(config);
        QVERIFY(host.start());
        for (auto &c : startStreams(host, 8, Endpoint::Completions))
            QVERIFY(c->wait());
        for (const RequestTrace &t : host.requests()) {
            const double decodeMs = msBetween(t.firstTokenNs, t.lastTokenNs);
            // 19 steps with the batch mostly full: far above the 133 ms of a lone sequence.
            QVERIFY2(decodeMs >= 500, qPrintable(QString::number(decodeMs)));
        }
    }

    void queueLimitGives503()
    {
        SimConfig config = fastConfig();
        config.maxBatch = 1;
        config.queueLimit = 1;
        config.outputTokens = 200;
        config.stepMs = 5;
        SimulatorHost host(config);
        QVERIFY(host.start());
        Client first(host.port());
        first.post(pathOf(Endpoint::Chat), requestBody(Endpoint::Chat, kPrompt, true));
        QTRY_COMPARE_WITH_TIMEOUT(host.stats().requestsActive, 1, 10000);
        Client second(host.port());
        second.post(pathOf(Endpoint::Chat), requestBody(Endpoint::Chat, kPrompt, true));
        QTRY_COMPARE_WITH_TIMEOUT(host.stats().requestsQueued, 1, 10000);

        auto third = call(host, Endpoint::Chat, requestBody(Endpoint::Chat, kPrompt, true));
        QCOMPARE(third->status, 503);
        QCOMPARE(third->headers.value("retry-after"), QByteArray("1"));
        QCOMPARE(str(third->bodyJson()["error"]["code"]), QStringLiteral("overloaded"));
        auto anthropic = call(host, Endpoint::Messages, requestBody(Endpoint::Messages, kPrompt, false));
        QCOMPARE(anthropic->status, 503);
        QCOMPARE(str(anthropic->bodyJson()["error"]["type"]), QStringLiteral("overloaded_error"));
        QCOMPARE(host.stats().rejections.value(503), 2);

        // Those admitted still complete.
        QVERIFY(first.wait());
        QVERIFY(second.wait());
        QCOMPARE(parseStream(Endpoint::Chat, second).completionTokens, 200);
    }

    void rateLimitGives429WithRetryAfter()
    {
        SimConfig config = fastConfig();
        config.rpmLimit = 2;
        SimulatorHost host(config);
        QVERIFY(host.start());
        QCOMPARE(call(host, Endpoint::Chat, requestBody(Endpoint::Chat, kPrompt, false))->status, 200);
        QCOMPARE(call(host, Endpoint::Chat, requestBody(Endpoint::Chat, kPrompt, false))->status, 200);
        auto limited = call(host, Endpoint::Chat, requestBody(Endpoint::Chat, kPrompt, false));
        QCOMPARE(limited->status, 429);
        // One request refills every 30 s at 2 per minute.
        const int retryAfter = limited->headers.value("retry-after").toInt();
        QVERIFY2(retryAfter >= 29 && retryAfter <= 30, limited->headers.value("retry-after").constData());
        QVERIFY(limited->headers.value("retry-after-ms").toInt() > 29000);
        QCOMPARE(str(limited->bodyJson()["error"]["code"]), QStringLiteral("rate_limit_exceeded"));
        QVERIFY(str(limited->bodyJson()["error"]["message"]).contains(QStringLiteral("requests")));
        QCOMPARE(host.stats().rejections.value(429), 1);
    }

    void tokenRateLimitGives429()
    {
        SimConfig config = fastConfig();
        config.tpmLimit = 1000;
        SimulatorHost host(config);
        QVERIFY(host.start());
        json body = requestBody(Endpoint::Chat, kPrompt, false);
        body["max_tokens"] = 600;
        QCOMPARE(call(host, Endpoint::Chat, body)->status, 200);
        auto limited = call(host, Endpoint::Chat, body);
        QCOMPARE(limited->status, 429);
        QVERIFY(limited->headers.value("retry-after").toInt() >= 1);
        QVERIFY(str(limited->bodyJson()["error"]["message"]).contains(QStringLiteral("tokens")));

        body["max_tokens"] = 5000; // can never pass
        auto tooLarge = call(host, Endpoint::Messages,
                             json{{"model", "fast"}, {"max_tokens", 5000}, {"messages", body["messages"]}});
        QCOMPARE(tooLarge->status, 429);
        QCOMPARE(str(tooLarge->bodyJson()["error"]["type"]), QStringLiteral("rate_limit_error"));
        QVERIFY(str(tooLarge->bodyJson()["error"]["message"]).contains(QStringLiteral("too large")));
    }

    void repeatedPrefixReportsCachedTokens_data() { streamingBodies_data(); }

    void repeatedPrefixReportsCachedTokens()
    {
        QFETCH(Endpoint, endpoint);
        SimulatorHost host(fastConfig());
        QVERIFY(host.start());
        QString shared;
        for (int i = 0; i < 60; ++i)
            shared += QStringLiteral("Context line %1 of the shared system prompt. ").arg(i);

        auto first = call(host, endpoint, requestBody(endpoint, shared + QStringLiteral("First question?"), false));
        const Reply one = parseComplete(endpoint, first->bodyJson());
        QCOMPARE(one.cachedTokens, 0);

        auto second = call(host, endpoint, requestBody(endpoint, shared + QStringLiteral("Another question?"), false));
        const Reply two = parseComplete(endpoint, second->bodyJson());
        const qint64 sharedTokens = ApproxTokenizer::count(shared);
        QCOMPARE(two.promptTokens, ApproxTokenizer::count(shared + QStringLiteral("Another question?")));
        // Whole 64-byte blocks of the shared prefix hit: at most one block short of it.
        QVERIFY2(two.cachedTokens > sharedTokens - 40 && two.cachedTokens <= sharedTokens,
                 qPrintable(QStringLiteral("%1 cached of %2 shared").arg(two.cachedTokens).arg(sharedTokens)));

        // The same prompt again: everything but the last token can come from the cache.
        auto third = call(host, endpoint, requestBody(endpoint, shared + QStringLiteral("Another question?"), false));
        const Reply three = parseComplete(endpoint, third->bodyJson());
        QVERIFY(three.cachedTokens >= two.cachedTokens && three.cachedTokens < three.promptTokens);

        auto other = call(host, endpoint, requestBody(endpoint, QStringLiteral("Unrelated. ") + shared, false));
        QCOMPARE(parseComplete(endpoint, other->bodyJson()).cachedTokens, 0);
        QCOMPARE(host.stats().cachedTokens, two.cachedTokens + three.cachedTokens);
    }

    void cachedPrefixShortensTimeToFirstToken()
    {
        // Prefill of 5,000 tokens at 100 ms per 1k is 500 ms; a cached prefix skips most of it.
        SimConfig config = fastConfig();
        config.prefillMsPer1k = 100;
        config.outputTokens = 2;
        SimulatorHost host(config);
        QVERIFY(host.start());
        QString prompt;
        while (ApproxTokenizer::count(prompt) < 5000)
            prompt += QStringLiteral("lorem ipsum dolor sit amet ");
        auto cold = call(host, Endpoint::Chat, requestBody(Endpoint::Chat, prompt, true));
        auto warm = call(host, Endpoint::Chat, requestBody(Endpoint::Chat, prompt, true));
        const double coldTtft = msBetween(cold->sentNs, cold->firstTokenNs);
        const double warmTtft = msBetween(warm->sentNs, warm->firstTokenNs);
        qInfo("TTFT for a 5k-token prompt: cold %.1f ms, cached %.1f ms", coldTtft, warmTtft);
        QVERIFY(coldTtft >= 450);
        QVERIFY(warmTtft < coldTtft);
    }

    void clientDisconnectFreesItsSlot()
    {
        SimConfig config = fastConfig();
        config.maxBatch = 1;
        config.outputTokens = 5000;
        config.stepMs = 2;
        SimulatorHost host(config);
        QVERIFY(host.start());
        auto leaver = std::make_unique<Client>(host.port());
        leaver->post(pathOf(Endpoint::Chat), requestBody(Endpoint::Chat, kPrompt, true));
        QVERIFY(waitUntil([&] { return leaver->firstTokenNs > 0; }, 10000));
        QCOMPARE(host.stats().requestsActive, 1);
        leaver->abort();
        QTRY_COMPARE_WITH_TIMEOUT(host.stats().requestsActive, 0, 10000);
        QCOMPARE(host.stats().clientDisconnects, 1);
        QCOMPARE(host.stats().requestsInProgress, 0);

        // The only slot is free again: a new request is served, not queued behind a ghost.
        json body = requestBody(Endpoint::Chat, kPrompt, false);
        body["max_tokens"] = 3;
        auto next = call(host, Endpoint::Chat, body);
        QCOMPARE(next->status, 200);
        const QList<RequestTrace> traces = host.requests();
        QCOMPARE(traces.first().outcome, QStringLiteral("client_closed"));
        QVERIFY(traces.first().completionTokens > 0 && traces.first().completionTokens < 5000);
    }

    void statsReportPeaksAndReset()
    {
        SimConfig config = fastConfig();
        config.outputTokens = 50;
        config.stepMs = 5;
        SimulatorHost host(config);
        QVERIFY(host.start());
        const auto clients = startStreams(host, 5); // kept open while the stats are read
        for (const auto &c : clients)
            QVERIFY(c->wait());

        auto stats = fetch(host, "/sim/stats");
        const json s = stats->bodyJson();
        for (const char *key : {"requests_served", "requests_active", "requests_queued", "peak_concurrent_requests",
                                "open_connections", "peak_open_connections", "tokens_sent", "prompt_tokens",
                                "cached_tokens", "rejections", "streams_cut", "uptime_s"})
            QVERIFY2(s.contains(key), key);
        for (const char *status : {"429", "503", "500", "400", "404"})
            QVERIFY2(s["rejections"].contains(status), status);
        QCOMPARE(num(s["requests_served"]), qint64(5));
        QCOMPARE(num(s["peak_concurrent_requests"]), qint64(5));
        QVERIFY(s["peak_open_connections"].get<int>() >= 6); // five streams and this request
        QCOMPARE(num(s["tokens_sent"]), qint64(250));
        QCOMPARE(num(s["prompt_tokens"]), qint64(5 * ApproxTokenizer::count(kPrompt)));
        QCOMPARE(num(s["pacing_error_us"]["count"]), qint64(250));
        QCOMPARE(num(host.stats().toJson()["requests_served"]), qint64(5));

        Client reset(host.port());
        reset.sendRaw("POST /sim/reset HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
        QVERIFY(reset.wait());
        QCOMPARE(reset.status, 200);
        const SimStats after = host.stats();
        QCOMPARE(after.requestsServed, 0);
        QCOMPARE(after.tokensSent, 0);
        QCOMPARE(after.peakConcurrentRequests, 0);
        QVERIFY(after.peakOpenConnections <= after.openConnections + 1);
    }

    void metricsAgreeWithStats()
    {
        SimConfig config = fastConfig();
        config.outputTokens = 40;
        config.stepMs = 20; // the batch holds still for about a second while it is read
        config.maxBatch = 3;
        config.kvCacheTokens = 1000;
        SimulatorHost host(config);
        QVERIFY(host.start());
        const auto scrape = [&host] {
            auto client = fetch(host, "/metrics");
            QString error;
            auto exposition = parsePrometheusText(client->body, &error);
            if (!exposition)
                qWarning("not Prometheus text: %s", qPrintable(error));
            return std::make_pair(std::move(client), std::move(exposition));
        };
        const auto value = [](const PromExposition &e, const char *name) {
            for (const PromSample &s : e.samples) {
                if (s.name == name)
                    return s.value;
            }
            return -1.0;
        };

        const auto clients = startStreams(host, 5);
        QTRY_COMPARE_WITH_TIMEOUT(host.stats().requestsActive + host.stats().requestsQueued, qint64(5), 10000);
        // Mid-run: the gauges are the serving model's, as /sim/stats reports it.
        auto [mid, during] = scrape();
        QCOMPARE(mid->status, 200);
        QVERIFY(mid->headers.value("content-type").startsWith("text/plain; version=0.0.4"));
        QVERIFY(during);
        const SimStats now = host.stats();
        const ServerPoint p = mapServerMetrics(*during, 0);
        QCOMPARE(detectServerEngine(*during), QStringLiteral("vllm"));
        QCOMPARE(*p.running, double(now.requestsActive));
        QCOMPARE(*p.waiting, double(now.requestsQueued));
        QCOMPARE(*p.running, 3.0);
        QCOMPARE(*p.waiting, 2.0);
        // Three prompts and their tokens so far, of a 1000-token KV cache.
        const double promptEach = double(ApproxTokenizer::count(kPrompt));
        QVERIFY2(*p.kvCacheFraction >= 3 * promptEach / 1000 && *p.kvCacheFraction < (3 * promptEach + 3 * 40) / 1000,
                 qPrintable(QString::number(*p.kvCacheFraction)));

        for (const auto &c : clients)
            QVERIFY(c->wait());
        // At the end: the counters are /sim/stats' counters, the histograms count every request.
        auto [end, after] = scrape();
        QVERIFY(after);
        const json stats = fetch(host, "/sim/stats")->bodyJson();
        const ServerPoint q = mapServerMetrics(*after, 0);
        QCOMPARE(*q.running, 0.0);
        QCOMPARE(*q.waiting, 0.0);
        QCOMPARE(*q.kvCacheFraction, 0.0);
        QCOMPARE(*q.promptTokens, double(num(stats["prompt_tokens"])));
        QCOMPARE(*q.promptTokens, 5 * promptEach);
        QCOMPARE(*q.generationTokens, double(num(stats["tokens_sent"])));
        QCOMPARE(*q.generationTokens, 5 * 40.0);
        QCOMPARE(*q.prefixQueries, double(num(stats["prompt_tokens"])));
        QCOMPARE(*q.prefixHits, double(num(stats["cached_tokens"])));
        QVERIFY(*q.prefixHits > 0); // the same prompt five times
        double served = 0;
        for (const PromSample &s : after->samples) {
            if (s.name == "vllm:request_success_total")
                served += s.value;
        }
        QCOMPARE(served, double(num(stats["requests_served"])));
        QCOMPARE(q.ttft.count(), 5.0);
        QCOMPARE(q.e2e.count(), 5.0);
        QCOMPARE(q.itl.count(), 5 * 39.0); // every token after the first
        QCOMPARE(value(*after, "vllm:request_time_per_output_token_seconds_count"), 5.0);
        // Decode steps of 20 ms and more: the median inter-token latency is in the bucket above 20 ms.
        const double itlP50 = *histogramQuantile(q.itl, nullptr, 0.5);
        QVERIFY2(itlP50 > 0.01 && itlP50 <= 0.05, qPrintable(QString::number(itlP50)));

        Client reset(host.port());
        reset.sendRaw("POST /sim/reset HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
        QVERIFY(reset.wait());
        auto [cleared, zero] = scrape();
        QVERIFY(zero);
        QCOMPARE(mapServerMetrics(*zero, 0).ttft.count(), 0.0);
        QCOMPARE(*mapServerMetrics(*zero, 0).generationTokens, 0.0);

        Client post(host.port());
        post.post("/metrics", QByteArray("x"));
        QVERIFY(post.wait());
        QCOMPARE(post.status, 405);
    }

    void faultsAreDeterministicForASeed()
    {
        const auto outcomes = [](qint64 seed) {
            SimConfig config = fastConfig();
            config.seed = seed;
            config.errorRate = 0.25;
            config.cutRate = 0.25;
            SimulatorHost host(config);
            host.start();
            QStringList list;
            for (int i = 0; i < 24; ++i) {
                auto client = call(host, Endpoint::Chat, requestBody(Endpoint::Chat, kPrompt, i % 2 == 0));
                list << QStringLiteral("%1:%2")
                            .arg(client->status)
                            .arg(client->done ? QStringLiteral("complete") : QStringLiteral("cut"));
            }
            return list;
        };
        const QStringList a = outcomes(42);
        QCOMPARE(outcomes(42), a);
        QVERIFY2(a.contains(QStringLiteral("500:complete")), qPrintable(a.join(QLatin1Char(' '))));
        QVERIFY2(a.contains(QStringLiteral("200:cut")), qPrintable(a.join(QLatin1Char(' '))));
        QVERIFY2(a.contains(QStringLiteral("200:complete")), qPrintable(a.join(QLatin1Char(' '))));
        QVERIFY(outcomes(43) != a);
    }

    void serverErrorFault()
    {
        SimConfig config = fastConfig();
        config.errorRate = 1;
        SimulatorHost host(config);
        QVERIFY(host.start());
        auto client = call(host, Endpoint::Chat, requestBody(Endpoint::Chat, kPrompt, true));
        QCOMPARE(client->status, 500);
        QCOMPARE(str(client->bodyJson()["error"]["type"]), QStringLiteral("server_error"));
        QCOMPARE(host.stats().rejections.value(500), 1);
        QCOMPARE(host.requests().first().outcome, QStringLiteral("error"));
    }

    void cutStreamsAreTruncated_data()
    {
        QTest::addColumn<Endpoint>("endpoint");
        QTest::addColumn<bool>("stream");
        QTest::newRow("chat stream") << Endpoint::Chat << true;
        QTest::newRow("messages stream") << Endpoint::Messages << true;
        QTest::newRow("chat complete") << Endpoint::Chat << false;
    }

    void cutStreamsAreTruncated()
    {
        QFETCH(Endpoint, endpoint);
        QFETCH(bool, stream);
        SimConfig config = fastConfig();
        config.cutRate = 1;
        SimulatorHost host(config);
        QVERIFY(host.start());
        auto client = call(host, endpoint, requestBody(endpoint, kPrompt, stream));
        QVERIFY(client->closed);
        QVERIFY2(!client->done, "a cut response must not look complete");
        QCOMPARE(client->status, 200);
        const RequestTrace trace = host.requests().first();
        QCOMPARE(trace.outcome, QStringLiteral("cut"));
        QCOMPARE(host.stats().streamsCut, 1);
        if (stream) {
            const Reply reply = parseStream(endpoint, *client);
            QVERIFY(!reply.terminated);
            const qint64 got = ApproxTokenizer::count(reply.content);
            QVERIFY2(got >= 1 && got < 16, qPrintable(QString::number(got)));
            QCOMPARE(trace.completionTokens, got);
            QCOMPARE(host.stats().tokensSent, got);
        } else {
            QVERIFY(client->body.size() < client->headers.value("content-length").toLongLong());
        }
    }

    void slowHeaders()
    {
        SimConfig config = fastConfig();
        config.headerDelayMs = 300;
        SimulatorHost host(config);
        QVERIFY(host.start());
        auto client = call(host, Endpoint::Chat, requestBody(Endpoint::Chat, kPrompt, true));
        QVERIFY(client->done);
        QVERIFY(msBetween(client->sentNs, client->headersNs) >= 290);
        QVERIFY(msBetween(client->sentNs, client->firstTokenNs) >= 290);
        QCOMPARE(host.stats().peakConcurrentRequests, 1);
    }

    void requestLogSince()
    {
        SimulatorHost host(fastConfig());
        QVERIFY(host.start());
        for (int i = 0; i < 3; ++i)
            call(host, Endpoint::Completions, requestBody(Endpoint::Completions, kPrompt, i == 1));
        auto all = fetch(host, "/sim/requests");
        const json list = all->bodyJson();
        QCOMPARE(int(list["requests"].size()), 3);
        QCOMPARE(num(list["last_seq"]), qint64(3));
        for (const char *key : {"id", "model", "stream", "prompt_tokens", "completion_tokens", "cached_tokens",
                                "status", "received_ns", "headers_ns", "first_token_ns", "last_token_ns", "done_ns"})
            QVERIFY2(list["requests"][0].contains(key), key);
        QCOMPARE(list["requests"][1]["stream"].get<bool>(), true);
        auto later = fetch(host, "/sim/requests?since=2");
        QCOMPARE(int(later->bodyJson()["requests"].size()), 1);
        QCOMPARE(num(later->bodyJson()["requests"][0]["seq"]), qint64(3));
        QCOMPARE(num(fetch(host, "/sim/requests?since=1&limit=1")->bodyJson()["requests"][0]["seq"]), qint64(2));
        QCOMPARE(fetch(host, "/sim/requests?since=x")->status, 400);
    }

    void stopIsIdempotentAndRestartable()
    {
        SimulatorHost host(fastConfig());
        QVERIFY(host.start());
        QString error;
        QVERIFY(!host.start(QHostAddress(QHostAddress::LocalHost), 0, &error));
        QVERIFY(error.contains(QStringLiteral("already running")));
        const quint16 port = host.port();
        call(host, Endpoint::Chat, requestBody(Endpoint::Chat, kPrompt, false));
        host.stop();
        host.stop();
        QVERIFY(!host.isRunning());
        QCOMPARE(host.stats().requestsServed, 1); // the stopped server still answers

        QVERIFY(host.start(QHostAddress(QHostAddress::LocalHost), port, &error));
        QCOMPARE(call(host, Endpoint::Chat, requestBody(Endpoint::Chat, kPrompt, false))->status, 200);

        SimulatorHost clash(fastConfig());
        QVERIFY(!clash.start(QHostAddress(QHostAddress::LocalHost), port, &error));
        QVERIFY2(error.contains(QString::number(port)), qPrintable(error));
    }

    // --- llama.cpp's llama-server (issue 24) ------------------------------------------------------

    void streamedResponseClosesItsKeptAliveConnection_data()
    {
        QTest::addColumn<qint64>("closeAfterStream");
        QTest::addColumn<bool>("stream");
        QTest::addColumn<bool>("reusable");
        QTest::newRow("close_after_stream: streamed") << qint64(1) << true << false;
        QTest::newRow("close_after_stream: not streamed") << qint64(1) << false << true;
        QTest::newRow("kept alive: streamed") << qint64(0) << true << true;
    }

    void streamedResponseClosesItsKeptAliveConnection()
    {
        // Regression (issue 24): llama.cpp promises keep-alive, then closes the connection after
        // every streamed response; a client reusing it at once lost 20-30% of its requests.
        QFETCH(qint64, closeAfterStream);
        QFETCH(bool, stream);
        QFETCH(bool, reusable);
        SimConfig config = fastConfig();
        config.closeAfterStream = closeAfterStream;
        config.keepAliveMax = 100;
        config.idleTimeoutS = 5;
        SimulatorHost host(config);
        QVERIFY(host.start());
        Client client(host.port());
        client.post(pathOf(Endpoint::Chat), requestBody(Endpoint::Chat, kPrompt, stream));
        QVERIFY(client.wait());
        QCOMPARE(client.status, 200);
        // httplib's headers, whatever follows.
        QCOMPARE(client.headers.value("connection"), QByteArray("keep-alive"));
        QCOMPARE(client.headers.value("keep-alive"), QByteArray("timeout=5, max=100"));

        // A client that reuses the connection at once, as ours did.
        QElapsedTimer elapsed;
        elapsed.start();
        client.next();
        client.post(pathOf(Endpoint::Chat), requestBody(Endpoint::Chat, kPrompt, false));
        QCOMPARE(client.wait(10000), reusable);
        QCOMPARE(client.closed, !reusable);
        // The close follows the last chunk at once, not the 5-s idle timeout.
        if (!reusable)
            QVERIFY2(elapsed.elapsed() < 2500, qPrintable(QString::number(elapsed.elapsed())));
        QCOMPARE(host.stats().requestsServed, reusable ? 2 : 1);
    }

    void nagleWritesSendTheHeadersAlone_data()
    {
        QTest::addColumn<qint64>("nagleWrites");
        QTest::newRow("nagle_writes") << qint64(1);
        QTest::newRow("default") << qint64(0);
    }

    void nagleWritesSendTheHeadersAlone()
    {
        // llama.cpp (strace of llama-server) writes the headers alone when the request comes and
        // each event as a write of its own, with Nagle's algorithm on (cpp-httplib leaves
        // TCP_NODELAY off): its first body bytes leave with the first token, and a small write
        // waits while the one before is unacknowledged. The simulator's own way sends its
        // assistant-role chunk with the headers.
        QFETCH(qint64, nagleWrites);
        SimConfig config = fastConfig();
        config.nagleWrites = nagleWrites;
        config.ttftMs = 300; // long enough that the headers are read before the first token comes
        SimulatorHost host(config);
        QVERIFY(host.start());
        Client client(host.port());
        client.post(pathOf(Endpoint::Chat), requestBody(Endpoint::Chat, kPrompt, true));
        QVERIFY(client.wait());
        QCOMPARE(client.status, 200);
        QVERIFY(client.firstBodyNs >= client.headersNs && client.firstTokenNs >= client.firstBodyNs);
        if (nagleWrites)
            QVERIFY2(client.firstBodyNs - client.headersNs >= 200'000'000,
                     qPrintable(QString::number(client.firstBodyNs - client.headersNs)));
        else
            QCOMPARE(client.firstBodyNs, client.headersNs); // in the headers' read
        // The same events either way: the role, the tokens, the finish, [DONE].
        const QList<SseEvent> events = client.events();
        QVERIFY(events.size() >= 4);
        QVERIFY2(events.first().data.contains(R"("role":"assistant")"), events.first().data.constData());
        QVERIFY(events.value(1).data.contains(R"("content":" )"));
        QCOMPARE(events.last().data, QByteArray("[DONE]"));
        QCOMPARE(host.stats().requestsServed, 1);
    }

    void keepAliveMaxClosesTheLastRequestsConnection()
    {
        SimConfig config = fastConfig();
        config.keepAliveMax = 3;
        SimulatorHost host(config);
        QVERIFY(host.start());
        Client client(host.port());
        for (int i = 1; i <= 3; ++i) {
            client.get("/health");
            QVERIFY(client.wait());
            QCOMPARE(client.headers.value("connection"), QByteArray(i < 3 ? "keep-alive" : "close"));
            QCOMPARE(client.headers.contains("keep-alive"), i < 3);
            client.next();
        }
        QVERIFY(waitUntil([&client] { return client.closed; }, 5000));
    }

    void smallListenBacklogOverflowsIntoSynRetries_data()
    {
        QTest::addColumn<qint64>("backlog");
        QTest::addColumn<bool>("retried");
        QTest::newRow("llama.cpp's 5") << qint64(5) << true;
        QTest::newRow("default") << SimConfig().listenBacklog << false;
    }

    void smallListenBacklogOverflowsIntoSynRetries()
    {
        // Regression (issue 24): 16 users connecting at once to llama.cpp (httplib's backlog of 5)
        // overflowed its accept queue; the kernel dropped their SYNs and 10 connects took ≈1 s.
        QFETCH(qint64, backlog);
        QFETCH(bool, retried);
        SimConfig config = fastConfig();
        config.listenBacklog = backlog;
        config.acceptDelayMs = 100; // far longer than the 16 connects take to leave
        SimulatorHost host(config);
        QVERIFY(host.start());
        const QList<double> ms = connectAllAtOnce(host.port(), 16, 8000);
        QStringList shown;
        for (double v : ms)
            shown << QString::number(v, 'f', 1);
        qInfo("connect ms (backlog %lld): %s", backlog, qPrintable(shown.join(QLatin1Char(' '))));
        QVERIFY2(!ms.contains(-1), "every connect succeeds in the end");
        const auto slow = std::count_if(ms.begin(), ms.end(), [](double v) { return v >= 900; });
        if (!retried) {
            QCOMPARE(slow, 0);
            return;
        }
        // Six fit the queue (backlog + 1); a dropped SYN is sent again after 1 s (then 3 s).
        QVERIFY2(slow >= 1 && slow <= 10, qPrintable(QString::number(slow)));
        for (double v : ms)
            QVERIFY2(v < 900 || (v >= 900 && v < 3500), qPrintable(QString::number(v)));
    }

    void tokenizeDialects_data()
    {
        QTest::addColumn<Dialect>("dialect");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<qint64>("tokens");                ///< counted: vLLM's "count", llama.cpp's list; -1: an error
        const QByteArray text = "Hello, tokenizer world!"; // hell o , toke nize r worl d !
        const qint64 n = ApproxTokenizer::count(QString::fromUtf8(text));
        const auto body = [](const json &j) { return QByteArray::fromStdString(j.dump()); };
        const json messages = json::array({{{"role", "user"}, {"content", text.toStdString()}}});
        QTest::newRow("vllm: prompt") << Dialect::Vllm << body({{"model", "fast"}, {"prompt", text.toStdString()}})
                                      << 200 << n;
        QTest::newRow("vllm: messages") << Dialect::Vllm << body({{"model", "fast"}, {"messages", messages}}) << 200
                                        << n;
        QTest::newRow("vllm: content is not its field")
            << Dialect::Vllm << body({{"content", text.toStdString()}}) << 400 << qint64(-1);
        QTest::newRow("llamacpp: content") << Dialect::Llamacpp << body({{"content", text.toStdString()}}) << 200 << n;
        QTest::newRow("llamacpp: add_special puts BOS first")
            << Dialect::Llamacpp << body({{"content", text.toStdString()}, {"add_special", true}}) << 200 << n + 1;
        QTest::newRow("llamacpp: strings and ids")
            << Dialect::Llamacpp << body({{"content", json::array({text.toStdString(), 42, "more"})}}) << 200 << n + 2;
        // The silent non-answer that made a calibration of 0 tokens look like a result.
        QTest::newRow("llamacpp: vLLM's messages counted as nothing")
            << Dialect::Llamacpp << body({{"model", "fast"}, {"messages", messages}}) << 200 << qint64(0);
        QTest::newRow("llamacpp: vLLM's prompt counted as nothing")
            << Dialect::Llamacpp << body({{"model", "fast"}, {"prompt", text.toStdString()}}) << 200 << qint64(0);
        QTest::newRow("llamacpp: content not text") << Dialect::Llamacpp << body({{"content", 5}}) << 500 << qint64(-1);
        QTest::newRow("llamacpp: not JSON") << Dialect::Llamacpp << QByteArray("{") << 500 << qint64(-1);
    }

    void tokenizeDialects()
    {
        QFETCH(Dialect, dialect);
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(qint64, tokens);
        SimConfig config = fastConfig();
        config.tokenizeDialect = dialect;
        SimulatorHost host(config);
        QVERIFY(host.start());
        Client client(host.port());
        client.post("/tokenize", body);
        QVERIFY(client.wait());
        QCOMPARE(client.status, status);
        const json reply = client.bodyJson();
        if (tokens < 0) {
            QVERIFY(reply["error"].is_object());
            if (dialect == Dialect::Llamacpp) // llama.cpp's error body
                QCOMPARE(num(reply["error"]["code"]), qint64(status));
            return;
        }
        if (dialect == Dialect::Vllm) {
            QCOMPARE(num(reply["count"]), tokens);
            return;
        }
        QVERIFY(!reply.contains("count"));
        QCOMPARE(qint64(reply["tokens"].size()), tokens);
        if (body.contains("add_special"))
            QCOMPARE(num(reply["tokens"][0]), qint64(128000));
        if (body.contains("42"))
            QCOMPARE(num(reply["tokens"][std::size_t(tokens - 2)]), qint64(42));
    }

    void tokenizeWithPiecesGivesBackTheText()
    {
        SimConfig config = fastConfig();
        config.tokenizeDialect = Dialect::Llamacpp;
        SimulatorHost host(config);
        QVERIFY(host.start());
        Client client(host.port());
        client.post("/tokenize", json{{"content", "Hello, world!"}, {"with_pieces", true}});
        QVERIFY(client.wait());
        QCOMPARE(client.status, 200);
        QStringList pieces;
        QSet<qint64> ids;
        const json reply = client.bodyJson();
        for (const json &token : reply["tokens"]) {
            pieces << str(token["piece"]);
            ids << num(token["id"]);
        }
        QCOMPARE(pieces, (QStringList{QStringLiteral("Hell"), QStringLiteral("o"), QStringLiteral(","),
                                      QStringLiteral(" worl"), QStringLiteral("d"), QStringLiteral("!")}));
        QCOMPARE(ids.size(), 6);
    }

    void longPromptIsTruncatedToTheSlotContext_data()
    {
        QTest::addColumn<qint64>("prompt");
        QTest::addColumn<qint64>("maxTokens");
        QTest::addColumn<qint64>("kept"); ///< prompt tokens left: usage.prompt_tokens
        QTest::newRow("fits") << qint64(4095) << qint64(8) << qint64(4095);
        QTest::newRow("the context exactly") << qint64(4096) << qint64(8) << qint64(2048);
        QTest::newRow("issue 24: 4,106 became 2,058") << qint64(4106) << qint64(8) << qint64(2058);
        QTest::newRow("several blocks") << qint64(9000) << qint64(8) << qint64(2856);
        // llama.cpp shifts the context (drops half of it) and goes on: max_tokens still counts.
        QTest::newRow("generation past the context goes on") << qint64(4000) << qint64(200) << qint64(4000);
    }

    void longPromptIsTruncatedToTheSlotContext()
    {
        // Regression (issue 24): a 4,096-token slot cut a 4,106-token prompt to 2,058 without a
        // word; usage said 2,058 and the request succeeded.
        QFETCH(qint64, prompt);
        QFETCH(qint64, maxTokens);
        QFETCH(qint64, kept);
        SimConfig config = fastConfig();
        config.slotContext = 4096;
        config.timings = 1;
        SimulatorHost host(config);
        QVERIFY(host.start());
        json body = requestBody(Endpoint::Completions, promptOfTokens(prompt), false);
        body["max_tokens"] = maxTokens;
        body["ignore_eos"] = true;
        auto client = call(host, Endpoint::Completions, body);
        QCOMPARE(client->status, 200);
        const Reply reply = parseComplete(Endpoint::Completions, client->bodyJson());
        QCOMPARE(reply.promptTokens, kept);
        QCOMPARE(reply.completionTokens, maxTokens);
        QCOMPARE(reply.finishReason, QStringLiteral("length"));
        // The prefill cost what was left: the schedule's time from the slot to the first token.
        const ServingModel model(config);
        const double expectedMs = double(qint64(std::llround(config.ttftMs * 1e6)) + model.prefillNs(kept, 0)) / 1e6;
        const double promptMs = timingsOf(*client, false)["prompt_ms"].get<double>();
        QVERIFY2(std::abs(promptMs - expectedMs) < 1e-6, qPrintable(QStringLiteral("%1 ms").arg(promptMs)));
        QCOMPARE(host.stats().promptsTruncated, kept < prompt ? 1 : 0);
        QCOMPARE(num(fetch(host, "/sim/stats")->bodyJson()["prompts_truncated"]), kept < prompt ? 1 : 0);
        QCOMPARE(host.requests().last().promptTokens, kept);
    }

    void timingsPromptNCountsOnlyUncachedTokens_data()
    {
        QTest::addColumn<Endpoint>("endpoint");
        QTest::addColumn<bool>("stream");
        QTest::addColumn<qint64>("timings");
        QTest::newRow("chat, streamed") << Endpoint::Chat << true << qint64(1);
        QTest::newRow("chat") << Endpoint::Chat << false << qint64(1);
        QTest::newRow("completions, streamed") << Endpoint::Completions << true << qint64(1);
        QTest::newRow("completions") << Endpoint::Completions << false << qint64(1);
        QTest::newRow("timings off") << Endpoint::Chat << true << qint64(0);
    }

    void timingsPromptNCountsOnlyUncachedTokens()
    {
        // Regression (issue 24): replaying prompts, llama.cpp evaluated 1 of 522 prompt tokens and
        // said so only in timings.prompt_n (its usage has no cached_tokens).
        QFETCH(Endpoint, endpoint);
        QFETCH(bool, stream);
        QFETCH(qint64, timings);
        SimConfig config = fastConfig();
        config.timings = timings;
        config.usageDialect = Dialect::Llamacpp;
        config.outputTokens = 5;
        SimulatorHost host(config);
        QVERIFY(host.start());
        const json body = requestBody(endpoint, sharedPrompt(), stream);
        for (int round = 0; round < 2; ++round) {
            auto client = call(host, endpoint, body);
            QCOMPARE(client->status, 200);
            const Reply reply = stream ? parseStream(endpoint, *client) : parseComplete(endpoint, client->bodyJson());
            QCOMPARE(reply.cachedTokens, qint64(-1)); // llama.cpp's usage: no prompt_tokens_details
            QCOMPARE(reply.completionTokens, 5);
            const json t = timingsOf(*client, stream);
            if (!timings) {
                QVERIFY(t.is_null());
                return;
            }
            const qint64 cached = host.requests().last().cachedTokens;
            QCOMPARE(cached > 0, round == 1); // the second time, all but a block's tail is cached
            QCOMPARE(num(t["prompt_n"]), reply.promptTokens - cached);
            QCOMPARE(num(t["predicted_n"]), reply.completionTokens);
            for (const char *key : {"prompt_ms", "prompt_per_token_ms", "prompt_per_second", "predicted_ms",
                                    "predicted_per_token_ms", "predicted_per_second"})
                QVERIFY2(t[key].is_number() && t[key].get<double>() > 0, key);
        }
    }

    void llamacppMetricsHaveItsNamesAndCounters()
    {
        SimConfig config = fastConfig();
        config.metricsDialect = Dialect::Llamacpp;
        config.timings = 1;
        config.outputTokens = 7;
        SimulatorHost host(config);
        QVERIFY(host.start());
        qint64 evaluated = 0;
        for (int i = 0; i < 2; ++i) {
            auto client = call(host, Endpoint::Chat, requestBody(Endpoint::Chat, sharedPrompt(), false));
            evaluated += num(timingsOf(*client, false)["prompt_n"]);
        }
        auto scrape = fetch(host, "/metrics");
        QCOMPARE(scrape->status, 200);
        QCOMPARE(scrape->headers.value("content-type"), QByteArray("text/plain; version=0.0.4"));
        QString error;
        const auto exposition = parsePrometheusText(scrape->body, &error);
        QVERIFY2(exposition, qPrintable(error));
        QStringList names;
        for (const PromSample &s : exposition->samples)
            names << QString::fromStdString(s.name);
        // llama.cpp's names, in its order, unlabelled; no latency histograms.
        QCOMPARE(
            names,
            (QStringList{
                QStringLiteral("llamacpp:prompt_tokens_total"), QStringLiteral("llamacpp:prompt_seconds_total"),
                QStringLiteral("llamacpp:tokens_predicted_total"),
                QStringLiteral("llamacpp:tokens_predicted_seconds_total"), QStringLiteral("llamacpp:n_decode_total"),
                QStringLiteral("llamacpp:n_busy_slots_per_decode"), QStringLiteral("llamacpp:prompt_tokens_seconds"),
                QStringLiteral("llamacpp:predicted_tokens_seconds"), QStringLiteral("llamacpp:kv_cache_usage_ratio"),
                QStringLiteral("llamacpp:kv_cache_tokens"), QStringLiteral("llamacpp:requests_processing"),
                QStringLiteral("llamacpp:requests_deferred")}));
        for (const PromSample &s : exposition->samples)
            QVERIFY(s.labels.empty());
        QCOMPARE(detectServerEngine(*exposition), QStringLiteral("llamacpp"));
        const ServerPoint p = mapServerMetrics(*exposition, 0);
        // Prompt tokens evaluated, not served from the cache: the second request's hits are not in it.
        QCOMPARE(*p.promptTokens, double(evaluated));
        QVERIFY(evaluated < 2 * ApproxTokenizer::count(sharedPrompt()));
        QCOMPARE(*p.generationTokens, 2 * 7.0);
        QCOMPARE(*p.running, 0.0);
        QCOMPARE(*p.waiting, 0.0);
        QCOMPARE(p.ttft.count(), 0.0);
    }

    void metricsScrapeWaitsForARunningPrefill_data()
    {
        QTest::addColumn<qint64>("stall");
        QTest::newRow("llama.cpp: waits") << qint64(1);
        QTest::newRow("answered at once") << qint64(0);
    }

    void metricsScrapeWaitsForARunningPrefill()
    {
        // Regression (issue 24): llama.cpp answers /metrics from its main loop, busy with a
        // prefill; a scrape with a timeout shorter than the prefill was dropped for the run.
        QFETCH(qint64, stall);
        SimConfig config = fastConfig();
        config.metricsStallWhilePrefilling = stall;
        config.prefillMsPer1k = 1000; // a 1,000-token prompt: a prefill of a second
        config.ttftMs = 0;            // which starts as the request is admitted
        config.outputTokens = 2;
        SimulatorHost host(config);
        QVERIFY(host.start());
        Client generation(host.port());
        generation.post(pathOf(Endpoint::Completions), requestBody(Endpoint::Completions, promptOfTokens(1000), true));
        QTRY_COMPARE_WITH_TIMEOUT(host.stats().requestsActive, qint64(1), 5000);
        Client scrape(host.port());
        scrape.get("/metrics");
        QVERIFY(scrape.wait());
        QCOMPARE(scrape.status, 200);
        QVERIFY(generation.wait());
        // The first token is written when the prefill ends; a held scrape is answered after it.
        const qint64 firstTokenNs = host.requests().last().firstTokenNs;
        QCOMPARE(scrape.headersNs >= firstTokenNs, bool(stall));
        qInfo("scrape answered %.0f ms %s the prefill ended", std::abs(msBetween(firstTokenNs, scrape.headersNs)),
              scrape.headersNs >= firstTokenNs ? "after" : "before");
    }
};

QTEST_GUILESS_MAIN(TestSim)
#include "tst_sim.moc"
