// The Linux backend's io_uring receive path (UringReceiver): every read carries the kernel's
// receive stamp, ends and aborts are reported once, buffers running out only delays reads, and
// closing a socket ends its connection at once even though a receive was in flight.
#include "platform/linux/uringreceiver.h"
#include "platform/receivestamp.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QTest>

#include <functional>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {

std::int64_t realtimeNs()
{
    ::timespec ts{};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return std::int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

/// A loopback TCP connection: `client` non-blocking with receive stamps on (as TcpStream has it),
/// `server` blocking, the test's peer.
struct Connection {
    Connection()
    {
        const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        ::bind(listener, reinterpret_cast<sockaddr *>(&address), sizeof address);
        ::listen(listener, 1);
        ::getsockname(listener, reinterpret_cast<sockaddr *>(&address), &length);
        client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ::connect(client, reinterpret_cast<sockaddr *>(&address), sizeof address);
        server = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        ::close(listener);
        ::fcntl(client, F_SETFL, ::fcntl(client, F_GETFL) | O_NONBLOCK);
        stamped = tb::enableReceiveStamps(client);
    }
    ~Connection()
    {
        if (client >= 0)
            ::close(client);
        ::close(server);
    }
    Connection(const Connection &) = delete;
    Connection &operator=(const Connection &) = delete;
    void send(const QByteArray &bytes) const
    {
        QCOMPARE(::write(server, bytes.constData(), std::size_t(bytes.size())), ssize_t(bytes.size()));
    }
    /// Whether the peer sees the end (a read of 0) within `ms`.
    bool peerSeesEnd(int ms) const
    {
        ::pollfd p{server, POLLIN, 0};
        char byte = 0;
        return ::poll(&p, 1, ms) == 1 && ::read(server, &byte, 1) == 0;
    }
    int client = -1;
    int server = -1;
    bool stamped = false;
};

class Recorder : public tb::ReceiveHandler
{
public:
    void received(const char *data, std::size_t size, std::int64_t stampNs) override
    {
        bytes.append(data, qsizetype(size));
        stamps.push_back(stampNs);
        if (onRead)
            onRead();
    }
    void receiveEnded(int error) override
    {
        endError = error;
        ++ends;
    }
    QByteArray bytes;
    std::vector<std::int64_t> stamps;
    int ends = 0;
    int endError = -1;
    std::function<void()> onRead;
};

/// Passes of the receiver until `done` or 10 s.
template<class F> bool pump(tb::UringReceiver &receiver, F done)
{
    QElapsedTimer clock;
    clock.start();
    const ::timespec slice{0, 2'000'000};
    while (!done()) {
        if (clock.elapsed() > 10'000)
            return false;
        bool epollReady = false;
        receiver.wait(&slice, &epollReady);
    }
    return true;
}

QByteArray pattern(int size, int seed)
{
    QByteArray bytes(size, Qt::Uninitialized);
    for (int i = 0; i < size; ++i)
        bytes[i] = char('a' + (i * 7 + seed) % 26);
    return bytes;
}

} // namespace

class TestUringReceiver : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        if (!tb::UringReceiver::available())
            QSKIP("io_uring is not offered here (kernel, sandbox or TOKENBENCH_IO=epoll)");
        // 1,000 connections take 2,000 descriptors here.
        ::rlimit limit{};
        ::getrlimit(RLIMIT_NOFILE, &limit);
        limit.rlim_cur = limit.rlim_max;
        ::setrlimit(RLIMIT_NOFILE, &limit);
        m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
        // The kernel turns receive stamping on for the whole system a moment after the first
        // socket asks (a deferred static key): one connection asks now and stays open.
        m_keepStampsOn = std::make_unique<Connection>();
        QTest::qWait(100);
    }
    void cleanupTestCase()
    {
        m_keepStampsOn.reset();
        if (m_epoll >= 0)
            ::close(m_epoll);
    }

    void stampIsTheKernelArrivalNotTheRead_data()
    {
        QTest::addColumn<int>("size");
        QTest::addColumn<int>("sends");
        QTest::newRow("one small event") << 60 << 1;
        QTest::newRow("three events, one read each") << 200 << 3;
        QTest::newRow("one 10,000-byte burst: five reads, one arrival") << 10'000 << 1;
    }
    void stampIsTheKernelArrivalNotTheRead()
    {
        QFETCH(int, size);
        QFETCH(int, sends);
        auto receiver = tb::UringReceiver::create(m_epoll);
        QVERIFY(receiver);
        Connection c;
        QVERIFY(c.stamped);
        Recorder r;
        QVERIFY(receiver->receive(c.client, &r));
        bool epollReady = false;
        const ::timespec none{};
        receiver->wait(&none, &epollReady); // armed before the bytes come
        // The system clock before and after each send.
        std::vector<std::pair<std::int64_t, std::int64_t>> windows;
        QByteArray sent;
        for (int i = 0; i < sends; ++i) {
            const QByteArray bytes = pattern(size, i);
            const std::int64_t before = realtimeNs();
            c.send(bytes);
            windows.emplace_back(before, realtimeNs());
            sent += bytes;
            // Read 100 ms after they arrived: the stamp must still say when they arrived.
            QTest::qSleep(100);
            QVERIFY(pump(*receiver, [&] { return r.bytes.size() == sent.size(); }));
        }
        QCOMPARE(r.bytes, sent);
        QCOMPARE(r.ends, 0);
        // Each read is one stamp: the arrival (on loopback, inside the send) of its bytes.
        QCOMPARE(int(r.stamps.size()), sends * ((size + 2047) / 2048));
        for (std::size_t i = 0; i < r.stamps.size(); ++i) {
            const auto &[before, after] = windows[i * std::size_t(sends) / r.stamps.size()];
            // (on loopback the kernel stamps inside send(); 50 ms of slack for a busy machine)
            QVERIFY2(r.stamps[i] >= before && r.stamps[i] <= std::max(after, before + 50'000'000),
                     qPrintable(QStringLiteral("read %1 stamped %2 ns after its send began (send took %3 ns)")
                                    .arg(i)
                                    .arg(r.stamps[i] - before)
                                    .arg(after - before)));
            if (i > 0)
                QVERIFY(r.stamps[i] >= r.stamps[i - 1]);
        }
    }

    void peerEndIsReportedOnceAfterTheBytes()
    {
        auto receiver = tb::UringReceiver::create(m_epoll);
        Connection c;
        Recorder r;
        QVERIFY(receiver->receive(c.client, &r));
        c.send("last words");
        ::shutdown(c.server, SHUT_WR);
        QVERIFY(pump(*receiver, [&] { return r.ends > 0; }));
        QCOMPARE(r.bytes, QByteArray("last words"));
        QCOMPARE(r.endError, 0);
        QCOMPARE(receiver->queuedInput(c.client), tb::PendingInput::Nothing);
        bool epollReady = false;
        const ::timespec slice{0, 20'000'000};
        receiver->wait(&slice, &epollReady);
        QCOMPARE(r.ends, 1);
    }

    void resetIsReportedAsAnError()
    {
        auto receiver = tb::UringReceiver::create(m_epoll);
        Connection c;
        Recorder r;
        QVERIFY(receiver->receive(c.client, &r));
        const ::linger abortive{1, 0}; // close() sends a reset
        ::setsockopt(c.server, SOL_SOCKET, SO_LINGER, &abortive, sizeof abortive);
        ::close(c.server);
        c.server = ::dup(c.client); // (for the destructor)
        QVERIFY(pump(*receiver, [&] { return r.ends > 0; }));
        QCOMPARE(r.endError, ECONNRESET);
    }

    void abortFromInsideTheHandlerStopsAtOnce()
    {
        auto receiver = tb::UringReceiver::create(m_epoll);
        Connection c;
        Recorder r;
        r.onRead = [&] {
            receiver->endReceive(c.client);
            ::close(c.client);
            c.client = -1;
        };
        QVERIFY(receiver->receive(c.client, &r));
        c.send(pattern(20'000, 1)); // ten reads' worth, all there before the pass
        QVERIFY(pump(*receiver, [&] { return !r.stamps.empty(); }));
        QVERIFY(c.peerSeesEnd(2000));
        bool epollReady = false;
        const ::timespec slice{0, 20'000'000};
        receiver->wait(&slice, &epollReady);
        QCOMPARE(int(r.stamps.size()), 1);
        QCOMPARE(r.bytes, pattern(20'000, 1).left(2048));
        QCOMPARE(r.ends, 0);
    }

    void closeAfterEndReceiveSendsTheEndAtOnce()
    {
        auto receiver = tb::UringReceiver::create(m_epoll);
        Connection c;
        Recorder r;
        QVERIFY(receiver->receive(c.client, &r));
        bool epollReady = false;
        const ::timespec none{};
        receiver->wait(&none, &epollReady); // the receive is in flight, holding the file
        receiver->endReceive(c.client);
        ::close(c.client);
        c.client = -1;
        // No pass of the receiver in between: the cancel itself let go of the file.
        QVERIFY(c.peerSeesEnd(2000));
    }

    void thousandSocketsEachGetTheirOwnBytes()
    {
        auto receiver = tb::UringReceiver::create(m_epoll);
        std::vector<std::unique_ptr<Connection>> connections;
        std::vector<Recorder> recorders(1000);
        for (int i = 0; i < 1000; ++i) {
            connections.push_back(std::make_unique<Connection>());
            QVERIFY(connections.back()->client >= 0 && connections.back()->server >= 0);
            QVERIFY(receiver->receive(connections.back()->client, &recorders[std::size_t(i)]));
        }
        for (int i = 0; i < 1000; ++i)
            connections[std::size_t(i)]->send(pattern(100 + i, i));
        QVERIFY(pump(*receiver, [&] {
            for (int i = 0; i < 1000; ++i)
                if (recorders[std::size_t(i)].bytes.size() < 100 + i)
                    return false;
            return true;
        }));
        for (int i = 0; i < 1000; ++i)
            QCOMPARE(recorders[std::size_t(i)].bytes, pattern(100 + i, i));
    }

    void buffersRunningOutOnlyDelaysReads()
    {
        // 40 sockets with 16 KiB each: 320 reads of 2,048 bytes, and 16 provided buffers, so
        // receives end with ENOBUFS and are started again once a pass has given buffers back.
        auto receiver = tb::UringReceiver::create(m_epoll, 16);
        QVERIFY(receiver);
        constexpr int kSockets = 40;
        constexpr int kBytes = 16'384;
        std::vector<std::unique_ptr<Connection>> connections;
        std::vector<Recorder> recorders(kSockets);
        for (int i = 0; i < kSockets; ++i) {
            connections.push_back(std::make_unique<Connection>());
            QVERIFY(receiver->receive(connections.back()->client, &recorders[std::size_t(i)]));
        }
        for (int i = 0; i < kSockets; ++i)
            connections[std::size_t(i)]->send(pattern(kBytes, i));
        QVERIFY(pump(*receiver, [&] {
            for (const Recorder &r : recorders)
                if (r.bytes.size() < kBytes)
                    return false;
            return true;
        }));
        for (int i = 0; i < kSockets; ++i)
            QCOMPARE(recorders[std::size_t(i)].bytes, pattern(kBytes, i));
        QVERIFY2(receiver->rearmsForBuffers() > 0, "the pass never ran out of buffers: the test tests nothing");
    }

    void lateCompletionAfterDescriptorReuseIsDropped()
    {
        // Both sockets' bytes are read in one pass; the first handler closes the other socket and
        // a new connection takes its descriptor number: the other's read, already completed, must
        // not reach the new connection's handler.
        auto receiver = tb::UringReceiver::create(m_epoll);
        Connection a;
        Connection b;
        Connection fresh;
        Recorder ra;
        Recorder rb;
        Recorder rfresh;
        bool queuedWhenEnded = false;
        const auto swapOut = [&](Connection &other, Recorder &otherRecorder) {
            return [&, otherFd = other.client] {
                if (!otherRecorder.stamps.empty() || rfresh.onRead)
                    return;
                queuedWhenEnded = receiver->queuedInput(otherFd) == tb::PendingInput::Bytes;
                receiver->endReceive(otherFd);
                QCOMPARE(::dup2(fresh.client, otherFd), otherFd); // the same number, another connection
                QVERIFY(receiver->receive(otherFd, &rfresh));
                rfresh.onRead = [] {};
            };
        };
        ra.onRead = swapOut(b, rb);
        rb.onRead = swapOut(a, ra);
        QVERIFY(receiver->receive(a.client, &ra));
        QVERIFY(receiver->receive(b.client, &rb));
        bool epollReady = false;
        const ::timespec none{};
        receiver->wait(&none, &epollReady);
        a.send("for a");
        b.send("for b");
        QVERIFY(pump(*receiver, [&] { return !ra.stamps.empty() || !rb.stamps.empty(); }));
        QVERIFY2(queuedWhenEnded, "the other socket's read was not waiting in the pass: the test tests nothing");
        fresh.send("fresh");
        QVERIFY(pump(*receiver, [&] { return !rfresh.bytes.isEmpty(); }));
        QCOMPARE(rfresh.bytes, QByteArray("fresh"));
        QCOMPARE(ra.stamps.size() + rb.stamps.size(), std::size_t(1));
    }

    void idleWaitWithoutTimeoutDoesNotReturnEmpty()
    {
        // Regression: a wait with no timeout that gathers completions (the kernel's minimum wait)
        // returned empty when the minimum wait ended, so an idle transport thread woke 2,000 times
        // a second (tst_epolleventdispatcher's wakeUpEndsAnIdleWait found it).
        auto receiver = tb::UringReceiver::create(m_epoll);
        Connection c;
        Recorder r;
        QVERIFY(receiver->receive(c.client, &r));
        QElapsedTimer clock;
        clock.start();
        std::thread sender([&] {
            QTest::qSleep(200);
            c.send("late");
        });
        bool epollReady = false;
        receiver->wait(nullptr, &epollReady); // armed; may return at once with nothing
        if (r.bytes.isEmpty())
            receiver->wait(nullptr, &epollReady);
        sender.join();
        QCOMPARE(r.bytes, QByteArray("late"));
        QVERIFY2(clock.elapsed() >= 150, qPrintable(QString::number(clock.elapsed())));
    }

    /// limitGather(): the transport keeps the gathering under a thousandth of its exchanges' time
    /// (a closed loop's next request waits for the last read of the one before); never past 0.5 ms,
    /// and not at all under 1 µs.
    void gatherIsLimited()
    {
        auto receiver = tb::UringReceiver::create(m_epoll);
        QVERIFY(receiver);
        if (!receiver->gathers(nullptr))
            QSKIP("this kernel's waits do not gather (minimum waits came with 6.12)");
        const ::timespec us50{0, 50'000};
        const ::timespec us150{0, 150'000};
        const ::timespec us600{0, 600'000};
        QVERIFY(receiver->gathers(&us600)); // 0.5 ms unless limited
        QVERIFY(!receiver->gathers(&us150));
        receiver->limitGather(10'000'000'000); // no longer than 0.5 ms all the same
        QVERIFY(receiver->gathers(&us600));
        receiver->limitGather(100'000);
        QVERIFY(receiver->gathers(&us150));
        QVERIFY(!receiver->gathers(&us50)); // a wait no longer than the gathering is not one
        receiver->limitGather(999);
        QVERIFY(!receiver->gathers(nullptr));
        receiver->limitGather(-1);
        QVERIFY(!receiver->gathers(nullptr));
    }

    void epollDescriptorTurningReadableIsReported()
    {
        auto receiver = tb::UringReceiver::create(m_epoll);
        const int wake = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        epoll_event e{};
        e.events = EPOLLIN;
        QCOMPARE(::epoll_ctl(m_epoll, EPOLL_CTL_ADD, wake, &e), 0);
        const std::uint64_t one = 1;
        QCOMPARE(::write(wake, &one, sizeof one), ssize_t(sizeof one));
        bool epollReady = false;
        const ::timespec slice{1, 0};
        receiver->wait(&slice, &epollReady);
        QVERIFY(epollReady);
        ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, wake, nullptr);
        ::close(wake);
    }

private:
    int m_epoll = -1;
    std::unique_ptr<Connection> m_keepStampsOn;
};

QTEST_GUILESS_MAIN(TestUringReceiver)
#include "tst_uringreceiver.moc"
