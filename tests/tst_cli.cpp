// tokenbench-cli as users run it: a real process, its exit codes and messages.
#include "tokenbench/version.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "support/clirunner.h"
#include "support/testfiles.h"

namespace {} // namespace

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
        // SPEC §1: tokenbench-cli links no QtWidgets/QtGui, so it runs on a server without X.
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
