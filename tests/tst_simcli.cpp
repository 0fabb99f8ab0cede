// `tokenbench-cli sim` as users run it: a real process that prints where it listens, serves,
// and stops cleanly on SIGINT/SIGTERM; bad flags exit 2 naming the flag.
#include <QProcess>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include "support/clirunner.h"
#include "support/openmetricsscrape.h"
#include "support/testfiles.h"

#include <nlohmann/json.hpp>

#include <csignal>

#include <sys/resource.h>

using json = nlohmann::json;
using tb::test::writeFile;

namespace {

/// The body of GET `path`, empty unless the answer is 200.
QByteArray httpGet(quint16 port, const QByteArray &path)
{
    const tb::test::Scrape s = tb::test::scrape(QStringLiteral("http://127.0.0.1:%1").arg(port), path);
    return s.status == 200 ? s.body : QByteArray();
}

} // namespace

class TestSimCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void servesAndStopsCleanly_data()
    {
        QTest::addColumn<int>("signal");
        QTest::newRow("SIGTERM") << int(SIGTERM);
        QTest::newRow("SIGINT") << int(SIGINT);
    }

    void servesAndStopsCleanly()
    {
        QFETCH(int, signal);
        QProcess sim;
        sim.start(QStringLiteral(TOKENBENCH_CLI),
                  {QStringLiteral("sim"), QStringLiteral("--port"), QStringLiteral("0"), QStringLiteral("--preset"),
                   QStringLiteral("fast"), QStringLiteral("--model"), QStringLiteral("mine"),
                   QStringLiteral("--aliases"), QStringLiteral("a1,a2")});
        QVERIFY(sim.waitForStarted());
        QVERIFY(sim.waitForReadyRead(20000));
        QVERIFY(QTest::qWaitFor([&] { return sim.canReadLine(); }, 5000));
        const QString first = QString::fromUtf8(sim.readLine()).trimmed();
        const QRegularExpressionMatch match =
            QRegularExpression(QStringLiteral("^listening on http://127\\.0\\.0\\.1:(\\d+)$")).match(first);
        QVERIFY2(match.hasMatch(), qPrintable(first));
        const quint16 port = quint16(match.captured(1).toUInt());
        QVERIFY(port != 0);

        const json models = json::parse(httpGet(port, "/v1/models").toStdString(), nullptr, false);
        QVERIFY(!models.is_discarded());
        QCOMPARE(models["data"].size(), 3u);
        QCOMPARE(models["data"][0]["id"].get<std::string>(), std::string("mine"));
        QCOMPARE(models["data"][2]["id"].get<std::string>(), std::string("a2"));
        const json config = json::parse(httpGet(port, "/sim/config").toStdString(), nullptr, false);
        QCOMPARE(config["step_ms"].get<double>(), 1.0); // the fast preset

        ::kill(pid_t(sim.processId()), signal);
        QVERIFY(sim.waitForFinished(20000));
        QCOMPARE(sim.exitStatus(), QProcess::NormalExit);
        QCOMPARE(sim.exitCode(), 0);
        QVERIFY(QString::fromUtf8(sim.readAllStandardError()).contains(QStringLiteral("stopped after")));
    }

    void saysHowManyConnectionsItHolds_data()
    {
        QTest::addColumn<int>("limit");
        QTest::addColumn<QString>("capacity");
        QTest::newRow("the usual 1,024")
            << 1024
            << QStringLiteral("; holds up to 992 connections (1024 open files, RLIMIT_NOFILE; raise it with "
                              "'ulimit -n'); stats at");
        QTest::newRow("20,000: 10,000 streams fit")
            << 20000
            << QStringLiteral("; holds up to 19968 connections (20000 open files, RLIMIT_NOFILE; raise it "
                              "with 'ulimit -n'); stats at");
    }

    void saysHowManyConnectionsItHolds()
    {
        QFETCH(int, limit);
        QFETCH(QString, capacity);
        rlimit own{};
        QCOMPARE(getrlimit(RLIMIT_NOFILE, &own), 0);
        if (own.rlim_max != RLIM_INFINITY && own.rlim_max < rlim_t(limit))
            QSKIP("the hard open-file limit here is below the row's");
        QProcess sim;
        sim.setChildProcessModifier([limit] {
            const rlimit set{rlim_t(limit), rlim_t(limit)};
            setrlimit(RLIMIT_NOFILE, &set); // a child that keeps the parent's limit fails the row
        });
        sim.start(QStringLiteral(TOKENBENCH_CLI), {QStringLiteral("sim"), QStringLiteral("--port"), QStringLiteral("0"),
                                                   QStringLiteral("--preset"), QStringLiteral("fast")});
        QVERIFY(sim.waitForStarted());
        sim.setReadChannel(QProcess::StandardError);
        QVERIFY(QTest::qWaitFor([&] { return sim.canReadLine(); }, 20000));
        const QString first = QString::fromUtf8(sim.readLine());
        ::kill(pid_t(sim.processId()), SIGTERM);
        QVERIFY(sim.waitForFinished(20000));
        QVERIFY2(first.contains(capacity), qPrintable(first));
    }

    void badUsageExits2_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const auto args = [](std::initializer_list<const char *> list) {
            QStringList out{QStringLiteral("sim")};
            for (const char *a : list)
                out << QLatin1String(a);
            return out;
        };
        QTest::newRow("not a number") << args({"--max-batch", "many"})
                                      << QStringLiteral("--max-batch: must be a whole number from 1 to");
        QTest::newRow("out of range") << args({"--error-rate", "2"})
                                      << QStringLiteral("--error-rate: must be a number from 0 to 1 (got '2')");
        QTest::newRow("bad distribution")
            << args({"--output-dist", "zipf"})
            << QStringLiteral("--output-dist: unknown distribution (accepted: fixed|uniform|normal|exponential)");
        QTest::newRow("unknown preset") << args({"--preset", "huge"})
                                        << QStringLiteral("--preset: unknown preset 'huge' (accepted: "
                                                          "default|fast|gpt4-like|gpt4-turbo-like|o1-preview-like|"
                                                          "llamacpp-like)");
        QTest::newRow("bad dialect")
            << args({"--tokenize-dialect", "sglang"})
            << QStringLiteral("--tokenize-dialect: unknown dialect (accepted: vllm|llamacpp) (got 'sglang')");
        QTest::newRow("slot context too small")
            << args({"--slot-context", "8"}) << QStringLiteral("--slot-context: must be 0 (off) or at least 16");
        QTest::newRow("hostname") << args({"--host", "localhost"})
                                  << QStringLiteral("--host: 'localhost' is not an IP address");
        QTest::newRow("port") << args({"--port", "70000"})
                              << QStringLiteral("--port: must be a whole number from 0 to 65535");
        QTest::newRow("min above max") << args({"--output-min", "50", "--output-max", "10"})
                                       << QStringLiteral("--output-min: must not exceed output_max (50 > 10)");
        QTest::newRow("missing config") << args({"--config", "/nonexistent/sim.json"})
                                        << QStringLiteral("--config: cannot read");
        QTest::newRow("unknown flag") << args({"--max-btach", "3"}) << QStringLiteral("Unknown option 'max-btach'");
        QTest::newRow("stray argument") << args({"fast"}) << QStringLiteral("unexpected argument 'fast'");
    }

    void badUsageExits2()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const CliResult r = runCli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

    void badConfigFileExits2()
    {
        QTemporaryDir dir;
        const QString typo = writeFile(dir, QStringLiteral("typo.json"), R"({"max_btach": 4})");
        CliResult r = runCli({QStringLiteral("sim"), QStringLiteral("--config"), typo});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--config: max_btach: unknown key")), qPrintable(r.err));
        const QString broken = writeFile(dir, QStringLiteral("broken.json"), "{not json");
        r = runCli({QStringLiteral("sim"), QStringLiteral("--config"), broken});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("is not valid JSON")), qPrintable(r.err));
    }

    void flagsOverrideTheConfigFileWhichOverridesThePreset()
    {
        QTemporaryDir dir;
        const QString file =
            writeFile(dir, QStringLiteral("sim.json"), R"({"preset": "fast", "max_batch": 3, "step_ms": 2.5})");
        const CliResult r =
            runCli({QStringLiteral("sim"), QStringLiteral("--config"), file, QStringLiteral("--max-batch"),
                    QStringLiteral("9"), QStringLiteral("--print-config")});
        QCOMPARE(r.exitCode, 0);
        const json config = json::parse(r.out.toStdString(), nullptr, false);
        QVERIFY2(!config.is_discarded(), qPrintable(r.out));
        QCOMPARE(config["max_batch"].get<int>(), 9);
        QCOMPARE(config["step_ms"].get<double>(), 2.5);
        QCOMPARE(config["model"].get<std::string>(), std::string("fast"));
        QCOMPARE(config["ttft_ms"].get<double>(), 1.0);

        const CliResult preset = runCli({QStringLiteral("sim"), QStringLiteral("--preset"), QStringLiteral("gpt4-like"),
                                         QStringLiteral("--print-config")});
        QCOMPARE(json::parse(preset.out.toStdString())["ttft_ms"].get<double>(), 1801.5);
        QCOMPARE(json::parse(preset.out.toStdString())["model"].get<std::string>(), std::string("gpt4-like"));
    }

    void listPresets()
    {
        const CliResult r = runCli({QStringLiteral("sim"), QStringLiteral("--list-presets")});
        QCOMPARE(r.exitCode, 0);
        for (const char *name : {"default", "fast", "gpt4-like", "gpt4-turbo-like", "o1-preview-like", "llamacpp-like"})
            QVERIFY2(r.out.contains(QLatin1String(name)), name);
        QVERIFY2(r.out.contains(QStringLiteral("llamacpp-like     llama.cpp's llama-server -np 8")), qPrintable(r.out));
    }

    void llamacppPresetTurnsOnEachBehaviour()
    {
        const CliResult r = runCli({QStringLiteral("sim"), QStringLiteral("--preset"), QStringLiteral("llamacpp-like"),
                                    QStringLiteral("--print-config")});
        QCOMPARE(r.exitCode, 0);
        const json config = json::parse(r.out.toStdString());
        QCOMPARE(config["model"].get<std::string>(), std::string("tiny-llama3"));
        QCOMPARE(config["max_batch"].get<qint64>(), 8);
        QCOMPARE(config["close_after_stream"].get<qint64>(), 1);
        QCOMPARE(config["nagle_writes"].get<qint64>(), 1);
        QCOMPARE(config["listen_backlog"].get<qint64>(), 5);
        QCOMPARE(config["tokenize_dialect"].get<std::string>(), std::string("llamacpp"));
        QCOMPARE(config["slot_context"].get<qint64>(), 4096);
        QCOMPARE(config["timings"].get<qint64>(), 1);
        QCOMPARE(config["usage_dialect"].get<std::string>(), std::string("llamacpp"));
        QCOMPARE(config["metrics_dialect"].get<std::string>(), std::string("llamacpp"));
        QCOMPARE(config["metrics_stall_while_prefilling"].get<qint64>(), 1);
        // Each one on its own: a flag turns it off again.
        const CliResult off =
            runCli({QStringLiteral("sim"), QStringLiteral("--preset"), QStringLiteral("llamacpp-like"),
                    QStringLiteral("--close-after-stream"), QStringLiteral("0"), QStringLiteral("--metrics-dialect"),
                    QStringLiteral("vllm"), QStringLiteral("--print-config")});
        QCOMPARE(off.exitCode, 0);
        const json changed = json::parse(off.out.toStdString());
        QCOMPARE(changed["close_after_stream"].get<qint64>(), 0);
        QCOMPARE(changed["metrics_dialect"].get<std::string>(), std::string("vllm"));
        QCOMPARE(changed["tokenize_dialect"].get<std::string>(), std::string("llamacpp"));
    }

    void helpListsEveryParameterFlag()
    {
        const CliResult r = runCli({QStringLiteral("sim"), QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        for (const char *flag : {"--host",
                                 "--port",
                                 "--preset",
                                 "--list-presets",
                                 "--config",
                                 "--seed",
                                 "--model",
                                 "--ttft-ms",
                                 "--prefill-ms-per-1k",
                                 "--step-ms",
                                 "--step-ms-per-seq",
                                 "--max-batch",
                                 "--queue-limit",
                                 "--tokens-per-chunk",
                                 "--output-tokens",
                                 "--error-rate",
                                 "--rpm-limit",
                                 "--tpm-limit",
                                 "--cut-rate",
                                 "--header-delay-ms",
                                 "--close-after-stream",
                                 "--keep-alive-max",
                                 "--listen-backlog",
                                 "--accept-delay-ms",
                                 "--tokenize-dialect",
                                 "--slot-context",
                                 "--timings",
                                 "--usage-dialect",
                                 "--metrics-dialect",
                                 "--metrics-stall-while-prefilling",
                                 "--print-config"})
            QVERIFY2(r.out.contains(QLatin1String(flag)), flag);
    }

    void portInUseExits1()
    {
        QTcpServer blocker;
        QVERIFY(blocker.listen(QHostAddress(QHostAddress::LocalHost)));
        const CliResult r =
            runCli({QStringLiteral("sim"), QStringLiteral("--port"), QString::number(blocker.serverPort())});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(QStringLiteral("cannot listen on 127.0.0.1 port %1").arg(blocker.serverPort())),
                 qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestSimCli)
#include "tst_simcli.moc"
