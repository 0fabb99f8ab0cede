// bench_ui: does the workbench stay responsive under load (issue 5's quality bar: event-loop stalls
// of the GUI thread under 50 ms at 1 000 concurrent streams)?
//
// Starts the simulator as a separate process (its threads would otherwise compete with the GUI's
// for the cores), opens the main window with the dashboard showing (offscreen unless
// QT_QPA_PLATFORM says otherwise), runs N concurrent streams through it for S seconds, and
// measures the GUI thread's event loop with a 5 ms timer: each tick notes how much later than
// 5 ms after the previous one it fired, how much CPU the GUI thread itself used meanwhile and how
// long it waited, runnable, for a core (Linux's schedstat: on a shared machine most of a stall).
// Prints the stalls' percentiles and the largest, with what the GUI did meanwhile (rows appended to
// the requests table, dashboard redraws, chunks streamed); then what the requests table costs at
// 100 000 rows more.
//
// Usage: bench_ui [--cli PATH] [--streams 1000] [--seconds 20] [--tokens-per-s 20000]
#include "pacedsimulator.h"

#include "editors/configeditor.h"
#include "mainwindow.h"
#include "models/requestsmodel.h"
#include "views/dashboardview.h"
#include "views/requestsview.h"
#include "views/rundocument.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

using namespace tb;

namespace {

constexpr int kTickMs = 5;

/// The GUI thread's event loop, sampled: a precise 5 ms timer that records how late each tick is.
class StallMonitor : public QObject
{
public:
    StallMonitor()
        : m_schedstat(::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC))
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(kTickMs);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            const qint64 now = m_clock.nsecsElapsed();
            const qint64 cpu = threadCpuNs();
            const qint64 wait = threadRunQueueWaitNs();
            m_lateMs.push_back(std::max(0.0, double(now - m_last) / 1e6 - kTickMs));
            m_cpuMs.push_back(double(cpu - m_lastCpu) / 1e6);
            m_waitMs.push_back(double(wait - m_lastWait) / 1e6);
            m_atS.push_back(double(now) / 1e9);
            m_last = now;
            m_lastCpu = cpu;
            m_lastWait = wait;
        });
    }

    void start()
    {
        m_clock.start();
        m_last = 0;
        m_lastCpu = threadCpuNs();
        m_lastWait = threadRunQueueWaitNs();
        m_timer.start();
    }

    /// CPU time the GUI thread itself spent between two ticks: its own work, as opposed to time it
    /// waited for a core.
    static qint64 threadCpuNs()
    {
        timespec t{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return qint64(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
    }
    /// How long the GUI thread has waited, runnable, for a core (Linux's schedstat: the second
    /// figure of /proc/thread-self/schedstat); -1 where the kernel does not say. The file stays
    /// open and is read again from its start: opening it at every tick cost the GUI thread a fifth
    /// of its time at 10,000 streams (perf), which is not the workbench's.
    qint64 threadRunQueueWaitNs()
    {
        if (m_schedstat < 0)
            return -1;
        char text[128] = {};
        const ssize_t n = ::pread(m_schedstat, text, sizeof text - 1, 0);
        if (n <= 0)
            return -1;
        const char *second = std::strchr(text, ' ');
        return second ? qint64(std::min<unsigned long long>(std::strtoull(second, nullptr, 10), 1ULL << 62)) : -1;
    }
    /// Of the ticks later than `ms`: the median share of their time spent waiting for a core
    /// (the rest is the GUI thread's own work, or none of either: the timer itself); -1 when none.
    double waitShareOver(double ms) const
    {
        std::vector<double> shares;
        for (std::size_t i = 0; i < m_lateMs.size(); ++i) {
            if (m_lateMs[i] > ms)
                shares.push_back(std::clamp(m_waitMs[i] / (m_lateMs[i] + kTickMs), 0.0, 1.0));
        }
        if (shares.empty() || m_lastWait < 0)
            return -1;
        std::sort(shares.begin(), shares.end());
        return shares[shares.size() / 2];
    }
    /// The GUI thread's CPU time over the whole measurement, in ms per second of it.
    double cpuMsPerS() const
    {
        double sum = 0;
        for (const double ms : m_cpuMs)
            sum += ms;
        return m_atS.empty() || m_atS.back() <= 0 ? 0 : sum / m_atS.back();
    }
    double maxCpuMs() const { return m_cpuMs.empty() ? 0 : *std::max_element(m_cpuMs.begin(), m_cpuMs.end()); }
    double cpuPercentile(double q) const
    {
        if (m_cpuMs.empty())
            return 0;
        std::vector<double> sorted = m_cpuMs;
        std::sort(sorted.begin(), sorted.end());
        return sorted[std::min(sorted.size() - 1, std::size_t(q * double(sorted.size())))];
    }
    void stop() { m_timer.stop(); }
    ~StallMonitor() override
    {
        if (m_schedstat >= 0)
            ::close(m_schedstat);
    }
    StallMonitor(const StallMonitor &) = delete;
    StallMonitor &operator=(const StallMonitor &) = delete;

    std::size_t ticks() const { return m_lateMs.size(); }
    double percentile(double q) const
    {
        if (m_lateMs.empty())
            return 0;
        std::vector<double> sorted = m_lateMs;
        std::sort(sorted.begin(), sorted.end());
        return sorted[std::min(sorted.size() - 1, std::size_t(q * double(sorted.size())))];
    }
    double max() const { return m_lateMs.empty() ? 0 : *std::max_element(m_lateMs.begin(), m_lateMs.end()); }
    /// "12.3 ms at 4.5 s, …": the largest stalls and when they ended (seconds after the start).
    QString worst(int n) const
    {
        std::vector<std::size_t> order(m_lateMs.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = i;
        std::sort(order.begin(), order.end(),
                  [this](std::size_t a, std::size_t b) { return m_lateMs[a] > m_lateMs[b]; });
        QStringList parts;
        for (std::size_t i = 0; i < order.size() && int(i) < n; ++i)
            parts << QStringLiteral("%1 ms at %2 s (GUI CPU %3 ms, waiting for a core %4 ms)")
                         .arg(m_lateMs[order[i]], 0, 'f', 1)
                         .arg(m_atS[order[i]], 0, 'f', 1)
                         .arg(m_cpuMs[order[i]], 0, 'f', 1)
                         .arg(m_waitMs[order[i]], 0, 'f', 1);
        return parts.join(QStringLiteral(", "));
    }
    std::size_t over(double ms) const
    {
        return std::size_t(std::count_if(m_lateMs.begin(), m_lateMs.end(), [ms](double v) { return v > ms; }));
    }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    std::vector<double> m_lateMs;
    std::vector<double> m_atS;
    std::vector<double> m_cpuMs;
    std::vector<double> m_waitMs;
    qint64 m_lastCpu = 0;
    qint64 m_lastWait = 0;
    int m_schedstat = -1; ///< the GUI thread's /proc/thread-self/schedstat: the monitor lives on it
};

/// The requests table after a long run: 100 000 more rows in batches of 1 000 through the window's
/// own model, filter and view (as a run appends them), then a sort by TTFT.
void tableFigures(MainWindow &window)
{
    RequestsModel *model = window.document()->requests();
    if (model->rowCount() == 0)
        return;
    window.resultsTabs()->setCurrentWidget(window.requestsView());
    QList<RequestRecord> batch;
    for (int i = 0; i < 1000; ++i)
        batch.append(model->record(i % model->rowCount()));
    std::vector<double> batchMs;
    QElapsedTimer clock;
    for (int b = 0; b < 100; ++b) {
        for (qsizetype i = 0; i < batch.size(); ++i)
            batch[i].id = std::uint64_t(1'000'000 + b * 1000 + i);
        clock.start();
        model->append(batch);
        QCoreApplication::processEvents(); // the view lays out and paints what arrived, as between batches of a run
        batchMs.push_back(double(clock.nsecsElapsed()) / 1e6);
    }
    std::sort(batchMs.begin(), batchMs.end());
    clock.start();
    window.requestsView()->table()->sortByColumn(RequestsModel::TtftColumn, Qt::DescendingOrder);
    QCoreApplication::processEvents();
    const double sortMs = double(clock.nsecsElapsed()) / 1e6;
    clock.start();
    window.requestsView()->filter()->setErrorsOnly(true);
    QCoreApplication::processEvents();
    const double filterMs = double(clock.nsecsElapsed()) / 1e6;
    std::printf(
        "  requests table: %d rows after 100 more batches of 1 000 (append + repaint: median %.1f ms, max %.1f ms "
        "a batch); sort by TTFT %.0f ms, filter to errors %.0f ms\n",
        model->rowCount(), batchMs[batchMs.size() / 2], batchMs.back(), sortMs, filterMs);
}

} // namespace

int main(int argc, char *argv[])
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("TokenBench"));
    QApplication::setApplicationName(QStringLiteral("bench_ui"));
    QString cli = QCoreApplication::applicationDirPath() + QStringLiteral("/../app/tokenbench-cli");
    int streams = 1000;
    int seconds = 20;
    double tokensPerS = 20000;
    const QStringList args = QCoreApplication::arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--cli"))
            cli = args[i + 1];
        else if (args[i] == QLatin1String("--streams"))
            streams = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--seconds"))
            seconds = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--tokens-per-s"))
            tokensPerS = args[i + 1].toDouble();
    }

    PacedSimulator sim;
    if (!sim.start(cli, streams, tokensPerS, 50)) {
        std::fprintf(stderr, "bench_ui: cannot start the simulator (%s)\n", qPrintable(cli));
        return 1;
    }

    // Other work on the machine competes with all of this for the cores: say how much there was.
    QFile loadavg(QStringLiteral("/proc/loadavg"));
    const QString loadBefore = loadavg.open(QIODevice::ReadOnly)
                                   ? QString::fromLatin1(loadavg.readAll()).section(QLatin1Char(' '), 0, 0)
                                   : QStringLiteral("unknown");

    QTemporaryDir runs;
    MainWindow window;
    window.setSettingsWritable(false);
    window.setRunsFolder(runs.path());
    RunConfig config;
    config.target.name = QStringLiteral("bench simulator");
    config.target.url = sim.base() + QStringLiteral("/v1");
    config.target.model = QStringLiteral("fast");
    config.prompt.promptTokens = 64;
    config.request.maxTokens = sim.outputTokens();
    config.load.concurrency = streams;
    config.load.durationMs = qint64(seconds) * 1000;
    window.configEditor()->setConfig(config);
    window.resize(1440, 900);
    window.show();
    window.resultsTabs()->setCurrentWidget(window.dashboard());

    StallMonitor monitor;
    int status = 0;
    QObject::connect(&window, &MainWindow::runStarted, &monitor, [&monitor] { monitor.start(); });
    const auto report = [&](const RunOutcome &outcome) {
        monitor.stop();
        const SummaryBlock &total = outcome.summary.total;
        std::printf("bench_ui: %d concurrent streams for %d s, simulator in a separate process (%d tokens/s in total), "
                    "dashboard shown (%s); load average before the run %s\n",
                    streams, seconds, int(tokensPerS), qPrintable(QApplication::platformName()),
                    qPrintable(loadBefore));
        std::printf(
            "  load: peak in flight %d, %lld requests ok, %lld chunks (%.0f/s), %d table rows, %d dashboard redraws\n",
            total.concurrency.peakInFlight, static_cast<long long>(total.requests.ok),
            static_cast<long long>(outcome.progress.chunks),
            double(outcome.progress.chunks) / std::max(1e-9, total.windowS), window.document()->requests()->rowCount(),
            window.dashboard()->redrawCount());
        std::printf(
            "  GUI event-loop stalls (lateness of a %d ms timer, %zu ticks): p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, "
            "max %.2f ms; %zu over 16 ms, %zu over 50 ms\n",
            kTickMs, monitor.ticks(), monitor.percentile(0.5), monitor.percentile(0.99), monitor.percentile(0.999),
            monitor.max(), monitor.over(16), monitor.over(50));
        std::printf("  GUI thread's own work between ticks: p99 %.2f ms, max %.2f ms; %.1f ms of CPU a second in all\n",
                    monitor.cpuPercentile(0.99), monitor.maxCpuMs(), monitor.cpuMsPerS());
        std::printf(
            "  stalls over 16 ms: median %.0f %% of their time waiting for a core (schedstat), the rest the GUI "
            "thread's own work\n",
            100 * monitor.waitShareOver(16));
        std::printf("  largest: %s\n", qPrintable(monitor.worst(8)));
        if (!outcome.error.isEmpty()) {
            std::fprintf(stderr, "bench_ui: the run failed: %s\n", qPrintable(outcome.error));
            status = 1;
        }
        tableFigures(window);
        QApplication::exit(status);
    };
    // The report waits a moment after the run: the end of a run (closing 1 000 connections, the
    // final redraw) is part of what the GUI thread lives through.
    QObject::connect(&window, &MainWindow::runFinished, &app, [&](const RunOutcome &finished) {
        QTimer::singleShot(250, &app, [&, outcome = finished] { report(outcome); });
    });

    QTimer::singleShot(0, &window, [&] {
        QString error;
        if (!window.startRun(&error)) {
            std::fprintf(stderr, "bench_ui: cannot run: %s\n", qPrintable(error));
            QApplication::exit(1);
        }
    });
    return QApplication::exec();
}
