// Run and watch, end to end in the main window against the built-in simulator (in process, real
// sockets on 127.0.0.1): a run fills the dashboard's charts and tiles and the requests table as it
// goes; Stop mid-run (twice) ends it promptly and leaves a saved run; closing the window during a
// run stops it and closes once saved; saved runs open from the history into the same views, with
// a request's chunk timeline read on demand; exports parse back to the same numbers; and the
// window, photographed, shows charts with something drawn in them.
#include "charts/chartstyle.h"
#include "charts/chartview.h"
#include "charts/comparisoncharts.h"
#include "charts/contextsweepchart.h"
#include "charts/distributionchart.h"
#include "charts/timechart.h"
#include "charts/tokenchart.h"
#include "editors/configeditor.h"
#include "mainwindow.h"
#include "models/requestsmodel.h"
#include "models/runhistorymodel.h"
#include "models/summarymodel.h"
#include "models/targetlistmodel.h"
#include "models/timelinemodel.h"
#include "views/dashboardview.h"
#include "views/exportdialog.h"
#include "views/requestdetailview.h"
#include "views/requestsview.h"
#include "views/rundocument.h"
#include "views/runhistoryview.h"
#include "views/summaryview.h"
#include "widgets/apptheme.h"
#include "widgets/exportfolder.h"
#include "widgets/kpitile.h"

#include "analysis/comparison.h"
#include "analysis/htmlreport.h"
#include "formats/csv.h"
#include "formats/numberformat.h"
#include "platform/iobackend.h"
#include "results/runfiles.h"
#include "results/runmerge.h"
#include "run/benchmarkrunner.h"
#include "sim/simulatorhost.h"
#include "support/fakemetricsendpoint.h"
#include "support/savedrun.h"
#include "support/testfiles.h"
#include "support/testsettings.h"
#include "support/testsimulator.h"

#include <QAction>
#include <QApplication>
#include <QBarSet>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFontMetricsF>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QProgressBar>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

using namespace tb;

namespace {

constexpr int kRunTimeoutMs = 120000;

/// The built-in simulator at the given preset, with a staged closed-loop load.
RunConfig simulatorConfig(const QString &preset, const QString &stages, int maxTokens = 64)
{
    RunConfig c;
    c.target.name = TargetListModel::builtinName();
    c.target.model = preset;
    c.prompt.promptTokens = 256;
    c.prompt.sharedPrefixTokens = 64;
    c.request.maxTokens = maxTokens;
    c.load.stages = *parseStages(stages, nullptr);
    return c;
}

/// Pixels in `area` of `image` that differ clearly from the white chart background.
double inkFraction(const QImage &image, const QRect &area)
{
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    qint64 ink = 0;
    const QRect r = area.intersected(rgb.rect());
    for (int y = r.top(); y <= r.bottom(); ++y) {
        const auto *line = reinterpret_cast<const QRgb *>(rgb.constScanLine(y));
        for (int x = r.left(); x <= r.right(); ++x)
            ink += qGray(line[x]) < 235;
    }
    return r.isEmpty() ? 0 : double(ink) / double(r.width() * r.height());
}

int points(QLineSeries *series)
{
    return int(series->count());
}

} // namespace

class TestUiDashboard : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_settingsDir;
    QTemporaryDir m_runs;

    /// A window on the simulator whose runs go to m_runs.
    std::unique_ptr<MainWindow> window(const RunConfig &config)
    {
        auto w = std::make_unique<MainWindow>();
        w->setRunsFolder(m_runs.path());
        w->configEditor()->setConfig(config);
        w->resize(1440, 900);
        w->show();
        return w;
    }

    /// Runs the window's configuration to the end; the outcome.
    RunOutcome runToEnd(MainWindow &w)
    {
        QSignalSpy finished(&w, &MainWindow::runFinished);
        QString error;
        if (!w.startRun(&error))
            qFatal("cannot start: %s", qPrintable(error));
        if (!QTest::qWaitFor([&] { return finished.size() == 1; }, kRunTimeoutMs))
            qFatal("the run did not finish");
        return finished.constFirst().constFirst().value<RunOutcome>();
    }

    /// A window running the default preset (it streams for seconds) for a minute, with requests in
    /// flight for Stop or Close to cut.
    std::unique_ptr<MainWindow> windowWithRequestsInFlight()
    {
        auto w = window(simulatorConfig(QStringLiteral("default"), QStringLiteral("c=4:60s"), 256));
        QString error;
        if (!w->startRun(&error))
            qFatal("cannot start: %s", qPrintable(error));
        if (!QTest::qWaitFor([&] { return w->document()->progress().inFlight > 0; }, 30000))
            qFatal("nothing in flight");
        return w;
    }

    // A run in which every request failed because nobody listened at the target, just finished
    // and reopened.
    static void failedRunRows()
    {
        QTest::addColumn<bool>("reopened");
        QTest::newRow("just finished") << false;
        QTest::newRow("reopened") << true;
    }

    /// The window showing a run whose every request was refused (port 9: nobody listens).
    std::unique_ptr<MainWindow> windowOnARefusedRun(bool reopened)
    {
        RunConfig c = simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=2"));
        c.target.name = QStringLiteral("down");
        c.target.url = QStringLiteral("http://127.0.0.1:9/v1");
        c.target.model = QStringLiteral("m");
        c.load.stages.clear();
        c.load.concurrency = 2;
        c.load.requests = 6;
        auto w = window(c);
        const RunOutcome outcome = runToEnd(*w);
        if (!outcome.summary.total.requests.allFailed())
            qFatal("the run did not fail");
        if (reopened) {
            QSignalSpy opened(w.get(), &MainWindow::runOpened);
            if (!w->openRun(outcome.directory) || !QTest::qWaitFor([&] { return opened.size() == 1; }, 30000))
                qFatal("cannot reopen the failed run");
        }
        return w;
    }

    /// A sweep stopped 1.5 s into its second stage, c=4 of 60 s: c=8 never began.
    std::pair<std::unique_ptr<MainWindow>, RunOutcome> stoppedSweep()
    {
        auto w = window(simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=2:1s,c=4:60s,c=8:60s")));
        QSignalSpy finished(w.get(), &MainWindow::runFinished);
        QString error;
        if (!w->startRun(&error))
            qFatal("cannot start: %s", qPrintable(error));
        if (!QTest::qWaitFor([&] { return w->document()->progress().stage == 1; }, 30000))
            qFatal("the second stage never began");
        QTest::qWait(1500);
        w->stop();
        if (!QTest::qWaitFor([&] { return finished.size() == 1; }, 30000))
            qFatal("the stopped run never finished");
        RunOutcome outcome = finished.constFirst().constFirst().value<RunOutcome>();
        w->dashboard()->refresh();
        return {std::move(w), std::move(outcome)};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        test::isolateSettings(m_settingsDir.path(), QStringLiteral("tst_ui_dashboard"));
        QSettings().clear();
        qRegisterMetaType<RunOutcome>();
    }

    /// Issue 32: at 10,000 streams the records of a whole wave of responses arrive together (all
    /// streams started at once end at once). A batch of 10,000 must cost the GUI one insertion into
    /// the requests table, one change of the document and no redraw of its own: the dashboard
    /// redraws only when its timer ticks, however much arrived.
    void recordBurstIsOneInsertionAndRedrawsOnlyOnTheTimer()
    {
        RunDocument document;
        DashboardView dash(&document);
        auto *timer = dash.findChild<QTimer *>(QStringLiteral("dashboardRedrawTimer"));
        QVERIFY(timer);
        timer->stop();
        RunConfig config;
        config.target.url = QStringLiteral("http://127.0.0.1:9/v1");
        config.target.model = QStringLiteral("m");
        document.beginLive(RunInfo::begin(config), m_runs.filePath(QStringLiteral("burst")));
        QSignalSpy inserted(document.requests(), &QAbstractItemModel::rowsInserted);
        QSignalSpy changed(&document, &RunDocument::changed);
        const int redraws = dash.redrawCount();

        QList<RequestRecord> burst;
        for (int i = 0; i < 10'000; ++i) {
            RequestRecord r;
            r.id = std::uint64_t(i + 1);
            r.sentNs = std::int64_t(i) * 1000;
            r.firstTokenNs = r.firstContentNs = r.sentNs + 100'000'000;
            r.doneNs = r.lastTokenNs = r.sentNs + 2'000'000'000;
            r.completionTokens = r.chunks = 50;
            burst.append(r);
        }
        document.addRecords(burst);
        QCoreApplication::processEvents();
        QCOMPARE(inserted.size(), 1);
        QCOMPARE(inserted.constFirst().at(1).toInt(), 0);
        QCOMPARE(inserted.constFirst().at(2).toInt(), 9'999);
        QCOMPARE(changed.size(), 1);
        QCOMPARE(dash.redrawCount(), redraws); // nothing drawn until the timer says so

        timer->start();
        QTRY_VERIFY_WITH_TIMEOUT(dash.redrawCount() > redraws, 10000);
    }

    void liveRunFillsChartsAndTables()
    {
        auto w = window(simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=2:2s,c=6:2s")));
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        QVERIFY2(w->runAction()->isEnabled(), qPrintable(w->configEditor()->problems().join(QLatin1Char('\n'))));
        DashboardView *dash = w->dashboard();
        RequestsModel *requests = w->document()->requests();
        QSignalSpy started(w.get(), &MainWindow::runStarted);
        QSignalSpy finished(w.get(), &MainWindow::runFinished);
        QSignalSpy inserted(requests, &QAbstractItemModel::rowsInserted);

        QTest::keyClick(w.get(), Qt::Key_R, Qt::ControlModifier);
        QTRY_COMPARE(started.size(), 1); // after Run's reachability check of the target
        QVERIFY(w->isRunning());
        const QString directory = started.constFirst().constFirst().toString();
        QCOMPARE(QFileInfo(directory).absolutePath(), QDir(m_runs.path()).absolutePath());
        QVERIFY(!w->runAction()->isEnabled());
        QVERIFY(w->stopAction()->isEnabled());

        // While it runs: rows arrive in batches, the charts and tiles fill from snapshots.
        QTRY_VERIFY_WITH_TIMEOUT(requests->rowCount() > 0, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(dash->redrawCount() > 1 && w->document()->timeSeries().size() >= 2, 30000);
        QVERIFY(w->isRunning());
        QVERIFY(inserted.size() < requests->rowCount()); // batches, not one insertion per record
        QVERIFY(w->findChild<QLabel *>(QStringLiteral("liveStatus"))->text().contains(QStringLiteral("in flight")));
        w->grab().save(QDir::temp().filePath(QStringLiteral("tokenbench-dashboard-live.png")));

        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kRunTimeoutMs);
        const auto outcome = finished.constFirst().constFirst().value<RunOutcome>();
        QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
        QVERIFY(!outcome.cancelled);
        QVERIFY(!w->isRunning());
        QVERIFY(w->runAction()->isEnabled());
        QCOMPARE(w->document()->state(), RunDocument::State::Finished);
        const SummaryBlock &total = outcome.summary.total;
        QVERIFY(total.requests.ok > 10);
        QCOMPARE(std::int64_t(requests->rowCount()),
                 total.requests.attempted + total.requests.cancelled + total.requests.warmup);

        // Charts: points arrived in every series that has data.
        auto *latency = static_cast<TimeChart *>(dash->chartView(QStringLiteral("latency-over-time"))->chart());
        for (QLineSeries *line : latency->lines())
            QVERIFY2(points(line) > 0, qPrintable(line->name()));
        auto *throughput = static_cast<TimeChart *>(dash->chartView(QStringLiteral("throughput"))->chart());
        QVERIFY(points(throughput->lines().at(0)) >= 3);
        auto *concurrency = static_cast<TimeChart *>(dash->chartView(QStringLiteral("concurrency"))->chart());
        QVERIFY(points(concurrency->lines().at(0)) >= 3);
        QCOMPARE(concurrency->lines().at(1)->at(0).y(), 2.0); // the target steps 2 → 6
        QCOMPARE(concurrency->lines().at(1)->at(2).y(), 6.0);
        QVERIFY(dash->distributionChart()->hasData());
        auto *tokens = static_cast<TokenChart *>(dash->chartView(QStringLiteral("token-efficiency"))->chart());
        QVERIFY(tokens->hasData());
        QCOMPARE(tokens->inputSet()->count(), 2);                                // one group per stage
        QVERIFY(dash->chartView(QStringLiteral("errors-by-status"))->isEmpty()); // the simulator did not fail
        QVERIFY(!dash->chartView(QStringLiteral("latency-over-time"))->isEmpty());
        QCOMPARE(dash->tile(QStringLiteral("error_pct"))->value(), QStringLiteral("0"));
        QCOMPARE(dash->tile(QStringLiteral("in_flight"))->value(),
                 QStringLiteral("%1 / 6").arg(total.concurrency.peakInFlight));
        QVERIFY(dash->tile(QStringLiteral("ttft_p50"))->value().endsWith(QStringLiteral(" ms")));
        for (const char *metric : {"TPOT", "ITL", "E2E"}) {
            auto *box = dash->findChild<QComboBox *>(QStringLiteral("distributionMetric"));
            box->setCurrentText(QString::fromLatin1(metric));
            QVERIFY2(dash->distributionChart()->hasData(), metric);
            QVERIFY(dash->distributionChart()->title().startsWith(QString::fromLatin1(metric)));
        }
        dash->setDistributionMode(DistributionChart::Mode::Histogram);
        QVERIFY(dash->distributionChart()->title().contains(QStringLiteral("distribution")));

        // The history lists the new run.
        QTRY_VERIFY_WITH_TIMEOUT(w->history()->rowOf(directory) >= 0, 20000);

        // The picture: every chart with data has something drawn in its area.
        w->resultsTabs()->setCurrentWidget(dash);
        QString error;
        const QString shot = QDir::temp().filePath(QStringLiteral("tokenbench-dashboard-finished.png"));
        QVERIFY2(w->saveScreenshot(shot, &error), qPrintable(error));
        const QImage image(shot);
        QCOMPARE(image.size(), w->size() * w->devicePixelRatio());
        for (const DashboardView::ChartEntry &chart : dash->charts()) {
            if (chart.view->isEmpty() || !chart.view->isVisible() || chart.view->visibleRegion().isEmpty())
                continue;
            const QRect area(chart.view->mapTo(w.get(), QPoint(0, 0)),
                             chart.view->visibleRegion().boundingRect().size());
            const double ink = inkFraction(image, area);
            QVERIFY2(ink > 0.02, qPrintable(QStringLiteral("%1: %2").arg(chart.key).arg(ink)));
        }
    }

    // The Server panel (issue 16): the simulator's /metrics scraped live beside the client's TTFT;
    // an endpoint that is not there leaves the chart empty with its reason, said once.
    void serverPanel_data()
    {
        QTest::addColumn<QString>("metricsUrl"); // empty: the target's own /metrics
        QTest::addColumn<QString>("problem");    // empty: scraped
        QTest::addColumn<bool>("llamacpp");      // a llama.cpp /metrics instead
        QTest::newRow("simulator's /metrics") << QString() << QString() << false;
        QTest::newRow("nothing listens") << QStringLiteral("http://127.0.0.1:9/metrics")
                                         << QStringLiteral("Connection refused") << false;
        QTest::newRow("llama.cpp: no latency histograms") << QString() << QString() << true;
    }

    void serverPanel()
    {
        QFETCH(QString, metricsUrl);
        QFETCH(QString, problem);
        QFETCH(bool, llamacpp);
        tb::test::FakeEndpoint llama(tb::test::FakeEndpoint::LlamaCpp);
        if (llamacpp)
            metricsUrl = llama.url().toString();
        RunConfig c = simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=4:3s"));
        c.target.serverMetricsUrl = metricsUrl;
        auto w = window(c);
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        QCOMPARE(w->currentConfig().target.serverMetricsUrl, metricsUrl);
        DashboardView *dash = w->dashboard();
        ChartView *view = dash->chartView(QStringLiteral("server"));
        auto *chart = static_cast<TimeChart *>(view->chart());
        auto *note = dash->findChild<QLabel *>(QStringLiteral("serverNote"));
        QVERIFY(note);
        QSignalSpy finished(w.get(), &MainWindow::runFinished);
        QString error;
        QVERIFY2(w->startRun(&error), qPrintable(error));
        if (problem.isEmpty()) {
            // Live: running requests arrive while the run goes.
            QTRY_VERIFY_WITH_TIMEOUT(!view->isEmpty() && points(chart->lines().at(0)) > 0, 30000);
            QVERIFY(w->isRunning());
        }
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kRunTimeoutMs);
        const auto outcome = finished.constFirst().constFirst().value<RunOutcome>();
        QVERIFY(outcome.summary.total.requests.ok > 0); // the run itself was not disturbed
        QVERIFY(outcome.summary.server);
        if (llamacpp) {
            // Regression: the chart drew an empty TTFT axis and legend entries for a server without
            // latency histograms. Only what it reports is drawn.
            QVERIFY(!view->isEmpty());
            const QList<QLineSeries *> lines = chart->lines();
            for (int i : {0, 1}) // running, waiting
                QVERIFY2(points(lines.at(i)) > 0 && chartstyle::isInLegend(lines.at(i)),
                         qPrintable(lines.at(i)->name()));
            for (int i : {2, 3}) { // server and client TTFT
                QVERIFY2(!lines.at(i)->isVisible() && !chartstyle::isInLegend(lines.at(i)),
                         qPrintable(lines.at(i)->name()));
                for (QLegendMarker *marker : chart->legend()->markers(lines.at(i)))
                    QVERIFY(!marker->isVisible());
            }
            QVERIFY(!chart->rightAxis()->isVisible());
            QVERIFY2(note->text().contains(QStringLiteral("llamacpp at ")), qPrintable(note->text()));
            view->grab().save(QDir::temp().filePath(QStringLiteral("tokenbench-server-llamacpp.png")));
        } else if (problem.isEmpty()) {
            QVERIFY(!view->isEmpty());
            QVERIFY2(note->text().contains(QStringLiteral("server TTFT p50")), qPrintable(note->text()));
            QVERIFY2(note->text().contains(QStringLiteral("vllm at http://127.0.0.1:")), qPrintable(note->text()));
            for (QLineSeries *line : chart->lines())
                QVERIFY2(points(line) > 0, qPrintable(line->name()));
        } else {
            QVERIFY(view->isEmpty());
            QVERIFY2(view->emptyText().contains(problem), qPrintable(view->emptyText()));
            QCOMPARE(note->text().count(problem), 1); // said once, however many scrapes failed
            QVERIFY2(note->text().contains(QStringLiteral("failed scrape")), qPrintable(note->text()));
        }
    }

    // Issue 31: the GPUs beside the latency (--gpu-metrics against the simulator's GET /dcgm, its
    // power model idle only: 120 W over all GPUs, shared evenly). Live and reopened, the chart draws
    // exactly the power gpu_metrics.csv recorded — summed, and per GPU when there are several — and a
    // run without --gpu-metrics has no GPU card at all (no empty axes).
    void gpuChartDrawsTheExportersPower_data()
    {
        QTest::addColumn<int>("gpus"); // 0: no --gpu-metrics
        QTest::newRow("one GPU") << 1;
        QTest::newRow("two GPUs") << 2;
        QTest::newRow("no --gpu-metrics") << 0;
    }
    void gpuChartDrawsTheExportersPower()
    {
        QFETCH(int, gpus);
        sim::SimConfig simConfig = *sim::SimConfig::preset(QStringLiteral("fast"));
        simConfig.gpus = std::max(1, gpus);
        simConfig.gpuIdleW = 120;
        simConfig.gpuJPerToken = 0;
        simConfig.gpuJPerPromptToken = 0;
        const auto host = test::startSimulator(simConfig);
        QVERIFY(host);
        RunConfig c;
        c.target = test::targetOf(*host, QStringLiteral("gpu"));
        if (gpus > 0)
            c.target.gpuMetricsUrl = host->baseUrl().resolved(QUrl(QStringLiteral("/dcgm"))).toString();
        c.target.energyPricePerKwh = 0.3;
        c.prompt.promptTokens = 32;
        c.request.maxTokens = 32;
        c.load.stages = *parseStages(QStringLiteral("c=2:3s"), nullptr);
        auto w = window(c);
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        DashboardView *dash = w->dashboard();
        TimeChart *chart = dash->gpuChart();
        ChartView *view = dash->chartView(QStringLiteral("gpu"));
        QSignalSpy finished(w.get(), &MainWindow::runFinished);
        QString error;
        QVERIFY2(w->startRun(&error), qPrintable(error));
        if (gpus > 0) {
            // Live: the card is placed and power arrives while the run goes.
            QTRY_VERIFY_WITH_TIMEOUT(view->isVisible() && !chart->lines().isEmpty() && points(chart->lines().at(0)) > 0,
                                     30000);
            QVERIFY(w->isRunning());
        }
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kRunTimeoutMs);
        const auto outcome = finished.constFirst().constFirst().value<RunOutcome>();
        QVERIFY(outcome.summary.total.requests.ok > 0);
        const auto shown = [&] {
            QStringList keys;
            for (const DashboardView::ChartEntry &entry : dash->shownCharts())
                keys << entry.key;
            return keys;
        };
        if (gpus == 0) {
            QVERIFY(!outcome.summary.gpu);
            QVERIFY(!shown().contains(QStringLiteral("gpu")));
            QVERIFY(!view->isVisible());
            QVERIFY(!QFileInfo::exists(QDir(outcome.directory).filePath(QLatin1String(runfiles::kGpuMetricsCsv))));
        }

        // What the exporter said, read from gpu_metrics.csv apart from the code under test: each
        // scrape's power per GPU (by its `gpu` label) and summed.
        std::map<double, std::map<int, double>> recorded;
        if (gpus > 0) {
            QFile csv(QDir(outcome.directory).filePath(QLatin1String(runfiles::kGpuMetricsCsv)));
            QVERIFY(csv.open(QIODevice::ReadOnly));
            const QByteArray bytes = csv.readAll();
            CsvReader reader(bytes);
            std::vector<std::string> fields;
            QVERIFY(reader.next(fields)); // header
            const QRegularExpression gpuLabel(QStringLiteral("gpu=\"(\\d+)\""));
            while (reader.next(fields)) {
                if (fields.at(1) != dcgm::kPower)
                    continue;
                const auto match = gpuLabel.match(QString::fromStdString(fields.at(2)));
                QVERIFY(match.hasMatch());
                recorded[std::stod(fields.at(0))][match.captured(1).toInt()] = std::stod(fields.at(3));
            }
            QVERIFY(recorded.size() >= 3); // the probe before the load, a scrape a second, the last one
        }

        // Live at its end, then reopened from the run's folder: the same picture.
        for (const bool reopened : {false, true}) {
            if (reopened) {
                QSignalSpy opened(w.get(), &MainWindow::runOpened);
                QVERIFY(w->openRun(outcome.directory));
                QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 30000);
            }
            dash->refresh();
            const QString when = reopened ? QStringLiteral("reopened") : QStringLiteral("live");
            if (gpus == 0) {
                QVERIFY2(!shown().contains(QStringLiteral("gpu")), qPrintable(when));
                QVERIFY2(!view->isVisible(), qPrintable(when));
                continue;
            }
            QVERIFY2(shown().contains(QStringLiteral("gpu")) && view->isVisible() && !view->isEmpty(),
                     qPrintable(when));
            const QList<QLineSeries *> lines = chart->lines();
            // The sum and the mean; with several GPUs each one's power and utilisation too.
            QCOMPARE(lines.size(), gpus > 1 ? 2 + 2 * gpus : 2);
            QCOMPARE(lines.at(0)->name(),
                     gpus > 1 ? QStringLiteral("power, Σ %1 GPUs").arg(gpus) : QStringLiteral("power"));
            QCOMPARE(int(lines.at(0)->count()), int(recorded.size()));
            // The file keeps milliseconds of the scrape's time: live the chart has it whole.
            const double slackS = reopened ? 0 : 0.0005;
            int i = 0;
            for (const auto &[tS, perGpu] : recorded) {
                double sum = 0;
                for (const auto &[gpu, watts] : perGpu) {
                    sum += watts;
                    if (gpus > 1) {
                        QCOMPARE(lines.at(2 + 2 * gpu)->at(i).y(), watts);
                        QVERIFY(std::abs(lines.at(2 + 2 * gpu)->at(i).x() - tS) <= slackS);
                        // The model shares its power evenly.
                        QVERIFY2(std::abs(watts - 120.0 / gpus) < 0.5, qPrintable(QString::number(watts)));
                    }
                }
                QCOMPARE(lines.at(0)->at(i).y(), sum);
                QVERIFY2(std::abs(lines.at(0)->at(i).x() - tS) <= slackS,
                         qPrintable(QStringLiteral("%1 s, %2 s recorded").arg(lines.at(0)->at(i).x()).arg(tS)));
                ++i;
            }
            // The simulator's first answer is its idle power exactly.
            QCOMPARE(lines.at(0)->at(0).y(), 120.0);
            // Utilisation is a share: its axis is 0–100 %.
            QCOMPARE(chart->rightAxis()->max(), 100.0);
            for (int line = 3; line < lines.size(); line += 2)
                QVERIFY(!chartstyle::isInLegend(lines.at(line))); // each GPU's utilisation: its entry names both
            const QString note = dash->gpuNote()->text();
            const GpuSummary &gpu = *w->document()->summary().gpu;
            for (const QString &fact :
                 {QStringLiteral("%1 J/output token").arg(formatNumber(*gpu.joulesPerOutputToken, 4, 6)),
                  QStringLiteral("%1 J/request").arg(formatNumber(*gpu.joulesPerRequest, 4)),
                  QStringLiteral("energy $%1 at $0.300/kWh").arg(formatNumber(*gpu.energyCost, 3, 6))})
                QVERIFY2(note.contains(fact), qPrintable(note + QStringLiteral(" lacks ") + fact));
            // Regression: a short run's cost (a few millionths of a dollar) read "$0.000".
            QVERIFY2(!note.contains(QStringLiteral("$0.000 ")), qPrintable(note));
        }
    }

    void stopMidRunLeavesSavedRun()
    {
        // The default preset streams for seconds: plenty in flight when Stop comes.
        auto w = window(simulatorConfig(QStringLiteral("default"), QStringLiteral("c=8:60s"), 256));
        QSignalSpy finished(w.get(), &MainWindow::runFinished);
        QSignalSpy stopRequested(w.get(), &MainWindow::stopRequested);
        QString error;
        QVERIFY2(w->startRun(&error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(w->document()->requests()->rowCount() >= 4, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(w->document()->progress().inFlight > 0, 30000);
        QVERIFY(w->stopAction()->isEnabled());
        QTest::keyClick(w.get(), Qt::Key_Escape);
        QTest::keyClick(w.get(), Qt::Key_Escape); // safe twice
        w->stop();
        QCOMPARE(stopRequested.size(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        const auto outcome = finished.constFirst().constFirst().value<RunOutcome>();
        QVERIFY(outcome.cancelled);
        QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
        QVERIFY(outcome.summary.total.requests.cancelled > 0);
        QVERIFY(!w->isRunning());
        w->stop(); // and when nothing runs
        QCOMPARE(finished.size(), 1);

        QVERIFY(QFile::exists(QDir(outcome.directory).filePath(QStringLiteral("summary.json"))));
        QVERIFY(RunReader::isRunDirectory(outcome.directory));
        const auto saved = RunReader::load(outcome.directory, &error);
        QVERIFY2(saved, qPrintable(error));
        QCOMPARE(saved->summary.total.requests.ok, outcome.summary.total.requests.ok);
        QCOMPARE(qsizetype(saved->records.size()), qsizetype(w->document()->requests()->rowCount()));
        QVERIFY(w->dashboard()
                    ->findChild<QLabel *>(QStringLiteral("runSubtitle"))
                    ->text()
                    .contains(QStringLiteral("stopped")));
        QTRY_VERIFY_WITH_TIMEOUT(w->history()->rowOf(outcome.directory) >= 0, 20000);
    }

    // A run ended by Stop read "stopped after …" live and "saved run" when reopened, while the Runs
    // list called it stopped.
    void reopenedStoppedRunSaysStopped()
    {
        auto w = windowWithRequestsInFlight();
        QSignalSpy finished(w.get(), &MainWindow::runFinished);
        w->stop();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        const auto outcome = finished.constFirst().constFirst().value<RunOutcome>();
        QVERIFY(outcome.cancelled);
        QVERIFY(outcome.summary.total.requests.cancelled > 0);
        QTRY_VERIFY_WITH_TIMEOUT(w->history()->rowOf(outcome.directory) >= 0, 20000);
        QCOMPARE(w->history()->entry(w->history()->rowOf(outcome.directory)).status, RunHistoryStatus::Stopped);

        QSignalSpy opened(w.get(), &MainWindow::runOpened);
        QVERIFY(w->openRun(outcome.directory));
        QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 30000);
        QVERIFY(w->document()->cancelled());
        w->dashboard()->refresh();
        const QString subtitle = w->dashboard()->findChild<QLabel *>(QStringLiteral("runSubtitle"))->text();
        QVERIFY2(subtitle.contains(QStringLiteral("saved run, stopped after ")), qPrintable(subtitle));
        // Where its timings are read, the I/O backend they were measured with.
        QVERIFY2(subtitle.contains(QStringLiteral("I/O: %1 backend (").arg(ioBackend().name)), qPrintable(subtitle));
    }

    // A stage cut by Stop showed its figures as any stage's: the Summary table, the charts' stage
    // labels and the header named the plan (c=8 included), not what ran.
    void aStageCutByStopIsMarkedWhereItsFiguresShow()
    {
        const auto [w, outcome] = stoppedSweep();
        QVERIFY(outcome.cancelled);
        const RunSummary &s = outcome.summary;
        QCOMPARE(s.stages.size(), std::size_t(3));
        QVERIFY(!s.stages[0].partial());
        QVERIFY(s.stages[1].stopped);
        QVERIFY2(s.stages[1].stopped->afterS > 1 && s.stages[1].stopped->afterS < 30,
                 qPrintable(s.stages[1].partialNote()));
        QCOMPARE(s.stages[1].stopped->plannedS, 60.0);
        QVERIFY(!s.stages[2].reached);
        QCOMPARE(s.total.concurrency.target, std::optional<int>(4));

        // The Summary table's columns.
        const SummaryTableModel *table = w->summaryView()->model();
        const QString cut = table->headerData(SummaryTableModel::FirstBlockColumn + 2, Qt::Horizontal).toString();
        QVERIFY2(cut.startsWith(QStringLiteral("c=4 (stopped after ")) && cut.endsWith(QStringLiteral(" of 60 s)")),
                 qPrintable(cut));
        const QString whole = table->headerData(SummaryTableModel::FirstBlockColumn, Qt::Horizontal).toString();
        QVERIFY2(whole.startsWith(QStringLiteral("Whole run (stopped after ")), qPrintable(whole));
        QVERIFY2(table->headerData(SummaryTableModel::FirstBlockColumn + 3, Qt::Horizontal)
                     .toString()
                     .contains(QStringLiteral("not reached")),
                 qPrintable(table->blockNames().join(QLatin1Char('|'))));

        // The stage labels of the time charts.
        auto *throughput = static_cast<TimeChart *>(w->dashboard()->chartView(QStringLiteral("throughput"))->chart());
        QStringList labels;
        for (QAbstractSeries *series : throughput->series()) {
            if (series->type() == QAbstractSeries::SeriesTypeScatter)
                labels << series->name();
        }
        QVERIFY2(labels.contains(QStringLiteral("c=2")), qPrintable(labels.join(QLatin1Char('|'))));
        QVERIFY2(labels.filter(QStringLiteral("c=4 (stopped after ")).size() == 1,
                 qPrintable(labels.join(QLatin1Char('|'))));

        // The header names the levels that ran.
        const QString subtitle = w->dashboard()->findChild<QLabel *>(QStringLiteral("runSubtitle"))->text();
        QVERIFY2(subtitle.contains(QStringLiteral("c=2:1s,c=4:1m · c=4 stopped after ")), qPrintable(subtitle));
        QVERIFY2(subtitle.contains(QStringLiteral("c=8 not reached")), qPrintable(subtitle));
        QVERIFY2(!subtitle.contains(QStringLiteral("c=8:")), qPrintable(subtitle));
    }

    // Exports of a stopped run (chart PNG/SVG captions, the batch export, the HTML report) marked
    // none of it as partial.
    void exportsMarkAStoppedRunAsPartial()
    {
        const auto [w, outcome] = stoppedSweep();
        const QString partial = outcome.summary.partialNote();
        QVERIFY2(partial.startsWith(QStringLiteral("partial run: stopped after ")), qPrintable(partial));

        // Every chart's export caption, and so the batch export's figures.
        const QList<DashboardView::ChartEntry> shown = w->dashboard()->shownCharts();
        for (const DashboardView::ChartEntry &chart : shown) {
            const QString caption = w->dashboard()->chartView(chart.key)->exportOptions().caption;
            QVERIFY2(caption.contains(partial), qPrintable(chart.key + QStringLiteral(": ") + caption));
        }
        QTemporaryDir out;
        ExportDialog dialog(w->document(), shown, w->summaryView()->model(), w.get());
        dialog.setFolder(out.path());
        dialog.setFormat(ChartExporter::Format::Svg);
        QString error;
        const QStringList written = dialog.exportSelected(&error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        int figures = 0;
        for (const QString &path : written) {
            if (!path.endsWith(QStringLiteral(".svg")))
                continue;
            QFile svg(path);
            QVERIFY(svg.open(QIODevice::ReadOnly));
            QVERIFY2(QString::fromUtf8(svg.readAll()).contains(QStringLiteral("partial run: stopped after ")),
                     qPrintable(path));
            ++figures;
        }
        QCOMPARE(figures, int(shown.size()));

        // The HTML report of the run, alone and beside a run that ran its plan.
        const auto saved = RunReader::load(outcome.directory, &error);
        QVERIFY2(saved, qPrintable(error));
        QVERIFY(saved->summary.partial());
        const QString alone = HtmlReport({*saved}, {}).toHtml();
        QVERIFY2(alone.contains(QStringLiteral("<span class=\"tag\">partial</span>")), qPrintable(alone.left(4000)));
        QVERIFY2(alone.contains(partial.toHtmlEscaped()), qPrintable(alone.left(4000)));
        const auto whole = RunReader::load(
            runToEnd(*window(simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=2:1s")))).directory, &error);
        QVERIFY2(whole, qPrintable(error));
        const QString both = HtmlReport({*whole, *saved}, {}).toHtml();
        QVERIFY2(both.contains(QStringLiteral(": ") + partial.toHtmlEscaped()), qPrintable(both.left(6000)));
        QCOMPARE(both.count(QStringLiteral("<span class=\"tag\">partial</span>")), 1);
    }

    void closingDuringRunStopsThenCloses()
    {
        auto w = windowWithRequestsInFlight();
        QSignalSpy finished(w.get(), &MainWindow::runFinished);
        QVERIFY(!w->close()); // nothing modal: the window stays until the results are saved
        QVERIFY(w->isVisible());
        QVERIFY(QApplication::activeModalWidget() == nullptr);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!w->isVisible(), 10000);
        const auto outcome = finished.constFirst().constFirst().value<RunOutcome>();
        QVERIFY(QFile::exists(QDir(outcome.directory).filePath(QStringLiteral("summary.json"))));
    }

    void savedRunOpensIntoTheSameViews()
    {
        auto w = window(simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=3:1500ms")));
        const RunOutcome outcome = runToEnd(*w);
        const qsizetype rows = w->document()->requests()->rowCount();
        w.reset();

        // A new session opens it from the history (double click).
        auto fresh = window(simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=1:1s")));
        QVERIFY(QTest::qWaitForWindowExposed(fresh.get()));
        QTRY_VERIFY_WITH_TIMEOUT(fresh->history()->rowOf(outcome.directory) >= 0, 20000);
        QSignalSpy opened(fresh.get(), &MainWindow::runOpened);
        fresh->sideTabs()->setCurrentWidget(fresh->historyView());
        fresh->historyView()->selectDirectory(outcome.directory);
        QCOMPARE(fresh->historyView()->selectedDirectory(), QFileInfo(outcome.directory).canonicalFilePath());
        QTreeView *list = fresh->historyView()->table();
        const QModelIndex selected = list->selectionModel()->selectedRows().constFirst();
        const QPoint at = list->visualRect(selected).center();
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, at);
        QTest::mouseDClick(list->viewport(), Qt::LeftButton, {}, at);
        QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 30000);
        RunDocument *doc = fresh->document();
        QCOMPARE(doc->state(), RunDocument::State::Loaded);
        QCOMPARE(doc->requests()->rowCount(), rows);
        QCOMPARE(doc->summary().total.requests.ok, outcome.summary.total.requests.ok);
        fresh->dashboard()->refresh();
        auto *latency =
            static_cast<TimeChart *>(fresh->dashboard()->chartView(QStringLiteral("latency-over-time"))->chart());
        QVERIFY(points(latency->lines().at(0)) > 0);
        QVERIFY(fresh->dashboard()->distributionChart()->hasData());
        // One stage: no throughput–latency curve.
        QVERIFY(fresh->dashboard()->chartView(QStringLiteral("throughput-latency"))->isHidden() ||
                !fresh->dashboard()->chartView(QStringLiteral("throughput-latency"))->parentWidget()->isVisible());

        // A request's timeline, its chunks read from chunks.jsonl on demand.
        fresh->resultsTabs()->setCurrentWidget(fresh->requestsView());
        RequestDetailView *detail = fresh->requestsView()->detail();
        QSignalSpy ready(detail, &RequestDetailView::timelineReady);
        const RequestRecord &record = doc->requests()->record(2);
        QVERIFY(fresh->requestsView()->showRequest(record.id));
        QTRY_COMPARE_WITH_TIMEOUT(ready.size(), 1, 20000);
        QCOMPARE(detail->chunkStatus(), QStringLiteral("loaded"));
        int chunkEvents = 0;
        for (const TimelineModel::Event &e : detail->timeline()->events())
            chunkEvents += e.chars >= 0;
        QCOMPARE(chunkEvents, record.chunks);
        fresh->grab().save(QDir::temp().filePath(QStringLiteral("tokenbench-requests.png")));
        fresh->resultsTabs()->setCurrentWidget(fresh->summaryView());
        fresh->grab().save(QDir::temp().filePath(QStringLiteral("tokenbench-summary.png")));
        fresh->sideTabs()->setCurrentWidget(fresh->historyView());
        fresh->grab().save(QDir::temp().filePath(QStringLiteral("tokenbench-history.png")));
    }

    // Issue 30's kinds put their figures where a run's first look goes: embeddings their inputs/s
    // next to the requests', structured output and tools the replies that were not what was asked
    // for next to the errors (the simulator breaks exactly a quarter of them: 2 of 8).
    void newKindsShowTheirFiguresInTheTiles_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("tile");
        QTest::addColumn<QString>("detail"); // "%1": the run's inputs/s
        QTest::newRow("embeddings, 4 inputs a request") << "embeddings"
                                                        << "requests_per_s"
                                                        << "%1 inputs/s · 8 ok of 8";
        QTest::newRow("any JSON, a quarter broken") << "json"
                                                    << "error_pct"
                                                    << "0 failed · 2 invalid outputs";
        QTest::newRow("required tools, a quarter broken") << "tools"
                                                          << "error_pct"
                                                          << "0 failed · 2 with invalid tool calls";
    }
    void newKindsShowTheirFiguresInTheTiles()
    {
        QFETCH(QString, kind);
        QFETCH(QString, tile);
        QFETCH(QString, detail);
        sim::SimConfig simConfig = *sim::SimConfig::preset(QStringLiteral("fast"));
        simConfig.invalidJsonRate = 0.25;
        simConfig.invalidToolCallRate = 0.25;
        const auto host = test::startSimulator(simConfig);
        QVERIFY(host);
        RunConfig c;
        c.target = test::targetOf(*host, QStringLiteral("kinds"));
        c.prompt.promptTokens = 32;
        c.request.maxTokens = 32;
        c.load.concurrency = 1; // in order: the quarter broken are whole requests of the 8
        c.load.requests = 8;
        c.outDir = m_runs.filePath(QStringLiteral("kinds-") + kind);
        if (kind == QLatin1String("embeddings")) {
            c.target.api = ApiKind::OpenAIEmbeddings;
            c.request.batchSize = 4;
        } else if (kind == QLatin1String("json")) {
            c.request.responseFormat = QStringLiteral("json_object");
        } else {
            c.request.tools = m_runs.filePath(QStringLiteral("tools.json"));
            QVERIFY(test::writeFile(
                c.request.tools,
                R"([{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", )"
                R"("properties": {"city": {"type": "string"}}, "required": ["city"]}}}])"));
            c.request.toolChoice = QStringLiteral("required");
        }
        QVERIFY(test::saveRun(c));

        auto w = window(simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=1:1s")));
        QSignalSpy opened(w.get(), &MainWindow::runOpened);
        QVERIFY(w->openRun(c.outDir));
        QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 30000);
        w->dashboard()->refresh();
        const SummaryBlock &total = w->document()->summary().total;
        if (kind == QLatin1String("embeddings")) {
            QCOMPARE(total.requests.inputs, 32);
            detail = detail.arg(formatNumber(total.throughput.inputsPerS));
        }
        QCOMPARE(w->dashboard()->tile(tile)->detail(), detail);
    }

    // The run length read 38.1 s live and 39.0 s reopened: both are the measurement window now.
    void runLengthReadsTheSameLiveAndReopened()
    {
        auto w = window(simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=2:1200ms")));
        const RunOutcome outcome = runToEnd(*w);
        const QString length = formatNumber(outcome.summary.total.windowS) + QStringLiteral(" s");
        const auto subtitle = [](MainWindow &window) {
            window.dashboard()->refresh();
            return window.dashboard()->findChild<QLabel *>(QStringLiteral("runSubtitle"))->text();
        };
        const QString live = subtitle(*w);
        QVERIFY2(live.contains(QStringLiteral("finished in ") + length),
                 qPrintable(live + QStringLiteral(" / ") + length));
        QSignalSpy opened(w.get(), &MainWindow::runOpened);
        QVERIFY(w->openRun(outcome.directory));
        QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 30000);
        const QString reopened = subtitle(*w);
        QVERIFY2(reopened.contains(QStringLiteral("saved run, ") + length),
                 qPrintable(reopened + QStringLiteral(" / ") + length));
    }

    // Renaming the open run (F2) broke its views: a request's chunk timeline was read from the old
    // folder ("chunks.jsonl: No such file or directory") while the token-arrival chart said
    // "Loading…" for ever, and the dashboard kept the old name. Its views follow the run now, and a
    // timeline that cannot be read says why in the chart too.
    void renamingTheOpenRunKeepsItsViews_data()
    {
        QTest::addColumn<bool>("chunksKept");
        QTest::newRow("chunks in the renamed folder") << true;
        QTest::newRow("chunks.jsonl gone") << false;
    }

    void renamingTheOpenRunKeepsItsViews()
    {
        QFETCH(bool, chunksKept);
        auto w = window(simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=2:1s")));
        const RunOutcome outcome = runToEnd(*w);
        QSignalSpy opened(w.get(), &MainWindow::runOpened);
        QVERIFY(w->openRun(outcome.directory));
        QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(w->history()->rowOf(outcome.directory) >= 0, 20000);
        RunDocument *doc = w->document();
        std::vector<RequestRecord> streamed;
        for (int row = 0; row < doc->requests()->rowCount() && streamed.size() < 2; ++row) {
            if (doc->requests()->record(row).chunks > 0)
                streamed.push_back(doc->requests()->record(row));
        }
        QCOMPARE(streamed.size(), 2u);
        // A request's timeline is on screen when the run is renamed.
        w->resultsTabs()->setCurrentWidget(w->requestsView());
        RequestDetailView *detail = w->requestsView()->detail();
        QVERIFY(w->requestsView()->showRequest(streamed[0].id));
        QTRY_COMPARE_WITH_TIMEOUT(detail->chunkStatus(), QStringLiteral("loaded"), 20000);
        if (!chunksKept)
            QVERIFY(QFile::remove(QDir(outcome.directory).filePath(QLatin1String(runfiles::kChunksJsonl))));

        // Renamed as F2 does it.
        const QString name = QFileInfo(outcome.directory).fileName() + QStringLiteral("-renamed");
        RunHistoryModel *history = w->history();
        QVERIFY(history->setData(history->index(history->rowOf(outcome.directory), RunHistoryModel::NameColumn), name));
        const QString renamed = QDir(QFileInfo(outcome.directory).absolutePath()).filePath(name);
        QVERIFY(QFileInfo(renamed).isDir());
        w->dashboard()->refresh();
        QCOMPARE(w->dashboard()->findChild<QLabel *>(QStringLiteral("runTitle"))->text(), name);
        QCOMPARE(doc->name(), name);

        // Another request's timeline is read from the renamed folder, or the chart says why not.
        QVERIFY(w->requestsView()->showRequest(streamed[1].id));
        QTRY_VERIFY_WITH_TIMEOUT(detail->chunkStatus() != QStringLiteral("loading"), 20000);
        auto *chart = detail->findChild<ChartView *>(QStringLiteral("tokenArrivalChart"));
        QVERIFY(chart);
        if (chunksKept) {
            QCOMPARE(detail->chunkStatus(), QStringLiteral("loaded"));
            int chunkEvents = 0;
            for (const TimelineModel::Event &e : detail->timeline()->events())
                chunkEvents += e.chars >= 0;
            QCOMPARE(chunkEvents, streamed[1].chunks);
            QVERIFY(!chart->isEmpty());
        } else {
            QVERIFY2(detail->chunkStatus().contains(QLatin1String(runfiles::kChunksJsonl)),
                     qPrintable(detail->chunkStatus()));
            QVERIFY(chart->isEmpty());
            QCOMPARE(chart->emptyText(), detail->chunkStatus());
        }
        w->grab().save(QDir::temp().filePath(QStringLiteral("tokenbench-renamed-%1.png").arg(chunksKept ? 1 : 0)));
    }

    // A reopened staged run read "32 / 4" (the first stage's target) where the live run ended on
    // "32 / 32"; and its Concurrency chart began with the warm-up's empty second (a stray point at
    // t≈0).
    void reopenedStagedRunReadsTheLastStagesTarget()
    {
        RunConfig c = simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=2:1s,c=5:1s"));
        c.load.warmupMs = 1000;
        auto w = window(c);
        const RunOutcome outcome = runToEnd(*w);
        const auto inFlight = [](MainWindow &window) {
            window.dashboard()->refresh();
            return window.dashboard()->tile(QStringLiteral("in_flight"))->value();
        };
        const QString live = inFlight(*w);
        QCOMPARE(live, QStringLiteral("%1 / 5").arg(outcome.summary.total.concurrency.peakInFlight));
        QSignalSpy opened(w.get(), &MainWindow::runOpened);
        QVERIFY(w->openRun(outcome.directory));
        QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 30000);
        QCOMPARE(inFlight(*w), live);

        QVERIFY(w->document()->timeSeries().front().stage < 0); // the warm-up's second is saved
        auto *concurrency = static_cast<TimeChart *>(w->dashboard()->chartView(QStringLiteral("concurrency"))->chart());
        QLineSeries *line = concurrency->lines().at(0);
        QVERIFY(line->count() >= 2);
        QVERIFY2(line->at(0).x() > 1, qPrintable(QString::number(line->at(0).x())));
        w->grab().save(QDir::temp().filePath(QStringLiteral("tokenbench-reopened-staged.png")));
    }

    // The token-efficiency chart's y-axis title was cut to "tokens per request (…" on a 1280×800
    // screen (and at 1.5×, the same size in logical pixels): each axis title fits along the plot.
    void tokenAxisTitlesFitOnALaptop()
    {
        auto w = window(simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=2:1s")));
        w->resize(1280, 800);
        runToEnd(*w);
        w->resultsTabs()->setCurrentWidget(w->dashboard());
        w->dashboard()->refresh();
        ChartView *view = w->dashboard()->chartView(QStringLiteral("token-efficiency"));
        QTRY_VERIFY(view->isVisible() && view->chart()->plotArea().height() > 0);
        QApplication::processEvents();
        const QRectF plot = view->chart()->plotArea();
        for (QAbstractAxis *axis : view->chart()->axes(Qt::Vertical)) {
            const double width = QFontMetricsF(axis->titleFont()).horizontalAdvance(axis->titleText());
            QVERIFY2(width <= plot.height(),
                     qPrintable(QStringLiteral("%1: %2 > %3").arg(axis->titleText()).arg(width).arg(plot.height())));
        }
        view->grab().save(QDir::temp().filePath(QStringLiteral("tokenbench-1280x800-tokens.png")));
    }

    // With streaming off the latency chart kept an empty TTFT axis and TTFT lines in its legend.
    void latencyChartWithoutStreamingHasNoTtft()
    {
        RunConfig c = simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=2:1s"));
        c.request.stream = false;
        auto w = window(c);
        const RunOutcome outcome = runToEnd(*w);
        for (bool reopened : {false, true}) {
            if (reopened) {
                QSignalSpy opened(w.get(), &MainWindow::runOpened);
                QVERIFY(w->openRun(outcome.directory));
                QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 30000);
            }
            w->dashboard()->refresh();
            auto *latency =
                static_cast<TimeChart *>(w->dashboard()->chartView(QStringLiteral("latency-over-time"))->chart());
            QVERIFY(!latency->leftAxis()->isVisible());
            QVERIFY(latency->rightAxis()->isVisible());
            for (QLineSeries *line : latency->lines()) {
                const bool ttft = line->name().startsWith(QStringLiteral("TTFT"));
                QCOMPARE(line->isVisible(), !ttft);
                QCOMPARE(chartstyle::isInLegend(line), !ttft);
                if (!ttft)
                    QVERIFY2(line->count() > 0, qPrintable(line->name()));
            }
        }
        // A streaming run gets them back.
        w->configEditor()->setConfig(simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=2:1s")));
        runToEnd(*w);
        w->dashboard()->refresh();
        auto *latency =
            static_cast<TimeChart *>(w->dashboard()->chartView(QStringLiteral("latency-over-time"))->chart());
        QVERIFY(latency->leftAxis()->isVisible());
        for (QLineSeries *line : latency->lines())
            QVERIFY2(line->isVisible() && chartstyle::isInLegend(line), qPrintable(line->name()));
    }

    // Prompt calibration (on by default in the GUI) probed the target before the load while the
    // dashboard said "Stage 1 of 1: · 0%", the status bar "0 in flight" and the charts "Waiting for
    // the first second of the run…"; when it ended nothing said what it had found.
    void calibrationIsShownAsAPhase()
    {
        // The default preset answers each probe after ~0.15 s: about a second of calibration.
        RunConfig config = simulatorConfig(QStringLiteral("default"), QStringLiteral("c=2:2s"), 16);
        config.prompt.calibrate = true;
        auto w = window(config);
        DashboardView *dash = w->dashboard();
        auto *progress = dash->findChild<QProgressBar *>(QStringLiteral("runProgress"));
        auto *status = w->findChild<QLabel *>(QStringLiteral("liveStatus"));
        QVERIFY(progress && status);
        QSignalSpy finished(w.get(), &MainWindow::runFinished);
        QString error;
        QVERIFY2(w->startRun(&error), qPrintable(error));
        const QRegularExpression probe(QStringLiteral("^Calibrating prompts: probe \\d+ of \\d+ · \\d+\\.\\d s$"));
        QTRY_VERIFY2_WITH_TIMEOUT(probe.match(progress->format()).hasMatch(), qPrintable(progress->format()), 30000);
        QVERIFY2(probe.match(status->text()).hasMatch(), qPrintable(status->text()));
        QTRY_VERIFY2(
            dash->chartView(QStringLiteral("throughput"))->emptyText().startsWith(QStringLiteral("Calibrating")),
            qPrintable(dash->chartView(QStringLiteral("throughput"))->emptyText()));

        // Then the load, from t = 0, and what calibration found said once beside the warnings.
        QTRY_VERIFY_WITH_TIMEOUT(progress->format().startsWith(QStringLiteral("Stage 1 of 1")), 30000);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kRunTimeoutMs);
        const QString subtitle = dash->findChild<QLabel *>(QStringLiteral("runSubtitle"))->text();
        QCOMPARE(subtitle.count(QStringLiteral("prompts calibrated in")), 1);
        QVERIFY2(subtitle.contains(QStringLiteral("probes)")), qPrintable(subtitle));
        const auto &rows = w->document()->timeSeries();
        QVERIFY(!rows.empty());
        QVERIFY2(rows.front().sent > 0, "the first second of the charts is the load's");
    }

    void aSweepRingsItsKneeWhereTheCoreFindsIt()
    {
        // Two sequences decode at once: past c=2 more users buy latency, not throughput. Steps of
        // 20 ms make a request ~0.3 s, so the client's own turn-around between a user's requests
        // (milliseconds, more under a sanitizer) is not the 10% that c=8's queue hid at 6 ms steps
        // (the knee was missed as "+11.5% over c=2" under ASan on a busy machine).
        sim::SimConfig sc = *sim::SimConfig::preset(QStringLiteral("fast"));
        sc.maxBatch = 2;
        sc.stepMs = 20;
        sim::SimulatorHost host(sc);
        QVERIFY(host.start());
        RunConfig c = simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=1:3s,c=2:3s,c=8:3s"), 32);
        c.target.name = QStringLiteral("capped");
        c.target.url = host.baseUrl().toString();
        c.target.model = host.config().model;
        auto w = window(c);
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        runToEnd(*w);
        DashboardView *dashboard = w->dashboard();
        dashboard->refresh();
        QVERIFY(dashboard->chartView(QStringLiteral("throughput-latency"))->parentWidget()->isVisible());
        const RunSummary &s = w->document()->summary();
        const std::vector<CurvePoint> curve = throughputLatencyCurve(s, kneeMetric(s));
        QCOMPARE(curve.size(), std::size_t(3));
        const auto knee = findKnee(s);
        QVERIFY(knee);
        QVERIFY2(knee->saturated, qPrintable(knee->text));
        QCOMPARE(dashboard->kneeNote()->text(), knee->text);
        QList<QPointF> ring;
        for (QAbstractSeries *series : dashboard->curveChart()->series()) {
            if (auto *scatter = qobject_cast<QScatterSeries *>(series); scatter && !scatter->pointLabelsVisible())
                ring = scatter->points();
        }
        const CurvePoint &at = curve[knee->point];
        QCOMPARE(ring, (QList<QPointF>{QPointF(at.requestsPerS, at.p50)}));
    }

    void aContextSweepShowsItsFitInPlaceOfTheCurve()
    {
        RunConfig c = simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=1"), 4);
        c.load.stages = *parseSweep(QStringLiteral("p=128..1024:6"), nullptr);
        auto w = window(c);
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        runToEnd(*w);
        DashboardView *dashboard = w->dashboard();
        dashboard->refresh();
        QVERIFY(dashboard->chartView(QStringLiteral("context-sweep"))->parentWidget()->isVisible());
        QVERIFY(!dashboard->chartView(QStringLiteral("throughput-latency"))->parentWidget()->isVisible());
        const auto &sweep = w->document()->summary().contextSweep;
        QVERIFY(sweep);
        QCOMPARE(sweep->stages.size(), std::size_t(4));
        ContextSweepChart *chart = dashboard->contextChart();
        QVERIFY(chart->hasData());
        QCOMPARE(chart->stageDots().size(), 1);
        QCOMPARE(chart->stageDots().first()->count(), 4);
        QCOMPARE(chart->fitLines().size(), sweep->fit.ok ? 1 : 0);
        if (sweep->fit.ok)
            QVERIFY2(chart->fitLines().first()->name().endsWith(sweep->fitText()),
                     qPrintable(chart->fitLines().first()->name()));
    }

    /// Regression: against llama.cpp (listen backlog 5) users waited ≈1 s to connect, and the
    /// dashboard's TTFT p99 — from sent — left it out without a word. The header names the stalled
    /// connects, and the TTFT p99 tile says what users waited.
    void stalledConnectsShowWhatUsersWaited()
    {
        sim::SimConfig simConfig = *sim::SimConfig::preset(QStringLiteral("fast"));
        simConfig.listenBacklog = 5;
        simConfig.acceptDelayMs = 5;
        simConfig.maxBatch = 64;
        sim::SimulatorHost host(simConfig);
        QVERIFY(host.start());
        RunConfig c = simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=16:16"), 8);
        c.target.name = QStringLiteral("backlog");
        c.target.url = host.baseUrl().toString();
        c.target.model = host.config().model;
        auto w = window(c);
        w->resize(1280, 800);
        runToEnd(*w);
        const SummaryBlock &t = w->document()->summary().total;
        QVERIFY2(t.connections.slow > 0, "no connect waited for a SYN retry: the simulator's backlog did not overflow");
        const QString subtitle = w->findChild<QLabel *>(QStringLiteral("runSubtitle"))->text();
        QVERIFY2(subtitle.contains(QStringLiteral("connects took")), qPrintable(subtitle));
        const KpiTile *p99 = w->dashboard()->tile(QStringLiteral("ttft_p99"));
        QCOMPARE(p99->detail(), QStringLiteral("users waited %1").arg(formatMs(t.stat(Metric::TtftFromSchedule).p99)));
    }

    /// Regression: on a 1280×800 screen the context sweep's legend showed "20261202-1…" three
    /// times (the run's name before each entry): the fit and the requests the server truncated,
    /// left out of it, were unreadable. The entries start with what they are, the note above the
    /// chart says the fit whole, and the header warns of the truncation.
    void truncatedSweepSaysWhatTheFitLeftOutOnALaptop()
    {
        sim::SimConfig simConfig = *sim::SimConfig::preset(QStringLiteral("fast"));
        simConfig.slotContext = 4096;
        sim::SimulatorHost host(simConfig);
        QVERIFY(host.start());
        RunConfig c = simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=1"), 2);
        c.load.stages = *parseSweep(QStringLiteral("p=512..4106x4:4"), nullptr);
        c.target.name = QStringLiteral("slots");
        c.target.url = host.baseUrl().toString();
        c.target.model = host.config().model;
        auto w = window(c);
        w->resize(1280, 800);
        runToEnd(*w);
        DashboardView *dashboard = w->dashboard();
        dashboard->refresh();
        const auto &sweep = w->document()->summary().contextSweep;
        QVERIFY(sweep);
        QCOMPARE(dashboard->contextChart()->excludedDots().size(), 1);
        const QScatterSeries *rings = dashboard->contextChart()->excludedDots().first();
        QCOMPARE(rings->count(), 4);
        QCOMPARE(rings->name(), QStringLiteral("4 requests the server truncated (left out of the fit)"));
        QVERIFY(dashboard->contextNote()->isVisible());
        QCOMPARE(dashboard->contextNote()->text(), sweep->fitText());
        QVERIFY2(sweep->fitText().endsWith(QStringLiteral("; 4 requests the server truncated left out")),
                 qPrintable(sweep->fitText()));
        const QString subtitle = w->findChild<QLabel *>(QStringLiteral("runSubtitle"))->text();
        QVERIFY2(subtitle.contains(QStringLiteral("the server truncated prompts")), qPrintable(subtitle));
        QTest::qWait(300); // the cards relayout after the refresh
        dashboard->chartView(QStringLiteral("context-sweep"))
            ->parentWidget()
            ->grab()
            .save(QDir::temp().filePath(QStringLiteral("tokenbench-1280x800-context.png")));
    }

    /// Regression: the workbench sent every run the same prompts, so a sweep after two runs of the
    /// same workload found 99% of its prompts in the server's prefix cache. Each run now has a
    /// salt of its own; giving one back replays the run, and the dashboard warns of the hits.
    void aSweepAfterTwoRunsGetsNoCacheHits()
    {
        sim::SimulatorHost host(*sim::SimConfig::preset(QStringLiteral("fast")));
        QVERIFY(host.start());
        QVERIFY(host.config().prefixCacheTokens > 0);
        RunConfig c = simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=2:8"), 16);
        c.prompt.sharedPrefixTokens = 0; // every prompt unique: no hit is asked for
        c.target.name = QStringLiteral("cached");
        c.target.url = host.baseUrl().toString();
        c.target.model = host.config().model;
        auto w = window(c);
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        const RunOutcome first = runToEnd(*w);
        runToEnd(*w);
        RunConfig sweep = c;
        sweep.load.stages = *parseStages(QStringLiteral("c=1:8,c=2:8,c=4:8"), nullptr);
        w->configEditor()->setConfig(sweep);
        const RunOutcome swept = runToEnd(*w);
        QCOMPARE(swept.summary.stages.size(), std::size_t(3));
        for (const SummaryBlock &stage : swept.summary.stages)
            QCOMPARE(stage.tokens.cached, std::int64_t(0));
        QCOMPARE(swept.summary.total.tokens.cached, std::int64_t(0));
        // No word of the cache; timing warnings are the machine's (the asan-portable build on a busy
        // machine once saw "ITL is bimodal …" here: its chunks are timed when read).
        QVERIFY2(std::none_of(swept.summary.warnings.begin(), swept.summary.warnings.end(),
                              [](const QString &w) { return w.contains(QLatin1String("cache")); }),
                 qPrintable(swept.summary.warnings.join(u'\n')));

        // The first run's salt replays it: the cache answers, and the dashboard says it is a replay.
        QString error;
        const auto saved = RunReader::load(first.directory, &error, RunReader::SummaryOnly);
        QVERIFY2(saved, qPrintable(error));
        RunConfig replay = c;
        replay.prompt.salt = saved->info.config.prompt.salt;
        QVERIFY(!replay.prompt.salt.isEmpty());
        w->configEditor()->setConfig(replay);
        const RunOutcome replayed = runToEnd(*w);
        QVERIFY(replayed.summary.total.tokens.cacheHitRatio.value_or(0) > 0.5);
        w->dashboard()->refresh();
        const QString subtitle = w->findChild<QLabel *>(QStringLiteral("runSubtitle"))->text();
        QVERIFY2(subtitle.contains(QStringLiteral("this run replays prompt salt %1").arg(replay.prompt.salt)),
                 qPrintable(subtitle));
    }

    void mergedRunShowsMergedFromInItsHeader()
    {
        sim::SimulatorHost host(*sim::SimConfig::preset(QStringLiteral("fast")));
        QVERIFY(host.start());
        RunConfig c;
        c.target.url = host.baseUrl().toString();
        c.target.model = host.config().model;
        c.load.concurrency = 2;
        c.load.requests = 6;
        c.prompt.salt = QStringLiteral("one-run"); // the shards of one run share its salt (the CLI derives one)
        QStringList shards;
        for (int k = 0; k < 2; ++k) {
            c.outDir = QDir(m_runs.path()).filePath(QStringLiteral("sharded/shard-%1").arg(k));
            shards << c.outDir;
            BenchmarkRunner runner;
            runner.setShard({k, 2});
            QSignalSpy finished(&runner, &BenchmarkRunner::runFinished);
            QString error;
            QVERIFY2(runner.start(c, &error), qPrintable(error));
            QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, kRunTimeoutMs);
        }
        const QString merged = QDir(m_runs.path()).filePath(QStringLiteral("sharded/merged"));
        QString error;
        QVERIFY2(RunMerger::merge(shards, merged, &error), qPrintable(error));

        auto w = window(simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=1:1s")));
        QSignalSpy opened(w.get(), &MainWindow::runOpened);
        QVERIFY(w->openRun(merged));
        QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 30000);
        QCOMPARE(w->document()->summary().total.requests.ok, qint64(6));
        w->dashboard()->refresh();
        QStringList texts;
        for (const QLabel *label : w->dashboard()->findChildren<QLabel *>())
            texts << label->text();
        QVERIFY2(texts.join(QLatin1Char('\n')).contains(QLatin1String("merged from 2 shards (shard-0, shard-1)")),
                 qPrintable(texts.join(QLatin1Char('\n'))));
        w->grab().save(QDir::temp().filePath(QStringLiteral("tokenbench-merged.png")));
    }

    void exportsParseBack_data()
    {
        QTest::addColumn<int>("format");
        QTest::newRow("png") << int(ChartExporter::Format::Png);
        QTest::newRow("svg") << int(ChartExporter::Format::Svg);
    }

    void exportsParseBack()
    {
        QFETCH(int, format);
        auto w = window(simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=2:1s,c=4:1s")));
        runToEnd(*w);
        RunDocument *doc = w->document();
        QTemporaryDir out;
        const QList<DashboardView::ChartEntry> shown = w->dashboard()->shownCharts();
        ExportDialog dialog(doc, shown, w->summaryView()->model(), w.get());
        // By default the run's own folder in the one remembered export folder.
        QCOMPARE(dialog.folder(), ExportFolder::filePath(QFileInfo(doc->directory()).fileName()));
        dialog.setFolder(out.path());
        dialog.setFormat(ChartExporter::Format(format));
        QString error;
        const QStringList written = dialog.exportSelected(&error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(written.size(), 3 + int(shown.size()));
        // Regression: the hidden cards of a staged run without conversations or a context sweep
        // were exported too, as empty figures without the run's name.
        const auto hasKey = [&shown](const char *key) {
            return std::any_of(shown.begin(), shown.end(),
                               [key](const DashboardView::ChartEntry &c) { return c.key == QLatin1String(key); });
        };
        QVERIFY(hasKey("throughput-latency"));
        QVERIFY(!hasKey("turns"));
        QVERIFY(!hasKey("context-sweep"));

        // requests.csv: the run's rows, which parse back into the table's records.
        QFile requests(QDir(out.path()).filePath(QStringLiteral("requests.csv")));
        QVERIFY(requests.open(QIODevice::ReadOnly));
        const QByteArray requestsCsv = requests.readAll();
        CsvReader reader(requestsCsv);
        std::vector<std::string> fields;
        QVERIFY(reader.next(fields));
        runfiles::RequestRowParser parser;
        QVERIFY2(parser.setHeader(fields, &error), qPrintable(error));
        int row = 0;
        while (reader.next(fields)) {
            RequestRecord r;
            double itl = 0;
            QVERIFY2(parser.parse(fields, doc->info(), &r, &itl, &error), qPrintable(error));
            const RequestRecord &shown = doc->requests()->record(row++);
            QCOMPARE(r.id, shown.id);
            QCOMPARE(r.completionTokens, shown.completionTokens);
            QCOMPARE(r.ttftMs().has_value(), shown.ttftMs().has_value());
            if (r.ttftMs())
                QVERIFY(std::abs(*r.ttftMs() - *shown.ttftMs()) < 0.002); // µs in the file
        }
        QCOMPARE(row, doc->requests()->rowCount());

        // timeseries.csv: the same rows as the dashboard's.
        QFile series(QDir(out.path()).filePath(QStringLiteral("timeseries.csv")));
        QVERIFY(series.open(QIODevice::ReadOnly));
        const auto rows = runfiles::parseTimeSeriesCsv(series.readAll(), doc->stages(), &error);
        QVERIFY2(rows, qPrintable(error));
        QCOMPARE(rows->size(), doc->timeSeries().size());
        for (std::size_t i = 0; i < rows->size(); ++i) {
            QCOMPARE((*rows)[i].completed, doc->timeSeries()[i].completed);
            QCOMPARE((*rows)[i].outputTokens, doc->timeSeries()[i].outputTokens);
            QCOMPARE((*rows)[i].inFlight, doc->timeSeries()[i].inFlight);
        }

        // summary.csv: the summary's exact numbers.
        QFile summary(QDir(out.path()).filePath(QStringLiteral("summary.csv")));
        QVERIFY(summary.open(QIODevice::ReadOnly));
        const QByteArray summaryCsv = summary.readAll();
        CsvReader summaryReader(summaryCsv);
        QVERIFY(summaryReader.next(fields));
        bool sawTtft = false;
        while (summaryReader.next(fields)) {
            if (fields[0] == "ttft_p50") {
                QCOMPARE(std::stod(fields[3]), doc->summary().total.stat(Metric::Ttft).p50);
                QCOMPARE(std::stod(fields[5]), doc->summary().stages[1].stat(Metric::Ttft).p50);
                sawTtft = true;
            }
            if (fields[0] == "requests_ok")
                QCOMPARE(std::stoll(fields[3]), doc->summary().total.requests.ok);
        }
        QVERIFY(sawTtft);

        // Charts: one file each, with content.
        for (const DashboardView::ChartEntry &chart : shown) {
            const QString path =
                QDir(out.path())
                    .filePath(chart.key + QLatin1Char('.') + ChartExporter::suffix(ChartExporter::Format(format)));
            QVERIFY2(written.contains(path), qPrintable(path));
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QByteArray bytes = file.readAll();
            if (format == int(ChartExporter::Format::Png)) {
                QImage image;
                QVERIFY(image.loadFromData(bytes));
                QCOMPARE(image.size(), QSize(1920, 1080));
                // A chart with no data (no errors) exports its reason in words: less ink, not none.
                QVERIFY2(inkFraction(image, image.rect()) > (chart.view->isEmpty() ? 0.0005 : 0.01),
                         qPrintable(chart.key));
            } else {
                QVERIFY(bytes.contains(chart.view->chart()->title().toUtf8()));
                QVERIFY(bytes.contains(doc->name().toUtf8())); // the run, under the title
            }
        }
    }

    void copySummaryToClipboard()
    {
        auto w = window(simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=2:1s")));
        QVERIFY(!w->copySummaryAction()->isEnabled()); // nothing to copy yet
        runToEnd(*w);
        QVERIFY(w->copySummaryAction()->isEnabled());
        QApplication::clipboard()->clear();
        w->copySummaryAction()->trigger();
        const QString text = QApplication::clipboard()->text();
        QVERIFY2(text.contains(QStringLiteral("TTFT p50\tms\t")), qPrintable(text.left(300)));
        QVERIFY(text.startsWith(QStringLiteral("Metric\tUnit\tWhole run")));
    }

    // Regression (issue 27): a failed run drew empty 0–1 axes for its throughput and concurrency.
    // Only its errors are charted; every other chart says what happened.
    void failedRunDrawsNoEmptyAxes_data() { failedRunRows(); }

    void failedRunDrawsNoEmptyAxes()
    {
        QFETCH(bool, reopened);
        auto w = windowOnARefusedRun(reopened);
        const QList<DashboardView::ChartEntry> charts = w->dashboard()->shownCharts();
        QVERIFY(charts.size() >= 5);
        for (const DashboardView::ChartEntry &chart : charts) {
            if (chart.key == QLatin1String("errors-by-status")) {
                QVERIFY(!chart.view->isEmpty());
                continue;
            }
            QVERIFY2(chart.view->isEmpty(), qPrintable(chart.key));
            if (chart.key != QLatin1String("server"))
                QVERIFY2(
                    chart.view->emptyText().startsWith(QStringLiteral("No request succeeded: nothing to chart.")) &&
                        chart.view->emptyText().contains(QStringLiteral("6 of 6 requests failed")),
                    qPrintable(chart.key + QStringLiteral(": ") + chart.view->emptyText()));
        }
    }

    // Regression (issue 27): the Server card of a run whose server was down said its /metrics was
    // not scraped (or could not be read), as if the endpoint were the problem.
    void serverCardDoesNotBlameMetricsWhenTheServerWasDown_data() { failedRunRows(); }

    void serverCardDoesNotBlameMetricsWhenTheServerWasDown()
    {
        QFETCH(bool, reopened);
        auto w = windowOnARefusedRun(reopened);
        ChartView *server = w->dashboard()->chartView(QStringLiteral("server"));
        QVERIFY(server->isEmpty());
        const QString text = server->emptyText();
        QVERIFY2(text.startsWith(QStringLiteral("The server did not answer (6 of 6 requests failed")),
                 qPrintable(text));
        QVERIFY2(!text.contains(QStringLiteral("not scraped")) && !text.contains(QStringLiteral("could not be read")),
                 qPrintable(text));
    }

    // View ▸ Theme: Dark darkens the dashboard's page, tiles and charts, is kept for the next
    // start, and System brings the desktop's (here: light) palette back.
    void themeIsKeptAndFollowed()
    {
        using chartstyle::Theme;
        const auto action = [](const MainWindow &w, const char *name) {
            return w.findChild<QAction *>(QStringLiteral("actionTheme_%1").arg(QLatin1String(name)));
        };
        {
            auto w = window(simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=1:1s")));
            QVERIFY(action(*w, "system")->isChecked());
            action(*w, "dark")->trigger();
        }
        QCOMPARE(QSettings().value(QStringLiteral("view/theme")).toString(), QStringLiteral("dark"));
        AppTheme::apply(AppTheme::Setting::System);
        QCOMPARE(chartstyle::screenTheme(), Theme::Light);

        auto w = window(simulatorConfig(QStringLiteral("fast"), QStringLiteral("c=1:1s")));
        QCOMPARE(w->theme(), AppTheme::Setting::Dark);
        QVERIFY(action(*w, "dark")->isChecked());
        QCOMPARE(chartstyle::screenTheme(), Theme::Dark);
        auto *page = w->findChild<QWidget *>(QStringLiteral("dashboardPage"));
        QVERIFY(page);
        const QColor lightPage(0xf4, 0xf5, 0xf7);
        QTRY_COMPARE(page->palette().color(QPalette::Window), chartstyle::themed(lightPage, Theme::Dark));
        const auto *value = w->findChild<QLabel *>(QStringLiteral("kpiValue"));
        QVERIFY(value->palette().color(QPalette::WindowText).lightness() > 200);
        QVERIFY(!w->dashboard()->charts().isEmpty());
        for (const DashboardView::ChartEntry &chart : w->dashboard()->charts())
            QCOMPARE(chart.view->chart()->backgroundBrush().color(), chartstyle::surface(Theme::Dark));

        action(*w, "system")->trigger();
        QCOMPARE(chartstyle::screenTheme(), Theme::Light);
        QTRY_COMPARE(page->palette().color(QPalette::Window), lightPage);
        QCOMPARE(value->palette().color(QPalette::WindowText), QColor(0x11, 0x18, 0x27));
        for (const DashboardView::ChartEntry &chart : w->dashboard()->charts())
            QCOMPARE(chart.view->chart()->backgroundBrush().color(), QColor(Qt::white));
        QCOMPARE(QSettings().value(QStringLiteral("view/theme")).toString(), QStringLiteral("system"));
    }
};

QTEST_MAIN(TestUiDashboard)
#include "tst_ui_dashboard.moc"
