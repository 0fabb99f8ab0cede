// The measurement engine against the real simulator on 127.0.0.1: load profiles, wire
// concurrency, token accounting, timing, and every error class.
#include "client/loadcontroller.h"
#include "client/transportworker.h"
#include "metrics/runaggregator.h"
#include "sim/simulatorhost.h"

#include "support/echoserver.h"
#include "support/httprequest.h"
#include "support/loadrun.h"
#include "support/testnumbers.h"
#include "support/testsimulator.h"
#include "support/tlsserver.h"
#include "support/transportrows.h"

#include <QFile>
#include <QSignalSpy>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslKey>
#include <QSslServer>
#include <QSslSocket>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>
#include <QTimer>

#include <algorithm>
#include <map>
#include <numeric>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace tb;
using tb::sim::SimConfig;
using tb::sim::SimulatorHost;
using tb::test::median;
using tb::test::runLoad;
using RunResult = tb::test::LoadRun;

namespace {

SimConfig fastSim()
{
    SimConfig c = *SimConfig::preset(QStringLiteral("fast"));
    c.maxBatch = 256;
    return c;
}

/// The process's resident memory now (/proc/self/statm), in bytes; -1 when unknown.
std::int64_t residentBytes()
{
    QFile statm(QStringLiteral("/proc/self/statm"));
    if (!statm.open(QIODevice::ReadOnly))
        return -1;
    const QList<QByteArray> pages = statm.readAll().split(' ');
    return pages.size() > 1 ? pages[1].toLongLong() * ::sysconf(_SC_PAGESIZE) : -1;
}

RunConfig configFor(const SimulatorHost &host, int concurrency, int requests)
{
    RunConfig c;
    c.target = tb::test::targetOf(host);
    c.load.concurrency = concurrency;
    c.load.requests = requests;
    c.load.timeoutMs = 60000;
    c.request.maxTokens = 64;
    c.prompt.promptTokens = 32;
    return c;
}

/// A run of `requests` requests by `concurrency` users against a fake server at `url`.
RunConfig configForServer(const QString &url, int concurrency, int requests)
{
    RunConfig c;
    c.target.url = url;
    c.target.model = QStringLiteral("m");
    c.load.concurrency = concurrency;
    c.load.requests = requests;
    return c;
}

/// A server that answers every request with the same canned bytes: for the malformed responses
/// a real LLM server does not send (HTML error pages from a proxy, garbage, broken HTTP).
class CannedServer : public QTcpServer
{
public:
    explicit CannedServer(QByteArray response)
        : m_response(std::move(response))
    {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
                    socket->readAll();
                    socket->write(m_response);
                    socket->flush();
                    socket->disconnectFromHost();
                });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1/v1").arg(serverPort()); }

private:
    QByteArray m_response;
};

/// A server that accepts, sends `greeting` (an HTTP/2 server's SETTINGS frame, say) and then
/// only reads: it never answers and never closes.
class SilentServer : public QTcpServer
{
public:
    explicit SilentServer(QByteArray greeting = {})
    {
        connect(this, &QTcpServer::newConnection, this, [this, greeting] {
            while (QTcpSocket *socket = nextPendingConnection()) {
                if (!greeting.isEmpty())
                    socket->write(greeting);
                connect(socket, &QTcpSocket::readyRead, socket, [socket] { socket->readAll(); });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
    QString url(const char *scheme = "http") const
    {
        return QStringLiteral("%1://127.0.0.1:%2/v1").arg(QLatin1String(scheme)).arg(serverPort());
    }
};

/// A listener whose accept queue is full: further connects get no answer to their SYN.
class FullBacklog
{
public:
    FullBacklog()
    {
        m_listener = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof a;
        if (::bind(m_listener, reinterpret_cast<sockaddr *>(&a), size) != 0 || ::listen(m_listener, 0) != 0 ||
            ::getsockname(m_listener, reinterpret_cast<sockaddr *>(&a), &size) != 0)
            return;
        m_port = ntohs(a.sin_port);
        for (int &filler : m_fillers) { // never accepted: they fill the queue
            filler = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
            ::connect(filler, reinterpret_cast<sockaddr *>(&a), sizeof a);
        }
        QTest::qWait(50);
    }
    ~FullBacklog()
    {
        for (int fd : m_fillers)
            ::close(fd);
        ::close(m_listener);
    }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1/v1").arg(m_port); }
    quint16 port() const { return m_port; }

private:
    int m_listener = -1;
    int m_fillers[4] = {-1, -1, -1, -1};
    quint16 m_port = 0;
};

RunConfig echoConfig(const QString &url)
{
    RunConfig c;
    c.target.url = url;
    c.target.model = QStringLiteral("m");
    c.target.apiKeyEnv = QStringLiteral("TB_ENGINE_TEST_KEY");
    c.load.concurrency = 1;
    c.load.requests = 1;
    c.load.timeoutMs = 30000;
    return c;
}

/// A server that keeps every request body and answers each with a reply of its own — "Reply
/// \"N\" é." for its Nth request, id "r-N" — in the chat or the Responses API's format, streamed
/// or whole: what the conversation tests check the histories against.
class ConversationServer : public QTcpServer
{
public:
    explicit ConversationServer(bool responsesApi)
    {
        connect(this, &QTcpServer::newConnection, this, [this, responsesApi] {
            while (QTcpSocket *socket = nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket, responsesApi] {
                    const auto request = tb::test::readRequest(*socket, m_buffers[socket]);
                    if (!request)
                        return;
                    const nlohmann::json body = nlohmann::json::parse(request->body.toStdString(), nullptr, false);
                    m_buffers.remove(socket);
                    bodies.push_back(body);
                    const std::string n = std::to_string(bodies.size());
                    const std::string reply = "Reply \"" + n + "\" \xc3\xa9.";
                    replies.push_back(reply);
                    socket->write(answer(responsesApi, body.value("stream", false), "r-" + n, reply));
                    socket->disconnectFromHost();
                });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1/v1").arg(serverPort()); }

    std::vector<nlohmann::json> bodies;
    std::vector<std::string> replies; ///< [i] answered bodies[i], as id "r-(i+1)"

private:
    static QByteArray answer(bool responsesApi, bool stream, const std::string &id, const std::string &reply)
    {
        using nlohmann::json;
        const std::string first = reply.substr(0, 6), rest = reply.substr(6);
        std::string out;
        if (responsesApi && stream) {
            for (const std::string &piece : {first, rest})
                out += "event: response.output_text.delta\ndata: " +
                       json{{"type", "response.output_text.delta"}, {"delta", piece}}.dump() + "\n\n";
            out += "event: response.completed\ndata: " +
                   json{{"type", "response.completed"},
                        {"response",
                         {{"id", id}, {"status", "completed"}, {"usage", {{"input_tokens", 5}, {"output_tokens", 3}}}}}}
                       .dump() +
                   "\n\n";
        } else if (responsesApi) {
            out = json{{"id", id},
                       {"object", "response"},
                       {"status", "completed"},
                       {"error", nullptr},
                       {"output",
                        json::array({{{"type", "message"},
                                      {"content", json::array({{{"type", "output_text"}, {"text", reply}}})}}})},
                       {"usage", {{"input_tokens", 5}, {"output_tokens", 3}}}}
                      .dump();
        } else if (stream) {
            out += "data: " + json{{"id", id}, {"choices", json::array({{{"delta", {{"content", first}}}}})}}.dump() +
                   "\n\n";
            out += "data: " +
                   json{{"id", id},
                        {"choices", json::array({{{"delta", {{"content", rest}}}, {"finish_reason", "stop"}}})},
                        {"usage", {{"prompt_tokens", 5}, {"completion_tokens", 3}}}}
                       .dump() +
                   "\n\ndata: [DONE]\n\n";
        } else {
            out = json{{"id", id},
                       {"choices", json::array({{{"message", {{"role", "assistant"}, {"content", reply}}},
                                                 {"finish_reason", "stop"}}})},
                       {"usage", {{"prompt_tokens", 5}, {"completion_tokens", 3}}}}
                      .dump();
        }
        return "HTTP/1.1 200 OK\r\nContent-Type: " + QByteArray(stream ? "text/event-stream" : "application/json") +
               "\r\nConnection: close\r\nContent-Length: " + QByteArray::number(qsizetype(out.size())) + "\r\n\r\n" +
               QByteArray::fromStdString(out);
    }

    QHash<QTcpSocket *, QByteArray> m_buffers;
};

/// How UnendedBodyServer ends (or does not end) the HTTP body of a complete response.
enum class BodyEnd {
    ChunkedWithoutLastChunk, ///< chunked, the zero-size chunk never sent
    LengthTooLarge,          ///< Content-Length 100 bytes more than the body
    UntilCloseKeptOpen,      ///< neither: a body until the connection closes, which it never does
    LastChunkLate,           ///< chunked, the zero-size chunk 100 ms after the rest (a server that ends it)
};

/// A server whose every response is complete by its protocol — the stream's [DONE], or a whole
/// JSON body — and whose HTTP body then ends as `BodyEnd` says; it never closes a connection. It
/// counts the connections it accepted, and those the client closed.
class UnendedBodyServer : public QTcpServer
{
public:
    explicit UnendedBodyServer(BodyEnd end)
        : m_end(end)
    {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = nextPendingConnection()) {
                ++connections;
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
                    while (const auto request = tb::test::readRequest(*socket, m_buffers[socket]))
                        answer(socket, request->body.contains("\"stream\":true"));
                });
                connect(socket, &QTcpSocket::disconnected, socket, [this, socket] {
                    ++closedByClient;
                    m_buffers.remove(socket);
                    socket->deleteLater();
                });
            }
        });
    }
    ~UnendedBodyServer() override
    {
        // Its sockets are deleted after its members: what they signal as they go must not reach them.
        const QList<QTcpSocket *> sockets = findChildren<QTcpSocket *>();
        for (QTcpSocket *socket : sockets)
            socket->disconnect();
    }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1/v1").arg(serverPort()); }

    int connections = 0;
    int closedByClient = 0;

private:
    void answer(QTcpSocket *socket, bool stream)
    {
        const QByteArray body =
            stream ? QByteArray("data: {\"id\":\"r\",\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n"
                                "data: {\"id\":\"r\",\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}],"
                                "\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1}}\n\n"
                                "data: [DONE]\n\n")
                   : QByteArray("{\"id\":\"r\",\"choices\":[{\"message\":{\"content\":\"hi\"},\"finish_reason\":"
                                "\"stop\"}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1}}");
        QByteArray head =
            "HTTP/1.1 200 OK\r\nContent-Type: " + QByteArray(stream ? "text/event-stream" : "application/json") +
            "\r\n";
        switch (m_end) {
        case BodyEnd::ChunkedWithoutLastChunk:
        case BodyEnd::LastChunkLate:
            socket->write(head + "Transfer-Encoding: chunked\r\n\r\n" + QByteArray::number(body.size(), 16) + "\r\n" +
                          body + "\r\n");
            break;
        case BodyEnd::LengthTooLarge:
            socket->write(head + "Content-Length: " + QByteArray::number(body.size() + 100) + "\r\n\r\n" + body);
            break;
        case BodyEnd::UntilCloseKeptOpen:
            socket->write(head + "Connection: close\r\n\r\n" + body);
            break;
        }
        if (m_end == BodyEnd::LastChunkLate)
            QTimer::singleShot(100, socket, [socket] { socket->write("0\r\n\r\n"); });
    }

    BodyEnd m_end;
    QHash<QTcpSocket *, QByteArray> m_buffers;
};

/// The records of each conversation, by turn.
std::map<std::uint64_t, std::map<int, RequestRecord>> byConversation(const std::vector<RequestRecord> &records)
{
    std::map<std::uint64_t, std::map<int, RequestRecord>> conversations;
    for (const RequestRecord &r : records)
        conversations[r.conversation][r.turn] = r;
    return conversations;
}

} // namespace

class TestEngine : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase_data() { addTransportRows(); }

    void closedLoopReachesConcurrencyOnTheWire_data()
    {
        QTest::addColumn<int>("concurrency");
        QTest::newRow("1 user") << 1;
        QTest::newRow("6 users (one QNAM's limit)") << 6;
        QTest::newRow("40 users") << 40;
        QTest::newRow("150 users") << 150;
        QTest::newRow("200 users") << 200;
    }

    void closedLoopReachesConcurrencyOnTheWire()
    {
        QFETCH(int, concurrency);
        SimConfig simConfig = fastSim();
        // Long enough that every user is in flight at once, also through QNAM on a loaded machine.
        simConfig.ttftMs = 300;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        const RunResult r = runLoad(configFor(host, concurrency, concurrency * 3));
        QVERIFY(r.finished);
        QVERIFY(!r.cancelled);
        QCOMPARE(int(r.records.size()), concurrency * 3);
        QCOMPARE(r.count(RequestStatus::Ok), concurrency * 3);
        // The proof: the server itself saw the configured number of requests at once, no more.
        QCOMPARE(host.stats().peakConcurrentRequests, qint64(concurrency));
        QCOMPARE(r.peakInFlight, std::int64_t(concurrency));
        QVERIFY(host.stats().peakOpenConnections <= concurrency);
    }

    void tokenAccountingMatchesTheServer()
    {
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        RunConfig config = configFor(host, 4, 20);
        config.prompt.systemTokens = 16;
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        std::int64_t completion = 0;
        std::int64_t prompt = 0;
        QSet<QString> ids;
        for (const RequestRecord &rec : r.records) {
            QVERIFY2(rec.ok(), qPrintable(rec.errorMessage));
            QCOMPARE(rec.tokenSource, TokenSource::Usage);
            QVERIFY(rec.completionTokens > 0);
            QCOMPARE(std::int64_t(rec.tokenChunks.size()), std::int64_t(rec.chunks));
            completion += rec.completionTokens;
            prompt += rec.promptTokens;
            ids.insert(rec.responseId);
            QVERIFY(rec.sentNs >= rec.scheduledNs);
            QVERIFY(rec.headersNs >= rec.sentNs);
            QVERIFY(rec.firstTokenNs >= rec.headersNs);
            QVERIFY(rec.lastTokenNs >= rec.firstTokenNs);
            QVERIFY(rec.doneNs >= rec.lastTokenNs);
        }
        QCOMPARE(ids.size(), 20);
        QCOMPARE(host.stats().tokensSent, completion);
        QCOMPARE(host.stats().promptTokens, prompt);
        // The client's own count of its synthetic prompts agrees with the server's usage.
        for (const RequestRecord &rec : r.records)
            QCOMPARE(rec.promptTokens, std::int64_t(16 + 32));
    }

    void timingMatchesTheServersOwnClock()
    {
        SimConfig simConfig = fastSim();
        simConfig.ttftMs = 80;
        simConfig.stepMs = 15;
        simConfig.stepMsPerSeq = 0;
        simConfig.outputTokens = 12;
        simConfig.outputSpread = 0;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        const RunResult r = runLoad(configFor(host, 2, 12));
        QVERIFY(r.finished);
        std::map<QString, sim::RequestTrace> traces;
        for (const sim::RequestTrace &t : host.requests())
            traces[t.id] = t;
        std::vector<double> ttft;
        std::vector<double> tpot;
        std::vector<double> ttftError;
        for (const RequestRecord &rec : r.records) {
            QVERIFY2(rec.ok(), qPrintable(rec.errorMessage));
            ttft.push_back(*rec.ttftMs());
            tpot.push_back(*rec.tpotMs());
            const auto it = traces.find(rec.responseId);
            QVERIFY(it != traces.end());
            const double serverTtftMs = double(it->second.firstTokenNs - it->second.receivedNs) / 1e6;
            ttftError.push_back(*rec.ttftMs() - serverTtftMs);
        }
        // Generous bounds: the machine may be loaded. The benchmark reports the exact figures.
        QVERIFY2(median(ttft) >= 75 && median(ttft) < 400, qPrintable(QString::number(median(ttft))));
        QVERIFY2(median(tpot) >= 13 && median(tpot) < 60, qPrintable(QString::number(median(tpot))));
        QVERIFY2(median(ttftError) >= 0 && median(ttftError) < 25, qPrintable(QString::number(median(ttftError))));
    }

    void openLoopHitsTheRate_data()
    {
        QTest::addColumn<QString>("arrival");
        QTest::addColumn<double>("rate");
        QTest::addColumn<int>("requests");
        QTest::newRow("constant 40/s") << QStringLiteral("constant") << 40.0 << 80;
        QTest::newRow("poisson 50/s") << QStringLiteral("poisson") << 50.0 << 200;
    }

    void openLoopHitsTheRate()
    {
        QFETCH(QString, arrival);
        QFETCH(double, rate);
        QFETCH(int, requests);
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        RunConfig config = configFor(host, 1, requests);
        config.load.mode = LoadMode::Rate;
        config.load.rate = rate;
        config.load.arrival = *arrivalFromName(arrival);
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(int(r.records.size()), requests);
        std::vector<std::int64_t> scheduled;
        for (const RequestRecord &rec : r.records) {
            QVERIFY2(rec.ok(), qPrintable(rec.errorMessage));
            scheduled.push_back(rec.scheduledNs);
            QVERIFY(rec.queueMs() && *rec.queueMs() >= 0);
        }
        std::sort(scheduled.begin(), scheduled.end());
        // The schedule itself is exact (it does not depend on the machine): requests-1 gaps.
        const double span = double(scheduled.back() - scheduled.front()) / 1e9;
        const double achieved = double(requests - 1) / span;
        const double tolerance = arrival == QLatin1String("constant") ? 0.02 : 0.25;
        QVERIFY2(std::abs(achieved - rate) / rate < tolerance,
                 qPrintable(QStringLiteral("achieved %1/s").arg(achieved)));
        // And the requests really went out on schedule (generous: loaded machine).
        std::vector<double> queue;
        for (const RequestRecord &rec : r.records)
            queue.push_back(*rec.queueMs());
        QVERIFY2(median(queue) < 20, qPrintable(QString::number(median(queue))));
    }

    void poissonScheduleIsDeterministicForASeed()
    {
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        RunConfig config = configFor(host, 1, 30);
        config.load.mode = LoadMode::Rate;
        config.load.rate = 200;
        config.load.seed = 42;
        const auto offsets = [](const RunResult &r) {
            std::vector<std::int64_t> v;
            for (const RequestRecord &rec : r.records)
                v.push_back(rec.scheduledNs);
            std::sort(v.begin(), v.end());
            std::vector<std::int64_t> gaps;
            for (std::size_t i = 1; i < v.size(); ++i)
                gaps.push_back(v[i] - v[i - 1]);
            return gaps;
        };
        const auto a = offsets(runLoad(config));
        const auto b = offsets(runLoad(config));
        QCOMPARE(a.size(), std::size_t(29));
        QCOMPARE(a, b);
        config.load.seed = 43;
        QVERIFY(offsets(runLoad(config)) != a);
    }

    void inFlightCapQueuesAndMeasuresTheWait()
    {
        SimConfig simConfig = fastSim();
        simConfig.ttftMs = 100;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        RunConfig config = configFor(host, 1, 40);
        config.load.mode = LoadMode::Rate;
        config.load.rate = 200; // far more than 3 slots of ~100 ms can carry
        config.load.arrival = Arrival::Constant;
        config.load.maxInFlight = 3;
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(r.count(RequestStatus::Ok), 40);
        QCOMPARE(host.stats().peakConcurrentRequests, qint64(3));
        std::vector<double> queue;
        for (const RequestRecord &rec : r.records)
            queue.push_back(*rec.queueMs());
        std::sort(queue.begin(), queue.end());
        QVERIFY2(queue.back() > 500, qPrintable(QString::number(queue.back()))); // the last waited ~1.2 s
        // Coordinated omission corrected: latency from the schedule includes the wait.
        for (const RequestRecord &rec : r.records)
            QVERIFY(*rec.ttftFromScheduleMs() >= *rec.ttftMs() + *rec.queueMs() - 0.001);
    }

    void stagesStepTheLoad()
    {
        SimConfig simConfig = fastSim();
        simConfig.ttftMs = 30;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        RunConfig config = configFor(host, 1, 0);
        config.load.stages = *parseStages(QStringLiteral("c=2:10,c=5:20,c=3:9"), nullptr);
        config.load.warmupRequests = 4;
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(int(r.records.size()), 4 + 10 + 20 + 9);
        std::map<int, int> perStage;
        int warmup = 0;
        for (const RequestRecord &rec : r.records) {
            QVERIFY2(rec.ok(), qPrintable(rec.errorMessage));
            if (rec.warmup) {
                ++warmup;
                QCOMPARE(rec.stage, 0);
            } else {
                ++perStage[rec.stage];
            }
        }
        QCOMPARE(warmup, 4);
        QCOMPARE(perStage[0], 10);
        QCOMPARE(perStage[1], 20);
        QCOMPARE(perStage[2], 9);
        QCOMPARE(host.stats().peakConcurrentRequests, qint64(5));
        // Request ids are unique and dense.
        std::vector<std::uint64_t> ids;
        for (const RequestRecord &rec : r.records)
            ids.push_back(rec.id);
        std::sort(ids.begin(), ids.end());
        QCOMPARE(ids.front(), std::uint64_t(1));
        QCOMPARE(ids.back(), std::uint64_t(43));
    }

    void durationStageEndsInTime()
    {
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        RunConfig config = configFor(host, 3, 0);
        config.load.durationMs = 1500;
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QVERIFY(r.records.size() > 10);
        QVERIFY2(r.seconds < 10, qPrintable(QString::number(r.seconds)));
        for (const RequestRecord &rec : r.records)
            QVERIFY(rec.scheduledNs < 1'600'000'000);
    }

    /// Regression: a rate whose arrival gap 1e9 / rate does not fit int64 nanoseconds (1e-12
    /// requests/s) made the gap INT64_MIN, and the controller issued requests in an endless loop
    /// inside one callback, growing ~350 MB/s and deaf to its duration and to Stop. Validation
    /// refuses such rates now; the controller saturates as well, so a plan that holds one anyway
    /// (set here after validation) sends at most its first arrival and ends at its duration or Stop.
    void rateBeyondInt64GapsEndsAtItsDurationOrStop_data()
    {
        QTest::addColumn<int>("arrival");
        QTest::addColumn<bool>("stop"); // ended by Stop, else by its duration
        QTest::newRow("constant, duration") << int(Arrival::Constant) << false;
        QTest::newRow("constant, stop") << int(Arrival::Constant) << true;
        QTest::newRow("poisson, duration") << int(Arrival::Poisson) << false;
        QTest::newRow("poisson, stop") << int(Arrival::Poisson) << true;
    }

    void rateBeyondInt64GapsEndsAtItsDurationOrStop()
    {
        QFETCH(int, arrival);
        QFETCH(bool, stop);
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        RunConfig config = configFor(host, 1, 0);
        config.target.transport = rowTransport();
        config.load.mode = LoadMode::Rate;
        config.load.rate = 1;
        config.load.arrival = Arrival(arrival);
        config.load.durationMs = stop ? 0 : 1500;
        QString error;
        const auto valid = RunPlan::create(config, &error);
        QVERIFY2(valid, qPrintable(error));
        auto plan = std::make_shared<RunPlan>(*valid);
        plan->stages.first().level = 1e-12;
        const std::int64_t before = residentBytes();
        const RunResult r = tb::test::runPlan(
            plan,
            [stop](LoadController &controller) {
                if (stop)
                    QTimer::singleShot(1500, &controller, [&controller] { controller.stop(); });
            },
            60000);
        QVERIFY(r.finished);
        QCOMPARE(r.cancelled, stop);
        QVERIFY2(r.seconds < 30, qPrintable(QString::number(r.seconds)));
        // Constant arrivals send the first at t = 0; Poisson's first gap is already "never".
        QVERIFY2(r.records.size() <= 1, qPrintable(QString::number(r.records.size())));
        const std::int64_t grown = residentBytes() - before;
        QVERIFY2(grown < 64 << 20, qPrintable(QStringLiteral("resident memory grew %1 MiB").arg(grown >> 20)));
    }

    void errorClasses_data()
    {
        QTest::addColumn<QString>("fault");
        QTest::addColumn<int>("status");
        QTest::addColumn<int>("httpStatus");
        QTest::addColumn<QString>("message");
        QTest::newRow("500s") << QStringLiteral("error") << int(RequestStatus::Http) << 500
                              << QStringLiteral("HTTP 500");
        QTest::newRow("stream cut") << QStringLiteral("cut") << int(RequestStatus::StreamTruncated) << 200 << QString();
        QTest::newRow("unknown model") << QStringLiteral("model") << int(RequestStatus::Http) << 404
                                       << QStringLiteral("HTTP 404");
        QTest::newRow("rate limit") << QStringLiteral("rpm") << int(RequestStatus::Http) << 429
                                    << QStringLiteral("HTTP 429");
        QTest::newRow("queue full") << QStringLiteral("queue") << int(RequestStatus::Http) << 503
                                    << QStringLiteral("HTTP 503");
        QTest::newRow("timeout") << QStringLiteral("timeout") << int(RequestStatus::Timeout) << 200
                                 << QStringLiteral("no complete response");
        QTest::newRow("connection refused")
            << QStringLiteral("refused") << int(RequestStatus::Connect) << 0 << QString();
    }

    void errorClasses()
    {
        QFETCH(QString, fault);
        QFETCH(int, status);
        QFETCH(int, httpStatus);
        QFETCH(QString, message);
        SimConfig simConfig = fastSim();
        if (fault == QLatin1String("error"))
            simConfig.errorRate = 1;
        else if (fault == QLatin1String("cut"))
            simConfig.cutRate = 1;
        else if (fault == QLatin1String("rpm"))
            simConfig.rpmLimit = 1;
        else if (fault == QLatin1String("queue")) {
            simConfig.maxBatch = 1;
            simConfig.queueLimit = 1;
            simConfig.ttftMs = 300;
        } else if (fault == QLatin1String("timeout"))
            simConfig.ttftMs = 5000;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        RunConfig config = configFor(host, 4, 8);
        if (fault == QLatin1String("model"))
            config.target.model = QStringLiteral("no-such-model");
        if (fault == QLatin1String("timeout"))
            config.load.timeoutMs = 300;
        if (fault == QLatin1String("refused")) {
            QTcpServer closed; // find a free port, then close it: nothing listens there
            QVERIFY(closed.listen(QHostAddress::LocalHost));
            const quint16 port = closed.serverPort();
            closed.close();
            config.target.url = QStringLiteral("http://127.0.0.1:%1/v1").arg(port);
        }
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(int(r.records.size()), 8);
        const int matching = r.count(RequestStatus(status));
        // Rate limits and a full queue let some requests through; the others are all faulted.
        if (fault == QLatin1String("rpm") || fault == QLatin1String("queue"))
            QVERIFY2(matching >= 1 && matching + r.count(RequestStatus::Ok) == 8,
                     qPrintable(QString::number(matching)));
        else {
            // Which class the others got, and why: a rare miss under load must say what it was.
            QStringList others;
            for (const RequestRecord &rec : r.records)
                if (rec.status != RequestStatus(status))
                    others << QStringLiteral("%1 (%2)").arg(QLatin1String(statusName(rec.status)), rec.errorMessage);
            QVERIFY2(matching == 8, qPrintable(others.join(QStringLiteral("; "))));
        }
        for (const RequestRecord &rec : r.records) {
            if (rec.status != RequestStatus(status))
                continue;
            QCOMPARE(rec.httpStatus, httpStatus);
            QVERIFY(rec.doneNs >= 0);
            if (!message.isEmpty())
                QVERIFY2(rec.errorMessage.contains(message), qPrintable(rec.errorMessage));
            if (fault == QLatin1String("rpm"))
                QVERIFY2(rec.retryAfterS > 0, "429 without Retry-After recorded");
        }
    }

    void malformedServersGiveClassifiedErrors_data()
    {
        QTest::addColumn<QByteArray>("response");
        QTest::addColumn<bool>("stream");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("message");
        QTest::newRow("html page with 200")
            << QByteArray(
                   "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 21\r\n\r\n<html>proxy page</html>")
            << false << int(RequestStatus::Protocol) << QStringLiteral("got HTML");
        QTest::newRow("html error page")
            << QByteArray("HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\nContent-Length: "
                          "32\r\n\r\n<html><h1>502 Bad Gateway</h1></html>")
            << true << int(RequestStatus::Http) << QStringLiteral("HTTP 502");
        QTest::newRow("garbage json body")
            << QByteArray("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n{\"id\": [1")
            << false << int(RequestStatus::Protocol) << QStringLiteral("not JSON");
        QTest::newRow("garbage sse data")
            << QByteArray("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: {oops\n\ndata: [DONE]\n\n")
            << true << int(RequestStatus::Protocol) << QStringLiteral("malformed JSON");
        QTest::newRow("stream without done")
            << QByteArray("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
                          "data: {\"id\":\"x\",\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n")
            << true << int(RequestStatus::StreamTruncated) << QStringLiteral("without [DONE]");
        QTest::newRow("not http") << QByteArray("SSH-2.0-OpenSSH_9.2\r\n") << true << int(RequestStatus::Protocol)
                                  << QStringLiteral("not an HTTP response");
        QTest::newRow("closed without answer")
            << QByteArray() << true << int(RequestStatus::Protocol) << QStringLiteral("before any response");
        // The server's own error, mid-stream or as the body: its class, with its type kept.
        QTest::newRow("error event mid-stream")
            << QByteArray("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
                          "data: {\"id\":\"x\",\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n"
                          "data: {\"error\": {\"message\": \"engine died\", \"type\": \"internal\"}}\n\n")
            << true << int(RequestStatus::ServerError) << QStringLiteral("server error: internal: engine died");
        QTest::newRow("anthropic overloaded event")
            << QByteArray("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
                          "event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", "
                          "\"message\": \"Overloaded\"}}\n\n")
            << true << int(RequestStatus::ServerError) << QStringLiteral("overloaded_error: Overloaded");
        QTest::newRow("error body with 200")
            << QByteArray("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 48\r\n\r\n"
                          "{\"error\":\"Model is overloaded\",\"error_type\":\"x\"}")
            << false << int(RequestStatus::ServerError) << QStringLiteral("x: Model is overloaded");
        // Regression: a hostile chunk size aborted the whole process (std::length_error).
        for (const char *size : {"-1", "8000000000000000", "5bbbbbbbbbbbbbbbbbbbbbbbb"})
            QTest::addRow("chunk size %s", size)
                << QByteArray(
                       "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n") +
                       size + "\r\ndata: x\n\n"
                << true << int(RequestStatus::Protocol) << QStringLiteral("chunk size");
        QTest::newRow("gzip despite identity")
            << QByteArray("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Encoding: gzip\r\n\r\n"
                          "\x1f\x8b\x08\x00\x00\x00\x00\x00")
            << true << int(RequestStatus::Protocol) << QStringLiteral("response is Content-Encoding: gzip");
        QTest::newRow("nul byte in an error page")
            << QByteArray("HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\nContent-Length: 22\r\n\r\n"
                          "<h1>bad\0gate\x1b[31m</h1>",
                          95)
            << true << int(RequestStatus::Http) << QStringLiteral("HTTP 502");
        QTest::newRow("sse line without end")
            << QByteArray("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: ") +
                   QByteArray(1100 * 1024, 'x')
            << true << int(RequestStatus::Protocol) << QStringLiteral("SSE line exceeds 1048576 bytes");
        // Regression: qnam took what native's parser refuses — a 1.1 MiB header line (QNAM drops
        // the head, then waits for the body's end until --timeout), a status of four digits
        // (recorded as HTTP 2000), 257 header fields (dropped: the body read as "not JSON").
        QTest::newRow("header line of 1.1 MiB")
            << QByteArray("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Long: ") +
                   QByteArray(1100 * 1024, 'x') + "\r\n\r\ndata: [DONE]\n\n"
            << true << int(RequestStatus::Protocol) << QStringLiteral("malformed HTTP response: header line too long");
        QTest::newRow("status 2000")
            << QByteArray("HTTP/1.1 2000 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}") << false
            << int(RequestStatus::Protocol)
            << QStringLiteral("malformed HTTP response: bad HTTP status line: 'HTTP/1.1 2000 OK'");
        QByteArray fields("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n");
        for (int i = 0; i < 255; ++i)
            fields += "X-Field-" + QByteArray::number(i) + ": v\r\n";
        QTest::newRow("257 header fields")
            << fields + "\r\n{}" << false << int(RequestStatus::Protocol)
            << QStringLiteral("malformed HTTP response: response head over 256 KiB or 256 header fields");
    }

    void malformedServersGiveClassifiedErrors()
    {
        QFETCH(QByteArray, response);
        QFETCH(bool, stream);
        QFETCH(int, status);
        QFETCH(QString, message);
        // QNAM parses HTTP itself: what it cannot parse it reports in fewer words, and hostile
        // chunk sizes it takes as the end of the body or waits on (docs/measuring.md "Transports").
        static const QHash<QByteArray, std::pair<QList<RequestStatus>, QString>> qnamSays = {
            {"not http", {{RequestStatus::Protocol}, QStringLiteral("before any response")}},
            {"chunk size -1", {{RequestStatus::StreamTruncated, RequestStatus::Timeout}, QString()}},
            {"chunk size 8000000000000000", {{RequestStatus::StreamTruncated}, QString()}},
            {"chunk size 5bbbbbbbbbbbbbbbbbbbbbbbb", {{RequestStatus::StreamTruncated}, QString()}},
            {"header line of 1.1 MiB",
             {{RequestStatus::Protocol}, QStringLiteral("malformed HTTP response: no header fields")}},
            {"257 header fields",
             {{RequestStatus::Protocol}, QStringLiteral("malformed HTTP response: no header fields")}},
        };
        const auto qnam = qnamSays.constFind(QTest::currentDataTag());
        QList<RequestStatus> accepted{RequestStatus(status)};
        if (rowTransport() == TransportKind::Qnam && qnam != qnamSays.cend()) {
            accepted = qnam->first;
            message = qnam->second;
        }
        CannedServer server(response);
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RunConfig config = configForServer(server.url(), 2, 4);
        config.request.stream = stream;
        config.load.timeoutMs = accepted.contains(RequestStatus::Timeout) ? 1000 : 20000;
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(int(r.records.size()), 4);
        for (const RequestRecord &rec : r.records) {
            QVERIFY2(accepted.contains(rec.status),
                     qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(statusName(rec.status)), rec.errorMessage)));
            QVERIFY2(rec.errorMessage.contains(message), qPrintable(rec.errorMessage));
            QVERIFY(rec.doneNs >= rec.scheduledNs);
            // Server text is recorded printable: no NUL, no escape sequences in requests.csv.
            for (const QChar c : rec.errorMessage)
                QVERIFY2(c.category() != QChar::Other_Control, qPrintable(rec.errorMessage));
        }
    }

    /// A stream the server writes faster than the worker decodes it: qnam puts the reply under
    /// QNAM's flow control mid-stream once one drain brings more than 1 MiB; nothing may be lost
    /// or repeated across that switch.
    void streamFasterThanItsReaderArrivesWhole()
    {
        constexpr int kEvents = 60000; // ~3.7 MB, written at once
        QByteArray response("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n");
        const QByteArray event("data: {\"id\":\"x\",\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n");
        response.reserve(response.size() + event.size() * kEvents + 64);
        for (int i = 0; i < kEvents; ++i)
            response += event;
        response += "data: {\"id\":\"x\",\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
        CannedServer server(response);
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RunConfig config = configForServer(server.url(), 1, 2);
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(int(r.records.size()), 2);
        for (const RequestRecord &rec : r.records) {
            QVERIFY2(rec.ok(), qPrintable(rec.errorMessage));
            QCOMPARE(rec.chunks, kEvents);
        }
    }

    void connectAndHandshakeHaveTheirOwnDeadline_data()
    {
        QTest::addColumn<QString>("peer");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("message");
        // Regression: https:// to a plain-HTTP server hung silently; these waited for --timeout.
        QTest::newRow("https to a silent plain-HTTP server")
            << QStringLiteral("silent-https") << int(RequestStatus::Tls)
            << QStringLiteral(
                   "TLS handshake not finished within 300ms (--connect-timeout): the server may speak plain HTTP");
        QTest::newRow("https to a plain-HTTP server that answers")
            << QStringLiteral("plain-https") << int(RequestStatus::Tls) << QStringLiteral("plain HTTP");
        QTest::newRow("http/2-only server that keeps the socket open")
            << QStringLiteral("h2") << int(RequestStatus::Protocol)
            << QStringLiteral("the server answered in HTTP/2, not HTTP/1.1 (it may speak only HTTP/2)");
        QTest::newRow("connect never completes") << QStringLiteral("backlog") << int(RequestStatus::Connect)
                                                 << QStringLiteral("within 300ms (--connect-timeout)");
    }

    void connectAndHandshakeHaveTheirOwnDeadline()
    {
        QFETCH(QString, peer);
        QFETCH(int, status);
        QFETCH(QString, message);
        if (peer == QLatin1String("h2") && rowTransport() == TransportKind::Qnam) // it closes, not waits
            message = QStringLiteral("connection closed before any response");
        if (peer.endsWith(QLatin1String("https")) && !QSslSocket::supportsSsl())
            QSKIP("this Qt has no TLS backend");
        SilentServer silent;
        // An HTTP/2 server's connection preface: a SETTINGS frame (no line break, ever).
        SilentServer h2(QByteArray("\x00\x00\x06\x04\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x64", 15));
        CannedServer plain("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        FullBacklog backlog;
        QVERIFY(silent.listen(QHostAddress::LocalHost) && h2.listen(QHostAddress::LocalHost) &&
                plain.listen(QHostAddress::LocalHost));
        RunConfig config;
        config.target.model = QStringLiteral("m");
        config.target.tlsVerify = false;
        config.load.concurrency = 2;
        config.load.requests = 4;
        config.load.timeoutMs = 30000;
        config.load.connectTimeoutMs = 300;
        if (peer == QLatin1String("silent-https"))
            config.target.url = silent.url("https");
        else if (peer == QLatin1String("plain-https"))
            config.target.url = QString(plain.url()).replace(QLatin1String("http://"), QLatin1String("https://"));
        else if (peer == QLatin1String("h2"))
            config.target.url = h2.url();
        else {
            QVERIFY(backlog.port() != 0);
            config.target.url = backlog.url();
        }
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(int(r.records.size()), 4);
        for (const RequestRecord &rec : r.records) {
            QVERIFY2(int(rec.status) == status,
                     qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(statusName(rec.status)), rec.errorMessage)));
            QVERIFY2(rec.errorMessage.contains(message), qPrintable(rec.errorMessage));
            // Ended by its own deadline (or at once), far from the 30 s request timeout.
            QVERIFY2(rec.doneNs - rec.scheduledNs < 10'000'000'000,
                     qPrintable(QString::number(double(rec.doneNs - rec.scheduledNs) / 1e6)));
        }
    }

    void connectingAndHandshakingAreCounted_data()
    {
        QTest::addColumn<QString>("peer");
        QTest::addColumn<int>("connecting");
        QTest::addColumn<int>("handshaking");
        QTest::addColumn<double>("rate"); // 0: all three at once (closed loop)
        // Regression: https:// to a server that never answered TLS showed "0 in flight" for 25 s.
        QTest::newRow("accepts and never answers TLS") << QStringLiteral("silent-https") << 0 << 3 << 0.0;
        QTest::newRow("connect never completes") << QStringLiteral("backlog") << 3 << 0 << 0.0;
        // Regression: a request that joined the ALPN connection after its TCP was up stayed
        // "connecting" for good (CI saw "connecting 1, handshaking 2" on a loaded machine).
        QTest::newRow("joins a handshake already under way") << QStringLiteral("silent-https") << 0 << 3 << 10.0;
    }

    void connectingAndHandshakingAreCounted()
    {
        QFETCH(QString, peer);
        QFETCH(int, connecting);
        QFETCH(int, handshaking);
        QFETCH(double, rate);
        if (peer.endsWith(QLatin1String("https")) && !QSslSocket::supportsSsl())
            QSKIP("this Qt has no TLS backend");
        SilentServer silent;
        FullBacklog backlog;
        QVERIFY(silent.listen(QHostAddress::LocalHost) && backlog.port() != 0);
        RunConfig config;
        config.target.model = QStringLiteral("m");
        config.target.tlsVerify = false;
        config.target.url = peer == QLatin1String("backlog") ? backlog.url() : silent.url("https");
        config.load.concurrency = 3;
        if (rate > 0) {
            config.load.mode = LoadMode::Rate;
            config.load.rate = rate;
            config.load.arrival = Arrival::Constant;
        }
        config.load.requests = 3;
        config.load.timeoutMs = 60000;
        config.load.connectTimeoutMs = 60000;
        bool counted = false;
        bool cleared = false;
        RunProgress seen;
        const RunResult r = runLoad(config, [&](LoadController &controller) {
            counted = QTest::qWaitFor(
                [&] {
                    seen = controller.progress();
                    return seen.connecting == connecting && seen.handshaking == handshaking;
                },
                20000);
            controller.stop();
            cleared = QTest::qWaitFor(
                [&] {
                    const RunProgress p = controller.progress();
                    return p.connecting == 0 && p.handshaking == 0;
                },
                20000);
        });
        QVERIFY2(
            counted,
            qPrintable(QStringLiteral("connecting %1, handshaking %2").arg(seen.connecting).arg(seen.handshaking)));
        QCOMPARE(seen.inFlight, std::int64_t(0)); // nothing reached the server yet
        QVERIFY(cleared);
        QVERIFY(r.finished);
    }

    void largeBodyAnswered413EarlyReportsThe413()
    {
        // A server that refuses a large body from its headers: answers 413, stops reading and
        // closes. Regression: recorded as "write failed: Connection reset".
        QTcpServer server;
        QObject::connect(&server, &QTcpServer::newConnection, &server, [&server] {
            while (QTcpSocket *socket = server.nextPendingConnection()) {
                socket->setReadBufferSize(64 * 1024); // stop taking the body
                QObject::connect(socket, &QTcpSocket::readyRead, socket, [socket] {
                    if (socket->property("answered").toBool() || !socket->peek(64 * 1024).contains("\r\n\r\n"))
                        return;
                    socket->setProperty("answered", true);
                    socket->write(
                        "HTTP/1.1 413 Payload Too Large\r\nContent-Type: application/json\r\nContent-Length: 36\r\n"
                        "Connection: close\r\n\r\n{\"error\":{\"message\":\"body too big\"}}");
                    socket->flush();
                    socket->abort(); // unread body left: a reset, right behind the answer
                });
                QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RunConfig config;
        config.target.url = QStringLiteral("http://127.0.0.1:%1/v1").arg(server.serverPort());
        config.target.model = QStringLiteral("m");
        config.target.extraBody = {{"padding", std::string(20 * 1024 * 1024, 'x')}};
        config.load.concurrency = 1;
        config.load.requests = 3;
        config.load.timeoutMs = 30000;
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(int(r.records.size()), 3);
        for (const RequestRecord &rec : r.records) {
            if (rowTransport() == TransportKind::Qnam) {
                // QNAM drops an answer that comes while the body is still going out; pinned so that
                // a Qt that reads it shows up here (docs/measuring.md "Transports").
                QVERIFY2(rec.status == RequestStatus::Protocol, qPrintable(rec.errorMessage));
                continue;
            }
            QVERIFY2(rec.status == RequestStatus::Http,
                     qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(statusName(rec.status)), rec.errorMessage)));
            QCOMPARE(rec.httpStatus, 413);
            QVERIFY2(rec.errorMessage.contains(QStringLiteral("HTTP 413: body too big")), qPrintable(rec.errorMessage));
            QVERIFY(rec.sentNs >= 0 && rec.headersNs >= rec.sentNs);
        }
    }

    void deadlineFiresWithinMillisecondsNotAt50msTicks()
    {
        // Regression: deadlines were checked every 50 ms, so a 100 ms timeout fired at 144-149 ms.
        SilentServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RunConfig config = configForServer(server.url(), 4, 20);
        config.load.timeoutMs = 100;
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(r.count(RequestStatus::Timeout), 20);
        std::vector<double> late;
        for (const RequestRecord &rec : r.records) {
            // The deadline runs from when the worker took the request: after its schedule, before it was sent.
            QVERIFY2(rec.doneNs - rec.scheduledNs >= 100'000'000,
                     qPrintable(QString::number(double(rec.doneNs - rec.scheduledNs) / 1e6)));
            late.push_back(double(rec.doneNs - rec.sentNs) / 1e6 - 100);
        }
        std::sort(late.begin(), late.end());
        qInfo("100 ms timeout: recorded after sent + 100 ms + %.2f ms (median), %.2f ms (max)", late[late.size() / 2],
              late.back());
        // The median, not each one: a loaded 2-core machine keeps the worker from a core for tens
        // of ms at times (at load 8-10 a deadline was recorded 57 ms late in one whole tst_engine
        // run and 36.6 ms late in 1 of 40 runs of this test; medians 0.3-3 ms, 11 ms once in 60),
        // while 50 ms ticks put the median at 25 ms (below 15 ms in 1 of 20 runs) and at 44-49 ms
        // in the regression as recorded.
        QVERIFY2(late[late.size() / 2] < 15, qPrintable(QString::number(late[late.size() / 2])));
    }

    void httpsTargets_data()
    {
        QTest::addColumn<QString>("trust");
        QTest::addColumn<int>("status");
        QTest::newRow("self-signed is refused") << QString() << int(RequestStatus::Tls);
        QTest::newRow("--insecure") << QStringLiteral("insecure") << int(RequestStatus::Ok);
        QTest::newRow("--ca-cert") << QStringLiteral("ca") << int(RequestStatus::Ok);
    }

    void httpsTargets()
    {
        if (!QSslSocket::supportsSsl())
            QSKIP("this Qt has no TLS backend");
        QFETCH(QString, trust);
        QFETCH(int, status);
        TlsServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RunConfig config;
        config.target.url = server.url();
        config.target.model = QStringLiteral("m");
        config.target.tlsVerify = trust != QLatin1String("insecure");
        if (trust == QLatin1String("ca"))
            config.target.caCertificate = QStringLiteral(TOKENBENCH_TESTDATA "/tls-test.crt");
        config.load.concurrency = 2;
        config.load.requests = 4;
        config.load.timeoutMs = 20000;
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(int(r.records.size()), 4);
        for (const RequestRecord &rec : r.records) {
            QVERIFY2(int(rec.status) == status, qPrintable(rec.errorMessage));
            if (rec.ok()) {
                QCOMPARE(rec.responseId, QStringLiteral("tls-1"));
                QCOMPARE(rec.completionTokens, std::int64_t(2));
                QVERIFY(rec.firstTokenNs >= rec.sentNs);
            }
        }
    }

    void stopCancelsInFlightAndFinishes()
    {
        SimConfig simConfig = fastSim();
        simConfig.ttftMs = 20000;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        RunConfig config = configFor(host, 10, 1000);
        const RunResult r = runLoad(config, [&host](LoadController &controller) {
            QVERIFY(QTest::qWaitFor([&host] { return host.stats().requestsInProgress == 10; }, 20000));
            controller.stop();
            controller.stop(); // safe twice
        });
        QVERIFY(r.finished);
        QVERIFY(r.cancelled);
        QCOMPARE(int(r.records.size()), 10);
        QCOMPARE(r.count(RequestStatus::Cancelled), 10);
        QTRY_COMPARE_WITH_TIMEOUT(host.stats().requestsInProgress, qint64(0), 10000); // the server saw them go
    }

    /// Stop while users are still being started (a transport thread starts them a slice per pass,
    /// TransportWorker::kStartSliceNs): those not yet started are recorded as cancelled too, so
    /// the run ends with a record for every request it began.
    void stopWhileUsersAreStillStartingRecordsEveryOne()
    {
        constexpr int kUsers = 2000;
        SimConfig simConfig = fastSim();
        simConfig.ttftMs = 20000;
        simConfig.maxBatch = kUsers;
        simConfig.queueLimit = kUsers;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        const RunResult r = runLoad(
            configFor(host, kUsers, kUsers), [](LoadController &controller) { controller.stop(); }, 120000, 1);
        QVERIFY(r.finished);
        QVERIFY(r.cancelled);
        QCOMPARE(int(r.records.size()), kUsers);
        QCOMPARE(r.count(RequestStatus::Cancelled), kUsers);
        const auto unsent =
            std::count_if(r.records.begin(), r.records.end(), [](const RequestRecord &rec) { return rec.sentNs < 0; });
        qInfo("%lld of %d were stopped before they were sent", qlonglong(unsent), kUsers);
        QTRY_COMPARE_WITH_TIMEOUT(host.stats().requestsInProgress, qint64(0), 20000);
    }

    void apis_data()
    {
        QTest::addColumn<QString>("api");
        QTest::addColumn<bool>("stream");
        for (const char *api : {"openai-chat", "openai-completions", "anthropic-messages", "openai-responses"}) {
            QTest::addRow("%s streaming", api) << QString::fromLatin1(api) << true;
            QTest::addRow("%s whole", api) << QString::fromLatin1(api) << false;
        }
    }

    void apis()
    {
        QFETCH(QString, api);
        QFETCH(bool, stream);
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        RunConfig config = configFor(host, 2, 6);
        config.target.api = *apiKindFromName(api);
        config.request.stream = stream;
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        std::int64_t completion = 0;
        for (const RequestRecord &rec : r.records) {
            QVERIFY2(rec.ok(), qPrintable(rec.errorMessage));
            QCOMPARE(rec.tokenSource, TokenSource::Usage);
            QVERIFY(!rec.responseId.isEmpty());
            QCOMPARE(rec.firstTokenNs >= 0, stream);
            QVERIFY(rec.e2eMs().has_value());
            completion += rec.completionTokens;
        }
        QCOMPARE(host.stats().tokensSent, completion);
    }

    void headerInjectionNeverReachesTheWire_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("value");
        QTest::newRow("CRLF in a value") << QStringLiteral("X-A") << QStringLiteral("1\r\nX-Injected: 1");
        QTest::newRow("LF in a value") << QStringLiteral("X-A") << QStringLiteral("1\nX-Injected: 1");
        QTest::newRow("NUL in a value") << QStringLiteral("X-A")
                                        << QStringLiteral("1") + QChar(0) + QStringLiteral("X-Injected: 1");
        QTest::newRow("second Host") << QStringLiteral("Host") << QStringLiteral("evil.example");
        QTest::newRow("second Content-Length") << QStringLiteral("Content-Length") << QStringLiteral("0");
        QTest::newRow("Transfer-Encoding") << QStringLiteral("Transfer-Encoding") << QStringLiteral("chunked");
        QTest::newRow("Connection") << QStringLiteral("connection") << QStringLiteral("close");
    }

    void headerInjectionNeverReachesTheWire()
    {
        QFETCH(QString, name);
        QFETCH(QString, value);
        EchoServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RunConfig config = echoConfig(server.url());
        config.target.headers = {{name, value}};
        QString error;
        QVERIFY(!RunPlan::create(config, &error));
        QVERIFY2(error.startsWith(QStringLiteral("target.headers (--header): '%1'").arg(name)), qPrintable(error));
        const RunResult r = runLoad(config);
        QVERIFY(r.records.empty());
        QTest::qWait(200); // a connection, had one been opened, would have arrived by now
        QCOMPARE(server.connections, 0);

        // The same target with a harmless header: it goes out once, beside one Host and one Content-Length.
        config.target.headers = {{QStringLiteral("X-A"), QStringLiteral("1")}};
        QVERIFY(runLoad(config).finished);
        QCOMPARE(server.heads.size(), 1);
        QCOMPARE(server.count("X-A"), 1);
        QCOMPARE(server.count("X-Injected"), 0);
        QCOMPARE(server.count("Host"), 1);
        QCOMPARE(server.count("Content-Length"), 1);
        QCOMPARE(server.count("Connection"), 1);
    }

    void apiKeyInjectionNeverReachesTheWire_data()
    {
        QTest::addColumn<int>("api");
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<QString>("expected");
        const int chat = int(ApiKind::OpenAIChat);
        QTest::newRow("CRLF, Bearer") << chat << QByteArray("sk-A-secret\r\nX-Injected-Key: 1")
                                      << QStringLiteral("contains a line break (CR or LF)");
        QTest::newRow("LF, Bearer") << chat << QByteArray("sk-A-secret\nX-Injected-Key: 1")
                                    << QStringLiteral("contains a line break (CR or LF)");
        QTest::newRow("CRLF, Anthropic's x-api-key")
            << int(ApiKind::AnthropicMessages) << QByteArray("sk-A-secret\r\nX-Injected-Key: 1")
            << QStringLiteral("contains a line break (CR or LF)");
        QTest::newRow("trailing newline")
            << chat << QByteArray("sk-A-secret\n") << QStringLiteral("ends with a line break (CR or LF)");
    }

    // A CR or LF in the API key's variable sent a header of its own on both transports
    // ("sk-A\r\nX-Injected-Key: 1"), and a trailing newline a malformed request. The run is refused
    // before anything is sent, naming the variable and not the key.
    void apiKeyInjectionNeverReachesTheWire()
    {
        QFETCH(int, api);
        QFETCH(QByteArray, key);
        QFETCH(QString, expected);
        EchoServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RunConfig config = echoConfig(server.url());
        config.target.api = ApiKind(api);
        QVERIFY(qputenv("TB_ENGINE_TEST_KEY", key));
        const RunResult r = runLoad(config);
        QString error;
        const bool planned = RunPlan::create(config, &error) != nullptr;
        qunsetenv("TB_ENGINE_TEST_KEY");
        QTest::qWait(200); // a connection, had one been opened, would have arrived by now
        for (const QByteArray &head : std::as_const(server.heads))
            QVERIFY2(!head.contains("X-Injected-Key"), head.constData());
        QCOMPARE(server.connections, 0);
        QVERIFY(r.records.empty());
        QVERIFY(!planned);
        QVERIFY2(
            error.startsWith(QStringLiteral("target.api_key_env (--api-key-env): the API key in TB_ENGINE_TEST_KEY ") +
                             expected),
            qPrintable(error));
        QVERIFY2(!error.contains(QStringLiteral("secret")), qPrintable(error));
    }

    void credentialsOnTheWire_data()
    {
        QTest::addColumn<QString>("userInfo");
        QTest::addColumn<QString>("header"); // "Name: value" given by the user; empty: none
        QTest::addColumn<QByteArray>("authorization");
        QTest::newRow("key from the environment") << QString() << QString() << QByteArray("Bearer sk-env-secret");
        QTest::newRow("userinfo is Basic auth, not the key")
            << QStringLiteral("alice:pw-secret") << QString() << "Basic " + QByteArray("alice:pw-secret").toBase64();
        QTest::newRow("a user's Authorization replaces the key's")
            << QString() << QStringLiteral("authorization: Bearer given-secret") << QByteArray("Bearer given-secret");
        QTest::newRow("header from an environment reference")
            << QString() << QStringLiteral("Authorization: ${env:TB_ENGINE_TEST_HEADER}")
            << QByteArray("Token hdr-env-secret");
    }

    void credentialsOnTheWire()
    {
        QFETCH(QString, userInfo);
        QFETCH(QString, header);
        QFETCH(QByteArray, authorization);
        qputenv("TB_ENGINE_TEST_KEY", "sk-env-secret");
        qputenv("TB_ENGINE_TEST_HEADER", "Token hdr-env-secret");
        EchoServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RunConfig config = echoConfig(server.url(userInfo));
        if (!header.isEmpty())
            config.target.headers = {*parseHeader(header, nullptr)};
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(server.count("Authorization"), 1);
        QCOMPARE(server.value("Authorization"), authorization);
        QVERIFY(!server.heads.first().contains("${env:"));
        QCOMPARE(r.records.size(), std::size_t(1));
        QCOMPARE(r.records.front().httpStatus, 401);
        qunsetenv("TB_ENGINE_TEST_KEY");
        qunsetenv("TB_ENGINE_TEST_HEADER");
    }

    void echoedSecretsAreMaskedInRecordedErrors()
    {
        qputenv("TB_ENGINE_TEST_KEY", "sk-env-secret");
        qputenv("TB_ENGINE_TEST_HEADER", "ocp-env-secret");
        EchoServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RunConfig config = echoConfig(server.url(QStringLiteral("alice:pw-secret")));
        config.target.api = ApiKind::AnthropicMessages; // the key goes in x-api-key, userinfo in Authorization
        config.target.headers = {
            {QStringLiteral("Cookie"), QStringLiteral("sid=cookie-secret")},
            {QStringLiteral("Ocp-Apim-Subscription-Key"), QStringLiteral("${env:TB_ENGINE_TEST_HEADER}")}};
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(r.records.size(), std::size_t(1));
        const QString error = r.records.front().errorMessage;
        QCOMPARE(error, QStringLiteral("HTTP 401: invalid credentials: Basic ***, ***, ***, ***"));
        QVERIFY2(!error.contains(QStringLiteral("secret")) &&
                     !error.contains(QString::fromLatin1(QByteArray("alice:pw-secret").toBase64())),
                 qPrintable(error));
        // What the server saw was the real thing.
        QVERIFY(server.heads.first().contains("sk-env-secret"));
        QVERIFY(server.heads.first().contains("ocp-env-secret"));
        qunsetenv("TB_ENGINE_TEST_KEY");
        qunsetenv("TB_ENGINE_TEST_HEADER");
    }

    // Regression: a response complete by its protocol whose HTTP body the server never ended
    // waited for --timeout and was recorded as `timeout`, over both transports, streamed or not.
    // Now it is complete at its end, its connection closed after kBodyEndGraceNs and not reused,
    // and the run says so; a body that does end a moment later keeps its connection.
    void completeResponseWhoseBodyNeverEndsIsNotATimeout_data()
    {
        QTest::addColumn<int>("end");
        QTest::addColumn<bool>("stream");
        QTest::addColumn<bool>("unended");
        for (const bool stream : {true, false}) {
            const char *what = stream ? "stream" : "JSON body";
            QTest::addRow("%s: chunked without its last chunk", what)
                << int(BodyEnd::ChunkedWithoutLastChunk) << stream << true;
            QTest::addRow("%s: Content-Length too large", what) << int(BodyEnd::LengthTooLarge) << stream << true;
            QTest::addRow("%s: until close, kept open", what) << int(BodyEnd::UntilCloseKeptOpen) << stream << true;
            QTest::addRow("%s: last chunk 100 ms late", what) << int(BodyEnd::LastChunkLate) << stream << false;
        }
    }

    void completeResponseWhoseBodyNeverEndsIsNotATimeout()
    {
        QFETCH(int, end);
        QFETCH(bool, stream);
        QFETCH(bool, unended);
        UnendedBodyServer server{BodyEnd(end)};
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RunConfig config = configForServer(server.url(), 1, 2);
        config.request.stream = stream;
        config.load.timeoutMs = 60000;
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(int(r.records.size()), 2);
        for (const RequestRecord &rec : r.records) {
            QVERIFY2(rec.ok(),
                     qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(statusName(rec.status)), rec.errorMessage)));
            QCOMPARE(rec.completionTokens, std::int64_t(1));
            QCOMPARE(rec.unendedBody, unended);
            // Done at the response's end: not at the timeout, nor after the grace.
            QVERIFY2(rec.doneNs - rec.sentNs < TransportWorker::kBodyEndGraceNs,
                     qPrintable(QString::number(double(rec.doneNs - rec.sentNs) / 1e6)));
        }
        // A connection whose body never ended is closed, never reused; one that ended carries both.
        QTRY_COMPARE(server.closedByClient, unended ? 2 : 0);
        QCOMPARE(server.connections, unended ? 2 : 1);

        RunAggregator aggregator(RunInfo::begin(config));
        for (const RequestRecord &rec : r.records)
            aggregator.add(rec);
        const RunSummary summary = aggregator.summary();
        QCOMPARE(summary.total.connections.unendedBodies, std::int64_t(unended ? 2 : 0));
        const bool warned = std::any_of(summary.warnings.begin(), summary.warnings.end(), [](const QString &w) {
            return w.startsWith(QStringLiteral("2 of 2 responses did not end their HTTP body after the stream's end"));
        });
        QVERIFY2(warned == unended, qPrintable(summary.warnings.join(QLatin1Char('\n'))));
    }

    void keepAliveReusesConnections()
    {
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        const RunResult r = runLoad(configFor(host, 3, 60));
        QVERIFY(r.finished);
        QCOMPARE(r.count(RequestStatus::Ok), 60);
        QVERIFY2(host.stats().peakOpenConnections <= 3, qPrintable(QString::number(host.stats().peakOpenConnections)));
    }
    void conversationsCarryTheRealReplies_data()
    {
        QTest::addColumn<QString>("api");
        QTest::addColumn<bool>("stream");
        for (const char *api : {"openai-chat", "openai-responses"}) {
            QTest::addRow("%s streaming", api) << QString::fromLatin1(api) << true;
            QTest::addRow("%s whole", api) << QString::fromLatin1(api) << false;
        }
    }

    // Turn k carries the replies the client received to turns 1..k-1, byte for byte, as the
    // assistant's messages between the user's.
    void conversationsCarryTheRealReplies()
    {
        QFETCH(QString, api);
        QFETCH(bool, stream);
        const bool responses = api == QLatin1String("openai-responses");
        ConversationServer server(responses);
        QVERIFY(server.listen(QHostAddress::LocalHost));
        RunConfig config = echoConfig(server.url());
        config.target.api = *apiKindFromName(api);
        config.request.stream = stream;
        config.prompt.promptTokens = 12;
        config.load.concurrency = 2;
        config.load.requests = 6;
        config.load.turns = 3;
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(r.count(RequestStatus::Ok), 6);
        QCOMPARE(server.bodies.size(), std::size_t(6));

        // Two users; one whose conversation ends first starts another with the requests left.
        const auto conversations = byConversation(r.records);
        QVERIFY(conversations.size() >= 2 && conversations.size() <= 3);
        QVERIFY(std::any_of(conversations.begin(), conversations.end(),
                            [](const auto &c) { return c.second.size() == 3; }));
        std::map<QString, std::size_t> served; // response id -> index of the body it answered
        for (std::size_t i = 0; i < server.bodies.size(); ++i)
            served[QStringLiteral("r-%1").arg(i + 1)] = i;
        for (const auto &[id, turns] : conversations) {
            QVERIFY(id > 0);
            std::vector<std::string> received; // the replies of this conversation so far
            for (const auto &[turn, record] : turns) {
                QCOMPARE(turn, int(received.size()) + 1);
                QVERIFY(record.reply.empty()); // taken by the controller, never passed on
                const std::size_t at = served.at(record.responseId);
                const nlohmann::json &messages = server.bodies[at][responses ? "input" : "messages"];
                QVERIFY2(messages.is_array(), server.bodies[at].dump().c_str());
                QCOMPARE(messages.size(), std::size_t(2 * turn - 1));
                for (std::size_t m = 0; m < messages.size(); ++m) {
                    QCOMPARE(messages[m]["role"].get<std::string>(), std::string(m % 2 ? "assistant" : "user"));
                    if (m % 2)
                        QCOMPARE(messages[m]["content"].get<std::string>(), received[m / 2]);
                }
                received.push_back(server.replies[at]);
            }
        }
    }

    // Against the simulator: its own count of each turn's prompt (GET /sim/requests) is the last
    // prompt, the reply it generated and the new user message; the history is served from its
    // prefix cache.
    void conversationPromptsGrowByTheReplies_data()
    {
        QTest::addColumn<QString>("api");
        for (const char *api : {"openai-chat", "openai-completions", "anthropic-messages", "openai-responses"})
            QTest::addRow("%s", api) << QString::fromLatin1(api);
    }

    void conversationPromptsGrowByTheReplies()
    {
        QFETCH(QString, api);
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        RunConfig config = configFor(host, 2, 8);
        config.target.api = *apiKindFromName(api);
        config.request.maxTokens = 24;
        config.prompt.promptTokens = 40;
        config.load.turns = 4;
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(r.count(RequestStatus::Ok), 8);
        std::map<QString, tb::sim::RequestTrace> traces;
        for (const tb::sim::RequestTrace &t : host.requests())
            traces[t.id] = t;
        const auto conversations = byConversation(r.records);
        QVERIFY(std::any_of(conversations.begin(), conversations.end(),
                            [](const auto &c) { return c.second.size() == 4; }));
        for (const auto &[id, turns] : conversations) {
            const RequestRecord *previous = nullptr;
            for (const auto &[turn, record] : turns) {
                const tb::sim::RequestTrace &trace = traces.at(record.responseId);
                QCOMPARE(record.promptTokens, trace.promptTokens);
                if (previous) {
                    // What the model said (reasoning is not sent back) plus a new 40-token question;
                    // separators may count a token or two.
                    const std::int64_t said = previous->completionTokens - previous->reasoningTokens;
                    const std::int64_t added = record.promptTokens - previous->promptTokens - said;
                    QVERIFY2(added >= 38 && added <= 44,
                             qPrintable(QStringLiteral("turn %1: %2 -> %3 tokens, the reply had %4")
                                            .arg(turn)
                                            .arg(previous->promptTokens)
                                            .arg(record.promptTokens)
                                            .arg(said)));
                    QVERIFY2(record.cachedTokens >= previous->promptTokens / 2,
                             qPrintable(QStringLiteral("turn %1: %2 of %3 cached")
                                            .arg(turn)
                                            .arg(record.cachedTokens)
                                            .arg(record.promptTokens)));
                }
                previous = &record;
            }
        }
    }

    void thinkTimeSeparatesTurns_data()
    {
        QTest::addColumn<QString>("thinkTime");
        QTest::addRow("fixed") << QStringLiteral("300ms");
        QTest::addRow("exponential") << QStringLiteral("exp:300ms");
    }

    // A user's next turn goes out no sooner than its think time after the last one finished, and
    // the user is busy meanwhile (one user: never two requests at once).
    void thinkTimeSeparatesTurns()
    {
        QFETCH(QString, thinkTime);
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        RunConfig config = configFor(host, 1, 6);
        config.request.maxTokens = 4;
        config.load.turns = 6;
        const ThinkTime think = *parseThinkTime(thinkTime);
        config.load.thinkTimeMs = think.ms;
        config.load.thinkTimeExponential = think.exponential;
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(r.count(RequestStatus::Ok), 6);
        QCOMPARE(r.peakInFlight, std::int64_t(1));
        const auto conversations = byConversation(r.records);
        QCOMPARE(conversations.size(), std::size_t(1));
        std::vector<double> gapsMs;
        const RequestRecord *previous = nullptr;
        for (const auto &[turn, record] : conversations.begin()->second) {
            if (previous) {
                gapsMs.push_back(double(record.scheduledNs - previous->doneNs) / 1e6);
                QVERIFY(record.sentNs >= record.scheduledNs);
            }
            previous = &record;
        }
        QCOMPARE(gapsMs.size(), std::size_t(5));
        const auto [lo, hi] = std::minmax_element(gapsMs.begin(), gapsMs.end());
        if (!think.exponential) {
            QVERIFY2(*lo >= 300, qPrintable(QString::number(*lo)));
        } else {
            // Exponential with a 300 ms mean: seeded, so these five draws are fixed; they differ.
            QVERIFY2(*lo >= 0 && *hi > 2 * *lo, qPrintable(QStringLiteral("%1 .. %2 ms").arg(*lo).arg(*hi)));
        }
    }

    // Open loop: arrivals start conversations; a conversation's next turn follows its last reply.
    void openLoopConversationsFollowTheirReplies()
    {
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        RunConfig config = configFor(host, 1, 12);
        config.load.mode = LoadMode::Rate;
        config.load.rate = 40;
        config.load.turns = 3;
        const RunResult r = runLoad(config);
        QVERIFY(r.finished);
        QCOMPARE(r.count(RequestStatus::Ok), 12);
        int followed = 0;
        for (const auto &[id, turns] : byConversation(r.records)) {
            const RequestRecord *previous = nullptr;
            for (const auto &[turn, record] : turns) {
                if (previous) {
                    QVERIFY(record.sentNs >= previous->doneNs);
                    ++followed;
                }
                previous = &record;
            }
        }
        QVERIFY(followed > 0);
    }
};

QTEST_GUILESS_MAIN(TestEngine)
#include "tst_engine.moc"
