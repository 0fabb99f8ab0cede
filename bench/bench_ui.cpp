// bench_ui: does the workbench stay responsive under load (issue 5's quality bar: event-loop stalls
// of the GUI thread under 50 ms at 1 000 concurrent streams)?
//
// Starts the simulator as a separate process (its threads would otherwise compete with the GUI's
// for the cores), opens the main window with the dashboard showing (offscreen unless
// QT_QPA_PLATFORM says otherwise), runs N concurrent streams through it for S seconds, and
// measures the GUI thread's event loop with a 5 ms timer: each tick notes how much later than
// 5 ms after the previous one it fired, and how much CPU the GUI thread itself used meanwhile (the
// rest of a stall is waiting for a core). Prints the stalls' percentiles and the largest, with what
// the GUI did meanwhile (rows appended to the requests table, dashboard redraws, chunks streamed);
// then what the requests table costs at 100 000 rows more.
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
#include <ctime>
#include <vector>

using namespace tb;

namespace {

constexpr int kTickMs = 5;

/// The GUI thread's event loop, sampled: a precise 5 ms timer that records how late each tick is.
class StallMonitor : public QObject
{
public:
    StallMonitor()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(kTickMs);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            const qint64 now = m_clock.nsecsElapsed();
            const qint64 cpu = threadCpuNs();
            m_lateMs.push_back(std::max(0.0, double(now - m_last) / 1e6 - kTickMs));
            m_cpuMs.push_back(double(cpu - m_lastCpu) / 1e6);
            m_atS.push_back(double(now) / 1e9);
            m_last = now;
            m_lastCpu = cpu;
        });
    }

    void start()
    {
        m_clock.start();
        m_last = 0;
        m_lastCpu = threadCpuNs();
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
            parts << QStringLiteral("%1 ms at %2 s (GUI CPU %3 ms)")
                         .arg(m_lateMs[order[i]], 0, 'f', 1)
                         .arg(m_atS[order[i]], 0, 'f', 1)
                         .arg(m_cpuMs[order[i]], 0, 'f', 1);
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
    qint64 m_lastCpu = 0;
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
    const QStringList args = app.arguments();
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
        std::printf("  GUI thread's own work between ticks: p99 %.2f ms, max %.2f ms\n", monitor.cpuPercentile(0.99),
                    monitor.maxCpuMs());
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
