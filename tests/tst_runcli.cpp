// `tokenbench-cli run` as users and scripts run it: a real process against the real simulator.
#include "analysis/comparison.h"
#include "platform/iobackend.h"
#include "results/rundirectory.h"
#include "sim/simulatorhost.h"

#include <QDirIterator>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include "support/clirunner.h"
#include "support/echoserver.h"
#include "support/httprequest.h"
#include "support/testfiles.h"
#include "support/testnumbers.h"

#include <atomic>
#include <csignal>
#include <map>
#include <thread>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace tb;
using tb::sim::SimConfig;
using tb::sim::SimulatorHost;
using tb::test::median;
using tb::test::writeFile;

namespace {

CliResult run(const QStringList &args, const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    return runCli(QStringList{QStringLiteral("run")} + args, env);
}

/// runCli() for a server living on the test's own thread: spins the event loop while waiting.
CliResult runServing(const QStringList &args, const QProcessEnvironment &env)
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(TOKENBENCH_CLI), args);
    if (!p.waitForStarted() || !QTest::qWaitFor([&p] { return p.state() == QProcess::NotRunning; }, 120000)) {
        p.kill();
        p.waitForFinished();
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

/// What `run … --out DIR` printed, and DIR read back: `data` is empty and `error` says why when the
/// directory could not be read.
struct SavedRun {
    CliResult cli;
    std::optional<RunData> data;
    QString error;
};

SavedRun runSaved(const QStringList &args, const QString &out, RunReader::Parts parts = RunReader::Records)
{
    SavedRun saved{run(args + QStringList{QStringLiteral("--out"), out}), std::nullopt, QString()};
    saved.data = RunReader::load(out, &saved.error, parts);
    return saved;
}

/// A prompt of several of the simulator's 64-byte prefix-cache blocks.
constexpr char kLongQuestion[] = "Explain how a continuous batching server schedules the prefill of a long prompt "
                                 "beside the decode steps of the requests already running, in detail.";

SimConfig fastSim()
{
    return *SimConfig::preset(QStringLiteral("fast"));
}

QStringList target(const SimulatorHost &host)
{
    return {QStringLiteral("--url"), host.baseUrl().toString(), QStringLiteral("--model"), host.config().model,
            QStringLiteral("--quiet")};
}

/// A context sweep at one user (no queue before the prefill), `requests` per stage, two tokens out.
QStringList contextSweep(const QString &sizes, int requests)
{
    return {QStringLiteral("--sweep"),       sizes,
            QStringLiteral("--concurrency"), QStringLiteral("1"),
            QStringLiteral("--requests"),    QString::number(requests),
            QStringLiteral("--max-tokens"),  QStringLiteral("2")};
}

/// A server on a thread of its own (the test's thread blocks while the CLI runs): answers the
/// k-th connection's request with responses[k] (the last one repeats) and closes it.
class ScriptedServer
{
public:
    explicit ScriptedServer(std::vector<QByteArray> responses)
        : m_responses(std::move(responses))
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof a;
        if (::bind(m_fd, reinterpret_cast<sockaddr *>(&a), size) == 0 && ::listen(m_fd, 16) == 0 &&
            ::getsockname(m_fd, reinterpret_cast<sockaddr *>(&a), &size) == 0)
            m_port = ntohs(a.sin_port);
        m_thread = std::thread([this] { serve(); });
    }
    ~ScriptedServer()
    {
        ::shutdown(m_fd, SHUT_RDWR); // wakes accept()
        m_thread.join();
        ::close(m_fd);
    }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1/v1").arg(m_port); }

private:
    void serve()
    {
        for (std::size_t k = 0;; ++k) {
            const int c = ::accept(m_fd, nullptr, nullptr);
            if (c < 0)
                return;
            QByteArray in;
            char buf[4096];
            while (!tb::test::takeRequest(in)) {
                const ssize_t n = ::recv(c, buf, sizeof buf, 0);
                if (n <= 0)
                    break;
                in.append(buf, qsizetype(n));
            }
            const QByteArray &response = m_responses.at(std::min(k, m_responses.size() - 1));
            ::send(c, response.constData(), std::size_t(response.size()), MSG_NOSIGNAL);
            ::close(c);
        }
    }

    std::vector<QByteArray> m_responses;
    int m_fd = -1;
    quint16 m_port = 0;
    std::thread m_thread;
};

} // namespace

class TestRunCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void badUsageExits2_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QStringList base{QStringLiteral("--url"), QStringLiteral("http://127.0.0.1:9/v1"),
                               QStringLiteral("--model"), QStringLiteral("m")};
        QTest::newRow("zero concurrency")
            << base + QStringList{QStringLiteral("--concurrency"), QStringLiteral("0")}
            << QStringLiteral("--concurrency: '0' is not a whole number from 1 to 100000");
        QTest::newRow("negative concurrency")
            << base + QStringList{QStringLiteral("--concurrency"), QStringLiteral("-3")}
            << QStringLiteral("--concurrency");
        QTest::newRow("rate and concurrency")
            << base + QStringList{QStringLiteral("--rate"), QStringLiteral("5"), QStringLiteral("--concurrency"),
                                  QStringLiteral("2")}
            << QStringLiteral("--concurrency and --rate: choose one");
        QTest::newRow("zero rate") << base + QStringList{QStringLiteral("--rate"), QStringLiteral("0")}
                                   << QStringLiteral("--rate");
        QTest::newRow("unknown api")
            << base + QStringList{QStringLiteral("--api"), QStringLiteral("grpc")}
            << QStringLiteral(
                   "accepted: "
                   "openai-chat|openai-completions|anthropic-messages|openai-responses|openai-embeddings|rerank|score");
        QTest::newRow("batch size beyond the bound")
            << base + QStringList{QStringLiteral("--api"), QStringLiteral("openai-embeddings"),
                                  QStringLiteral("--batch-size"), QStringLiteral("2049")}
            << QStringLiteral("--batch-size: '2049' is not a whole number from 1 to 2048");
        QTest::newRow("batch size for a generating api")
            << base + QStringList{QStringLiteral("--batch-size"), QStringLiteral("8")}
            << QStringLiteral("request.batch_size (--batch-size): is the inputs of one embeddings, rerank or score "
                              "request; it needs --api openai-embeddings, rerank or score (got 8 with openai-chat)");
        QTest::newRow("embeddings in a conversation")
            << base + QStringList{QStringLiteral("--api"), QStringLiteral("openai-embeddings"),
                                  QStringLiteral("--turns"), QStringLiteral("3")}
            << QStringLiteral(
                   "load.turns (--turns): --api openai-embeddings answers with no reply to carry into a next turn");
        QTest::newRow("rerank in a conversation")
            << base + QStringList{QStringLiteral("--api"), QStringLiteral("rerank"), QStringLiteral("--turns"),
                                  QStringLiteral("2")}
            << QStringLiteral("load.turns (--turns): --api rerank answers with no reply to carry into a next turn");
        QTest::newRow("bad think time") << base + QStringList{QStringLiteral("--turns"), QStringLiteral("3"),
                                                              QStringLiteral("--think-time"),
                                                              QStringLiteral("exp:soon")}
                                        << QStringLiteral("--think-time: 'exp:soon' is not a duration");
        QTest::newRow("zero turns") << base + QStringList{QStringLiteral("--turns"), QStringLiteral("0")}
                                    << QStringLiteral("--turns: '0' is not a whole number from 1 to 1000");
        QTest::newRow("think time without turns")
            << base + QStringList{QStringLiteral("--think-time"), QStringLiteral("2s")}
            << QStringLiteral("it needs --turns 2 or more");
        QTest::newRow("malformed stages") << base + QStringList{QStringLiteral("--stages"), QStringLiteral("c=50/30s")}
                                          << QStringLiteral("--stages: malformed stages");
        QTest::newRow("broken dataset line")
            << base + QStringList{QStringLiteral("--dataset"),
                                  QStringLiteral(TOKENBENCH_TESTDATA "/workload/broken.jsonl")}
            << QStringLiteral("broken.jsonl' line 3: not a JSON object");
        QTest::newRow("broken trace row")
            << base + QStringList{QStringLiteral("--trace"),
                                  QStringLiteral(TOKENBENCH_TESTDATA "/workload/broken-trace.csv")}
            << QStringLiteral("broken-trace.csv' line 3: TIMESTAMP is not");
        QTest::newRow("trace and rate") << base + QStringList{QStringLiteral("--trace"),
                                                              QStringLiteral(TOKENBENCH_TESTDATA "/workload/azure.csv"),
                                                              QStringLiteral("--rate"), QStringLiteral("5")}
                                        << QStringLiteral("--trace and --rate: a trace is its own schedule");
        QTest::newRow("malformed length range")
            << base + QStringList{QStringLiteral("--dataset-prompt-len"), QStringLiteral("9..4")}
            << QStringLiteral("--dataset-prompt-len: '9..4' is not a token range");
        QTest::newRow("zero time scale") << base + QStringList{QStringLiteral("--time-scale"), QStringLiteral("0")}
                                         << QStringLiteral("--time-scale");
        QTest::newRow("server metrics twice")
            << base + QStringList{QStringLiteral("--server-metrics"), QStringLiteral("http://127.0.0.1:9/metrics"),
                                  QStringLiteral("--no-server-metrics")}
            << QStringLiteral("--server-metrics and --no-server-metrics: choose one");
        QTest::newRow("server metrics not http")
            << base + QStringList{QStringLiteral("--server-metrics"), QStringLiteral("ftp://127.0.0.1/metrics")}
            << QStringLiteral("target.server_metrics_url (--server-metrics): the URL is not an http://");
        QTest::newRow("server metrics credentials")
            << base + QStringList{QStringLiteral("--server-metrics"),
                                  QStringLiteral("http://user:secret@127.0.0.1:9/metrics")}
            << QStringLiteral("credentials in the URL would be written to run.json");
        QTest::newRow("proxy and no proxy")
            << base + QStringList{QStringLiteral("--proxy"), QStringLiteral("http://127.0.0.1:3128"),
                                  QStringLiteral("--no-proxy")}
            << QStringLiteral("--proxy and --no-proxy: choose one");
        QTest::newRow("socks proxy, its password not echoed")
            << base + QStringList{QStringLiteral("--proxy"), QStringLiteral("socks5://u:pw-secret@127.0.0.1:1080")}
            << QStringLiteral("target.proxy (--proxy): 'socks5://127.0.0.1:1080' is a socks5:// proxy; only http:// "
                              "proxies are supported");
        QTest::newRow("missing model") << QStringList{QStringLiteral("--url"), QStringLiteral("http://127.0.0.1:9/v1")}
                                       << QStringLiteral("target.model (--model): missing");
        QTest::newRow("missing url") << QStringList{QStringLiteral("--model"), QStringLiteral("m")}
                                     << QStringLiteral("target.url (--url): missing");
        QTest::newRow("bad url") << QStringList{QStringLiteral("--url"), QStringLiteral("127.0.0.1:8000"),
                                                QStringLiteral("--model"), QStringLiteral("m")}
                                 << QStringLiteral("not an http:// or https:// URL");
        QTest::newRow("unreadable prompt file")
            << base + QStringList{QStringLiteral("--prompt-file"), QStringLiteral("/nonexistent/p.jsonl")}
            << QStringLiteral("cannot read '/nonexistent/p.jsonl'");
        QTest::newRow("bad duration") << base + QStringList{QStringLiteral("--duration"), QStringLiteral("forever")}
                                      << QStringLiteral("--duration: 'forever' is not a duration");
        QTest::newRow("bad slo") << base + QStringList{QStringLiteral("--slo"), QStringLiteral("ttft=5")}
                                 << QStringLiteral("--slo: malformed SLO");
        QTest::newRow("bad header") << base + QStringList{QStringLiteral("--header"), QStringLiteral("no colon")}
                                    << QStringLiteral("--header: malformed header");
        QTest::newRow("bad extra body") << base + QStringList{QStringLiteral("--extra-body"), QStringLiteral("[1]")}
                                        << QStringLiteral("--extra-body: not a JSON object");
        QTest::newRow("unknown flag") << base + QStringList{QStringLiteral("--concurency"), QStringLiteral("5")}
                                      << QStringLiteral("Unknown option 'concurency'");
        QTest::newRow("bad sweep") << base + QStringList{QStringLiteral("--sweep"), QStringLiteral("c=8..8")}
                                   << QStringLiteral("--sweep: malformed sweep 'c=8..8'");
        QTest::newRow("sweep and stages") << base + QStringList{QStringLiteral("--sweep"), QStringLiteral("c=1..8"),
                                                                QStringLiteral("--stages"), QStringLiteral("c=1")}
                                          << QStringLiteral("--stages and --sweep: choose one");
        QTest::newRow("sweep and concurrency")
            << base + QStringList{QStringLiteral("--sweep"), QStringLiteral("c=1..8"), QStringLiteral("--concurrency"),
                                  QStringLiteral("2")}
            << QStringLiteral("--sweep sets the load levels; do not combine it with --concurrency");
        QTest::newRow("unknown balance")
            << base + QStringList{QStringLiteral("--balance"), QStringLiteral("weighted")}
            << QStringLiteral("--balance: unknown policy 'weighted' (accepted: round-robin|least-in-flight|random)");
        QTest::newRow("bad replica url")
            << base + QStringList{QStringLiteral("--url"), QStringLiteral("127.0.0.1:8001")}
            << QStringLiteral("target.replicas[0] (--url): '127.0.0.1:8001' is not an http:// or https:// URL");
        QTest::newRow("missing config file")
            << QStringList{QStringLiteral("--config"), QStringLiteral("/nonexistent.json")}
            << QStringLiteral("--config: cannot read");
        QTest::newRow("unknown max tokens field")
            << base + QStringList{QStringLiteral("--max-tokens-field"), QStringLiteral("max_new_tokens")}
            << QStringLiteral("--max-tokens-field: unknown field 'max_new_tokens' (accepted: "
                              "auto|max_tokens|max_completion_tokens)");
        QTest::newRow("key instead of variable name")
            << base + QStringList{QStringLiteral("--api-key-env"), QStringLiteral("sk-abc123-secret")}
            << QStringLiteral("is not an environment variable name");
        QTest::newRow("concurrency wrapping around")
            << base + QStringList{QStringLiteral("--concurrency"), QStringLiteral("99999999999")}
            << QStringLiteral("--concurrency: '99999999999' is not a whole number from 1 to 100000");
        QTest::newRow("max-tokens wrapping negative")
            << base + QStringList{QStringLiteral("--max-tokens"), QStringLiteral("2147483648")}
            << QStringLiteral("--max-tokens: '2147483648' is not a whole number from 1 to 10000000");
        QTest::newRow("prompt tokens beyond the maximum")
            << base + QStringList{QStringLiteral("--prompt-tokens"), QStringLiteral("99999999999")}
            << QStringLiteral("--prompt-tokens: '99999999999' is not a whole number from 0 to 2000000");
        QTest::newRow("100000 workers") << base + QStringList{QStringLiteral("--workers"), QStringLiteral("100000")}
                                        << QStringLiteral("--workers: '100000' is not a whole number from 1 to 256");
        QTest::newRow("infinite rate") << base + QStringList{QStringLiteral("--rate"), QStringLiteral("inf")}
                                       << QStringLiteral("--rate: 'inf' is not a finite number > 0");
        QTest::newRow("NaN temperature") << base + QStringList{QStringLiteral("--temperature"), QStringLiteral("nan")}
                                         << QStringLiteral("--temperature: 'nan' is not a finite number");
        QTest::newRow("NaN top-p") << base + QStringList{QStringLiteral("--top-p"), QStringLiteral("NaN")}
                                   << QStringLiteral("--top-p: 'NaN' is not a finite number");
        QTest::newRow("zero duration") << base + QStringList{QStringLiteral("--duration"), QStringLiteral("0")}
                                       << QStringLiteral("--duration: '0' is not a duration above 0");
        QTest::newRow("stage ending after nothing")
            << base + QStringList{QStringLiteral("--stages"), QStringLiteral("c=1:0")}
            << QStringLiteral("'0' is neither a duration above 0 nor a request count");
        // One argument may hold at most 128 KiB (MAX_ARG_STRLEN): 20,000 stages and 10,000 levels fit.
        QTest::newRow("20000 stages") << base +
                                             QStringList{QStringLiteral("--stages"),
                                                         QStringLiteral("c=1,").repeated(19999) + QStringLiteral("c=1")}
                                      << QStringLiteral("more than 1000 stages");
        QTest::newRow("ca-cert that is not PEM")
            << base + QStringList{QStringLiteral("--ca-cert"), QStringLiteral(TOKENBENCH_TESTDATA "/tls-test.key")}
            << QStringLiteral("target.ca_cert (--ca-cert): '" TOKENBENCH_TESTDATA
                              "/tls-test.key' holds no PEM certificate");
        QTest::newRow("header injection")
            << base + QStringList{QStringLiteral("--header"), QStringLiteral("X-A: 1\r\nX-Injected: 1")}
            << QStringLiteral("--header: header 'X-A' has a value that contains a line break");
        QTest::newRow("second Host header")
            << base + QStringList{QStringLiteral("--header"), QStringLiteral("Host: evil.example")}
            << QStringLiteral("--header: header 'Host' is one TokenBench sets itself");
        QTest::newRow("extra body nested too deep")
            << base + QStringList{QStringLiteral("--extra-body"), QStringLiteral("{\"a\":").repeated(10000) +
                                                                      QStringLiteral("1") +
                                                                      QStringLiteral("}").repeated(10000)}
            << QStringLiteral("--extra-body: a.a: nests deeper than 64 levels");
        QTest::newRow("userinfo stays out of errors")
            << QStringList{QStringLiteral("--url"), QStringLiteral("http://alice:pw-secret@/v1"),
                           QStringLiteral("--model"), QStringLiteral("m")}
            << QStringLiteral("target.url (--url): 'http:///v1' is not an http");
        // Several choices in one stream would be counted as one response's tokens.
        QTest::newRow("n > 1 in extra body")
            << base + QStringList{QStringLiteral("--extra-body"), QStringLiteral(R"({"n": 3})")}
            << QStringLiteral("target.extra_body.n: only 1 choice per request is measured (got 3)");
        QTest::newRow("zero connect timeout")
            << base + QStringList{QStringLiteral("--connect-timeout"), QStringLiteral("0s")}
            << QStringLiteral("--connect-timeout: '0s' is not a duration above 0");
        QTest::newRow("bad connect timeout")
            << base + QStringList{QStringLiteral("--connect-timeout"), QStringLiteral("soon")}
            << QStringLiteral("--connect-timeout: 'soon' is not a duration");
        const QStringList listen =
            base + QStringList{QStringLiteral("--metrics-listen"), QStringLiteral("127.0.0.1:0")};
        QTest::newRow("metrics linger without metrics listen")
            << base + QStringList{QStringLiteral("--metrics-linger"), QStringLiteral("30s")}
            << QStringLiteral("--metrics-linger: nothing to serve without --metrics-listen");
        QTest::newRow("zero metrics linger")
            << listen + QStringList{QStringLiteral("--metrics-linger"), QStringLiteral("0")}
            << QStringLiteral("--metrics-linger: '0' is not a duration above 0");
        QTest::newRow("metrics linger beyond an hour")
            << listen + QStringList{QStringLiteral("--metrics-linger"), QStringLiteral("2h")}
            << QStringLiteral("--metrics-linger: at most 1h");
        QTest::newRow("metrics linger with repeat")
            << listen + QStringList{QStringLiteral("--metrics-linger"), QStringLiteral("30s"),
                                    QStringLiteral("--repeat"), QStringLiteral("3")}
            << QStringLiteral("--metrics-linger: for a single run, not with --find-max or --repeat");
    }

    void badUsageExits2()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const CliResult r = run(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY2(!r.err.contains(QStringLiteral("secret")), "a key-like value was echoed");
    }

    void runWritesADirectoryAndASummary()
    {
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        const auto [r, data, error] =
            runSaved(target(host) + QStringList{QStringLiteral("--concurrency"), QStringLiteral("4"),
                                                QStringLiteral("--requests"), QStringLiteral("40"),
                                                QStringLiteral("--prompt-tokens"), QStringLiteral("64"),
                                                QStringLiteral("--warmup"), QStringLiteral("4")},
                     out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("TTFT p50")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("40 ok, 0 failed")), qPrintable(r.out));
        QVERIFY2(!r.out.contains(QStringLiteral("\nfailures ")), qPrintable(r.out)); // only when any failed
        QVERIFY2(data, qPrintable(error));
        QVERIFY(!data->summaryRecomputed);
        QCOMPARE(data->records.size(), std::size_t(44));
        QCOMPARE(data->summary.total.requests.ok, std::int64_t(40));
        QCOMPARE(data->summary.total.requests.warmup, std::int64_t(4));
        QCOMPARE(data->summary.total.concurrency.peakInFlight, 4);
        QCOMPARE(data->summary.total.tokens.input, std::int64_t(40 * 64));
        QCOMPARE(host.stats().peakConcurrentRequests, qint64(4));
    }

    void embeddingsRunCountsItsInputs_data()
    {
        QTest::addColumn<int>("batch");
        QTest::newRow("one input a request: a string") << 1;
        QTest::newRow("a batch of 8: an array") << 8;
    }

    // An embeddings run end to end against the simulator: every request carries its batch, the
    // inputs and their tokens are counted as the server counted them, inputs/s is requests/s × the
    // batch, and no row of the summary is about tokens that streamed (there are none).
    void embeddingsRunCountsItsInputs()
    {
        QFETCH(int, batch);
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        constexpr int kRequests = 12;
        constexpr int kTokens = 32;
        const auto [r, data, error] =
            runSaved(target(host) + QStringList{QStringLiteral("--api"), QStringLiteral("openai-embeddings"),
                                                QStringLiteral("--batch-size"), QString::number(batch),
                                                QStringLiteral("--prompt-tokens"), QString::number(kTokens),
                                                QStringLiteral("--concurrency"), QStringLiteral("3"),
                                                QStringLiteral("--requests"), QString::number(kRequests)},
                     out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(data, qPrintable(error));
        const SummaryBlock &t = data->summary.total;
        QCOMPARE(t.requests.ok, std::int64_t(kRequests));
        QCOMPARE(t.requests.inputs, std::int64_t(kRequests * batch));
        // The server's count (usage) of inputs the client sized to kTokens each.
        QCOMPARE(t.tokens.input, std::int64_t(kRequests * batch * kTokens));
        QCOMPARE(t.tokens.promptFromUsage, std::int64_t(kRequests));
        QCOMPARE(t.tokens.output, std::int64_t(0));
        QCOMPARE(host.stats().promptTokens, qint64(kRequests * batch * kTokens));
        QVERIFY(t.throughput.requestsPerS > 0);
        QVERIFY(qFuzzyCompare(t.throughput.inputsPerS, t.throughput.requestsPerS * batch));
        QCOMPARE(t.stat(Metric::Ttft).count, std::int64_t(0)); // nothing streamed
        QCOMPARE(t.stat(Metric::E2e).count, std::int64_t(kRequests));
        QCOMPARE(int(data->records.size()), kRequests);
        for (const RequestRecord &rec : data->records)
            QCOMPARE(rec.inputs, batch); // requests.csv's inputs column, read back
        QVERIFY2(r.out.contains(QStringLiteral("Inputs/s")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("(openai-embeddings, ")), qPrintable(r.out));
        for (const char *absent : {"\nTTFT ", "\nITL ", "\nTPOT ", "\nOutput tokens/s"})
            QVERIFY2(!r.out.contains(QLatin1String(absent)), qPrintable(r.out));
    }

    void rerankRunCountsItsDocuments_data()
    {
        QTest::addColumn<QString>("api");
        QTest::newRow("rerank") << QStringLiteral("rerank");
        QTest::newRow("score") << QStringLiteral("score");
    }
    // A rerank (or score) run end to end against the simulator: the query (the system prompt) goes
    // once per request, every document is scored, and the server counts each document with the
    // query, as a cross-encoder reads the pair: 16 + 32 tokens per document.
    void rerankRunCountsItsDocuments()
    {
        QFETCH(QString, api);
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        constexpr int kRequests = 6;
        constexpr int kDocuments = 4;
        const auto [r, data, error] = runSaved(
            target(host) + QStringList{QStringLiteral("--api"), api, QStringLiteral("--batch-size"),
                                       QString::number(kDocuments), QStringLiteral("--system-tokens"),
                                       QStringLiteral("16"), QStringLiteral("--prompt-tokens"), QStringLiteral("32"),
                                       QStringLiteral("--concurrency"), QStringLiteral("2"),
                                       QStringLiteral("--requests"), QString::number(kRequests)},
            out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
        QVERIFY2(data, qPrintable(error));
        const SummaryBlock &t = data->summary.total;
        QCOMPARE(t.requests.ok, std::int64_t(kRequests));
        QCOMPARE(t.requests.inputs, std::int64_t(kRequests * kDocuments));
        QCOMPARE(t.tokens.input, std::int64_t(kRequests * kDocuments * (16 + 32)));
        QCOMPARE(host.stats().promptTokens, qint64(kRequests * kDocuments * (16 + 32)));
        QVERIFY(qFuzzyCompare(t.throughput.inputsPerS, t.throughput.requestsPerS * kDocuments));
        QCOMPARE(t.stat(Metric::Ttft).count, std::int64_t(0));
        QVERIFY2(r.out.contains(QStringLiteral("(%1, ").arg(api)), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("Inputs/s")), qPrintable(r.out));
    }

    void runRecordsWhatCarriedIt_data()
    {
        QTest::addColumn<QString>("transport");
        QTest::addColumn<bool>("http2");
        QTest::newRow("auto: native") << QStringLiteral("auto") << false;
        QTest::newRow("qnam") << QStringLiteral("qnam") << false;
        QTest::newRow("auto, --http2 in clear: native h2c") << QStringLiteral("auto") << true;
        QTest::newRow("qnam, --http2") << QStringLiteral("qnam") << true;
    }

    // The transport, the HTTP version negotiated and the streams per connection, in the connection
    // block of run.json and summary.json, read back, and on the console; the I/O backend likewise.
    void runRecordsWhatCarriedIt()
    {
        QFETCH(QString, transport);
        QFETCH(bool, http2);
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        QStringList args{
            QStringLiteral("--concurrency"), QStringLiteral("4"), QStringLiteral("--requests"), QStringLiteral("8"),
            QStringLiteral("--transport"),   transport,           QStringLiteral("--no-proxy")};
        if (http2)
            args << QStringLiteral("--http2");
        const auto [r, data, error] = runSaved(target(host) + args, out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString used = transport == QLatin1String("auto") ? QStringLiteral("native") : transport;
        QVERIFY2(r.out.contains(QStringLiteral("transport  %1 · HTTP/%2")
                                    .arg(used, http2 ? QStringLiteral("2") : QStringLiteral("1.1\n"))),
                 qPrintable(r.out));
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(data->info.connection.transport, used);
        QCOMPARE(data->summary.connection.transport, used);
        // And the I/O backend it was measured with (the clock's step is the CLI process's own).
        QVERIFY2(r.out.contains(QStringLiteral("I/O        %1 backend (").arg(ioBackend().name)), qPrintable(r.out));
        QCOMPARE(data->info.io.backend, ioBackend().name);
        QCOMPARE(data->summary.io.backend, ioBackend().name);
        QCOMPARE(data->summary.io.kernelReceiveStamps, ioBackend().kernelReceiveStamps);
        if (http2) // 8 requests by 4 users over one connection a transport thread
            QVERIFY(data->summary.connection.streamsPerConnection >= 1 &&
                    data->summary.connection.streamsPerConnection <= 4);
        else
            QCOMPARE(data->summary.connection.streamsPerConnection, 1);
        QCOMPARE(data->summary.total.requests.byHttpVersion.at(http2 ? QStringLiteral("2") : QStringLiteral("1.1")),
                 std::int64_t(8));
        QCOMPARE(int(data->records.size()), 8);
        for (const RequestRecord &rec : data->records)
            QCOMPARE(rec.httpVersion, http2 ? 2 : 1);
    }

    // The whole path of a conversation run: the turn columns in requests.csv, the per-turn block in
    // summary.json and the console's table, read back as written.
    void conversationRunWritesItsTurns()
    {
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        const auto [r, data, error] = runSaved(
            target(host) + QStringList{QStringLiteral("--api"), QStringLiteral("openai-responses"),
                                       QStringLiteral("--turns"), QStringLiteral("3"), QStringLiteral("--think-time"),
                                       QStringLiteral("exp:20ms"), QStringLiteral("--concurrency"), QStringLiteral("2"),
                                       QStringLiteral("--requests"), QStringLiteral("6"),
                                       QStringLiteral("--prompt-tokens"), QStringLiteral("32")},
            out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("per turn (conversations of 3 turns, think time exp:20ms)")),
                 qPrintable(r.out));
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(data->records.size(), std::size_t(6));
        // A user starts a new conversation when its last one ends: two or three of them, one whole.
        for (const RequestRecord &rec : data->records) {
            QVERIFY(rec.turn >= 1 && rec.turn <= 3);
            QVERIFY(rec.conversation >= 1 && rec.conversation <= 3);
        }
        const std::vector<TurnSummary> &turns = data->summary.turns;
        QCOMPARE(turns.size(), std::size_t(3));
        std::int64_t requests = 0;
        for (std::size_t i = 0; i < turns.size(); ++i) {
            QCOMPARE(turns[i].turn, int(i) + 1);
            QVERIFY(turns[i].requests >= 1);
            requests += turns[i].requests;
            if (i > 0)
                QVERIFY(turns[i].promptTokens.mean > turns[i - 1].promptTokens.mean + 32);
        }
        QCOMPARE(requests, std::int64_t(6));
        QVERIFY(turns[0].requests >= 2);
        QCOMPARE(turns[0].promptTokens.mean, 32.0);
        QVERIFY(turns[2].cachedTokens.mean > 0);
    }

    void workloadFilesAreCountedInTheSummary_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("format");
        QTest::addColumn<qint64>("requests");
        QTest::addColumn<qint64>("badLines");
        const QString data = QStringLiteral(TOKENBENCH_TESTDATA "/workload/");
        QTest::newRow("trace") << QStringList{QStringLiteral("--trace"), data + QStringLiteral("mooncake.jsonl"),
                                              QStringLiteral("--time-scale"), QStringLiteral("0.1")}
                               << QStringLiteral("mooncake") << qint64(4) << qint64(0);
        QTest::newRow("dataset with a bad entry skipped, sampled")
            << QStringList{QStringLiteral("--dataset"),
                           data + QStringLiteral("broken-array.json"),
                           QStringLiteral("--skip-bad-lines"),
                           QStringLiteral("--dataset-sample"),
                           QStringLiteral("2"),
                           QStringLiteral("--max-tokens"),
                           QStringLiteral("dataset"),
                           QStringLiteral("--requests"),
                           QStringLiteral("6")}
            << QStringLiteral("sharegpt") << qint64(2) << qint64(1);
    }

    void workloadFilesAreCountedInTheSummary()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, format);
        QFETCH(qint64, requests);
        QFETCH(qint64, badLines);
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        const auto [r, data, error] = runSaved(target(host) + args, out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("workload   %1 of").arg(requests)), qPrintable(r.out));
        QVERIFY2(data, qPrintable(error));
        const nlohmann::json &w = data->summary.workload;
        QCOMPARE(QString::fromStdString(w.value("format", std::string())), format);
        QCOMPARE(w.value("requests", qint64(-1)), requests);
        QCOMPARE(w.value("bad_lines", qint64(-1)), badLines);
        QCOMPARE(data->summary.warnings.join(QLatin1Char(' ')).contains(QStringLiteral("bad lines skipped")),
                 badLines > 0);
    }

    void requestsLongerThanTheContextAreFlaggedBeforeTheRun()
    {
        SimConfig simConfig = fastSim();
        simConfig.maxModelLen = 1000; // reported as vLLM does, in /v1/models
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        const auto [r, data, error] =
            runSaved(target(host) + QStringList{QStringLiteral("--trace"),
                                                QStringLiteral(TOKENBENCH_TESTDATA "/workload/mooncake.jsonl"),
                                                QStringLiteral("--time-scale"), QStringLiteral("0.1")},
                     out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        // 1100 and 1300 prompt tokens: too long by themselves; 700 + 4 and 600 + 3 fit.
        const QString warning = QStringLiteral("2 of 4 requests exceed the model's context of 1000 tokens (2 by the "
                                               "prompt alone, 0 with their max_tokens; longest 1306 tokens)");
        QVERIFY2(r.err.contains(QStringLiteral("warning: ") + warning), qPrintable(r.err));
        QVERIFY2(data, qPrintable(error));
        QVERIFY2(data->summary.warnings.join(QLatin1Char('\n')).contains(warning),
                 qPrintable(data->summary.warnings.join(QLatin1Char('\n'))));
    }
    void serverMetricsAreScrapedFromTheSimulator()
    {
        SimConfig simConfig = fastSim();
        simConfig.ttftMs = 30; // in vLLM's (20 ms, 40 ms] TTFT bucket
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        const auto [r, data, error] =
            runSaved(target(host) + QStringList{QStringLiteral("--concurrency"), QStringLiteral("4"),
                                                QStringLiteral("--duration"), QStringLiteral("2500ms")},
                     out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("Server TTFT p50")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("server     ") + host.baseUrl().adjusted(QUrl::RemovePath).toString() +
                                QStringLiteral("/metrics (vllm)")),
                 qPrintable(r.out));
        QVERIFY2(data, qPrintable(error));
        QVERIFY(data->summary.server);
        const ServerSummary &server = *data->summary.server;
        QCOMPARE(server.engine, QStringLiteral("vllm"));
        QVERIFY2(server.scrapes >= 3, qPrintable(QString::number(server.scrapes))); // at 0 s, every second, at the end
        QCOMPARE(server.failures, 0);
        const double ok = double(data->summary.total.requests.ok);
        // Requests whose first token came before the first scrape fall outside the window.
        QVERIFY2(server.ttft.count <= ok && server.ttft.count >= ok - 4,
                 qPrintable(QString::number(server.ttft.count)));
        const double client = data->summary.total.stat(Metric::Ttft).p50;
        QVERIFY2(std::abs(*server.ttft.p50 - client) <= 20.0,
                 qPrintable(QStringLiteral("server %1 ms, client %2 ms").arg(*server.ttft.p50).arg(client)));
        QCOMPARE(*server.runningMax, 4.0);
        QVERIFY(*server.generationTokensPerS > 0);

        QFile csv(out + QStringLiteral("/server_metrics.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = csv.readAll().split('\n');
        QCOMPARE(lines.first().trimmed(), QByteArray("t_s,name,labels,value,instance"));
        int running = 0;
        for (const QByteArray &line : lines) {
            if (line.contains(",vllm:num_requests_running,\"{model_name=\"\"fast\"\",engine=\"\"0\"\"}\",")) {
                QVERIFY2(line.trimmed().endsWith("," + host.baseUrl().toString().toUtf8()), line.constData());
                ++running;
            }
        }
        QCOMPARE(running, server.scrapes);
        // A saved run's server chart is read back from the CSV, scrape by scrape.
        QCOMPARE(int(data->serverRows.size()), server.scrapes);
        QCOMPARE(data->serverRows.back().running, 0.0);

        // --no-server-metrics: nothing scraped, nothing written.
        const QString off = dir.filePath(QStringLiteral("off"));
        const SavedRun unscraped =
            runSaved(target(host) + QStringList{QStringLiteral("--requests"), QStringLiteral("4"),
                                                QStringLiteral("--no-server-metrics")},
                     off);
        QVERIFY2(unscraped.cli.exitCode == 0, qPrintable(unscraped.cli.err));
        QVERIFY(!QFile::exists(off + QStringLiteral("/server_metrics.csv")));
        QVERIFY2(unscraped.data, qPrintable(unscraped.error));
        QVERIFY(!unscraped.data->summary.server);
    }

    void sweepFindsTheKneeAtTheBatchLimit()
    {
        // A server that decodes at most 4 sequences at once: beyond 4 users requests only queue,
        // so a sweep of users must find its knee there (c=8 at the latest, when noise on the
        // loaded test machine makes c=4 look slow), not below.
        SimConfig simConfig = fastSim();
        simConfig.maxBatch = 4;
        simConfig.ttftMs = 50;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("sweep"));
        const auto [r, data, error] =
            runSaved(target(host) + QStringList{QStringLiteral("--sweep"), QStringLiteral("c=1..16"),
                                                QStringLiteral("--requests"), QStringLiteral("32")},
                     out, RunReader::SummaryOnly);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(formatStages(data->info.stages), QStringLiteral("c=1:32,c=2:32,c=4:32,c=8:32,c=16:32"));
        QCOMPARE(data->summary.stages.size(), std::size_t(5));
        const auto knee = findKnee(throughputLatencyCurve(data->summary, Metric::Ttft), QStringLiteral("TTFT"));
        QVERIFY(knee);
        QVERIFY2(knee->saturated && (knee->point == 2 || knee->point == 3), qPrintable(knee->text));
        QVERIFY2(r.out.contains(QStringLiteral("knee       ") + knee->text), qPrintable(r.out));
    }

    void contextSweepFitRecoversTheSimulatorsPrefillLaw()
    {
        // TTFT = ttft_ms + prefill_power_ms · (P/1000)^prefill_exponent at one user (no queue for
        // the prefill unit): in tokens, a = 100 / 1000^1.4, b = 1.4, c = 20 ms plus the network and
        // client's own share, a few ms on the loaded test machine. a is checked as a·1000^b, the
        // prefill term at 1000 tokens: a alone moves by 1000^Δb with the exponent.
        SimConfig simConfig = fastSim();
        simConfig.ttftMs = 20;
        simConfig.prefillMsPer1k = 0;
        simConfig.prefillQuadraticMs = 0;
        simConfig.prefillPowerMs = 100;
        simConfig.prefillExponent = 1.4;
        simConfig.prefixCacheTokens = 0;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("context"));
        const auto [r, data, error] =
            runSaved(target(host) + contextSweep(QStringLiteral("p=256..8192x6"), 6), out, RunReader::SummaryOnly);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(formatStages(data->info.stages),
                 QStringLiteral("c=1 p=256:6,p=512:6,p=1024:6,p=2048:6,p=4096:6,p=8192:6"));
        QVERIFY(data->summary.contextSweep);
        const ContextSweepSummary &sweep = *data->summary.contextSweep;
        QCOMPARE(sweep.stages.size(), std::size_t(6));
        QCOMPARE(sweep.points.size(), std::size_t(36));
        // The server's count of each stage's prompts is the size asked for (approx tokens both sides).
        QCOMPARE(sweep.stages[3].promptTokens, 2048.0);
        const PowerLawFit &fit = sweep.fit;
        QVERIFY2(fit.ok, qPrintable(fit.reason));
        const double a = 100 / std::pow(1000.0, 1.4);
        QVERIFY2(std::abs(fit.b - 1.4) < 0.1, qPrintable(sweep.fitText()));
        QVERIFY2(std::abs(fit.a * std::pow(1000.0, fit.b) / 100 - 1) < 0.3, qPrintable(sweep.fitText()));
        QVERIFY2(fit.c > 10 && fit.c < 60, qPrintable(sweep.fitText()));
        QVERIFY2(fit.r2 > 0.95, qPrintable(sweep.fitText()));
        // Prefill rate from the fit at 8192 tokens: 1 / (a·b·x^(b−1)) per ms.
        const double expected = 1000 / (a * 1.4 * std::pow(8192.0, 0.4));
        QVERIFY(sweep.stages[5].fitPrefillTokensPerS);
        QVERIFY2(std::abs(*sweep.stages[5].fitPrefillTokensPerS / expected - 1) < 0.35,
                 qPrintable(QString::number(*sweep.stages[5].fitPrefillTokensPerS)));
        QVERIFY2(r.out.contains(QStringLiteral("context    ") + sweep.fitText()), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("per prompt size")), qPrintable(r.out));
        // A context sweep holds the load: no throughput–latency knee is claimed.
        QVERIFY2(!r.out.contains(QStringLiteral("knee ")), qPrintable(r.out));
    }

    /// Calibration against a server that counts with another tokenizer than the client's (a
    /// byte-heavy tiktoken file: ~4 of its tokens per approx token) and adds a chat template.
    /// Calibrated, every request is within the tolerance (at 264 tokens a local token is more than
    /// the ±2.64 allowed: the fine correction of fillers is what gets there).
    void calibrateMatchesTheServersCount_data()
    {
        QTest::addColumn<QString>("clientTokenizer");
        QTest::addColumn<bool>("calibrate");
        QTest::addColumn<int>("promptTokens");
        QTest::addColumn<double>("tolerance"); ///< of each request's prompt_tokens, relative
        QTest::addColumn<bool>("everyRequest");
        QTest::addColumn<QString>("method");
        const QString file = QStringLiteral(TOKENBENCH_TESTDATA "/tiny.tiktoken");
        const QString usage = QStringLiteral("usage");
        QTest::newRow("no tokenizer, calibrated") << QString() << true << 1024 << 0.01 << true << usage;
        QTest::newRow("no tokenizer, calibrated, short") << QString() << true << 200 << 0.01 << true << usage;
        QTest::newRow("same tokenizer, calibrated: exact") << file << true << 1024 << 0.0 << true << usage;
        QTest::newRow("same tokenizer: exact but for the template")
            << file << false << 1024 << 0.02 << true << QString();
        QTest::newRow("server's /tokenize, calibrated")
            << QStringLiteral("server") << true << 1024 << 0.01 << true << QStringLiteral("tokenize");
        QTest::newRow("server's /tokenize, calibrated, short")
            << QStringLiteral("server") << true << 200 << 0.01 << true << QStringLiteral("tokenize");
    }

    void calibrateMatchesTheServersCount()
    {
        QFETCH(QString, clientTokenizer);
        QFETCH(bool, calibrate);
        QFETCH(int, promptTokens);
        QFETCH(double, tolerance);
        QFETCH(bool, everyRequest);
        QFETCH(QString, method);
        SimConfig simConfig = fastSim();
        simConfig.tokenizer = QStringLiteral(TOKENBENCH_TESTDATA "/tiny.tiktoken");
        simConfig.templateTokens = 9;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        QStringList args = target(host) + QStringList{QStringLiteral("--prompt-tokens"), QString::number(promptTokens),
                                                      QStringLiteral("--system-tokens"), QStringLiteral("64"),
                                                      QStringLiteral("--requests"),      QStringLiteral("30"),
                                                      QStringLiteral("--concurrency"),   QStringLiteral("3")};
        if (calibrate)
            args << QStringLiteral("--calibrate");
        if (!clientTokenizer.isEmpty())
            args << QStringLiteral("--tokenizer") << clientTokenizer;
        const auto [r, data, error] = runSaved(args, out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(data, qPrintable(error));
        const std::int64_t requested = promptTokens + 64;
        const RunSummary &s = data->summary;
        QCOMPARE(s.promptSizing.requested, std::optional<std::int64_t>(requested));
        QCOMPARE(s.total.tokens.promptFromUsage, std::int64_t(30));
        QCOMPARE(s.promptSizing.calibration, method);
        const double mean = double(s.total.tokens.input) / double(s.total.requests.ok);
        const double allowed = std::max(2.0, double(requested) * std::max(tolerance, 0.01));
        QVERIFY2(std::abs(mean - double(requested)) <= allowed,
                 qPrintable(QStringLiteral("mean %1, requested %2").arg(mean).arg(requested)));
        if (everyRequest) {
            const double each =
                std::max(tolerance > 0 ? 2.0 : 0.0, double(requested) * tolerance) + (calibrate ? 0 : 9);
            for (const RequestRecord &rec : data->records)
                QVERIFY2(std::abs(double(rec.promptTokens - requested)) <= each,
                         qPrintable(QStringLiteral("request %1: %2 tokens").arg(rec.id).arg(rec.promptTokens)));
        }
    }

    /// Regression: llama.cpp's /tokenize answers vLLM's {"model", "messages"} with 200 {"tokens": []},
    /// which was read as 0 tokens: the run said "calibrated by tokenize" while its prompts missed by
    /// the chat template (265 for 250). Against the llamacpp-like simulator (its /tokenize counts only
    /// {"content"}, its template adds 10 tokens) every prompt is the size asked for, and the label
    /// names the body that counted.
    void calibrationWithLlamaCppTokenizeDialect()
    {
        SimulatorHost host(*SimConfig::preset(QStringLiteral("llamacpp-like")));
        QVERIFY(host.start());
        QTemporaryDir dir;
        const auto [r, data, error] = runSaved(
            target(host) + QStringList{QStringLiteral("--tokenizer"), QStringLiteral("server"),
                                       QStringLiteral("--calibrate"), QStringLiteral("--prompt-tokens"),
                                       QStringLiteral("250"), QStringLiteral("--requests"), QStringLiteral("4"),
                                       QStringLiteral("--max-tokens"), QStringLiteral("2")},
            dir.filePath(QStringLiteral("run")));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(data, qPrintable(error));
        const PromptSizing &sizing = data->summary.promptSizing;
        QCOMPARE(sizing.calibration, QStringLiteral("tokenize"));
        QCOMPARE(sizing.calibrationDialect, QStringLiteral(R"({"content"})"));
        QVERIFY2(r.out.contains(QStringLiteral(R"(calibrated by tokenize {"content"} ()")), qPrintable(r.out));
        QVERIFY2(data->summary.warnings.isEmpty(), qPrintable(data->summary.warnings.join(QLatin1Char('\n'))));
        QCOMPARE(int(data->records.size()), 4);
        for (const RequestRecord &rec : data->records)
            QCOMPARE(rec.promptTokens, std::int64_t(250));
    }

    /// A server that reports no usage (it ignores stream_options here: the body drops it) and packs
    /// 4 tokens into an event: with a tokenizer the streamed text is counted, not one token per
    /// event (4× low), and the summary says how the requests were counted.
    void packedEventsWithoutUsageAreCountedFromTheText_data()
    {
        QTest::addColumn<QString>("tokenizer");
        QTest::addColumn<qint64>("output"); ///< of 6 requests
        QTest::addColumn<QString>("counted");
        QTest::newRow("no tokenizer: one per event") << QString() << qint64(6 * 9) << QStringLiteral("chunks 6");
        QTest::newRow("approx: the text")
            << QStringLiteral("approx") << qint64(6 * 32) << QStringLiteral("tokenizer 6");
    }
    void packedEventsWithoutUsageAreCountedFromTheText()
    {
        QFETCH(QString, tokenizer);
        QFETCH(qint64, output);
        QFETCH(QString, counted);
        SimConfig simConfig = fastSim();
        simConfig.tokensPerChunk = 4; // 32 tokens: 1 + 31 in 8 events
        simConfig.outputDist = sim::OutputDistribution::Fixed;
        simConfig.outputTokens = 32;
        simConfig.outputMin = 32;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        QStringList args = target(host);
        args.removeAll(QStringLiteral("--quiet"));
        args << QStringList{QStringLiteral("--requests"),   QStringLiteral("6"),
                            QStringLiteral("--max-tokens"), QStringLiteral("64"),
                            QStringLiteral("--extra-body"), QStringLiteral(R"({"stream_options": null})")};
        if (!tokenizer.isEmpty())
            args << QStringLiteral("--tokenizer") << tokenizer;
        const auto [r, data, error] = runSaved(args, out, RunReader::SummaryOnly);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(data, qPrintable(error));
        const TokenSummary &t = data->summary.total.tokens;
        QCOMPARE(t.fromUsage, std::int64_t(0));
        QCOMPARE(t.output, std::int64_t(output));
        QCOMPARE(tokenizer.isEmpty() ? t.fromChunks : t.fromTokenizer, std::int64_t(6));
        QCOMPARE(tokenizer.isEmpty() ? t.promptEstimated : t.promptFromTokenizer, std::int64_t(6));
        QVERIFY2(r.out.contains(QStringLiteral("tokens     counted from ") + counted), qPrintable(r.out));
    }

    void sloMissedExits3()
    {
        SimConfig simConfig = fastSim();
        simConfig.ttftMs = 50;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const CliResult r =
            run(target(host) + QStringList{QStringLiteral("--requests"), QStringLiteral("5"), QStringLiteral("--slo"),
                                           QStringLiteral("ttft_ms=1"), QStringLiteral("--fail-on-slo"),
                                           QStringLiteral("--out"), dir.filePath(QStringLiteral("run"))});
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains(QStringLiteral("SLO not met")), qPrintable(r.err));
        // The same run without --fail-on-slo succeeds.
        const CliResult ok =
            run(target(host) + QStringList{QStringLiteral("--requests"), QStringLiteral("5"), QStringLiteral("--slo"),
                                           QStringLiteral("ttft_ms=1"), QStringLiteral("--out"),
                                           dir.filePath(QStringLiteral("run2"))});
        QCOMPARE(ok.exitCode, 0);
    }

    void everyRequestFailingExits1WithACompleteRunDirectory_data()
    {
        QTest::addColumn<QString>("fault");
        QTest::newRow("server errors") << QStringLiteral("500");
        QTest::newRow("streams cut") << QStringLiteral("cut");
        QTest::newRow("server down") << QStringLiteral("down");
    }

    void everyRequestFailingExits1WithACompleteRunDirectory()
    {
        QFETCH(QString, fault);
        SimConfig simConfig = fastSim();
        simConfig.errorRate = fault == QLatin1String("500") ? 1 : 0;
        simConfig.cutRate = fault == QLatin1String("cut") ? 1 : 0;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        QStringList args = target(host);
        if (fault == QLatin1String("down"))
            host.stop();
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        const auto [r, data, error] =
            runSaved(args + QStringList{QStringLiteral("--requests"), QStringLiteral("6")}, out);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("every request failed")), qPrintable(r.err));
        // The GUI's failure headline, computed in core: what failed and its most frequent cause.
        QVERIFY2(r.out.contains(QStringLiteral("\nfailures   6 of 6 requests failed — ")), qPrintable(r.out));
        QVERIFY2(data, qPrintable(error));
        QVERIFY(!data->summaryRecomputed);
        QCOMPARE(data->summary.total.requests.failed, std::int64_t(6));
        QCOMPARE(data->records.size(), std::size_t(6));
    }

    void apiKeyNeverWritten()
    {
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        const QByteArray secret("sk-tokenbench-test-secret-7f3a9c");
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("MY_TEST_KEY"), QString::fromLatin1(secret));
        // One good run and one where every request fails (errors are where keys tend to leak).
        for (const QString &model : {host.config().model, QStringLiteral("unknown-model")}) {
            const CliResult r =
                run({QStringLiteral("--url"), host.baseUrl().toString(), QStringLiteral("--model"), model,
                     QStringLiteral("--api-key-env"), QStringLiteral("MY_TEST_KEY"), QStringLiteral("--requests"),
                     QStringLiteral("3"), QStringLiteral("--out"), out + model},
                    env);
            QVERIFY(r.exitCode == 0 || r.exitCode == 1);
            QVERIFY(!r.out.contains(QString::fromLatin1(secret)));
            QVERIFY(!r.err.contains(QString::fromLatin1(secret)));
            QDirIterator it(out + model, QDir::Files);
            int files = 0;
            while (it.hasNext()) {
                QFile f(it.next());
                QVERIFY(f.open(QIODevice::ReadOnly));
                QVERIFY2(!f.readAll().contains(secret), qPrintable(f.fileName()));
                ++files;
            }
            QVERIFY(files >= 4);
        }
    }

    void noSecretInAnyFileOrStream()
    {
        // Every kind of secret at once, against a server that echoes the credentials it is sent in
        // its 401 body: an API key from the environment, a credential header from an ${env:}
        // reference, literal credential headers (on the command line and in a config file) and URL
        // userinfo. None may reach a file, a stream, `compare` or `report`.
        const QByteArrayList secrets{"sk-env-key-secret",     "hdr-env-secret",
                                     "cookie-literal-secret", "ocp-file-secret",
                                     "pw-userinfo-secret",    QByteArray("alice:pw-userinfo-secret").toBase64()};
        EchoServer server;
        QVERIFY(server.listen(QHostAddress::LocalHost));
        QTemporaryDir dir;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("TB_CLI_TEST_KEY"), QStringLiteral("sk-env-key-secret"));
        env.insert(QStringLiteral("TB_CLI_TEST_HEADER"), QStringLiteral("hdr-env-secret"));
        const QString config = dir.filePath(QStringLiteral("config.json"));
        QVERIFY(writeFile(
            config, R"({"target": {"model": "m", "headers": {"Ocp-Apim-Subscription-Key": "ocp-file-secret"}}})"));
        const QStringList common{QStringLiteral("--model"),       QStringLiteral("m"),
                                 QStringLiteral("--api-key-env"), QStringLiteral("TB_CLI_TEST_KEY"),
                                 QStringLiteral("--requests"),    QStringLiteral("2")};
        const QString openai = dir.filePath(QStringLiteral("openai"));
        const QString anthropic = dir.filePath(QStringLiteral("anthropic"));
        QList<CliResult> results;
        // OpenAI: the key as Bearer, an ${env:} header, a literal Cookie.
        results << runServing(
            QStringList{QStringLiteral("run"), QStringLiteral("--url"), server.url(), QStringLiteral("--header"),
                        QStringLiteral("X-Api-Key: ${env:TB_CLI_TEST_HEADER}"), QStringLiteral("--header"),
                        QStringLiteral("Cookie: sid=cookie-literal-secret"), QStringLiteral("--out"), openai} +
                common,
            env);
        // Anthropic: the key as x-api-key, userinfo as Basic auth, a literal header from the file.
        results << runServing(
            QStringList{QStringLiteral("run"), QStringLiteral("--config"), config, QStringLiteral("--api"),
                        QStringLiteral("anthropic-messages"), QStringLiteral("--url"),
                        server.url(QStringLiteral("alice:pw-userinfo-secret")), QStringLiteral("--out"), anthropic} +
                common,
            env);
        for (const CliResult &r : results)
            QVERIFY2(r.exitCode == 1 && r.err.contains(QStringLiteral("every request failed")), qPrintable(r.err));
        // The server did get every secret (so each had the chance to leak); the password inside Basic.
        const QByteArray seen = server.heads.join();
        for (const QByteArray &secret : secrets)
            QVERIFY2(seen.contains(secret) || secret == "pw-userinfo-secret", secret.constData());
        const QString table = dir.filePath(QStringLiteral("compare.csv"));
        const QString html = dir.filePath(QStringLiteral("report.html"));
        results << runCli({QStringLiteral("compare"), openai, anthropic, QStringLiteral("--csv"), table});
        results << runCli({QStringLiteral("report"), openai, anthropic, QStringLiteral("--out"), html});
        QCOMPARE(results.at(2).exitCode, 0);
        QCOMPARE(results.at(3).exitCode, 0);

        QStringList written;
        QDirIterator it(dir.path(), QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext())
            written << it.next();
        written.removeAll(config);
        QVERIFY(written.size() >= 10);
        for (const QByteArray &secret : secrets) {
            for (const CliResult &r : results) {
                QVERIFY2(!r.out.toUtf8().contains(secret), qPrintable(r.out));
                QVERIFY2(!r.err.toUtf8().contains(secret), qPrintable(r.err));
            }
            for (const QString &path : written) {
                QFile f(path);
                QVERIFY(f.open(QIODevice::ReadOnly));
                QVERIFY2(!f.readAll().contains(secret),
                         qPrintable(path + QStringLiteral(": ") + QString::fromLatin1(secret)));
            }
        }
        // What was masked is still there to read: the error column says the server refused.
        QFile csv(QDir(anthropic).filePath(QStringLiteral("requests.csv")));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QVERIFY(csv.readAll().contains("HTTP 401: invalid credentials: Basic ***"));
        QFile runJson(QDir(openai).filePath(QStringLiteral("run.json")));
        QVERIFY(runJson.open(QIODevice::ReadOnly));
        const QByteArray recorded = runJson.readAll();
        QVERIFY(recorded.contains("${env:TB_CLI_TEST_HEADER}"));
        QVERIFY(recorded.contains("\"Cookie\": \"<redacted>\""));
    }

    void hostileChunkSizeKeepsTheRowsBeforeIt_data()
    {
        QTest::addColumn<QByteArray>("size");
        QTest::newRow("negative") << QByteArray("-1");
        QTest::newRow("2^63") << QByteArray("8000000000000000");
        QTest::newRow("overflowing hex") << QByteArray("5bbbbbbbbbbbbbbbbbbbbbbbb");
    }

    void hostileChunkSizeKeepsTheRowsBeforeIt()
    {
        // Regression: the chunk size became a body of SIZE_MAX bytes, std::length_error aborted
        // the CLI (exit 134) and requests.csv held only its header.
        QFETCH(QByteArray, size);
        const QByteArray head("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: "
                              "chunked\r\nConnection: close\r\n\r\n");
        const QByteArray events(
            "data: {\"id\":\"good\",\"choices\":[{\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}],"
            "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n");
        const QByteArray good = head + QByteArray::number(events.size(), 16) + "\r\n" + events + "\r\n0\r\n\r\n";
        ScriptedServer server({good, good, good, head + size + "\r\ndata: x\n\n"});
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        const auto [r, data, error] =
            runSaved({QStringLiteral("--url"), server.url(), QStringLiteral("--model"), QStringLiteral("m"),
                      QStringLiteral("--quiet"), QStringLiteral("--requests"), QStringLiteral("4"),
                      QStringLiteral("--no-server-metrics")},
                     out);
        QVERIFY2(r.exitCode == 0, qPrintable(QString::number(r.exitCode) + QLatin1Char(' ') + r.err));
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(data->records.size(), std::size_t(4));
        int ok = 0;
        for (const RequestRecord &rec : data->records) {
            if (rec.ok()) {
                ++ok;
                QCOMPARE(rec.responseId, QStringLiteral("good"));
            } else {
                QCOMPARE(rec.status, RequestStatus::Protocol);
                QVERIFY2(rec.errorMessage.contains(QStringLiteral("chunk size")), qPrintable(rec.errorMessage));
            }
        }
        QCOMPARE(ok, 3);
    }

    /// Regression: Ctrl-C exited 0 ("0 ok, 4 cancelled"), so a script took the cut-short run for a
    /// finished one. SIGINT and SIGTERM now exit 130, with the run saved all the same.
    void interruptedRunExits130WithACompleteRunDirectory_data()
    {
        QTest::addColumn<int>("signal");
        QTest::newRow("SIGINT") << SIGINT;
        QTest::newRow("SIGTERM") << SIGTERM;
    }

    void interruptedRunExits130WithACompleteRunDirectory()
    {
        QFETCH(int, signal);
        SimConfig simConfig = fastSim();
        simConfig.ttftMs = 30000; // requests that would take far longer than the test
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        QProcess p;
        p.start(QStringLiteral(TOKENBENCH_CLI),
                QStringList{QStringLiteral("run")} + target(host) +
                    QStringList{QStringLiteral("--concurrency"), QStringLiteral("5"), QStringLiteral("--duration"),
                                QStringLiteral("10m"), QStringLiteral("--out"), out});
        QVERIFY(p.waitForStarted());
        QTRY_COMPARE_WITH_TIMEOUT(host.stats().requestsInProgress, qint64(5), 20000);
        ::kill(pid_t(p.processId()), signal);
        QVERIFY(p.waitForFinished(30000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QVERIFY2(p.exitCode() == 130, qPrintable(QStringLiteral("exit %1: %2").arg(p.exitCode()).arg(err)));
        QVERIFY2(err.contains(QStringLiteral("interrupted")), qPrintable(err));
        QVERIFY2(QString::fromUtf8(p.readAllStandardOutput()).contains(QStringLiteral("0 ok, 0 failed, 5 cancelled")),
                 "the summary table is printed before the exit");
        QString error;
        const auto data = RunReader::load(out, &error, RunReader::Records);
        QVERIFY2(data, qPrintable(error));
        QVERIFY(!data->summaryRecomputed);
        QCOMPARE(data->summary.total.requests.cancelled, std::int64_t(5));
        QCOMPARE(data->records.size(), std::size_t(5));
        for (const char *file : {"run.json", "summary.json", "requests.csv", "timeseries.csv"})
            QVERIFY2(QFile::exists(out + QLatin1Char('/') + QLatin1String(file)), file);
    }

    /// Regression: the progress line's "last second" rates repeated the last busy second through a
    /// lull (the time series ends at its last event). Requests of 4 s in two rounds: every line whose
    /// last second completed nothing (timeseries.csv says so) must say 0 req/s and 0 tok/s.
    void progressRatesAreZeroInALull()
    {
        SimConfig simConfig = fastSim();
        simConfig.ttftMs = 4000;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        const auto [r, data, error] = runSaved(
            {QStringLiteral("--url"), host.baseUrl().toString(), QStringLiteral("--model"), host.config().model,
             QStringLiteral("--concurrency"), QStringLiteral("2"), QStringLiteral("--requests"), QStringLiteral("4")},
            out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(data, qPrintable(error));
        std::map<int, const TimeSeriesRow *> seconds;
        for (const TimeSeriesRow &row : data->timeSeries)
            seconds[row.second] = &row;
        // Not on a terminal, a line every 2 s: "c=2 00:06 | done 2 | … | 0 req/s | 0 tok/s".
        static const QRegularExpression line(
            QStringLiteral("(\\d+):(\\d\\d)(?: ETA \\S+)? \\| done (\\d+) .*\\| (\\S+) req/s \\| (\\S+) tok/s"));
        int lullLines = 0;
        for (const QString &text : r.err.split(QLatin1Char('\n'))) {
            const QRegularExpressionMatch m = line.match(text);
            if (!m.hasMatch() || m.captured(3).toInt() == 0)
                continue; // before the first completion there is no busy second to repeat
            const int lastSecond = m.captured(1).toInt() * 60 + m.captured(2).toInt() - 1;
            const auto row = seconds.find(lastSecond);
            if (row != seconds.end() && (row->second->completed > 0 || row->second->outputTokens > 0))
                continue;
            ++lullLines;
            QVERIFY2(m.captured(4) == QLatin1String("0") && m.captured(5) == QLatin1String("0"), qPrintable(text));
        }
        QVERIFY2(lullLines > 0, qPrintable(r.err));
    }

    /// Regression: an embeddings run's progress line said "0 tok/s" throughout (it counted output
    /// tokens, which embeddings never have). Requests of 1.2 s one at a time, 2 inputs each: every
    /// second that completed one got 2 inputs through.
    void embeddingsProgressCountsInputs()
    {
        SimConfig simConfig = fastSim();
        simConfig.ttftMs = 1200;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const auto [r, data, error] =
            runSaved(QStringList{QStringLiteral("--url"), host.baseUrl().toString(), QStringLiteral("--model"),
                                 host.config().model, QStringLiteral("--api"), QStringLiteral("openai-embeddings"),
                                 QStringLiteral("--batch-size"), QStringLiteral("2"), QStringLiteral("--prompt-tokens"),
                                 QStringLiteral("32"), QStringLiteral("--concurrency"), QStringLiteral("1"),
                                 QStringLiteral("--requests"), QStringLiteral("4")},
                     dir.filePath(QStringLiteral("run")));
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        static const QRegularExpression line(QStringLiteral("\\| (\\S+) req/s \\| (\\S+) (inputs/s|tok/s)$"));
        int lines = 0;
        int moving = 0;
        for (const QString &text : r.err.split(QLatin1Char('\n'))) {
            const QRegularExpressionMatch m = line.match(text.trimmed());
            if (!m.hasMatch())
                continue;
            ++lines;
            QCOMPARE(m.captured(3), QStringLiteral("inputs/s"));
            const double rate = m.captured(2).toDouble();
            QVERIFY2(qFuzzyCompare(rate, 2 * m.captured(1).toDouble()), qPrintable(text));
            moving += rate > 0 ? 1 : 0;
        }
        QVERIFY2(lines > 0 && moving > 0, qPrintable(r.err));
    }

    void configFileAndFlagsCombine()
    {
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString config = dir.filePath(QStringLiteral("config.json"));
        QVERIFY(writeFile(
            config,
            QStringLiteral(
                R"({"target": {"url": "%1", "model": "%2"}, "load": {"concurrency": 3, "requests": 9}, "request": {"max_tokens": 8}})")
                .arg(host.baseUrl().toString(), host.config().model)
                .toUtf8()));
        const QString out = dir.filePath(QStringLiteral("run"));
        const auto [r, data, error] = runSaved({QStringLiteral("--config"), config, QStringLiteral("--requests"),
                                                QStringLiteral("12"), QStringLiteral("--quiet")},
                                               out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(data->summary.total.requests.ok, std::int64_t(12)); // the flag overrides the file
        QCOMPARE(data->summary.total.concurrency.peakInFlight, 3);
        for (const RequestRecord &rec : data->records)
            QVERIFY(rec.completionTokens <= 8);
    }

    // The second of two identical runs against one server had 98.4% cache hits: the same seed sent
    // the same prompts, so it measured the server's prefix cache.
    void secondIdenticalRunGetsNoCacheHits()
    {
        SimulatorHost host(fastSim());
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QStringList workload =
            target(host) + QStringList{QStringLiteral("--concurrency"),   QStringLiteral("2"),
                                       QStringLiteral("--requests"),      QStringLiteral("10"),
                                       QStringLiteral("--prompt-tokens"), QStringLiteral("400")};
        const auto runOnce = [&](const QString &name, const QStringList &more) {
            return runSaved(workload + more, dir.filePath(name), RunReader::SummaryOnly);
        };
        const auto [firstOut, first, firstError] = runOnce(QStringLiteral("first"), {});
        QVERIFY2(firstOut.exitCode == 0, qPrintable(firstOut.err));
        QVERIFY2(first, qPrintable(firstError));
        const auto [secondOut, second, secondError] = runOnce(QStringLiteral("second"), {});
        QVERIFY2(secondOut.exitCode == 0, qPrintable(secondOut.err));
        QVERIFY2(second, qPrintable(secondError));
        QCOMPARE(first->summary.total.tokens.cached, std::int64_t(0));
        QCOMPARE(second->summary.total.tokens.cached, std::int64_t(0));
        QVERIFY(second->summary.warnings.isEmpty());
        const QString salt = first->info.config.prompt.salt;
        QVERIFY(!salt.isEmpty());
        QVERIFY(salt != second->info.config.prompt.salt);
        QVERIFY2(firstOut.out.contains(QStringLiteral("--prompt-salt ") + salt), qPrintable(firstOut.out));

        // The first run's salt replays its prompts: now the server's cache answers, and the run says
        // it is a replay.
        const auto [replayOut, replay, replayError] =
            runOnce(QStringLiteral("replay"), {QStringLiteral("--prompt-salt"), salt});
        QVERIFY2(replayOut.exitCode == 0, qPrintable(replayOut.err));
        QVERIFY2(replay, qPrintable(replayError));
        QCOMPARE(replay->info.config.prompt.salt, salt);
        QVERIFY(replay->summary.total.tokens.cacheHitRatio.value_or(0) > 0.5);
        QCOMPARE(replay->summary.warnings.size(), qsizetype(1));
        QVERIFY(replay->info.saltReplayed && !first->info.saltReplayed);
        QVERIFY2(replayOut.out.contains(QStringLiteral("this run replays prompt salt %1 (--prompt-salt)").arg(salt)),
                 qPrintable(replayOut.out));
    }

    /// Regression: a replay llama.cpp served from its cache showed "Cache hits 0%": its usage has no
    /// cached tokens and, without timings, only its llamacpp:prompt_tokens_total counter (prompt
    /// tokens evaluated) knows. The replay's server block has the counters' share, and the summary
    /// warns that the responses say otherwise; the run it replays has neither.
    void replayCacheHitsFromLlamaCppCounters()
    {
        SimConfig simConfig = fastSim();
        simConfig.usageDialect = sim::Dialect::Llamacpp;
        simConfig.metricsDialect = sim::Dialect::Llamacpp;
        simConfig.timings = 0;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QStringList workload =
            target(host) + QStringList{QStringLiteral("--concurrency"),   QStringLiteral("1"),
                                       QStringLiteral("--requests"),      QStringLiteral("6"),
                                       QStringLiteral("--prompt-tokens"), QStringLiteral("400"),
                                       QStringLiteral("--max-tokens"),    QStringLiteral("2")};
        const auto [firstOut, first, firstError] = runSaved(workload, dir.filePath(QStringLiteral("first")));
        QVERIFY2(firstOut.exitCode == 0, qPrintable(firstOut.err));
        QVERIFY2(first, qPrintable(firstError));
        const QStringList replayed{QStringLiteral("--prompt-salt"), first->info.config.prompt.salt};
        const auto [replayOut, replay, replayError] =
            runSaved(workload + replayed, dir.filePath(QStringLiteral("replay")));
        QVERIFY2(replayOut.exitCode == 0, qPrintable(replayOut.err));
        QVERIFY2(replay, qPrintable(replayError));
        for (const RunData *run : {&*first, &*replay}) {
            QCOMPARE(run->summary.total.tokens.cached, std::int64_t(0)); // the responses never say
            QVERIFY(run->summary.server && run->summary.server->cacheHitRatio);
            QVERIFY2(run->summary.server->cacheHitSource.startsWith(QStringLiteral("llamacpp:prompt_tokens_total")),
                     qPrintable(run->summary.server->cacheHitSource));
        }
        QVERIFY2(*first->summary.server->cacheHitRatio < 0.1,
                 qPrintable(QString::number(*first->summary.server->cacheHitRatio)));
        QVERIFY2(first->summary.warnings.filter(QStringLiteral("cache hits")).isEmpty(),
                 qPrintable(first->summary.warnings.join(QLatin1Char('\n'))));
        QVERIFY2(*replay->summary.server->cacheHitRatio > 0.5,
                 qPrintable(QString::number(*replay->summary.server->cacheHitRatio)));
        const QStringList said = replay->summary.warnings.filter(QStringLiteral("cache hits"));
        QVERIFY2(said.size() == 1 && said.first().startsWith(QStringLiteral("cache hits: the server's counters say ")),
                 qPrintable(replay->summary.warnings.join(QLatin1Char('\n'))));
        QVERIFY2(replayOut.out.contains(QStringLiteral("% of prompt tokens from its cache by its counters")),
                 qPrintable(replayOut.out));
    }

    /// Regression: replaying a run's prompts with --prompt-salt, llama.cpp evaluated 1 of 522
    /// prompt tokens, yet the run showed "Cache hits 0%" (its usage has no cached_tokens; only its
    /// timings.prompt_n says what it evaluated) and `compare` did not note the shared salt.
    void replayedSaltCacheHitsSeenFromTimings()
    {
        SimConfig simConfig = fastSim();
        simConfig.timings = 1;
        simConfig.usageDialect = sim::Dialect::Llamacpp;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QStringList workload =
            target(host) + QStringList{QStringLiteral("--concurrency"),   QStringLiteral("2"),
                                       QStringLiteral("--requests"),      QStringLiteral("8"),
                                       QStringLiteral("--prompt-tokens"), QStringLiteral("400")};
        const QString firstDir = dir.filePath(QStringLiteral("first"));
        const auto [firstOut, first, firstError] = runSaved(workload, firstDir, RunReader::SummaryOnly);
        QVERIFY2(firstOut.exitCode == 0, qPrintable(firstOut.err));
        QVERIFY2(first, qPrintable(firstError));
        QCOMPARE(first->summary.total.tokens.cached, std::int64_t(0));
        const QString salt = first->info.config.prompt.salt;

        const QString replayDir = dir.filePath(QStringLiteral("replay"));
        const auto [replayOut, replay, replayError] =
            runSaved(workload + QStringList{QStringLiteral("--prompt-salt"), salt}, replayDir);
        QVERIFY2(replayOut.exitCode == 0, qPrintable(replayOut.err));
        QVERIFY2(replay, qPrintable(replayError));
        const TokenSummary &tokens = replay->summary.total.tokens;
        QVERIFY2(tokens.cacheHitRatio.value_or(0) > 0.5, qPrintable(QString::number(tokens.cached)));
        QCOMPARE(tokens.cachedFromTimings, std::int64_t(8));
        QCOMPARE(tokens.cachedFromUsage, std::int64_t(0));
        for (const RequestRecord &rec : replay->records)
            QCOMPARE(rec.cachedSource, CacheSource::Timings);
        QVERIFY2(replayOut.out.contains(QStringLiteral("counted from timings 8")), qPrintable(replayOut.out));
        QVERIFY2(replayOut.out.contains(QStringLiteral("this run replays prompt salt %1").arg(salt)),
                 qPrintable(replayOut.out));

        const CliResult compared = runCli({QStringLiteral("compare"), firstDir, replayDir});
        QVERIFY2(compared.exitCode == 0, qPrintable(compared.err));
        QVERIFY2(compared.out.contains(QStringLiteral("share prompt salt ") + salt), qPrintable(compared.out));
    }

    /// Regression: a server with a per-slot context of 4,096 cut 4,106-token prompts to 2,058 without
    /// a word (usage said 2,058), and the context sweep fitted those points as any other. Here the
    /// sweep's largest stage is cut the same way: a warning, its requests apart and out of the fit.
    void truncatedPromptsWarnAndLeaveTheFit()
    {
        SimConfig simConfig = fastSim();
        simConfig.slotContext = 4096;
        simConfig.prefillMsPer1k = 50;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const auto [r, data, error] = runSaved(target(host) + contextSweep(QStringLiteral("p=512..4106x4"), 4),
                                               dir.filePath(QStringLiteral("context")), RunReader::SummaryOnly);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(data, qPrintable(error));
        QVERIFY(data->summary.contextSweep);
        const ContextSweepSummary &sweep = *data->summary.contextSweep;
        QCOMPARE(sweep.stages.size(), std::size_t(4));
        QCOMPARE(sweep.stages[3].requestedTokens, std::int64_t(4106));
        QCOMPARE(sweep.stages[3].promptTokens, 2058.0);
        QCOMPARE(sweep.stages[3].truncated, std::int64_t(4));
        QCOMPARE(sweep.stages[2].truncated, std::int64_t(0));
        QCOMPARE(sweep.points.size(), std::size_t(12));
        QCOMPARE(sweep.excluded.size(), std::size_t(4));
        QCOMPARE(sweep.fit.points, 12);
        QVERIFY2(sweep.fitText().endsWith(QStringLiteral("4 requests the server truncated left out")),
                 qPrintable(sweep.fitText()));
        const QString warning = QStringLiteral("the server truncated prompts: check its context size (4 of 16 requests "
                                               "came back with under 75% of the prompt tokens asked for; p=4106: 4 "
                                               "requests measured 2058 of 4106 tokens)");
        QCOMPARE(data->summary.warnings, QStringList{warning});
        QVERIFY2(r.out.contains(warning), qPrintable(r.out));
        QVERIFY2(r.out.contains(QRegularExpression(QStringLiteral("\np=4106 +4 +2058 .* 4\n"))), qPrintable(r.out));
    }

    /// Regression: without prompt flags every request sent the same "Hello", so a prefix-caching
    /// server served all but the first from its cache. Against the llamacpp-like simulator (hits
    /// said only by llama.cpp's timings; 64-byte cache blocks, so prompts here are longer than
    /// that), a template, prompt lines and a dataset now get nothing from the cache beyond the chat
    /// template's tokens (which llama.cpp keeps from one request to the next) unless repetition is
    /// asked for (--prompt-repeat), which is then not warned of.
    void defaultPromptsAreUniquePerRequest_data()
    {
        QTest::addColumn<QStringList>("source");
        QTest::newRow("template") << QStringList{QStringLiteral("--prompt"), QString::fromLatin1(kLongQuestion)};
        QTest::newRow("prompt lines") << QStringList{QStringLiteral("--prompt-file"), QStringLiteral("prompts.jsonl")};
        QTest::newRow("dataset") << QStringList{QStringLiteral("--dataset"), QStringLiteral("sharegpt.jsonl")};
    }

    void defaultPromptsAreUniquePerRequest()
    {
        QFETCH(QStringList, source);
        SimulatorHost host(*SimConfig::preset(QStringLiteral("llamacpp-like")));
        QVERIFY(host.start());
        QVERIFY(host.config().prefixCacheTokens > 0);
        QTemporaryDir dir;
        const QByteArray question(kLongQuestion);
        QVERIFY(writeFile(dir.filePath(QStringLiteral("prompts.jsonl")),
                          "{\"prompt\": \"" + question + "\"}\n{\"messages\": [{\"role\": \"user\", \"content\": \"" +
                              question + " Twice.\"}]}\n"));
        QVERIFY(writeFile(dir.filePath(QStringLiteral("sharegpt.jsonl")),
                          "{\"conversations\": [{\"from\": \"human\", \"value\": \"" + question +
                              "\"}, {\"from\": \"gpt\", \"value\": \"It interleaves them.\"}]}\n"));
        for (QString &arg : source) {
            if (arg.endsWith(QLatin1String(".jsonl")))
                arg = dir.filePath(arg);
        }
        const QStringList workload =
            target(host) + source + QStringList{QStringLiteral("--concurrency"), QStringLiteral("1"),
                                                QStringLiteral("--requests"),    QStringLiteral("8"),
                                                QStringLiteral("--max-tokens"),  QStringLiteral("4")};
        const auto [own, ownRun, ownError] = runSaved(workload, dir.filePath(QStringLiteral("own")));
        QVERIFY2(own.exitCode == 0, qPrintable(own.err));
        QVERIFY2(ownRun, qPrintable(ownError));
        QCOMPARE(ownRun->summary.total.requests.ok, std::int64_t(8));
        for (const RequestRecord &rec : ownRun->records) {
            QCOMPARE(rec.cachedSource, CacheSource::Timings);
            QVERIFY2(rec.cachedTokens <= host.config().templateTokens, qPrintable(QString::number(rec.cachedTokens)));
        }
        QVERIFY2(ownRun->summary.warnings.isEmpty(), qPrintable(ownRun->summary.warnings.join(QLatin1Char('\n'))));
        QCOMPARE(ownRun->info.sharedPromptTokens, std::optional<std::int64_t>(0));

        const auto [repeated, repeatedRun, repeatedError] =
            runSaved(workload + QStringList{QStringLiteral("--prompt-repeat")}, dir.filePath(QStringLiteral("repeat")));
        QVERIFY2(repeated.exitCode == 0, qPrintable(repeated.err));
        QVERIFY2(repeatedRun, qPrintable(repeatedError));
        QVERIFY(repeatedRun->info.config.prompt.repeat);
        QVERIFY2(repeatedRun->summary.total.tokens.cacheHitRatio.value_or(0) > 0.5,
                 qPrintable(QString::number(repeatedRun->summary.total.tokens.cached)));
        QVERIFY2(repeatedRun->summary.warnings.isEmpty(),
                 qPrintable(repeatedRun->summary.warnings.join(QLatin1Char('\n'))));
    }

    // Hosted reasoning models stream no reasoning: it is only counted in usage. The client's
    // metrics must match what the server did, by its own trace.
    void hiddenReasoningMetricsMatchTheSimulatorsTrace()
    {
        SimConfig simConfig = fastSim();
        simConfig.stepMs = 4;
        simConfig.stepMsPerSeq = 0;
        simConfig.ttftMs = 20;
        simConfig.outputTokens = 40;
        simConfig.reasoningRatio = 0.75; // 30 hidden, 10 visible
        simConfig.hideReasoning = 1;
        SimulatorHost host(simConfig);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QStringList workload = target(host) + QStringList{QStringLiteral("--concurrency"), QStringLiteral("2"),
                                                                QStringLiteral("--requests"),    QStringLiteral("8"),
                                                                QStringLiteral("--max-tokens"),  QStringLiteral("100")};
        // Such an API refuses max_tokens, which is what TokenBench sends a self-hosted server…
        const CliResult refused =
            run(workload + QStringList{QStringLiteral("--out"), dir.filePath(QStringLiteral("refused"))});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.out.contains(QStringLiteral("HTTP 400")), qPrintable(refused.out));
        // …and takes max_completion_tokens.
        const QString out = dir.filePath(QStringLiteral("run"));
        const auto [r, data, error] = runSaved(
            workload + QStringList{QStringLiteral("--max-tokens-field"), QStringLiteral("max_completion_tokens")}, out);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(data->summary.total.tokens.reasoning, std::int64_t(8 * 30));
        QCOMPARE(data->summary.total.tokens.reasoningHidden, std::int64_t(8 * 30));

        QHash<QString, tb::sim::RequestTrace> traces;
        for (const tb::sim::RequestTrace &t : host.requests())
            traces.insert(t.id, t);
        std::vector<double> tpotRatios;
        std::vector<double> ttfoRatios;
        for (const RequestRecord &rec : data->records) {
            QVERIFY(traces.contains(rec.responseId));
            const tb::sim::RequestTrace &t = traces[rec.responseId];
            QCOMPARE(rec.completionTokens, t.completionTokens);
            QCOMPARE(rec.reasoningTokens, t.reasoningTokens);
            QCOMPARE(rec.hiddenReasoningTokens, std::int64_t(30));
            QCOMPARE(rec.chunks, 10); // only the visible tokens streamed
            QCOMPARE(rec.firstContentNs, rec.firstTokenNs);
            // The server's own TPOT over what it sent: (last − first written) / (visible − 1).
            const double serverTpotMs = double(t.lastTokenNs - t.firstTokenNs) / 1e6 / double(10 - 1);
            tpotRatios.push_back(*rec.tpotMs() / serverTpotMs);
            ttfoRatios.push_back(*rec.ttfoMs() / (double(t.firstTokenNs - t.receivedNs) / 1e6));
        }
        // Medians, so one request the loaded machine delayed does not decide. Dividing by all 40
        // completion tokens would make the TPOT ratio 9/39 ≈ 0.23.
        QVERIFY2(std::abs(median(tpotRatios) - 1) < 0.15, qPrintable(QString::number(median(tpotRatios))));
        // TTFO holds the thinking (30 steps of 4 ms): the client sees it from sending, the server
        // from receiving, so the client's is a little longer.
        QVERIFY2(median(ttfoRatios) > 0.95 && median(ttfoRatios) < 1.3,
                 qPrintable(QString::number(median(ttfoRatios))));
    }
};

QTEST_GUILESS_MAIN(TestRunCli)
#include "tst_runcli.moc"
