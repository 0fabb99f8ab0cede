// The comparison GUI on real runs against simulated servers: the models under
// QAbstractItemModelTester, the view's table, banner and overlaid charts, chart exports (PNG, SVG,
// PDF for a slide and an A4 page), the session panel, and the main window's Compare menu and drops.
#include "charts/chartstyle.h"
#include "charts/chartview.h"
#include "charts/comparisoncharts.h"
#include "charts/distributionchart.h"
#include "charts/timechart.h"
#include "compare/comparisonsessionpanel.h"
#include "compare/comparisonview.h"
#include "compare/headlinestrip.h"
#include "comparisoncontroller.h"
#include "editors/configeditor.h"
#include "mainwindow.h"
#include "models/comparisonmodel.h"
#include "models/runhistorymodel.h"
#include "models/summarymodel.h"
#include "models/targetlistmodel.h"
#include "views/dashboardview.h"
#include "views/exportdialog.h"
#include "widgets/exportfolder.h"
#include "widgets/kpitile.h"

#include "analysis/baseline.h"
#include "analysis/metriccatalogue.h"
#include "analysis/svgchart.h"
#include "results/rundirectory.h"
#include "run/benchmarkrunner.h"
#include "run/comparisonsession.h"
#include "sim/simulatorhost.h"
#include "support/comparisonrows.h"
#include "support/savedrun.h"
#include "support/testfiles.h"
#include "support/testsettings.h"
#include "support/testsimulator.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QFileDialog>
#include <QLabel>
#include <QLineSeries>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>
#include <QXmlStreamReader>

#include <algorithm>
#include <memory>

using namespace tb;
using tb::sim::SimConfig;
using tb::sim::SimulatorHost;
using tb::test::readFile;
using tb::test::targetOf;

namespace {

RunConfig workload()
{
    RunConfig c;
    c.load.concurrency = 2;
    c.load.requests = 24;
    c.prompt.promptTokens = 40;
    c.request.maxTokens = 32;
    return c;
}

bool parsesAsXml(const QByteArray &bytes, QString *error)
{
    QXmlStreamReader xml(bytes);
    while (!xml.atEnd())
        xml.readNext();
    *error = xml.errorString();
    return !xml.hasError();
}

int pointCount(const QChart *chart)
{
    int points = 0;
    for (const QAbstractSeries *series : chart->series()) {
        if (const auto *xy = qobject_cast<const QXYSeries *>(series))
            points += int(xy->count());
    }
    return points;
}

} // namespace

class TestUiComparison : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_settingsDir;
    QTemporaryDir m_tmp;
    std::unique_ptr<SimulatorHost> m_fast;
    std::unique_ptr<SimulatorHost> m_slow;
    QString m_a;       ///< fast server
    QString m_b;       ///< slow server, staged
    QString m_c;       ///< slow server, another max_tokens
    QString m_session; ///< interleaved, both servers

    bool runOne(const RunConfig &config) { return test::saveRun(config); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_settingsDir.isValid());
        test::isolateSettings(m_settingsDir.path(), QStringLiteral("tst_ui_comparison"));
        qRegisterMetaType<RunOutcome>();

        m_fast = test::startFastSimulator(20, 2);
        m_slow = test::startFastSimulator(60, 4);
        QVERIFY(m_fast && m_slow);
        m_a = m_tmp.filePath(QStringLiteral("fast-run"));
        m_b = m_tmp.filePath(QStringLiteral("slow-staged"));
        m_c = m_tmp.filePath(QStringLiteral("slow-short"));
        RunConfig a = workload();
        a.target = targetOf(*m_fast, QStringLiteral("fast"));
        a.outDir = m_a;
        QVERIFY(runOne(a));
        RunConfig b = workload();
        b.target = targetOf(*m_slow, QStringLiteral("slow"));
        QString why;
        b.load.stages = *parseStages(QStringLiteral("c=1:8,c=2:10,c=4:16"), &why);
        b.outDir = m_b;
        QVERIFY(runOne(b));
        RunConfig c = workload();
        c.target = b.target;
        c.request.maxTokens = 16;
        c.outDir = m_c;
        QVERIFY(runOne(c));

        SessionRunner session;
        QSignalSpy finished(&session, &SessionRunner::sessionFinished);
        SessionRunner::Config config;
        config.name = QStringLiteral("pair");
        config.mode = SessionMode::Interleaved;
        config.workload = workload();
        config.targets = {targetOf(*m_fast, QStringLiteral("fast")), targetOf(*m_slow, QStringLiteral("slow"))};
        config.directory = m_tmp.filePath(QStringLiteral("session"));
        m_session = config.directory;
        QString error;
        QVERIFY2(session.start(config, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
    }

    void init() { QSettings().clear(); }

    void modelsUnderTester()
    {
        ComparisonView view;
        QAbstractItemModelTester tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester pairedTester(view.pairedModel(),
                                              QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy loaded(&view, &ComparisonView::loaded);
        view.openDirectories({m_a, m_b, m_c});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        const ComparisonModel *model = view.model();
        // A second mode (TTFT or ITL) shows only in runs that had one, which the machine's load decides.
        int secondModes = 0;
        for (int row = 0; row < model->rowCount(); ++row)
            secondModes += model->index(row, 0).data(ComparisonModel::KeyRole).toString().endsWith(u"_bimodal_pct");
        // 15 rows, the simulator's /metrics adds 5 of the server, its text 3 of redundancy, and the
        // tokens in flight.
        QCOMPARE(model->rowCount(), 15 + 5 + 3 + 1 + secondModes);
        QCOMPARE(model->columnCount(), ComparisonModel::FirstRunColumn + 3);
        QCOMPARE(view.pairedModel()->rowCount(), 0); // not an interleaved session

        // The cells show the summaries' numbers; the fast server's TTFT is the best.
        QString error;
        const auto fast = RunReader::load(m_a, &error, RunReader::SummaryOnly);
        QVERIFY2(fast, qPrintable(error));
        const QModelIndex ttft = model->index(1, ComparisonModel::columnOfRun(0)); // TTFT p50
        QCOMPARE(model->index(1, ComparisonModel::MetricColumn).data().toString(), QStringLiteral("TTFT p50"));
        QCOMPARE(ttft.data().toString(), ComparisonTable::formatValue(fast->summary.total.stat(Metric::Ttft).p50));
        QCOMPARE(ttft.data(ComparisonModel::ValueRole).toDouble(), fast->summary.total.stat(Metric::Ttft).p50);
        QVERIFY(ttft.data(ComparisonModel::BestRole).toBool());
        QVERIFY(ttft.data(Qt::FontRole).value<QFont>().bold());
        QVERIFY(ttft.data(ComparisonModel::BaselineRole).toBool());
        const QModelIndex slow = model->index(1, ComparisonModel::columnOfRun(1));
        QVERIFY(!slow.data(ComparisonModel::BestRole).toBool());
        QVERIFY(slow.data(ComparisonModel::DeltaPctRole).toDouble() > 0);
        QVERIFY2(slow.data(ComparisonModel::DeltaTextRole).toString().contains(QStringLiteral("significant")),
                 qPrintable(slow.data(ComparisonModel::DeltaTextRole).toString()));
        QCOMPARE(slow.data(ComparisonModel::DeltaToneRole).toInt(), -1); // significantly worse
        QVERIFY(slow.data(Qt::ToolTipRole).toString().contains(QStringLiteral("95% confidence interval")));
        for (int row = 0; row < model->rowCount(); ++row) // every row explains its metric (the glossary)
            QVERIFY2(model->index(row, ComparisonModel::MetricColumn)
                             .data(Qt::ToolTipRole)
                             .toString()
                             .startsWith(MetricCatalogue::definition(
                                 model->index(row, 0).data(ComparisonModel::KeyRole).toString())) &&
                         MetricCatalogue::glossaryEntry(model->index(row, 0).data(ComparisonModel::KeyRole).toString()),
                     qPrintable(model->index(row, 0).data(ComparisonModel::KeyRole).toString()));
        QCOMPARE(model->headerData(ComparisonModel::columnOfRun(0), Qt::Horizontal).toString(),
                 QStringLiteral("#1 fast-run\n(baseline)"));
        QCOMPARE(model->headerData(ComparisonModel::columnOfRun(1), Qt::Horizontal, ComparisonModel::RunColorRole)
                     .value<QColor>(),
                 QColor(runColor(1)));
        QCOMPARE(model->toTsv().count(QLatin1Char('\n')), model->rowCount() + 1); // a header line, then a line a row

        // Another baseline: recomputed off the GUI thread, then the model resets.
        view.setBaseline(1);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 60000);
        QVERIFY(model->index(0, ComparisonModel::columnOfRun(1)).data(ComparisonModel::BaselineRole).toBool());
        QVERIFY(model->index(1, ComparisonModel::columnOfRun(0)).data(ComparisonModel::DeltaPctRole).toDouble() < 0);

        // An interleaved session: the paired model fills.
        view.openDirectories({m_session});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 3, 60000);
        QCOMPARE(view.runCount(), 2);
        QCOMPARE(view.pairedModel()->rowCount(), 4);
        QCOMPARE(view.pairedModel()->columnCount(), PairedDeltaModel::FirstRunColumn + 1);
        QVERIFY(
            view.pairedModel()->index(0, PairedDeltaModel::FirstRunColumn).data(ComparisonModel::ValueRole).toDouble() >
            0);
        QVERIFY(view.chartTabs()->isTabVisible(ComparisonView::PairedTab));
    }

    void viewDrawsOverlaidCharts()
    {
        ComparisonView view;
        view.resize(1200, 900);
        QSignalSpy loaded(&view, &ComparisonView::loaded);
        view.openDirectories({m_a, m_b, m_c});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));

        // One CDF per run, in the run's colour.
        const QList<QAbstractSeries *> cdfs = view.cdfChart()->series();
        QCOMPARE(cdfs.size(), 3);
        for (int i = 0; i < 3; ++i) {
            const auto *line = qobject_cast<QXYSeries *>(cdfs[i]);
            QVERIFY(line && line->count() >= 2);
            QCOMPARE(line->pen().color(), QColor(runColor(i)));
        }
        QVERIFY(!view.chartView(ComparisonView::CdfTab)->isEmpty());
        view.setCdfMetric(Metric::E2e);
        QCOMPARE(view.cdfChart()->series().size(), 3);
        QVERIFY(pointCount(view.cdfChart()) >= 6);

        QCOMPARE(view.throughputChart()->lines().size(), 3);
        for (const QLineSeries *line : view.throughputChart()->lines())
            QVERIFY(line->count() > 0);
        // Only the staged run has a curve: a point per stage, p50 and p99, and a label per stage.
        QVERIFY(view.curveChart()->hasData());
        QCOMPARE(pointCount(view.curveChart()), 2 * 3 + 3);
        QVERIFY(!view.chartView(ComparisonView::CurveTab)->isEmpty());

        // The workload difference (max_tokens) is in the banner.
        QVERIFY(view.banner()->isVisible());
        QVERIFY2(view.banner()->text().contains(QStringLiteral("<b>Workload differences</b> (")),
                 qPrintable(view.banner()->text()));
        QVERIFY(!view.banner()->text().contains(QStringLiteral("max_tokens 16, baseline 32")));
        emit view.banner()->linkActivated(QStringLiteral("#details"));
        QVERIFY2(view.banner()->text().contains(QStringLiteral("max_tokens 16, baseline 32")),
                 qPrintable(view.banner()->text()));
        QCOMPARE(view.title(), QStringLiteral("Compare: fast-run · slow-staged · slow-short"));

        if (const QByteArray dir = qgetenv("TB_SCREENSHOTS"); !dir.isEmpty()) {
            for (const auto tab : {ComparisonView::CdfTab, ComparisonView::ThroughputTab, ComparisonView::CurveTab}) {
                view.chartTabs()->setCurrentIndex(tab);
                QTest::qWait(200);
                view.grab().save(
                    QStringLiteral("%1/comparison-view-%2.png").arg(QString::fromLocal8Bit(dir)).arg(int(tab)));
            }
        }
    }

    // Issue 31: runs with --gpu-metrics offer their GPUs' power over time beside throughput, each
    // run's line exactly its trace's sum; with a run without GPU data there is no such choice.
    void gpuPowerOverTimeWhenEveryRunHasIt_data()
    {
        QTest::addColumn<bool>("allGpu");
        QTest::newRow("two runs with GPU data") << true;
        QTest::newRow("one of them without") << false;
    }
    void gpuPowerOverTimeWhenEveryRunHasIt()
    {
        QFETCH(bool, allGpu);
        QStringList dirs;
        for (const int gpus : {1, 2}) {
            RunConfig c = workload();
            c.target = targetOf(*m_fast, QStringLiteral("fast"));
            if (allGpu || gpus == 1)
                c.target.gpuMetricsUrl = m_fast->baseUrl().resolved(QUrl(QStringLiteral("/dcgm"))).toString();
            c.outDir = m_tmp.filePath(QStringLiteral("gpu-%1-%2").arg(allGpu).arg(gpus));
            QVERIFY(runOne(c));
            dirs << c.outDir;
        }
        ComparisonView view;
        view.resize(1200, 900);
        QSignalSpy loaded(&view, &ComparisonView::loaded);
        view.openDirectories(dirs);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        auto *box = view.findChild<QComboBox *>(QStringLiteral("overTimeBox"));
        QVERIFY(box);
        const int item = box->findData(int(ComparisonView::OverTime::GpuPower));
        QCOMPARE(item >= 0, allGpu);
        if (!allGpu)
            return;
        box->setCurrentIndex(item);
        emit box->activated(item);
        QCOMPARE(view.throughputChart()->leftAxis()->titleText(), QStringLiteral("power (W)"));
        const QList<QLineSeries *> lines = view.throughputChart()->lines();
        QCOMPARE(lines.size(), 2);
        for (int i = 0; i < 2; ++i) {
            QString why;
            const auto run = RunReader::load(dirs.at(i), &why);
            QVERIFY2(run, qPrintable(why));
            QVERIFY(run->gpuTrace.rows.size() >= 2);
            QCOMPARE(int(lines.at(i)->count()), int(run->gpuTrace.rows.size()));
            for (int p = 0; p < lines.at(i)->count(); ++p) {
                const GpuTrace::Row &row = run->gpuTrace.rows.at(std::size_t(p));
                QCOMPARE(lines.at(i)->at(p), QPointF(row.tS, row.powerWSum));
            }
        }
        QVERIFY(!view.chartView(ComparisonView::ThroughputTab)->isEmpty());
    }

    void headlineStripNamesTheWinners()
    {
        ComparisonView view;
        QSignalSpy loaded(&view, &ComparisonView::loaded);
        view.openDirectories({m_a, m_b, m_c});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        const HeadlineStrip *strip = view.headlineStrip();
        QCOMPARE(strip->keys(), (QStringList{QStringLiteral("ttft_p50"), QStringLiteral("requests_per_s"),
                                             QStringLiteral("output_tokens_per_s"), QStringLiteral("out_in_ratio"),
                                             QStringLiteral("error_pct")}));
        // The fast server (20 ms to the first token, against 60 ms) wins TTFT, with its value.
        QString error;
        const auto fast = RunReader::load(m_a, &error, RunReader::SummaryOnly);
        QVERIFY2(fast, qPrintable(error));
        const KpiTile *ttft = strip->tile(QStringLiteral("ttft_p50"));
        QCOMPARE(ttft->value(), ComparisonTable::formatValue(fast->summary.total.stat(Metric::Ttft).p50));
        QCOMPARE(ttft->detail(), QStringLiteral("★ #1 fast-run"));
        QCOMPARE(ttft->accent(), QColor(runColor(0)));
        // Nobody failed: no winner to name.
        QCOMPARE(strip->tile(QStringLiteral("error_pct"))->detail(), QStringLiteral("all runs alike"));
        // Out/in has no better direction: every run's value, once when they all have the same.
        const ComparisonTable::Row &outIn = test::row(view.model()->result()->table, "out_in_ratio");
        const KpiTile *ratio = strip->tile(QStringLiteral("out_in_ratio"));
        if (outIn.values[0] == outIn.values[1] && outIn.values[1] == outIn.values[2])
            QCOMPARE(ratio->detail(), QStringLiteral("all runs alike"));
        else
            QCOMPARE(ratio->value().count(QStringLiteral(" · ")), 2);
        QVERIFY(!strip->tile(QStringLiteral("ttft_mean")));
    }

    // The strip names its cost tile by the key the table's cost row has: two priced runs get one.
    void headlineStripNamesTheCheapest()
    {
        const auto priced = [](const Pricing &prices, std::int64_t output, const QString &name) {
            RunData run;
            run.name = name;
            run.summary.total.requests.ok = run.summary.total.requests.attempted = 10;
            run.summary.total.tokens.input = 1000;
            run.summary.total.tokens.output = output;
            run.summary.total.cost = CostSummary::of(prices, run.summary.total.tokens, 10, 10);
            return run;
        };
        // a: (1000·1 + 2000·4) µUSD for 2000 output tokens; b: (1000·2 + 500·8) µUSD for 500.
        const ComparisonTable table({priced(Pricing{1.0, std::nullopt, 4.0, {}}, 2000, QStringLiteral("a")),
                                     priced(Pricing{2.0, std::nullopt, 8.0, {}}, 500, QStringLiteral("b"))});
        HeadlineStrip strip;
        strip.setTable(table);
        QVERIFY2(strip.keys().contains(QStringLiteral("cost_per_1m_output_tokens")),
                 qPrintable(strip.keys().join(QLatin1Char(' '))));
        const KpiTile *cost = strip.tile(QStringLiteral("cost_per_1m_output_tokens"));
        QCOMPARE(cost->value(), ComparisonTable::formatValue(9000e-6 / 2000 * 1e6));
        QCOMPARE(cost->detail(), QStringLiteral("★ #1 a"));
        QCOMPARE(strip.keys().constLast(), QStringLiteral("cost_per_1m_output_tokens"));
    }

    void aSingleStagedRunComparesItsStages()
    {
        ComparisonView view;
        QSignalSpy loaded(&view, &ComparisonView::loaded);
        view.openDirectories({m_b});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        QCOMPARE(view.runCount(), 3);
        QCOMPARE(view.model()->headerData(ComparisonModel::columnOfRun(2), Qt::Horizontal).toString(),
                 QStringLiteral("#3 c=4"));
        QCOMPARE(view.title(), QStringLiteral("Sweep: slow-staged"));
        // Its curve, one run's: a p50 and a p99 point and a label per stage.
        QCOMPARE(view.chartTabs()->currentIndex(), int(ComparisonView::CurveTab));
        QVERIFY(view.curveChart()->hasData());
        QVERIFY(pointCount(view.curveChart()) >= 2 * 3 + 3);
        // The stages' requests are split between the columns.
        QString error;
        const auto run = RunReader::load(m_b, &error, RunReader::SummaryOnly);
        QVERIFY2(run, qPrintable(error));
        const QModelIndex rps = view.model()->index(8, ComparisonModel::columnOfRun(1));
        QCOMPARE(view.model()->index(8, ComparisonModel::MetricColumn).data().toString(), QStringLiteral("Requests/s"));
        QCOMPARE(rps.data(ComparisonModel::ValueRole).toDouble(), run->summary.stages[1].throughput.requestsPerS);
    }

    void runsOfOneLoadLevelAreLabelledPoints()
    {
        ComparisonView view;
        QSignalSpy loaded(&view, &ComparisonView::loaded);
        view.openDirectories({m_a, m_c});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        QStringList labels;
        for (const QAbstractSeries *series : view.curveChart()->series()) {
            if (const auto *xy = qobject_cast<const QXYSeries *>(series); xy && xy->pointLabelsVisible())
                labels << xy->pointLabelsFormat();
        }
        QCOMPARE(labels, (QStringList{QStringLiteral("fast-run"), QStringLiteral("slow-short")}));
        QVERIFY(!view.chartView(ComparisonView::CurveTab)->isEmpty());
    }

    void badFoldersAreNamedAndTheRestCompares()
    {
        QTemporaryDir tmp;
        const QString empty = tmp.filePath(QStringLiteral("not-a-run"));
        QVERIFY(QDir().mkpath(empty));
        ComparisonView view;
        QSignalSpy problems(&view, &ComparisonView::problemsFound);
        QSignalSpy loaded(&view, &ComparisonView::loaded);
        view.openDirectories({m_a, empty, m_c});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        QCOMPARE(view.runCount(), 2);
        QCOMPARE(problems.count(), 1);
        QVERIFY(view.problems().first().startsWith(QDir::toNativeSeparators(empty)));
        QVERIFY(view.problems().first().contains(QStringLiteral("not a run directory")));
        QVERIFY2(view.banner()->text().contains(QStringLiteral("Not compared</b> (1)")),
                 qPrintable(view.banner()->text()));
        view.showBannerDetails(true);
        QVERIFY(view.banner()->text().contains(QStringLiteral("not-a-run")));
    }

    void curveRingsTheKnee()
    {
        ThroughputLatencyChart chart;
        const std::vector<CurvePoint> flattening{{QStringLiteral("c=1"), 10, 50, 100},
                                                 {QStringLiteral("c=2"), 19, 60, 120},
                                                 {QStringLiteral("c=4"), 30, 80, 160},
                                                 {QStringLiteral("c=8"), 30.5, 200, 400}};
        const std::vector<CurvePoint> rising{{QStringLiteral("c=1"), 10, 50, 100},
                                             {QStringLiteral("c=2"), 20, 55, 110}};
        chart.setCurves({{QStringLiteral("a"), Qt::blue, flattening}, {QStringLiteral("b"), Qt::red, rising}});
        QList<QScatterSeries *> rings;
        QStringList labels;
        for (QAbstractSeries *series : chart.series()) {
            if (auto *scatter = qobject_cast<QScatterSeries *>(series); scatter && scatter->pointLabelsVisible())
                labels << scatter->pointLabelsFormat();
            else if (scatter)
                rings << scatter;
        }
        // Only the run that saturated gets a ring, on its c=4 point.
        QCOMPARE(rings.size(), 1);
        QCOMPARE(rings.first()->name(), QStringLiteral("a knee"));
        QCOMPARE(rings.first()->points(), (QList<QPointF>{QPointF(30, 80)}));
        QVERIFY2(chartstyle::description(rings.first()).startsWith(QStringLiteral("knee at c=4")),
                 qPrintable(chartstyle::description(rings.first())));
        // Every p50 point names its stage.
        QCOMPARE(labels, (QStringList{QStringLiteral("c=1"), QStringLiteral("c=2"), QStringLiteral("c=4"),
                                      QStringLiteral("c=8"), QStringLiteral("c=1"), QStringLiteral("c=2")}));
    }

    void aLoadBalancedRunComparesItsInstances()
    {
        // One run spread over both servers: alone in the view it stands for its two instances,
        // and its summary table gets a column for each.
        RunConfig config = workload();
        config.target = targetOf(*m_fast, QStringLiteral("balanced"));
        config.target.replicas = {m_slow->baseUrl().toString()};
        config.target.balance = Balance::RoundRobin;
        config.outDir = m_tmp.filePath(QStringLiteral("balanced"));
        QVERIFY(runOne(config));

        ComparisonView view;
        QSignalSpy loaded(&view, &ComparisonView::loaded);
        view.openDirectories({config.outDir});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        QCOMPARE(view.runCount(), 2);
        QAbstractItemModelTester tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QString fastName = instanceName(m_fast->baseUrl().toString());
        const QString slowName = instanceName(m_slow->baseUrl().toString());
        QVERIFY2(
            view.model()->headerData(ComparisonModel::FirstRunColumn, Qt::Horizontal).toString().contains(fastName),
            qPrintable(view.model()->headerData(ComparisonModel::FirstRunColumn, Qt::Horizontal).toString()));
        QVERIFY(view.model()
                    ->headerData(ComparisonModel::FirstRunColumn + 1, Qt::Horizontal)
                    .toString()
                    .contains(slowName));

        QString error;
        const auto run = RunReader::load(config.outDir, &error, RunReader::SummaryOnly);
        QVERIFY2(run, qPrintable(error));
        SummaryTableModel summary;
        QAbstractItemModelTester summaryTester(&summary, QAbstractItemModelTester::FailureReportingMode::QtTest);
        summary.setSummary(run->summary);
        QCOMPARE(summary.blockNames(), (QStringList{QStringLiteral("run"), fastName, slowName}));
        // Round robin: 12 requests each, and the columns add up to the run.
        const int okRow = [&] {
            for (int row = 0; row < summary.rowCount(); ++row) {
                if (summary.key(row) == QLatin1String("requests_ok"))
                    return row;
            }
            return -1;
        }();
        QVERIFY(okRow >= 0);
        QCOMPARE(summary.value(okRow, 0), std::optional<double>(24));
        QCOMPARE(summary.value(okRow, 1), std::optional<double>(12));
        QCOMPARE(summary.value(okRow, 2), std::optional<double>(12));
    }

    // A run of a --model mix alone in the view stands for its models, as a load-balanced run for
    // its instances, and its summary table gets a column for each: exact shares, 18 and 6 of 24.
    void aModelMixRunComparesItsModels()
    {
        sim::SimConfig served = *sim::SimConfig::preset(QStringLiteral("fast"));
        served.model = QStringLiteral("base");
        served.models = {QStringLiteral("lora-1")};
        const auto host = test::startSimulator(served);
        QVERIFY(host);
        RunConfig config = workload();
        config.target = targetOf(*host, QStringLiteral("mix"));
        config.target.model = QStringLiteral("base:0.75,lora-1:0.25");
        config.outDir = m_tmp.filePath(QStringLiteral("mix"));
        QVERIFY(runOne(config));

        ComparisonView view;
        QSignalSpy loaded(&view, &ComparisonView::loaded);
        view.openDirectories({config.outDir});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        QCOMPARE(view.runCount(), 2);
        QAbstractItemModelTester tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QString first = view.model()->headerData(ComparisonModel::FirstRunColumn, Qt::Horizontal).toString();
        const QString second = view.model()->headerData(ComparisonModel::FirstRunColumn + 1, Qt::Horizontal).toString();
        QVERIFY2(first.contains(u"base"), qPrintable(first));
        QVERIFY2(second.contains(u"lora-1"), qPrintable(second));

        QString error;
        const auto run = RunReader::load(config.outDir, &error, RunReader::SummaryOnly);
        QVERIFY2(run, qPrintable(error));
        SummaryTableModel summary;
        QAbstractItemModelTester summaryTester(&summary, QAbstractItemModelTester::FailureReportingMode::QtTest);
        summary.setSummary(run->summary);
        QCOMPARE(summary.blockNames(),
                 (QStringList{QStringLiteral("run"), QStringLiteral("base"), QStringLiteral("lora-1")}));
        int okRow = -1;
        for (int row = 0; row < summary.rowCount(); ++row) {
            if (summary.key(row) == QLatin1String("requests_ok"))
                okRow = row;
        }
        QVERIFY(okRow >= 0);
        QCOMPARE(summary.value(okRow, 0), std::optional<double>(24));
        QCOMPARE(summary.value(okRow, 1), std::optional<double>(18));
        QCOMPARE(summary.value(okRow, 2), std::optional<double>(6));

        // The runs list offers to compare its models, as it does a balanced run's instances.
        const RunHistoryEntry entry = RunHistoryModel::readEntry(config.outDir);
        QCOMPARE(entry.models, 2);
        QCOMPARE(entry.instances, 1);
    }

    void chartExports_data()
    {
        QTest::addColumn<int>("tab");
        QTest::addColumn<QString>("suffix");
        QTest::addColumn<int>("page");
        for (const int tab :
             {int(ComparisonView::CdfTab), int(ComparisonView::ThroughputTab), int(ComparisonView::CurveTab)}) {
            for (const char *suffix : {"png", "svg", "pdf"}) {
                for (const int page : {int(ChartExporter::Page::Slide), int(ChartExporter::Page::A4)})
                    QTest::addRow("tab %d %s page %d", tab, suffix, page) << tab << QString::fromLatin1(suffix) << page;
            }
        }
    }

    void chartExports()
    {
        QFETCH(int, tab);
        QFETCH(QString, suffix);
        QFETCH(int, page);
        ComparisonView view;
        QSignalSpy loaded(&view, &ComparisonView::loaded);
        view.openDirectories({m_a, m_b});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        QTemporaryDir tmp;
        const QString path = tmp.filePath(QStringLiteral("chart.") + suffix);
        QString error;
        QVERIFY2(view.exportChart(ComparisonView::ChartTab(tab), path, ChartExporter::Page(page), &error),
                 qPrintable(error));
        const QByteArray bytes = readFile(path);
        if (suffix == QLatin1String("png")) {
            QVERIFY(bytes.startsWith("\x89PNG\r\n\x1a\n"));
            const QImage image = QImage::fromData(bytes, "PNG");
            const QSizeF expected = ChartExporter::logicalSize(ChartExporter::Page(page)) *
                                    ChartExporter::pixelRatio(ChartExporter::Page(page));
            QCOMPARE(image.size(), expected.toSize());
        } else if (suffix == QLatin1String("svg")) {
            QVERIFY2(parsesAsXml(bytes, &error), qPrintable(error));
            QVERIFY(bytes.contains("<svg"));
            // The caption: what each run measured, the load and the date included.
            QString why;
            const auto a = RunReader::load(m_a, &why, RunReader::SummaryOnly);
            QVERIFY2(a, qPrintable(why));
            const QString first = QStringLiteral("#1 ") + a->info.workloadCaption();
            QVERIFY2(bytes.contains(first.toUtf8()), qPrintable(first));
            QVERIFY(first.contains(a->info.startedAt.toString(QStringLiteral("yyyy-MM-dd"))));
        } else {
            QVERIFY(bytes.startsWith("%PDF"));
        }
    }

    void reportAndCsvFromTheView()
    {
        ComparisonView view;
        QSignalSpy loaded(&view, &ComparisonView::loaded);
        view.openDirectories({m_session});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        QTemporaryDir tmp;
        QString error;
        QVERIFY2(view.saveReport(tmp.filePath(QStringLiteral("r.html")), &error), qPrintable(error));
        const QByteArray html = readFile(tmp.filePath(QStringLiteral("r.html")));
        QVERIFY2(parsesAsXml(html, &error), qPrintable(error));
        QVERIFY(html.contains("id=\"paired\""));
        QVERIFY(view.saveCsv(tmp.filePath(QStringLiteral("t.csv")), &error));
        QVERIFY(readFile(tmp.filePath(QStringLiteral("t.csv"))).startsWith("metric,unit,better,best,1-fast,2-slow"));
    }

    void markedBaselineOpensFirst()
    {
        ComparisonView view;
        QSignalSpy loaded(&view, &ComparisonView::loaded);
        QSignalSpy marked(&view, &ComparisonView::baselineMarked);
        Baseline::setDirectory(m_c);
        view.openDirectories({m_a, m_b, m_c});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
        QCOMPARE(view.baseline(), 2);
        view.setBaseline(0);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 60000);
        view.markBaseline();
        QCOMPARE(marked.count(), 1);
        QVERIFY(Baseline::isBaseline(m_a));
    }

    void sessionPanelRunsAndAsksForTheComparison()
    {
        ConfigEditor editor;
        RunConfig config = workload();
        config.load.requests = 6;
        config.target = targetOf(*m_slow, QStringLiteral("slow server"));
        editor.setConfig(config);
        ComparisonSessionPanel panel(&editor);
        QTemporaryDir tmp;
        panel.setRunsFolder(tmp.path());
        panel.setName(QStringLiteral("gui"));
        QSignalSpy compare(&panel, &ComparisonSessionPanel::compareRequested);
        QSignalSpy finished(&panel, &ComparisonSessionPanel::sessionFinished);

        // Configured targets come first, then every simulator preset.
        const int fastRow = panel.simulatorRow(QStringLiteral("fast"));
        QVERIFY(fastRow >= 1);
        QVERIFY(panel.targetModel()->item(0)->text().startsWith(QStringLiteral("slow server")));
        QString error;
        panel.setTargetChecked(0, true);
        QVERIFY(!panel.start(&error)); // one target is not a comparison
        QVERIFY2(error.contains(QStringLiteral("at least two")), qPrintable(error));
        panel.setTargetChecked(fastRow, true);
        panel.setOtherRunActive(true);
        QVERIFY(!panel.start(&error));
        panel.setOtherRunActive(false);
        QVERIFY2(panel.start(&error), qPrintable(error));
        QVERIFY(panel.isRunning());
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QCOMPARE(compare.count(), 1);
        const QString directory = compare.first().first().toStringList().first();
        QVERIFY(directory.startsWith(tmp.path()) && directory.endsWith(QStringLiteral("-session-gui")));
        QCOMPARE(panel.statusModel()->rowCount(), 2);
        for (int row = 0; row < 2; ++row)
            QCOMPARE(panel.statusModel()->item(row, ComparisonSessionPanel::StatusColumn)->text(),
                     QStringLiteral("done"));
        const auto info = SessionInfo::load(directory, &error);
        QVERIFY2(info, qPrintable(error));
        QCOMPARE(info->runs[1].target.model, QStringLiteral("fast"));
    }

    // The session window had no Close button and ignored Esc.
    void sessionPanelClosesWithEscAndCloseButton()
    {
        ConfigEditor editor;
        ComparisonSessionPanel panel(&editor);
        for (bool byKey : {true, false}) {
            panel.show();
            panel.activateWindow();
            QVERIFY(QTest::qWaitForWindowActive(&panel));
            if (byKey) {
                QTest::keyClick(&panel, Qt::Key_Escape);
            } else {
                auto *close = panel.findChild<QPushButton *>(QStringLiteral("closeSessionPanelButton"));
                QVERIFY(close);
                QVERIFY(close->isVisible());
                close->click();
            }
            QTRY_VERIFY(!panel.isVisible());
        }
    }

    void exportDialogsShareOneRememberedFolder_data()
    {
        QTest::addColumn<QString>("picked"); ///< the dialog in which the user picks a new folder
        QTest::newRow("dashboard chart") << "chart";
        QTest::newRow("File ▸ Export") << "export";
        QTest::newRow("configuration") << "config";
        QTest::newRow("comparison report") << "report";
        QTest::newRow("comparison table") << "csv";
        QTest::newRow("comparison chart") << "comparison chart";
    }

    // Every export and save dialog started somewhere else — the working folder, next to the run, next
    // to the first run compared — and none remembered the user's pick. All start in one folder, and a
    // folder picked in any of them is where all start next time.
    void exportDialogsShareOneRememberedFolder()
    {
        QFETCH(QString, picked);
        QTemporaryDir before;
        QTemporaryDir after;
        ExportFolder::remember(before.path());
        MainWindow window;
        window.setSettingsWritable(false);
        window.show();
        QSignalSpy opened(&window, &MainWindow::runOpened);
        window.openRun(m_a);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 60000);
        ComparisonView view;
        QSignalSpy loaded(&view, &ComparisonView::loaded);
        view.openDirectories({m_a, m_b});
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);

        const QStringList kinds{QStringLiteral("chart"),  QStringLiteral("export"), QStringLiteral("config"),
                                QStringLiteral("report"), QStringLiteral("csv"),    QStringLiteral("comparison chart")};
        const auto shownExportDialog = [&window]() -> ExportDialog * {
            QList<ExportDialog *> dialogs = window.findChildren<ExportDialog *>();
            dialogs.removeIf([](const ExportDialog *d) { return !d->isVisible(); });
            return dialogs.size() == 1 ? dialogs.constFirst() : nullptr;
        };
        // Opens a dialog as the user would; the file dialog that asks (File ▸ Export: its Browse).
        const auto open = [&](const QString &kind) -> QFileDialog * {
            if (kind == QLatin1String("chart")) {
                window.dashboard()->charts().constFirst().view->exportChart();
            } else if (kind == QLatin1String("export")) {
                window.showExportDialog();
                ExportDialog *exportDialog = shownExportDialog();
                // The run's own folder in the remembered one: runs exported there do not overwrite each other.
                if (!exportDialog || QFileInfo(exportDialog->folder()).path() != ExportFolder::path())
                    return nullptr;
                exportDialog->findChild<QPushButton *>(QStringLiteral("exportBrowse"))->click();
            } else if (kind == QLatin1String("config")) {
                window.saveConfigAs();
            } else if (kind == QLatin1String("report")) {
                view.saveReportDialog();
            } else if (kind == QLatin1String("csv")) {
                view.saveCsvDialog();
            } else {
                view.exportChartDialog(ComparisonView::CdfTab, ChartExporter::Page::Slide);
            }
            QList<QFileDialog *> dialogs = window.findChildren<QFileDialog *>() + view.findChildren<QFileDialog *>();
            dialogs.removeIf([](const QFileDialog *d) { return !d->isVisible(); });
            return dialogs.size() == 1 ? dialogs.constFirst() : nullptr;
        };
        const auto startsIn = [&](const QString &kind) {
            QFileDialog *dialog = open(kind);
            const QString folder =
                dialog ? QFileInfo(dialog->directory().absolutePath()).canonicalFilePath() : QString();
            if (dialog)
                dialog->reject();
            if (ExportDialog *exportDialog = shownExportDialog())
                exportDialog->reject();
            return folder;
        };
        const QString beforeFolder = QFileInfo(before.path()).canonicalFilePath();
        for (const QString &kind : kinds) {
            const QString folder = startsIn(kind);
            QVERIFY2(folder == beforeFolder, qPrintable(kind + QStringLiteral(": ") + folder));
        }

        QFileDialog *dialog = open(picked);
        QVERIFY(dialog);
        dialog->selectFile(picked == QLatin1String("export") ? after.path()
                                                             : QDir(after.path()).filePath(QStringLiteral("picked")));
        static_cast<QDialog *>(dialog)->accept(); // as its Save or Choose button does (QFileDialog's is protected)
        if (ExportDialog *exportDialog = shownExportDialog()) {
            QCOMPARE(exportDialog->folder(), after.path()); // Browse's folder is where this export goes
            exportDialog->reject();
        }
        const QString afterFolder = QFileInfo(after.path()).canonicalFilePath();
        QCOMPARE(QFileInfo(ExportFolder::path()).canonicalFilePath(), afterFolder);
        for (const QString &kind : kinds) {
            const QString folder = startsIn(kind);
            QVERIFY2(folder == afterFolder, qPrintable(kind + QStringLiteral(": ") + folder));
        }
    }

    // The session dialog showed nothing while a model's run calibrated its prompts (seconds of
    // probes before the load): neither the status line nor the model's row moved.
    void sessionDialogShowsCalibrationProgress()
    {
        ConfigEditor editor;
        RunConfig config = workload();
        config.load.requests = 4;
        config.prompt.calibrate = true;
        editor.setConfig(config);
        ComparisonSessionPanel panel(&editor);
        QTemporaryDir tmp;
        panel.setRunsFolder(tmp.path());
        // The default preset answers each probe after ~0.15 s; fast at once.
        panel.setTargetChecked(panel.simulatorRow(QStringLiteral("default")), true);
        panel.setTargetChecked(panel.simulatorRow(QStringLiteral("fast")), true);
        auto *state = panel.findChild<QLabel *>(QStringLiteral("sessionState"));
        QVERIFY(state);
        QStringList lines;
        QStringList rows;
        connect(panel.runner(), &SessionRunner::progressed, this, [&](const SessionProgress &p) {
            if (!p.run.calibrating)
                return;
            lines << state->text();
            rows << panel.statusModel()->item(p.target, ComparisonSessionPanel::StatusColumn)->text();
        });
        QSignalSpy finished(&panel, &ComparisonSessionPanel::sessionFinished);
        QString error;
        QVERIFY2(panel.start(&error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        const QString probe = QStringLiteral("Calibrating prompts: probe \\d+ of \\d+ · \\d+\\.\\d s$");
        for (const QString &model : {QStringLiteral("1 of 2: default"), QStringLiteral("2 of 2: fast")}) {
            const QRegularExpression line(QStringLiteral("^Running %1 — ").arg(model) + probe);
            QVERIFY2(
                std::any_of(lines.begin(), lines.end(), [&](const QString &l) { return line.match(l).hasMatch(); }),
                qPrintable(model + QLatin1Char('\n') + lines.join(QLatin1Char('\n'))));
        }
        const QRegularExpression row(QLatin1Char('^') + probe);
        for (const QString &text : std::as_const(rows))
            QVERIFY2(row.match(text).hasMatch(), qPrintable(text));
    }

    // The session dialog's status line kept "Running 1 of 2: … — 5 done · 0 errors" after that
    // model had failed or been stopped, and while the next one started.
    void sessionStatusLineFollowsTheSession_data()
    {
        QTest::addColumn<bool>("stop");
        QTest::addColumn<QString>("firstEnds");
        QTest::addColumn<QString>("secondEnds");
        QTest::newRow("a model fails, the next runs") << false << QStringLiteral("1 of 2 finished — dead: failed: ")
                                                      << QStringLiteral("2 of 2 finished — fast: done");
        QTest::newRow("a model is stopped") << true << QStringLiteral("1 of 2 finished — slow: stopped (results kept)")
                                            << QStringLiteral("2 of 2 finished — fast: not run");
    }

    void sessionStatusLineFollowsTheSession()
    {
        QFETCH(bool, stop);
        QFETCH(QString, firstEnds);
        QFETCH(QString, secondEnds);
        ConfigEditor editor;
        RunConfig config = workload();
        if (stop) {
            config.target = targetOf(*m_slow, QStringLiteral("slow"));
            config.load.requests = 0;
            config.load.durationMs = 60000; // until Stop
        } else {
            config.target.name = QStringLiteral("dead");
            config.target.url = QStringLiteral("http://127.0.0.1:1/v1"); // nothing listens: every request fails
            config.target.model = QStringLiteral("none");
        }
        editor.setConfig(config);
        ComparisonSessionPanel panel(&editor);
        QTemporaryDir tmp;
        panel.setRunsFolder(tmp.path());
        panel.setTargetChecked(0, true);
        panel.setTargetChecked(panel.simulatorRow(QStringLiteral("fast")), true);
        auto *state = panel.findChild<QLabel *>(QStringLiteral("sessionState"));
        QVERIFY(state);
        // The panel's slots run first (connected first): each line is read as the session left it.
        QStringList atStart;
        QStringList atEnd;
        QStringList whileStopping;
        SessionRunner *runner = panel.runner();
        connect(runner, &SessionRunner::runStarted, this, [&](int, const QString &) { atStart << state->text(); });
        connect(runner, &SessionRunner::runFinished, this,
                [&](int, SessionRunStatus, const QString &) { atEnd << state->text(); });
        connect(runner, &SessionRunner::progressed, this, [&](const SessionProgress &p) {
            if (p.run.stopping)
                whileStopping << state->text();
            else if (stop && p.run.completed > 0)
                panel.stop();
        });
        QSignalSpy finished(&panel, &ComparisonSessionPanel::sessionFinished);
        QString error;
        QVERIFY2(panel.start(&error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 120000);
        QCOMPARE(atEnd.size(), 2);
        QVERIFY2(atEnd[0].startsWith(firstEnds), qPrintable(atEnd[0]));
        QVERIFY2(atEnd[1].startsWith(secondEnds), qPrintable(atEnd[1]));
        if (stop) {
            QCOMPARE(atStart.size(), 1);
            QVERIFY(!whileStopping.isEmpty());
            for (const QString &line : std::as_const(whileStopping))
                QVERIFY2(line.contains(QStringLiteral("stopping")), qPrintable(line));
        } else {
            QCOMPARE(atStart.size(), 2);
            QVERIFY2(atStart[1].startsWith(QStringLiteral("Running 2 of 2: fast — ")), qPrintable(atStart[1]));
        }
        QVERIFY2(
            state->text().startsWith(stop ? QStringLiteral("Session stopped.") : QStringLiteral("Session finished.")),
            qPrintable(state->text()));
    }

    // The session dialog's workload line said "~512-token prompts" for 512 + 128 system tokens.
    void sessionWorkloadLineCountsSystemTokens_data()
    {
        QTest::addColumn<int>("promptTokens");
        QTest::addColumn<int>("systemTokens");
        QTest::addColumn<QString>("expected");
        QTest::newRow("with a system prompt") << 512 << 128 << QStringLiteral("512 + 128 system tokens in, 256 out, ");
        QTest::newRow("without one") << 512 << 0 << QStringLiteral("512 tokens in, 256 out, ");
    }

    void sessionWorkloadLineCountsSystemTokens()
    {
        QFETCH(int, promptTokens);
        QFETCH(int, systemTokens);
        QFETCH(QString, expected);
        ConfigEditor editor;
        RunConfig config = workload();
        config.prompt.promptTokens = promptTokens;
        config.prompt.systemTokens = systemTokens;
        config.request.maxTokens = 256;
        editor.setConfig(config);
        ComparisonSessionPanel panel(&editor);
        auto *line = panel.findChild<QLabel *>(QStringLiteral("sessionWorkload"));
        QVERIFY(line);
        QVERIFY2(line->text().startsWith(expected), qPrintable(line->text()));
    }

    void mainWindowCompareMenuAndDrops()
    {
        MainWindow window;
        window.setSettingsWritable(false);
        auto *controller = window.findChild<ComparisonController *>();
        QVERIFY(controller);
        QStringList menus;
        for (QAction *action : window.menuBar()->actions())
            menus << action->text();
        QVERIFY2(menus.indexOf(QStringLiteral("&Compare")) == menus.indexOf(QStringLiteral("&Help")) - 1,
                 qPrintable(menus.join(QLatin1Char(','))));
        const int tabs = window.resultsTabs()->count();

        // Dropping a session folder opens a comparison tab.
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(m_session)});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &drop);
        QCOMPARE(window.resultsTabs()->count(), tabs + 1);
        ComparisonView *view = controller->views().constLast();
        QCOMPARE(window.resultsTabs()->currentWidget(), view);
        QTRY_COMPARE_WITH_TIMEOUT(view->runCount(), 2, 60000);
        QTRY_VERIFY(window.resultsTabs()
                        ->tabText(window.resultsTabs()->indexOf(view))
                        .startsWith(QStringLiteral("Compare: 1-fast")));

        // Folders that are no runs: the tab goes again, and a message (not modal) names them.
        QTemporaryDir tmp;
        ComparisonView *bad = controller->openComparison({tmp.path()});
        QPointer<ComparisonView> guard(bad);
        QTRY_VERIFY_WITH_TIMEOUT(!guard, 60000);
        QCOMPARE(window.resultsTabs()->count(), tabs + 1);
        QMessageBox *box = window.findChild<QMessageBox *>(QStringLiteral("comparisonWarning"));
        QVERIFY(box);
        QVERIFY(box->text().contains(QDir::toNativeSeparators(tmp.path())));
        QCOMPARE(box->windowModality(), Qt::NonModal);
    }
};

QTEST_MAIN(TestUiComparison)
#include "tst_ui_comparison.moc"
