// BackgroundJobs: results come back on the owner's thread, and a job superseded by a newer
// runLatest() sees its CancelToken cancelled (or never starts) and its result is dropped.
#include "threads/backgroundjobs.h"

#include <QDeadlineTimer>
#include <QTest>
#include <QThread>

#include <atomic>
#include <memory>
#include <optional>

using namespace tb;

class TestBackgroundJobs : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void supersededJobIsCancelledAndDropped_data()
    {
        QTest::addColumn<bool>("whileRunning");
        QTest::newRow("superseded while running: it sees the cancellation") << true;
        QTest::newRow("superseded while queued: it never starts") << false;
    }
    void supersededJobIsCancelledAndDropped()
    {
        QFETCH(bool, whileRunning);
        QObject owner;
        BackgroundJobs jobs(&owner);
        QStringList delivered;
        const auto deliver = [&delivered](const QString &result) { delivered << result; };

        // A plain job ahead of it holds the one worker thread until released (queued case).
        auto release = std::make_shared<std::atomic<bool>>(whileRunning);
        jobs.run(
            [release] {
                const QDeadlineTimer deadline(10000);
                while (!release->load() && !deadline.hasExpired())
                    QThread::msleep(1);
                return QStringLiteral("blocker");
            },
            deliver);

        auto started = std::make_shared<std::atomic<bool>>(false);
        auto sawCancel = std::make_shared<std::atomic<bool>>(false);
        jobs.runLatest(
            [started, sawCancel](const CancelToken &cancel) {
                started->store(true);
                const QDeadlineTimer deadline(10000);
                while (!cancel.isCancelled() && !deadline.hasExpired())
                    QThread::msleep(1);
                sawCancel->store(cancel.isCancelled());
                return QStringLiteral("stale");
            },
            deliver);
        if (whileRunning)
            QTRY_VERIFY_WITH_TIMEOUT(started->load(), 10000);
        jobs.runLatest([] { return QStringLiteral("newest"); }, deliver);
        release->store(true);

        QTRY_COMPARE_WITH_TIMEOUT(jobs.pending(), 0, 10000);
        QCOMPARE(started->load(), whileRunning);
        QCOMPARE(sawCancel->load(), whileRunning);
        QCOMPARE(delivered, (QStringList{QStringLiteral("blocker"), QStringLiteral("newest")}));
    }

    void latestJobIsNotCancelled()
    {
        QObject owner;
        BackgroundJobs jobs(&owner);
        std::optional<bool> cancelled;
        jobs.runLatest([](const CancelToken &cancel) { return cancel.isCancelled(); },
                       [&cancelled](bool c) { cancelled = c; });
        QTRY_VERIFY_WITH_TIMEOUT(cancelled.has_value(), 10000);
        QCOMPARE(*cancelled, false);
        QCOMPARE(jobs.pending(), 0);
    }
};

QTEST_GUILESS_MAIN(TestBackgroundJobs)
#include "tst_backgroundjobs.moc"
