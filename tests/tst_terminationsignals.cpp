// The platform seam's termination signals (platform/terminationsignals.h): a signal becomes a byte
// on a socket the event loop watches, its number kept, each one counted. tst_runcli and tst_simcli
// check the whole path (a signal to tokenbench-cli, SignalWatcher, the run saved).

#include "platform/terminationsignals.h"

#include <QSysInfo>
#include <QTest>

#include <csignal>

using namespace tb;

class TestTerminationSignals : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void nothingWaitsBeforeASignal()
    {
        TerminationSignals requests;
        QVERIFY(requests.socket() != kNoSocket);
        QCOMPARE(requests.take(), 0);
    }

    /// std::raise() reaches the handler only where SIGINT and SIGTERM are the OS's own signals
    /// (on Windows the console's events are, which a test cannot send itself).
    void eachSignalBecomesOneByteWithItsNumber()
    {
        if (QSysInfo::kernelType() == QLatin1String("winnt"))
            QSKIP("Windows: console events, not signals");
        TerminationSignals requests;
        QVERIFY(requests.socket() != kNoSocket);
        QCOMPARE(std::raise(SIGINT), 0);
        QCOMPARE(std::raise(SIGTERM), 0);
        QCOMPARE(std::raise(SIGINT), 0);
        QCOMPARE(requests.take(), SIGINT);
        QCOMPARE(requests.take(), SIGTERM);
        QCOMPARE(requests.take(), SIGINT);
        QCOMPARE(requests.take(), 0);
    }

    /// A second instance after the first (one command after another in a test) works as the first.
    void aSecondInstanceAfterTheFirstWorks()
    {
        if (QSysInfo::kernelType() == QLatin1String("winnt"))
            QSKIP("Windows: console events, not signals");
        {
            const TerminationSignals first;
        }
        TerminationSignals second;
        QCOMPARE(std::raise(SIGTERM), 0);
        QCOMPARE(second.take(), SIGTERM);
    }
};

QTEST_GUILESS_MAIN(TestTerminationSignals)
#include "tst_terminationsignals.moc"
