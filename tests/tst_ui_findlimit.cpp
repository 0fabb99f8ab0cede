// The GUI side of issue 29: Run ▸ Find the Limit… searching the in-process simulator through the
// dialog (the answer read from the dialog, as the CLI prints it), the table of levels under
// QAbstractItemModelTester, and the steady-state window shaded on the dashboard's time charts.
#include "mainwindow.h"

#include "charts/chartstyle.h"
#include "charts/chartview.h"
#include "charts/timechart.h"
#include "editors/configeditor.h"
#include "models/runhistorymodel.h"
#include "models/searchlevelsmodel.h"
#include "views/dashboardview.h"
#include "views/findlimitdialog.h"
#include "views/rundocument.h"

#include "results/rundirectory.h"
#include "run/limitsearch.h"
#include "sim/simulatorhost.h"
#include "support/testsettings.h"
#include "support/testsimulator.h"

#include <QAbstractItemModelTester>
#include <QAreaSeries>
#include <QDir>
#include <QLabel>
#include <QLineSeries>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>

using namespace tb;
using namespace Qt::Literals::StringLiterals;
using tb::sim::SimulatorHost;

namespace {

// The simulator with a hard capacity of kMaxBatch users under the 100 ms TTFT SLO
// (test::capacitySimConfig() says why): up to kMaxBatch users every request is good, above it most fail.
constexpr int kMaxBatch = 8;

/// 40 requests a level: all good, the Wilson interval's low end (91.2%) is above the 90% target,
/// so a passing level is judged by one run.
RunConfig searchConfig(const QString &url, const QString &model = QStringLiteral("fast"))
{
    RunConfig c;
    c.target.name = QStringLiteral("capacity");
    c.target.url = url;
    c.target.model = model;
    c.target.serverMetrics = false;
    c.prompt.promptTokens = 32;
    c.load.concurrency = 1;
    c.load.requests = 40;
    c.slo.ttftMs = 100;
    c.slo.target = 0.9;
    return c;
}

SearchLevel level(double at, std::int64_t attempted, std::int64_t good, LevelVerdict verdict, int runs = 1)
{
    SearchLevel l;
    l.level = at;
    l.attempted = attempted;
    l.good = good;
    l.verdict = verdict;
    for (int i = 1; i <= runs; ++i)
        l.runs << QStringLiteral("level-%1-run%2").arg(at).arg(i);
    return l;
}

/// A saved run of 40 seconds, with the summary's steady window [startS, endS) when given.
RunData runWithWindow(std::optional<std::pair<int, int>> window)
{
    RunData run;
    run.directory = QStringLiteral("/nonexistent/steady-run");
    run.hasInfo = true;
    run.info.config.load.concurrency = 4;
    for (int s = 0; s < 40; ++s) {
        TimeSeriesRow r;
        r.second = s;
        r.stage = 0;
        r.sent = 10;
        r.completed = 10;
        r.good = 10;
        r.inFlight = 4;
        r.ttftP50Ms = 100;
        r.ttftP99Ms = 150;
        r.e2eP50Ms = 400;
        r.e2eP99Ms = 500;
        run.timeSeries.push_back(r);
    }
    run.summary.total.requests.attempted = 400;
    run.summary.total.requests.ok = 400;
    if (window) {
        SteadySummary steady;
        steady.window.found = window->first >= 0;
        steady.window.startS = window->first;
        steady.window.endS = window->second;
        steady.window.runS = 40;
        run.summary.steady = steady;
    }
    return run;
}

/// The time charts the run shows (a run without --gpu-metrics has no GPU card to draw).
QList<TimeChart *> timeCharts(const DashboardView &dashboard)
{
    QList<TimeChart *> charts;
    for (const DashboardView::ChartEntry &entry : dashboard.shownCharts()) {
        if (auto *chart = qobject_cast<TimeChart *>(entry.view->chart()))
            charts << chart;
    }
    return charts;
}

} // namespace

class TestUiFindLimit : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_settingsDir;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_settingsDir.isValid());
        QStandardPaths::setTestModeEnabled(true);
        test::isolateSettings(m_settingsDir.path(), QStringLiteral("tst_ui_findlimit"));
    }

    /// The table of levels: one row a level in the order tried, a level run again updates its row.
    void levelsModel_data()
    {
        QTest::addColumn<QList<SearchLevel>>("updates");
        QTest::addColumn<QStringList>("rows"); // "level|runs|goodput|interval|verdict"
        QTest::newRow("bracketing") << QList<SearchLevel>{level(2, 40, 40, LevelVerdict::Pass),
                                                          level(4, 40, 40, LevelVerdict::Pass),
                                                          level(8, 40, 3, LevelVerdict::Fail)}
                                    << QStringList{u"c=2|1|100.0% (40 of 40)|91.2%–100.0%|pass"_s,
                                                   u"c=4|1|100.0% (40 of 40)|91.2%–100.0%|pass"_s,
                                                   u"c=8|1|7.5% (3 of 40)|2.6%–19.9%|fail"_s};
        QTest::newRow("a level run again")
            << QList<SearchLevel>{level(2, 40, 40, LevelVerdict::Pass), level(4, 40, 37, LevelVerdict::Pending),
                                  level(4, 80, 75, LevelVerdict::Pass, 2)}
            << QStringList{u"c=2|1|100.0% (40 of 40)|91.2%–100.0%|pass"_s,
                           u"c=4|2|93.8% (75 of 80)|86.2%–97.3%|pass"_s};
        QTest::newRow("stopped") << QList<SearchLevel>{level(2, 0, 0, LevelVerdict::Stopped)}
                                 << QStringList{u"c=2|1|—|—|stopped, not judged"_s};
    }
    void levelsModel()
    {
        QFETCH(QList<SearchLevel>, updates);
        QFETCH(QStringList, rows);
        SearchLevelsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        LimitSearchSpec spec;
        model.reset(spec);
        for (const SearchLevel &l : updates)
            model.updateLevel(l);
        QCOMPARE(model.columnCount(), int(SearchLevelsModel::ColumnCount));
        QStringList shown;
        for (int r = 0; r < model.rowCount(); ++r) {
            QStringList cells;
            for (int c = 0; c < model.columnCount(); ++c)
                cells << model.index(r, c).data().toString();
            shown << cells.join(QLatin1Char('|'));
        }
        QCOMPARE(shown, rows);
        QCOMPARE(model.headerData(SearchLevelsModel::VerdictColumn, Qt::Horizontal).toString(), u"Verdict"_s);
        model.reset(spec);
        QCOMPARE(model.rowCount(), 0);
    }

    /// Run ▸ Find the Limit… has a shortcut of its own: no other menu entry uses it.
    void actionHasItsOwnShortcut()
    {
        MainWindow w;
        QAction *find = w.findLimitAction();
        QVERIFY(!find->shortcut().isEmpty());
        bool inRunMenu = false;
        int uses = 0;
        const std::function<void(QMenu *)> walk = [&](QMenu *menu) {
            for (QAction *a : menu->actions()) {
                if (QMenu *sub = a->menu())
                    walk(sub);
                else if (a->shortcut() == find->shortcut())
                    ++uses;
            }
        };
        for (QMenu *menu : w.menus()) {
            walk(menu);
            inRunMenu |= menu->title().remove(QLatin1Char('&')) == u"Run"_s && menu->actions().contains(find);
        }
        QVERIFY(inRunMenu);
        QCOMPARE(uses, 1);
    }

    /// What keeps a configuration from being searched is shown in the dialog, with Start disabled.
    void dialogSaysWhyItCannotSearch_data()
    {
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("problem"); // empty: Start is enabled
        QTest::newRow("searchable") << ""
                                    << "";
        QTest::newRow("no SLO") << "no-slo"
                                << "slo (--slo): the search judges each level";
        QTest::newRow("a salt") << "salt"
                                << "prompt.salt (--prompt-salt)";
        QTest::newRow("stages") << "stages"
                                << "load.stages (--stages, --sweep)";
    }
    void dialogSaysWhyItCannotSearch()
    {
        QFETCH(QString, change);
        QFETCH(QString, problem);
        RunConfig c = searchConfig(QStringLiteral("http://127.0.0.1:9/v1")); // only the configuration is read
        if (change == u"no-slo"_s)
            c.slo = {};
        else if (change == u"salt"_s)
            c.prompt.salt = QStringLiteral("abc");
        else if (change == u"stages"_s)
            c.load.stages = {StageConfig{QStringLiteral("a"), LoadMode::Concurrency, 2, 0, 10},
                             StageConfig{QStringLiteral("b"), LoadMode::Concurrency, 4, 0, 10}};
        MainWindow w;
        w.configEditor()->setConfig(c);
        w.findLimitAction()->trigger();
        FindLimitDialog *dialog = w.findLimitDialog();
        QVERIFY(dialog && dialog->isVisible());
        const QString slo = dialog->findChild<QLabel *>(QStringLiteral("searchSlo"))->text();
        QVERIFY2(slo.startsWith(change == u"no-slo"_s ? u"none"_s : u"TTFT ≤ 100 ms"_s), qPrintable(slo));
        if (problem.isEmpty()) {
            QVERIFY2(dialog->problemsLabel()->isHidden(), qPrintable(dialog->problemsLabel()->text()));
            QVERIFY(dialog->startButton()->isEnabled());
        } else {
            QVERIFY(!dialog->problemsLabel()->isHidden());
            QVERIFY2(dialog->problemsLabel()->text().contains(problem), qPrintable(dialog->problemsLabel()->text()));
            QVERIFY(!dialog->startButton()->isEnabled());
        }
        QVERIFY(!dialog->stopButton()->isEnabled());
        if (const QString dir = qEnvironmentVariable("TB_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(dialog->grab().save(QDir(dir).filePath(
                QStringLiteral("find-limit-refused-%1.png").arg(change.isEmpty() ? u"none"_s : change))));
    }

    /// A search through the action and the dialog: the dashboard follows each level, the table lists
    /// them, and the answer — LimitSearchPlan::answerLine(), what the CLI prints — brackets the
    /// simulator's capacity of 8 users; the levels' runs are in the run history.
    void searchFindsTheCapacity_data()
    {
        QTest::addColumn<double>("start");
        QTest::addColumn<double>("max");
        QTest::addColumn<QString>("answer");
        QTest::newRow("c=4..16") << 4.0 << 16.0 << "holds 8 users (passes at c=8, fails at c=9;";
        QTest::newRow("c=16..32: the first level fails") << 16.0 << 32.0 << "holds no level tried (fails at c=16;";
    }
    void searchFindsTheCapacity()
    {
        QFETCH(double, start);
        QFETCH(double, max);
        QFETCH(QString, answer);
        SimulatorHost host(test::capacitySimConfig(kMaxBatch));
        QVERIFY(host.start());
        QTemporaryDir runs;
        MainWindow w;
        w.setRunsFolder(runs.path());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.configEditor()->setConfig(searchConfig(host.baseUrl().toString(), host.config().model));
        w.findLimitAction()->trigger();
        FindLimitDialog *dialog = w.findLimitDialog();
        QVERIFY(dialog && dialog->isVisible());
        LimitSearchSpec spec;
        spec.start = start;
        spec.max = max;
        dialog->setSpec(spec);
        QSignalSpy started(w.limitSearch(), &LimitSearch::levelRunStarted);
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        QVERIFY(dialog->startButton()->isEnabled());
        QTest::mouseClick(dialog->startButton(), Qt::LeftButton);
        QVERIFY(w.isRunning());
        QVERIFY(!w.runAction()->isEnabled());
        // Closed, the dialog comes back with the search going.
        dialog->close();
        w.findLimitAction()->trigger();
        QVERIFY(dialog->isVisible());
        QVERIFY(dialog->stopButton()->isEnabled());
        QVERIFY(!dialog->startButton()->isEnabled());
        // The dashboard shows the level running.
        QTRY_VERIFY_WITH_TIMEOUT(w.document()->isLive() && !started.isEmpty(), 10000);
        QCOMPARE(w.document()->directory(), started.constFirst().at(2).toString());
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        QVERIFY(!w.isRunning());
        QVERIFY(w.runAction()->isEnabled());
        QVERIFY(!dialog->stopButton()->isEnabled());

        const LimitSearchPlan &plan = *w.limitSearch()->plan();
        QCOMPARE(finished.constFirst().constFirst().toString(), plan.answerLine());
        const QString shown = dialog->answerLabel()->text();
        QVERIFY2(dialog->answerLabel()->isVisible() && shown.startsWith(answer), qPrintable(shown));
        QVERIFY2(shown.contains(plan.stopText()), qPrintable(shown));
        QVERIFY2(shown.contains(QDir::toNativeSeparators(w.limitSearch()->directory())), qPrintable(shown));
        QVERIFY(QDir(w.limitSearch()->directory()).absolutePath().startsWith(QDir(runs.path()).absolutePath()));
        QVERIFY2(w.statusBar()->currentMessage().startsWith(plan.answerLine()),
                 qPrintable(w.statusBar()->currentMessage()));
        // One row a level tried, each judged by the capacity.
        const SearchLevelsModel *levels = w.searchLevels();
        QCOMPARE(levels->rowCount(), int(plan.levels().size()));
        int runCount = 0;
        for (int r = 0; r < levels->rowCount(); ++r) {
            const SearchLevel &l = plan.levels()[std::size_t(r)];
            runCount += int(l.runs.size());
            QCOMPARE(levels->index(r, SearchLevelsModel::LevelColumn).data().toString(),
                     plan.spec().levelName(l.level));
            QCOMPARE(levels->index(r, SearchLevelsModel::VerdictColumn).data().toString(),
                     l.level <= kMaxBatch ? u"pass"_s : u"fail"_s);
        }
        // Every cell's text whole in its column.
        const QTableView *table = dialog->levelsTable();
        const QFontMetrics metrics(table->font());
        for (int r = 0; r < levels->rowCount(); ++r) {
            for (int c = 0; c < levels->columnCount(); ++c) {
                const QString text = levels->index(r, c).data().toString();
                QVERIFY2(metrics.horizontalAdvance(text) < table->columnWidth(c), qPrintable(text));
            }
        }
        // The levels' runs are listed in the history like other runs.
        QTRY_COMPARE_WITH_TIMEOUT(w.history()->rowCount(), runCount, 10000);
        QCOMPARE(started.size(), runCount);
        if (const QString dir = qEnvironmentVariable("TB_SCREENSHOT_DIR"); !dir.isEmpty()) {
            const QString name = QStringLiteral("find-limit-search-c=%1..%2").arg(start).arg(max);
            QVERIFY(dialog->grab().save(QDir(dir).filePath(name + QStringLiteral("-dialog.png"))));
            QVERIFY(w.saveScreenshot(QDir(dir).filePath(name + QStringLiteral("-window.png"))));
        }
    }

    /// Stop (twice) ends the level running and the search, which says it was stopped.
    void stopEndsTheSearch()
    {
        sim::SimConfig sim = test::capacitySimConfig(kMaxBatch);
        sim.ttftMs = 30000; // the first level's requests outlast the test
        SimulatorHost host(sim);
        QVERIFY(host.start());
        QTemporaryDir runs;
        MainWindow w;
        w.setRunsFolder(runs.path());
        w.configEditor()->setConfig(searchConfig(host.baseUrl().toString(), host.config().model));
        w.findLimitAction()->trigger();
        FindLimitDialog *dialog = w.findLimitDialog();
        QSignalSpy finished(&w, &MainWindow::searchFinished);
        QTest::mouseClick(dialog->startButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(host.stats().requestsInProgress, qint64(1), 20000);
        QTest::mouseClick(dialog->stopButton(), Qt::LeftButton);
        w.stop(); // a second Stop changes nothing
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        QCOMPARE(w.limitSearch()->plan()->stopReason(), SearchStop::Stopped);
        QVERIFY2(dialog->answerLabel()->text().contains(u"stopped by the user"_s),
                 qPrintable(dialog->answerLabel()->text()));
        QCOMPARE(w.searchLevels()->index(0, SearchLevelsModel::VerdictColumn).data().toString(),
                 u"stopped, not judged"_s);
        QVERIFY(!w.isRunning());
    }

    /// The dialog after a search, on a laptop's screen and a desktop's, light and dark: within the
    /// screen, every line of its text shown whole. TB_SCREENSHOT_DIR keeps the pictures.
    void dialogFitsTheScreen_data()
    {
        QTest::addColumn<QSize>("screen");
        QTest::addColumn<bool>("dark");
        for (const QSize size : {QSize(1280, 800), QSize(1600, 1000)}) {
            for (const bool dark : {false, true})
                QTest::addRow("%dx%d %s", size.width(), size.height(), dark ? "dark" : "light") << size << dark;
        }
    }
    void dialogFitsTheScreen()
    {
        QFETCH(QSize, screen);
        QFETCH(bool, dark);
        MainWindow w;
        w.setSettingsWritable(false);
        w.setTheme(dark ? AppTheme::Setting::Dark : AppTheme::Setting::Light);
        w.setScreenSize(screen);
        w.configEditor()->setConfig(searchConfig(QStringLiteral("http://127.0.0.1:8300/v1")));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.findLimitAction()->trigger();
        FindLimitDialog *dialog = w.findLimitDialog();
        LimitSearchSpec spec;
        spec.start = 4;
        spec.max = 16;
        dialog->setSpec(spec);
        w.searchLevels()->reset(spec);
        LimitSearchPlan plan(spec, 0.9);
        for (const auto &[at, good] : {std::pair(4, 40), std::pair(8, 40), std::pair(16, 3), std::pair(12, 5),
                                       std::pair(10, 4), std::pair(9, 6)}) {
            QCOMPARE(plan.nextLevel(), double(at));
            plan.addRun(QStringLiteral("level-c=%1").arg(at), 40, good);
        }
        QCOMPARE(plan.stopReason(), SearchStop::Resolved);
        for (const SearchLevel &l : plan.levels())
            w.searchLevels()->updateLevel(l);
        dialog->setAnswer(plan.answerLine(), plan.stopText(), QStringLiteral("runs/20261203-230000-find-max-fast"));
        QVERIFY(QTest::qWaitForWindowExposed(dialog));
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        QVERIFY2(dialog->frameGeometry().width() <= screen.width() &&
                     dialog->frameGeometry().height() <= screen.height(),
                 qPrintable(QStringLiteral("%1x%2").arg(dialog->width()).arg(dialog->height())));
        for (QLabel *label : dialog->findChildren<QLabel *>()) {
            if (!label->isVisible() || label->text().isEmpty())
                continue;
            if (label->wordWrap())
                QVERIFY2(label->heightForWidth(label->width()) <= label->height(), qPrintable(label->text()));
            else
                QVERIFY2(label->sizeHint().width() <= label->width(), qPrintable(label->text()));
        }
        const QTableView *table = dialog->levelsTable();
        QCOMPARE(table->model()->rowCount(), 6);
        // Every level's row is in view without scrolling.
        QVERIFY(table->visualRect(table->model()->index(5, 0)).bottom() <= table->viewport()->height());
        if (const QString dir = qEnvironmentVariable("TB_SCREENSHOT_DIR"); !dir.isEmpty())
            QVERIFY(dialog->grab().save(QDir(dir).filePath(QStringLiteral("find-limit-dialog-%1x%2-%3.png")
                                                               .arg(screen.width())
                                                               .arg(screen.height())
                                                               .arg(dark ? u"dark"_s : u"light"_s))));
        w.setTheme(AppTheme::Setting::Light);
    }

    /// A saved run with a steady window shades [startS, endS) on every time chart, under the lines;
    /// a run without one (none found, or from before the window existed) shows no band.
    void steadyWindowIsShaded_data()
    {
        QTest::addColumn<int>("startS");
        QTest::addColumn<int>("endS");
        QTest::addColumn<bool>("band");
        QTest::newRow("10–35 s") << 10 << 35 << true;
        QTest::newRow("the whole run") << 0 << 40 << true;
        QTest::newRow("none found") << -1 << 0 << false;
        QTest::newRow("no steady summary") << -2 << 0 << false;
    }
    void steadyWindowIsShaded()
    {
        QFETCH(int, startS);
        QFETCH(int, endS);
        QFETCH(bool, band);
        RunDocument document;
        DashboardView dashboard(&document);
        dashboard.resize(1400, 900);
        dashboard.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dashboard));
        const auto window = startS == -2 ? std::nullopt : std::optional(std::pair(startS, endS));
        document.load(runWithWindow(window));
        dashboard.refresh();
        const QList<TimeChart *> charts = timeCharts(dashboard);
        QVERIFY(charts.size() >= 4);
        for (TimeChart *chart : charts) {
            QAreaSeries *shade = chart->steadyBand();
            if (!band) {
                QVERIFY2(!shade, qPrintable(chart->title()));
                continue;
            }
            QVERIFY2(shade, qPrintable(chart->title()));
            QCOMPARE(chart->series().constFirst(), shade); // drawn first: under the lines
            QCOMPARE(shade->name(), u"steady state"_s);
            QVERIFY(!chartstyle::isInLegend(shade));
            const QList<QPointF> upper = shade->upperSeries()->points();
            const QList<QPointF> lower = shade->lowerSeries()->points();
            QCOMPARE(upper.size(), 2);
            QCOMPARE(upper[0].x(), double(startS));
            QCOMPARE(upper[1].x(), double(endS));
            QCOMPARE(lower[0].x(), double(startS));
            QCOMPARE(lower[1].x(), double(endS));
            // Over the plot's whole height.
            QCOMPARE(upper[0].y(), chart->leftAxis()->max());
            QCOMPARE(lower[0].y(), chart->leftAxis()->min());
            const QRectF plot = chart->plotArea();
            const QPointF left = chart->mapToPosition(upper[0], shade);
            const QPointF right = chart->mapToPosition(lower[1], shade);
            QVERIFY(qAbs(left.y() - plot.top()) < 1 && qAbs(right.y() - plot.bottom()) < 1);
            QVERIFY(left.x() < right.x());
        }
        // The next run shown without a window takes the band away.
        document.load(runWithWindow(std::nullopt));
        dashboard.refresh();
        for (TimeChart *chart : timeCharts(dashboard))
            QVERIFY2(!chart->steadyBand(), qPrintable(chart->title()));
    }
};

QTEST_MAIN(TestUiFindLimit)
#include "tst_ui_findlimit.moc"
