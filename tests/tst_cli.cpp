// tokenbench-cli as users run it: a real process, its exit codes and messages.
#include "tokenbench/version.h"

#include <QProcess>
#include <QTest>

#include "support/clirunner.h"

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
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
