// tokenbench-cli as users run it: a real process, its exit codes and messages.
#include "tokenbench/version.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <algorithm>

#include "support/clirunner.h"
#include "support/testfiles.h"

#include <sys/resource.h>

namespace {

const QStringList kTarget{QStringLiteral("run"), QStringLiteral("--url"), QStringLiteral("http://127.0.0.1:9/v1"),
                          QStringLiteral("--model"), QStringLiteral("m")};

/// `tokenbench-cli run --dry-run` with `args`, the environment plus `assignments` ("NAME=value"),
/// and `config` (when not empty) written to a file given as --config.
CliResult dryRun(const QStringList &args, const QStringList &assignments, const QByteArray &config)
{
    QTemporaryDir dir;
    QStringList all = args;
    if (!config.isEmpty()) {
        const QString path = dir.filePath(QStringLiteral("config.json"));
        if (!tb::test::writeFile(path, config))
            return {};
        all << QStringLiteral("--config") << path;
    }
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString &a : assignments)
        env.insert(a.section(QLatin1Char('='), 0, 0), a.section(QLatin1Char('='), 1));
    return runCli(all << QStringLiteral("--dry-run"), env);
}

/// tokenbench-cli with `args` in a child whose open-file limit, soft and hard, is `limit`: what a
/// machine with that limit does (the CLI raises the soft limit to the hard one first).
CliResult runWithOpenFileLimit(const QStringList &args, rlim_t limit)
{
    QProcess p;
    p.setChildProcessModifier([limit] {
        const rlimit lowered{limit, limit};
        setrlimit(RLIMIT_NOFILE, &lowered); // a child that keeps the parent's limit fails the test's rows
    });
    p.start(QStringLiteral(TOKENBENCH_CLI), args);
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished();
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
            QString::fromUtf8(p.readAllStandardError())};
}

} // namespace

class TestCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void exitCodes_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("stdoutContains");
        QTest::addColumn<QString>("stderrContains");

        QTest::newRow("no arguments") << QStringList{} << 2 << QString()
                                      << QStringLiteral("Usage: tokenbench-cli <command>");
        QTest::newRow("--help") << QStringList{QStringLiteral("--help")} << 0 << QStringLiteral("Commands:")
                                << QString();
        QTest::newRow("-h") << QStringList{QStringLiteral("-h")} << 0 << QStringLiteral("compare") << QString();
        QTest::newRow("--version") << QStringList{QStringLiteral("--version")} << 0 << tb::version() << QString();
        QTest::newRow("unknown command") << QStringList{QStringLiteral("frobnicate")} << 2 << QString()
                                         << QStringLiteral("unknown command 'frobnicate'");
        QTest::newRow("unknown top-level option") << QStringList{QStringLiteral("--frobnicate")} << 2 << QString()
                                                  << QStringLiteral("unknown option '--frobnicate'");
        for (const char *cmd : {"run", "sim", "compare", "report"}) {
            const QString c = QLatin1String(cmd);
            QTest::addRow("%s --help", cmd) << QStringList{c, QStringLiteral("--help")} << 0
                                            << QStringLiteral("Usage: tokenbench-cli %1").arg(c) << QString();
            QTest::addRow("%s unknown flag", cmd)
                << QStringList{c, QStringLiteral("--no-such-flag")} << 2 << QString()
                << QStringLiteral("tokenbench-cli %1: Unknown option 'no-such-flag'").arg(c);
        }
    }

    void runBeyondOpenFileLimitRefusedBeforeItStarts_data()
    {
        QTest::addColumn<int>("limit");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("stderrText"); // all of it
        // Descriptors besides the sockets: 4 a worker thread (one per core by default) and 64.
        const int workers = std::max(2, QThread::idealThreadCount());
        const int besides = workers * 4 + 64;
        const QString message = QStringLiteral(
            "%1 connections and %2 worker threads need about %3 open files, more than this process may open (%4, "
            "RLIMIT_NOFILE; raise it with 'ulimit -n'); at most %5 connections fit");
        QTest::newRow("10,000 streams at the usual 1,024")
            << 1024 << QStringList{QStringLiteral("--concurrency"), QStringLiteral("10000")} << 2
            << QStringLiteral("tokenbench-cli run: load.concurrency (--concurrency): %1\n")
                   .arg(message.arg(10000).arg(workers).arg(10000 + besides).arg(1024).arg(1024 - besides));
        QTest::newRow("one over")
            << 256 << QStringList{QStringLiteral("--concurrency"), QString::number(257 - besides)} << 2
            << QStringLiteral("tokenbench-cli run: load.concurrency (--concurrency): %1\n")
                   .arg(message.arg(257 - besides).arg(workers).arg(257).arg(256).arg(256 - besides));
        QTest::newRow("--workers counted")
            << 256
            << QStringList{QStringLiteral("--concurrency"), QStringLiteral("100"), QStringLiteral("--workers"),
                           QStringLiteral("30")}
            << 2
            << QStringLiteral("tokenbench-cli run: --workers: %1\nSee 'tokenbench-cli run --help'.\n")
                   .arg(message.arg(100).arg(30).arg(284).arg(256).arg(72));
        QTest::newRow("exactly enough") << 256
                                        << QStringList{QStringLiteral("--concurrency"), QString::number(256 - besides),
                                                       QStringLiteral("--dry-run")}
                                        << 0 << QString();
    }

    void runBeyondOpenFileLimitRefusedBeforeItStarts()
    {
        QFETCH(int, limit);
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, stderrText);
        const CliResult r = runWithOpenFileLimit(
            kTarget + QStringList{QStringLiteral("--requests"), QStringLiteral("1")} + args, rlim_t(limit));
        QVERIFY2(r.exitCode == exitCode, qPrintable(QStringLiteral("exit %1; stderr: %2").arg(r.exitCode).arg(r.err)));
        if (exitCode != 0)
            QCOMPARE(r.err, stderrText);
    }

    void exitCodes()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, stdoutContains);
        QFETCH(QString, stderrContains);

        const CliResult r = runCli(args);
        QVERIFY2(
            r.exitCode == exitCode,
            qPrintable(QStringLiteral("exit %1, expected %2; stderr: %3").arg(r.exitCode).arg(exitCode).arg(r.err)));
        if (!stdoutContains.isEmpty())
            QVERIFY2(r.out.contains(stdoutContains), qPrintable(r.out));
        if (!stderrContains.isEmpty())
            QVERIFY2(r.err.contains(stderrContains), qPrintable(r.err));
    }

    void silentlyWrongRunsRefusedByDryRun_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("env");
        QTest::addColumn<QByteArray>("config");
        QTest::addColumn<QString>("message");
        const auto row = [](const char *name, const QStringList &args, const QString &message,
                            const QStringList &env = {},
                            const QByteArray &config = {}) { QTest::newRow(name) << args << env << config << message; };
        // Accepted, then every request failed (exit 1; port 99999 got exit 2).
        row("port 0 accepted",
            {QStringLiteral("run"), QStringLiteral("--url"), QStringLiteral("http://127.0.0.1:0/v1"),
             QStringLiteral("--model"), QStringLiteral("m")},
            QStringLiteral("target.url (--url): 'http://127.0.0.1:0/v1' has port 0; a port is from 1 to 65535"));
        // The last of several values won without a word.
        row("rate given twice",
            kTarget + QStringList{QStringLiteral("--rate"), QStringLiteral("1"), QStringLiteral("--rate"),
                                  QStringLiteral("2")},
            QStringLiteral("--rate is given more than once; it takes one value"));
        row("model given twice", kTarget + QStringList{QStringLiteral("--model"), QStringLiteral("n")},
            QStringLiteral("--model is given more than once"));
        row("single-dash spelling given twice",
            kTarget + QStringList{QStringLiteral("--seed"), QStringLiteral("1"), QStringLiteral("-seed=2")},
            QStringLiteral("--seed is given more than once"));
        row("duplicate key in --config accepted", {QStringLiteral("run")},
            QStringLiteral("target.model: given twice; a key may appear once in an object"), {},
            "{\"target\": {\"url\": \"http://127.0.0.1:9/v1\", \"model\": \"a\", \"model\": \"b\"}}");
        row("duplicate key in --extra-body accepted",
            kTarget + QStringList{QStringLiteral("--extra-body"), QStringLiteral(R"({"top_k": 1, "top_k": 40})")},
            QStringLiteral("--extra-body: top_k: given twice"));
        // The flag's value was dropped without a word.
        row("--prompt with --prompt-file accepted",
            kTarget + QStringList{QStringLiteral("--prompt"), QStringLiteral("hi"), QStringLiteral("--prompt-file"),
                                  QStringLiteral(TOKENBENCH_TESTDATA "/workload/messages.jsonl")},
            QStringLiteral("--prompt and --prompt-file: choose one"));
        row("--prompt with a prompt file from --config accepted",
            kTarget + QStringList{QStringLiteral("--prompt"), QStringLiteral("hi")},
            QStringLiteral("--prompt and --prompt-file: choose one"), {},
            R"({"prompt": {"prompt_file": ")" TOKENBENCH_TESTDATA R"(/workload/messages.jsonl"}})");
        row("--prompt with --dataset accepted",
            kTarget + QStringList{QStringLiteral("--prompt"), QStringLiteral("hi"), QStringLiteral("--dataset"),
                                  QStringLiteral(TOKENBENCH_TESTDATA "/workload/sharegpt.json")},
            QStringLiteral("--prompt and --dataset: choose one"));
        row("--prompt with --prompt-tokens accepted",
            kTarget + QStringList{QStringLiteral("--prompt"), QStringLiteral("hi"), QStringLiteral("--prompt-tokens"),
                                  QStringLiteral("64")},
            QStringLiteral("--prompt and --prompt-tokens: choose one"));
        row("--max-in-flight without a rate accepted",
            kTarget + QStringList{QStringLiteral("--concurrency"), QStringLiteral("4"),
                                  QStringLiteral("--max-in-flight"), QStringLiteral("2")},
            QStringLiteral("--max-in-flight needs --rate"));
        row("--max-in-flight with concurrency stages accepted",
            kTarget + QStringList{QStringLiteral("--stages"), QStringLiteral("c=1:10,c=2:10"),
                                  QStringLiteral("--max-in-flight"), QStringLiteral("2")},
            QStringLiteral("--max-in-flight needs --rate"));
        row("--fail-on-slo without --slo accepted", kTarget + QStringList{QStringLiteral("--fail-on-slo")},
            QStringLiteral("slo.fail_on_slo (--fail-on-slo): needs thresholds to judge by; give --slo"));
        row("--slo \"\" accepted", kTarget + QStringList{QStringLiteral("--slo"), QString()},
            QStringLiteral("--slo: no threshold given"));
        // A raw NUL or line break reached stdout; the value is not echoed.
        row("model with CRLF accepted",
            {QStringLiteral("run"), QStringLiteral("--url"), QStringLiteral("http://127.0.0.1:9/v1"),
             QStringLiteral("--model"), QStringLiteral("m\r\nX-Injected: 1")},
            QStringLiteral("target.model (--model): the name contains a line break (CR or LF)"));
        row("model with NUL in --config accepted", {QStringLiteral("run")},
            QStringLiteral("target.model (--model): the name contains a control character (U+0000)"), {},
            "{\"target\": {\"url\": \"http://127.0.0.1:9/v1\", \"model\": \"m\\u0000Injected\"}}");
        row("target name with an escape sequence accepted",
            kTarget + QStringList{QStringLiteral("--name"), QStringLiteral("\x1b[2J\x1b[HInjected")},
            QStringLiteral("target.name (--name): the name contains a control character (U+001b)"));
        // The key went onto the wire as it was: an injected header, or a malformed request.
        row("key with CRLF accepted", kTarget,
            QStringLiteral("target.api_key_env (--api-key-env): the API key in OPENAI_API_KEY contains a line break"),
            {QStringLiteral("OPENAI_API_KEY=sk-A-secret\r\nX-Injected-Key: 1")});
        row("key with a trailing newline accepted",
            kTarget + QStringList{QStringLiteral("--api-key-env"), QStringLiteral("TB_CLI_KEY")},
            QStringLiteral("target.api_key_env (--api-key-env): the API key in TB_CLI_KEY ends with a line break (CR "
                           "or LF), as text read from a file often does; remove it"),
            {QStringLiteral("TB_CLI_KEY=sk-A-secret\n")});
        row("Anthropic key with LF accepted",
            kTarget + QStringList{QStringLiteral("--api"), QStringLiteral("anthropic-messages")},
            QStringLiteral("the API key in ANTHROPIC_API_KEY contains a line break"),
            {QStringLiteral("ANTHROPIC_API_KEY=sk-ant-secret\nX-Injected-Key: 1")});
        row("header variable with a trailing newline accepted",
            kTarget + QStringList{QStringLiteral("--header"), QStringLiteral("X-Api-Key: ${env:TB_CLI_HEADER}")},
            QStringLiteral("--header: header 'X-Api-Key' refers to the environment variable TB_CLI_HEADER, whose "
                           "value ends with a line break"),
            {QStringLiteral("TB_CLI_HEADER=gw-secret\n")});
    }

    // Each of these was taken by --dry-run as "configuration valid" and run wrong, or not as asked.
    void silentlyWrongRunsRefusedByDryRun()
    {
        QFETCH(QStringList, args);
        QFETCH(QStringList, env);
        QFETCH(QByteArray, config);
        QFETCH(QString, message);
        const CliResult r = dryRun(args, env, config);
        QVERIFY2(r.exitCode == 2, qPrintable(QStringLiteral("exit %1; stdout: %2").arg(r.exitCode).arg(r.out)));
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
        for (const char *echoed : {"secret", "Injected", "\x1b", "\r"})
            QVERIFY2(!r.err.contains(QLatin1String(echoed)), qPrintable(r.err));
        QVERIFY(!r.err.contains(QChar(0)));
    }

    void legitimateRunsStillAccepted_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("env");
        QTest::newRow("--url and --header repeated")
            << kTarget + QStringList{QStringLiteral("--url"),    QStringLiteral("http://127.0.0.1:10/v1"),
                                     QStringLiteral("--header"), QStringLiteral("X-A: 1"),
                                     QStringLiteral("--header"), QStringLiteral("X-B: 2")}
            << QStringList{};
        QTest::newRow("a flag without a value twice")
            << kTarget + QStringList{QStringLiteral("--insecure"), QStringLiteral("--insecure")} << QStringList{};
        QTest::newRow("--max-in-flight with --rate")
            << kTarget + QStringList{QStringLiteral("--rate"), QStringLiteral("5"), QStringLiteral("--max-in-flight"),
                                     QStringLiteral("2")}
            << QStringList{};
        QTest::newRow("--max-in-flight with a rate sweep")
            << kTarget + QStringList{QStringLiteral("--sweep"), QStringLiteral("r=1..4"),
                                     QStringLiteral("--max-in-flight"), QStringLiteral("2")}
            << QStringList{};
        QTest::newRow("--prompt alone") << kTarget +
                                               QStringList{QStringLiteral("--prompt"), QStringLiteral("hi {{index}}")}
                                        << QStringList{};
        QTest::newRow("--fail-on-slo with --slo")
            << kTarget +
                   QStringList{QStringLiteral("--slo"), QStringLiteral("ttft_ms=500"), QStringLiteral("--fail-on-slo")}
            << QStringList{};
        QTest::newRow("a key with a tab and no line break")
            << kTarget << QStringList{QStringLiteral("OPENAI_API_KEY=sk-A\tB")};
    }

    // The refusals above stop at what is silently wrong: repeatable flags and the uses they pair with pass.
    void legitimateRunsStillAccepted()
    {
        QFETCH(QStringList, args);
        QFETCH(QStringList, env);
        const CliResult r = dryRun(args, env, {});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.startsWith(QStringLiteral("dry run: configuration valid")), qPrintable(r.out));
    }

    void helpGoesToStdoutOnly()
    {
        const CliResult r = runCli({QStringLiteral("--help")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.err.isEmpty());
        for (const char *cmd : {"run", "sim", "compare", "report"})
            QVERIFY2(r.out.contains(QLatin1String(cmd)), cmd);
    }

    void cliLinksNoGuiLibraries()
    {
        // docs/SPEC.md §1: tokenbench-cli links no QtWidgets/QtGui, so it runs on a server without X.
        QProcess readelf;
        readelf.start(QStringLiteral("readelf"), {QStringLiteral("-d"), QStringLiteral(TOKENBENCH_CLI)});
        if (!readelf.waitForStarted())
            QSKIP("readelf (binutils) is not installed");
        QVERIFY(readelf.waitForFinished());
        const QString needed = QString::fromUtf8(readelf.readAllStandardOutput());
        QVERIFY2(needed.contains(QStringLiteral("libQt6Core")), qPrintable(needed));
        QVERIFY2(!needed.contains(QStringLiteral("libQt6Gui")), qPrintable(needed));
        QVERIFY2(!needed.contains(QStringLiteral("libQt6Widgets")), qPrintable(needed));
    }

    /// Regression: --config was read whole, whatever it was: a FIFO hung the command, a link to
    /// /dev/zero took all memory, a 200 MB file took 1 GB. Refused before a byte is read.
    void configThatIsNoBoundedFileIsRefused_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("why");
        for (const char *command : {"run", "sim"}) {
            QTest::addRow("%s: link to /dev/zero", command)
                << QString::fromLatin1(command) << QStringLiteral("dev-zero")
                << QStringLiteral("a character device, not a regular file");
            QTest::addRow("%s: FIFO", command) << QString::fromLatin1(command) << QStringLiteral("fifo")
                                               << QStringLiteral("a FIFO (named pipe), not a regular file");
            QTest::addRow("%s: sparse 200 MiB", command)
                << QString::fromLatin1(command) << QStringLiteral("sparse")
                << QStringLiteral("200 MiB, more than the 16 MiB TokenBench reads of it");
        }
    }

    void configThatIsNoBoundedFileIsRefused()
    {
        QFETCH(QString, command);
        QFETCH(QString, kind);
        QFETCH(QString, why);
        QTemporaryDir tmp;
        const QString config = tmp.filePath(QStringLiteral("config.json"));
        QVERIFY(tb::test::makeUnreadableFile(config, kind, qint64(200) << 20));
        const CliResult r = runCli({command, QStringLiteral("--config"), config},
                                   QProcessEnvironment::systemEnvironment(), 60000); // a hang fails
        QCOMPARE(r.exitCode, 2);
        const QString expected = QStringLiteral("--config: cannot read '%1': %2").arg(config, why);
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
