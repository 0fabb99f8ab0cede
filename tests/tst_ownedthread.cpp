#include "threads/ownedthread.h"

#include <QPointer>
#include <QTest>
#include <QTimer>

#include <atomic>
#include <memory>

namespace {

/// What a worker's destructor saw, kept outside the worker so the test reads it afterwards.
struct Teardown {
    std::atomic<int> destroyed{0};
    std::atomic<QThread *> on{nullptr};
};

/// Keeps its thread's event loop busy with a timer, as a run's sockets and timers do.
class Worker : public QObject
{
public:
    explicit Worker(std::shared_ptr<Teardown> teardown)
        : m_teardown(std::move(teardown))
    {
        m_timer.setParent(this);
        m_timer.setInterval(1);
        connect(&m_timer, &QTimer::timeout, this, [this] { ++m_ticks; });
    }
    ~Worker() override
    {
        m_teardown->on = QThread::currentThread();
        ++m_teardown->destroyed;
    }
    void begin()
    {
        QMetaObject::invokeMethod(
            this, [this] { m_timer.start(); }, Qt::QueuedConnection);
    }

private:
    std::shared_ptr<Teardown> m_teardown;
    QTimer m_timer;
    int m_ticks = 0;
};

enum class Ending { Stop, StopTwice, Destructor, Retire };

} // namespace

Q_DECLARE_METATYPE(Ending)

class TestOwnedThread : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void endingDeletesTheWorkerOnItsThreadOnce_data()
    {
        QTest::addColumn<Ending>("ending");
        QTest::newRow("stop") << Ending::Stop;
        QTest::newRow("stop twice") << Ending::StopTwice;
        QTest::newRow("destructor") << Ending::Destructor;
        QTest::newRow("retire") << Ending::Retire;
    }

    void endingDeletesTheWorkerOnItsThreadOnce()
    {
        QFETCH(Ending, ending);
        auto teardown = std::make_shared<Teardown>();
        auto owned = std::make_unique<tb::OwnedThread<Worker>>();
        owned->start(new Worker(teardown), QStringLiteral("tb-test-worker"));
        QVERIFY(owned->isRunning());
        Worker *worker = owned->worker();
        QVERIFY(worker);
        worker->begin();
        QThread *const workerThread = worker->thread();
        const QPointer<QThread> thread = workerThread;
        QVERIFY(workerThread != QThread::currentThread());
        QCOMPARE(thread->objectName(), QStringLiteral("tb-test-worker"));
        QTRY_VERIFY_WITH_TIMEOUT(thread->isRunning(), 10000);

        switch (ending) {
        case Ending::Stop:
            owned->stop();
            break;
        case Ending::StopTwice:
            owned->stop();
            owned->stop();
            break;
        case Ending::Destructor:
            owned.reset();
            break;
        case Ending::Retire: {
            const QPointer<QThread> retired = owned->retire();
            QCOMPARE(retired.data(), thread.data());
            QVERIFY(!owned->isRunning());
            QVERIFY(!owned->retire()); // nothing left to retire
            // Deleted by the caller's event loop once it has ended, without anyone waiting.
            QTRY_VERIFY_WITH_TIMEOUT(retired.isNull(), 10000);
            break;
        }
        }
        if (owned) {
            QVERIFY(!owned->isRunning());
            QVERIFY(!owned->worker());
        }
        QVERIFY(thread.isNull()); // ended and deleted
        QCOMPARE(teardown->destroyed.load(), 1);
        QCOMPARE(teardown->on.load(), workerThread); // compared, never dereferenced: it is gone
    }

    void stopWithoutStartDoesNothing()
    {
        tb::OwnedThread<Worker> owned;
        owned.stop();
        owned.stop();
        QVERIFY(!owned.isRunning());
        QVERIFY(!owned.worker());
    }

    void startAgainStopsTheFirstWorker()
    {
        auto first = std::make_shared<Teardown>();
        auto second = std::make_shared<Teardown>();
        tb::OwnedThread<Worker> owned;
        owned.start(new Worker(first), QStringLiteral("tb-test-first"));
        owned.start(new Worker(second), QStringLiteral("tb-test-second"));
        QCOMPARE(first->destroyed.load(), 1);
        QCOMPARE(second->destroyed.load(), 0);
        QCOMPARE(owned.worker()->thread()->objectName(), QStringLiteral("tb-test-second"));
        owned.stop();
        QCOMPARE(second->destroyed.load(), 1);
    }
};

QTEST_GUILESS_MAIN(TestOwnedThread)
#include "tst_ownedthread.moc"
