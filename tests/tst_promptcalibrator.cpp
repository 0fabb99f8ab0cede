// PromptCalibrator against servers whose /tokenize reads one body dialect only (llama.cpp answers
// any other with 200 {"tokens": []}), reads none, or that report no usage either: what it
// calibrates by, and what the run's summary says of it.

#include "run/benchmarkrunner.h"
#include "tokenize/tokenizer.h"
#include "workload/promptcalibrator.h"
#include "workload/promptsource.h"

#include "support/httprequest.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <limits>
#include <memory>

using namespace tb;

namespace {

/// An OpenAI-compatible server on the test's thread that counts in its own tokenizer (5 tokens per
/// 4 approx tokens, and a chat template of kTemplate) and answers non-streaming chat completions.
class CountingServer : public QTcpServer
{
public:
    enum class Tokenize {
        Count,       ///< vLLM: {"model", "messages"} → {"count": N}
        ContentOnly, ///< llama.cpp: {"content"} → {"tokens": [...]}, any other body → {"tokens": []}
        Never,       ///< {"tokens": []} whatever the body
        Huge,        ///< {"count": INT64_MAX} whatever the body
    };
    static constexpr std::int64_t kTemplate = 7;

    CountingServer(Tokenize tokenize, bool usage)
        : m_tokenize(tokenize)
        , m_usage(usage)
    {
        listen(QHostAddress(QStringLiteral("127.0.0.1")), 0);
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, socket,
                        [this, socket, buffer = std::make_shared<QByteArray>()] {
                            *buffer += socket->readAll();
                            while (const auto request = tb::test::takeRequest(*buffer))
                                answer(*socket, *request);
                        });
                connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }

    QString url() const { return QStringLiteral("http://127.0.0.1:%1/v1").arg(serverPort()); }
    static std::int64_t count(const std::string &text) { return (Tokenizer::approx()->count(text) * 5 + 2) / 4; }

    QStringList tokenizeBodies; ///< the keys of every /tokenize body, e.g. "content" or "messages,model"
    QList<QByteArray> heads;    ///< of every request

private:
    void answer(QTcpSocket &socket, const tb::test::HttpRequest &request)
    {
        heads << request.head;
        const nlohmann::json body = nlohmann::json::parse(request.body.toStdString(), nullptr, false);
        nlohmann::json reply;
        if (request.head.startsWith("POST /tokenize ")) {
            QStringList keys;
            for (const auto &[key, value] : body.items())
                keys << QString::fromStdString(key);
            tokenizeBodies << keys.join(QLatin1Char(','));
            const bool counts = m_tokenize == Tokenize::Count
                                    ? body.contains("messages")
                                    : m_tokenize == Tokenize::ContentOnly && body.contains("content");
            if (m_tokenize == Tokenize::Huge)
                reply = {{"count", std::numeric_limits<std::int64_t>::max()}};
            else if (counts && m_tokenize == Tokenize::Count)
                reply = {{"count", chatCount(body) + kTemplate}};
            else
                reply = {{"tokens", counts ? nlohmann::json(std::vector<int>(std::size_t(count(body["content"])), 1))
                                           : nlohmann::json::array()}};
        } else {
            reply = {{"id", "r"},
                     {"object", "chat.completion"},
                     {"choices",
                      {{{"index", 0},
                        {"message", {{"role", "assistant"}, {"content", "a"}}},
                        {"finish_reason", "length"}}}}};
            if (m_usage) {
                const std::int64_t prompt = chatCount(body) + kTemplate;
                reply["usage"] = {{"prompt_tokens", prompt}, {"completion_tokens", 1}, {"total_tokens", prompt + 1}};
            }
        }
        const QByteArray text = QByteArray::fromStdString(reply.dump());
        socket.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                     QByteArray::number(text.size()) + "\r\n\r\n" + text);
    }

    static std::int64_t chatCount(const nlohmann::json &body)
    {
        std::int64_t n = 0;
        for (const nlohmann::json &m : body.value("messages", nlohmann::json::array()))
            n += count(m.value("content", std::string()));
        return n;
    }

    Tokenize m_tokenize;
    bool m_usage;
};

RunConfig calibratedConfig(const CountingServer &server)
{
    RunConfig c;
    c.target.url = server.url();
    c.target.model = QStringLiteral("m");
    c.target.tokenizer = QStringLiteral("server");
    c.target.serverMetrics = false;
    c.prompt.promptTokens = 1000;
    c.prompt.systemTokens = 24;
    c.prompt.calibrate = true;
    c.prompt.salt = QStringLiteral("0123456789abcdef");
    c.request.stream = false;
    c.request.maxTokens = 1;
    c.load.concurrency = 2;
    c.load.requests = 6;
    return c;
}

} // namespace

class TestPromptCalibrator : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void probesNeverCarryAKeysLineBreak_data()
    {
        QTest::addColumn<QString>("tokenizer");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("expected");
        QTest::newRow("/tokenize probes, CRLF")
            << QStringLiteral("server") << QStringLiteral("sk-A-secret\r\nX-Injected-Key: 1")
            << QStringLiteral("target.api_key: the API key typed in contains a line break (CR or LF)");
        QTest::newRow("usage probes, trailing newline")
            << QString() << QStringLiteral("sk-A-secret\n")
            << QStringLiteral("target.api_key: the API key typed in ends with a line break (CR or LF)");
    }

    // Calibration's probes are requests beside the run, with the target's headers: a line break in
    // the key must not reach the server from there either.
    void probesNeverCarryAKeysLineBreak()
    {
        QFETCH(QString, tokenizer);
        QFETCH(QString, key);
        QFETCH(QString, expected);
        CountingServer server(CountingServer::Tokenize::Count, true);
        RunConfig config = calibratedConfig(server);
        config.target.tokenizer = tokenizer;
        config.target.apiKey = key;
        PromptCalibrator calibrator(config, nullptr);
        QSignalSpy finished(&calibrator, &PromptCalibrator::finished);
        calibrator.start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        const auto result = finished.first().first().value<CalibrationResult>();
        QTest::qWait(200); // a request, had one been sent, would have arrived by now
        QVERIFY2(server.heads.isEmpty(), server.heads.value(0).constData());
        QVERIFY2(result.error.startsWith(expected), qPrintable(result.error));
        QVERIFY2(!result.error.contains(QStringLiteral("secret")), qPrintable(result.error));
    }

    void emptyTokenListIsNoCount_data()
    {
        QTest::addColumn<int>("tokenize");
        QTest::addColumn<bool>("usage");
        QTest::addColumn<QString>("method");  ///< empty: not calibrated
        QTest::addColumn<QString>("counted"); ///< the /tokenize body that counted; empty: none
        QTest::addColumn<QStringList>("dialects");
        QTest::addColumn<QString>("warning"); ///< empty: none
        const QStringList all{QStringLiteral("messages,model"), QStringLiteral("model,prompt"),
                              QStringLiteral("content"), QStringLiteral("inputs")};
        QTest::newRow("vLLM counts its chat body") << int(CountingServer::Tokenize::Count) << true << "tokenize"
                                                   << R"({"model", "messages"})" << QStringList{all[0]} << QString();
        QTest::newRow("llama.cpp counts only {content}")
            << int(CountingServer::Tokenize::ContentOnly) << true << "tokenize"
            << R"({"content"})" << all.mid(0, 3) << QString();
        QTest::newRow("no dialect counts: usage instead")
            << int(CountingServer::Tokenize::Never) << true << "usage" << QString() << all
            << R"(/tokenize counted the prompts in no dialect ({"model", "messages"}: an empty token list; )"
               R"({"model", "prompt"}: an empty token list; {"content"}: an empty token list; {"inputs"}: an )"
               R"(empty token list): calibrated by usage (max_tokens=1 requests) instead)";
        // Regression: a count beyond any context was summed over the probes in int64 (overflow).
        QTest::newRow("count beyond any context: usage instead")
            << int(CountingServer::Tokenize::Huge) << true << "usage" << QString() << all
            << R"(/tokenize counted the prompts in no dialect ({"model", "messages"}: a token count beyond )"
               R"(1000000000000; {"model", "prompt"}: a token count beyond 1000000000000; {"content"}: a token )"
               R"(count beyond 1000000000000; {"inputs"}: a token count beyond 1000000000000): calibrated by usage)";
        QTest::newRow("no dialect and no usage: not calibrated")
            << int(CountingServer::Tokenize::Never) << false << QString() << QString() << all
            << R"({"inputs"}: an empty token list))";
    }

    /// Regression: llama.cpp answers vLLM's {"model", "messages"} with 200 {"tokens": []}, which was
    /// taken for 0 tokens: the run was labelled "calibrated by tokenize (22 probes: 0.000 …)" while
    /// its prompts stayed uncalibrated (1,034 tokens for 1,024). An empty list is no count now: the
    /// next dialect is tried, then usage, and a calibration that could not be done is not labelled.
    void emptyTokenListIsNoCount()
    {
        QFETCH(int, tokenize);
        QFETCH(bool, usage);
        QFETCH(QString, method);
        QFETCH(QString, warning);
        QFETCH(QStringList, dialects);
        CountingServer server(CountingServer::Tokenize(tokenize), usage);
        const RunConfig config = calibratedConfig(server);
        PromptCalibrator calibrator(config, nullptr);
        QSignalSpy finished(&calibrator, &PromptCalibrator::finished);
        calibrator.start();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        const auto result = finished.first().first().value<CalibrationResult>();
        QCOMPARE(result.method, method);
        QTEST(result.dialect, "counted");
        QStringList tried = server.tokenizeBodies;
        tried.removeDuplicates();
        QCOMPARE(tried, dialects);
        if (warning.isEmpty())
            QVERIFY2(result.warnings.isEmpty(), qPrintable(result.warnings.join(QLatin1Char('\n'))));
        else
            QVERIFY2(result.warnings.size() == 1 && result.warnings.first().contains(warning),
                     qPrintable(result.warnings.join(QLatin1Char('\n'))));
        if (method.isEmpty()) {
            QCOMPARE(result.error, QStringLiteral("the target reports no usage.prompt_tokens"));
            QVERIFY(!result.probed);
            return;
        }
        QVERIFY2(result.error.isEmpty(), qPrintable(result.error));
        // The run's prompts, sized with the calibration, count as requested at the server.
        QString error;
        const auto prompts =
            PromptSource::create(config.prompt, config.load.seed, &error, Tokenizer::approx(), result.calibration);
        QVERIFY2(prompts, qPrintable(error));
        const std::int64_t requested = config.prompt.promptTokens + config.prompt.systemTokens;
        for (std::uint64_t i = 0; i < 10; ++i) {
            const Prompt p = prompts->prompt(i);
            const std::int64_t counted =
                CountingServer::count(p.system) + CountingServer::count(p.user) + CountingServer::kTemplate;
            QVERIFY2(PromptCalibrator::closeEnough(counted, requested),
                     qPrintable(QStringLiteral("request %1: %2 tokens for %3").arg(i).arg(counted).arg(requested)));
        }
    }

    void calibrationIsSaidInTheSummary_data()
    {
        QTest::addColumn<int>("tokenize");
        QTest::addColumn<bool>("usage");
        QTest::addColumn<QString>("calibration");  ///< the summary's method; empty: not calibrated
        QTest::addColumn<QStringList>("warnings"); ///< how each begins
        const QString noDialect =
            QStringLiteral("calibration: the target's /tokenize counted the prompts in no dialect (");
        QTest::newRow("llama.cpp: by tokenize, nothing to warn of")
            << int(CountingServer::Tokenize::ContentOnly) << true << "tokenize" << QStringList();
        QTest::newRow("no dialect: by usage, said")
            << int(CountingServer::Tokenize::Never) << true << "usage" << QStringList{noDialect};
        QTest::newRow("not calibrated, said")
            << int(CountingServer::Tokenize::Never) << false << QString()
            << QStringList{noDialect, QStringLiteral("prompts not calibrated (--calibrate): the target reports no "
                                                     "usage.prompt_tokens; sized by ")};
    }

    /// What calibration did reaches the run's summary (whose warnings the CLI's table and the GUI's
    /// dashboard show): the method only when it calibrated, and a warning for each fallback.
    void calibrationIsSaidInTheSummary()
    {
        QFETCH(int, tokenize);
        QFETCH(bool, usage);
        QFETCH(QString, calibration);
        QFETCH(QStringList, warnings);
        CountingServer server(CountingServer::Tokenize(tokenize), usage);
        QTemporaryDir dir;
        RunConfig config = calibratedConfig(server);
        config.outDir = dir.filePath(QStringLiteral("run"));
        BenchmarkRunner runner;
        QSignalSpy done(&runner, &BenchmarkRunner::runFinished);
        QString error;
        QVERIFY2(runner.start(config, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(done.size(), 1, 60000);
        const RunSummary summary = done.first().first().value<RunOutcome>().summary;
        QCOMPARE(summary.total.requests.ok, std::int64_t(6));
        QCOMPARE(summary.promptSizing.calibration, calibration);
        QCOMPARE(summary.promptSizing.calibrationError.isEmpty(), !calibration.isEmpty());
        const QStringList said = summary.warnings.filter(QStringLiteral("calibrat"));
        QCOMPARE(said.size(), warnings.size());
        for (qsizetype i = 0; i < said.size(); ++i)
            QVERIFY2(said[i].startsWith(warnings[i]), qPrintable(said[i]));
        if (usage && !calibration.isEmpty()) {
            const double mean = double(summary.total.tokens.input) / 6;
            QVERIFY2(PromptCalibrator::closeEnough(std::llround(mean), 1024), qPrintable(QString::number(mean)));
        }
    }
};

QTEST_GUILESS_MAIN(TestPromptCalibrator)
#include "tst_promptcalibrator.moc"
