#include "mainwindow.h"

#include "charts/chartview.h"
#include "compare/comparisonview.h"
#include "comparisoncontroller.h"
#include "editors/configeditor.h"
#include "editors/simulatorcontroller.h"
#include "editors/workloadeditor.h"
#include "models/requestsmodel.h"
#include "models/runhistorymodel.h"
#include "models/searchlevelsmodel.h"
#include "models/targetlistmodel.h"
#include "views/dashboardview.h"
#include "views/exportdialog.h"
#include "views/findlimitdialog.h"
#include "views/gettingstartedpage.h"
#include "views/requestsview.h"
#include "views/rundocument.h"
#include "views/runhistoryview.h"
#include "views/runloader.h"
#include "views/summaryview.h"
#include "views/workloadlengthsview.h"
#include "widgets/folderdialog.h"
#include "widgets/settingsautosave.h"

#include "analysis/metriccatalogue.h"
#include "analysis/tracetimeline.h"
#include "results/foreignruns.h"
#include "results/rundirectory.h"
#include "results/runwriter.h"
#include "results/sessioninfo.h"
#include "run/limitsearch.h"
#include "tokenbench/version.h"

#include <QAbstractItemView>
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QKeyEvent>
#include <QLabel>
#include <QLayout>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTcpSocket>
#include <QTextBrowser>
#include <QTimer>
#include <QToolBar>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>
#include <utility>

// Resources compiled into a static library are registered only when asked for by name.
static void initResources()
{
    Q_INIT_RESOURCE(tokenbench);
}

namespace tb {

namespace {

constexpr int kMaxRecent = 8;
/// A run this long is not stopped by one key press without asking.
constexpr std::int64_t kConfirmStopAfterNs = 60'000'000'000;
/// The dashboard keeps two chart columns from this width (DashboardView::relayout).
constexpr int kDashboardTwoColumnWidth = 640;
/// The side panel's share of the window's width at most, when shown: results keep the rest.
constexpr double kSidePanelShare = 0.36;
/// The window's size on a screen it has never been shown on, at most (logical pixels).
constexpr QSize kPreferredSize(1600, 1000);
/// How long Run waits for a TCP connect to the target before offering the connection test.
constexpr int kProbeMs = 3000;

namespace key {
const QString state = QStringLiteral("window/state");
const QString splitter = QStringLiteral("window/splitter");
const QString tab = QStringLiteral("window/configTab");
const QString sideTab = QStringLiteral("window/sideTab");
const QString runsFolder = QStringLiteral("runs/folder");
const QString targets = QStringLiteral("targets/user");
const QString config = QStringLiteral("config/last");
const QString path = QStringLiteral("files/current");
const QString recent = QStringLiteral("files/recent");
const QString metricsListen = QStringLiteral("run/metricsListen"); ///< ADDR:PORT; empty: not served
const QString theme = QStringLiteral("view/theme");                ///< AppTheme::name()
} // namespace key

/// Where TokenBench's own metrics are served when turned on: the stored address, else --metrics-listen's example.
QString metricsAddress()
{
    const QString stored = QSettings().value(key::metricsListen).toString();
    return stored.isEmpty() ? QStringLiteral("127.0.0.1:9464") : stored;
}

const QString kConfigFilter = QStringLiteral("TokenBench configuration (*.json);;All files (*)");

enum SideTab { ConfigureSideTab, RunsSideTab };

} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_simulator(new SimulatorController(this))
    , m_editor(new ConfigEditor(m_simulator, this))
    , m_document(new RunDocument(this))
    , m_runner(new BenchmarkRunner(this))
    , m_search(new LimitSearch(this))
    , m_searchLevels(new SearchLevelsModel(this))
    , m_loader(new RunLoader(this))
    , m_history(new RunHistoryModel(this))
    , m_side(new QTabWidget(this))
    , m_historyView(new RunHistoryView(m_history, this))
    , m_results(new QTabWidget(this))
    , m_dashboard(new DashboardView(m_document, this))
    , m_summaryView(new SummaryView(m_document, this))
    , m_requestsView(new RequestsView(m_document, this))
    , m_splitter(new QSplitter(Qt::Horizontal, this))
    , m_readiness(new QLabel(this))
    , m_liveStatus(new QLabel(this))
    , m_autosave(new SettingsAutosave([this] { writeSettings(); }, this))
    , m_confirmStopAfterNs(kConfirmStopAfterNs)
{
    initResources();
    setWindowIcon(QIcon(QStringLiteral(":/icons/tokenbench.svg")));
    m_editor->setObjectName(QStringLiteral("configEditor"));
    m_side->setObjectName(QStringLiteral("sideTabs"));
    m_results->setObjectName(QStringLiteral("resultsTabs"));
    m_splitter->setObjectName(QStringLiteral("mainSplitter"));
    m_readiness->setObjectName(QStringLiteral("runReadiness"));
    m_liveStatus->setObjectName(QStringLiteral("liveStatus"));

    m_side->addTab(m_editor, tr("Configure"));
    m_side->addTab(m_historyView, tr("Runs"));
    m_side->setDocumentMode(true);
    m_results->addTab(m_dashboard, tr("Dashboard"));
    m_results->addTab(m_summaryView, tr("Summary"));
    m_results->addTab(m_requestsView, tr("Requests"));
    m_results->setDocumentMode(true);

    // The panel is at least this wide, and as wide as its forms need (ConfigEditor's forms say).
    m_historyView->setMinimumWidth(440);
    m_splitter->addWidget(m_side);
    m_splitter->addWidget(m_results);
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setChildrenCollapsible(false);
    m_splitter->setSizes({460, 820});
    setCentralWidget(m_splitter);

    createActions();
    createMenus();
    connectRunner(m_runner);
    connectRunner(m_search->runner());
    connectSearch();
    statusBar()->addPermanentWidget(m_liveStatus);
    statusBar()->addPermanentWidget(m_readiness);
    m_liveStatus->hide();
    qApp->installEventFilter(this);

    connect(m_editor, &ConfigEditor::problemsChanged, this, &MainWindow::updateRunState);
    connect(m_editor, &ConfigEditor::configChanged, this, &MainWindow::updateFindLimitDialog);
    const auto nameNextTarget = [this] {
        m_dashboard->setNextTarget(currentConfig().target.displayName(),
                                   m_editor->targets()->isBuiltin(m_editor->currentTarget()));
    };
    connect(m_editor, &ConfigEditor::configChanged, this, nameNextTarget);
    nameNextTarget();
    // The workload file's lengths under its request count (editors draw no charts themselves).
    auto *lengths = new WorkloadLengthsView;
    connect(m_editor->workloadEditor(), &WorkloadEditor::estimated, lengths, &WorkloadLengthsView::showEstimate);
    lengths->showEstimate(m_editor->workloadEditor()->estimate());
    m_editor->workloadEditor()->setFilePreview(lengths);
    connect(m_editor, &ConfigEditor::configChanged, this, [this] { setWindowModified(true); });
    connect(m_historyView, &RunHistoryView::openRequested, this, &MainWindow::openRun);
    connect(m_historyView, &RunHistoryView::folderChosen, this, &MainWindow::setRunsFolder);
    connect(m_historyView, &RunHistoryView::rerunRequested, this, &MainWindow::loadRunConfiguration);
    connect(m_history, &RunHistoryModel::editFailed, this,
            [this](const QString &error) { statusBar()->showMessage(error, kStatusMs); });
    // F2 on the open run: its views follow it to the new folder.
    connect(m_history, &RunHistoryModel::renamed, m_document, &RunDocument::followRename);
    connect(m_loader, &RunLoader::loaded, this, &MainWindow::runLoaded);
    connect(m_loader, &RunLoader::failed, this, [this](const QString &directory, const QString &error) {
        m_showOpened = true; // the next run opened comes to the front again
        showError(tr("Cannot open the run"), error);
        Q_EMIT runOpenFailed(directory, error);
    });
    connect(m_document, &RunDocument::stateChanged, this, &MainWindow::updateRunState);
    connect(m_summaryView, &SummaryView::copied, this,
            [this] { statusBar()->showMessage(tr("Summary table copied"), kStatusMs); });
    for (const DashboardView::ChartEntry &chart : m_dashboard->charts()) {
        connect(chart.view, &ChartView::exported, this, [this](const QString &path, const QString &error) {
            if (error.isEmpty())
                statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), kStatusMs);
            else
                showError(tr("Cannot export the chart"), error);
        });
    }
    readSettings();
    watchSettings();
    updateRunState();
    setWindowModified(false);
    m_comparisons = new ComparisonController(this); // the Compare menu, comparison tabs, sessions, dropped run folders
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions()
{
    const auto icon = [this](QStyle::StandardPixmap p) { return style()->standardIcon(p); };

    m_run = new QAction(AppTheme::tinted(icon(QStyle::SP_MediaPlay)), tr("&Run"), this);
    m_run->setObjectName(QStringLiteral("actionRun"));
    m_run->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    connect(m_run, &QAction::triggered, this, &MainWindow::run);

    m_stop = new QAction(AppTheme::tinted(icon(QStyle::SP_MediaStop)), tr("&Stop"), this);
    m_stop->setObjectName(QStringLiteral("actionStop"));
    m_stop->setShortcut(QKeySequence(Qt::Key_Escape));
    m_stop->setToolTip(tr("Stop the run; what was measured is kept (Esc)"));
    m_stop->setEnabled(false);
    connect(m_stop, &QAction::triggered, this, &MainWindow::confirmStop);

    m_testConnection = new QAction(icon(QStyle::SP_DriveNetIcon), tr("&Test Connection"), this);
    m_testConnection->setObjectName(QStringLiteral("actionTestConnection"));
    m_testConnection->setIconText(tr("Test"));
    m_testConnection->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    m_testConnection->setToolTip(tr("List the target's models to check URL and key (Ctrl+T)"));
    connect(m_testConnection, &QAction::triggered, this, &MainWindow::testConnection);

    m_serveMetrics = new QAction(tr("Serve &Metrics for Prometheus"), this);
    m_serveMetrics->setObjectName(QStringLiteral("actionServeMetrics"));
    m_serveMetrics->setCheckable(true);
    m_serveMetrics->setToolTip(tr("During runs, serve TokenBench's own figures as OpenMetrics at http://%1/metrics "
                                  "(--metrics-listen; the address is the %2 setting)")
                                   .arg(metricsAddress(), key::metricsListen));
    connect(m_serveMetrics, &QAction::toggled, this, [this](bool on) {
        m_runner->setMetricsListen(on ? metricsAddress() : QString());
        m_search->runner()->setMetricsListen(on ? metricsAddress() : QString());
    });

    m_findLimit = new QAction(tr("&Find the Limit…"), this);
    m_findLimit->setObjectName(QStringLiteral("actionFindLimit"));
    m_findLimit->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    m_findLimit->setToolTip(tr("Search for the highest level (users or requests/s) whose goodput meets the SLO "
                               "target, as tokenbench-cli run --find-max (Ctrl+Shift+R)"));
    // Never disabled: the dialog says why a search cannot start, and shows the one going (with Stop).
    connect(m_findLimit, &QAction::triggered, this, &MainWindow::showFindLimit);

    m_openConfig = new QAction(icon(QStyle::SP_DialogOpenButton), tr("&Open Configuration…"), this);
    m_openConfig->setObjectName(QStringLiteral("actionOpenConfig"));
    m_openConfig->setIconText(tr("Open Config"));
    m_openConfig->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    m_openConfig->setToolTip(
        tr("Load a configuration saved here or written for tokenbench-cli run --config (Ctrl+Shift+O)"));
    connect(m_openConfig, &QAction::triggered, this, &MainWindow::openConfigDialog);

    m_save = new QAction(icon(QStyle::SP_DialogSaveButton), tr("&Save Configuration"), this);
    m_save->setObjectName(QStringLiteral("actionSaveConfig"));
    m_save->setIconText(tr("Save"));
    m_save->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_S));
    m_save->setToolTip(
        tr("Save the configuration as JSON for tokenbench-cli run --config; keys are never saved (Ctrl+S)"));
    connect(m_save, &QAction::triggered, this, &MainWindow::saveConfigToFile);

    m_saveAs = new QAction(tr("Save Configuration &As…"), this);
    m_saveAs->setObjectName(QStringLiteral("actionSaveConfigAs"));
    m_saveAs->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    connect(m_saveAs, &QAction::triggered, this, &MainWindow::saveConfigAs);

    m_openRun = new QAction(icon(QStyle::SP_DirOpenIcon), tr("Open &Run…"), this);
    m_openRun->setObjectName(QStringLiteral("actionOpenRun"));
    m_openRun->setIconText(tr("Open Run"));
    m_openRun->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_O));
    m_openRun->setToolTip(tr("Show a saved run directory in the dashboard (Ctrl+O)"));
    connect(m_openRun, &QAction::triggered, this, &MainWindow::openRunDialog);

    m_export = new QAction(icon(QStyle::SP_DialogSaveButton), tr("&Export…"), this);
    m_export->setObjectName(QStringLiteral("actionExport"));
    m_export->setIconText(tr("Export"));
    m_export->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_export->setToolTip(tr("Export the run as CSV (requests, time series, summary) and its charts as "
                            "PNG, SVG or PDF (Ctrl+E)"));
    connect(m_export, &QAction::triggered, this, &MainWindow::showExportDialog);

    m_exportTimeline = new QAction(tr("Export &Timeline…"), this);
    m_exportTimeline->setObjectName(QStringLiteral("actionExportTimeline"));
    m_exportTimeline->setToolTip(tr("Save the run's request timelines as Chrome trace JSON, to open in "
                                    "ui.perfetto.dev or chrome://tracing"));
    connect(m_exportTimeline, &QAction::triggered, this, &MainWindow::showExportTimelineDialog);

    m_importResults = new QAction(tr("&Import Results…"), this);
    m_importResults->setObjectName(QStringLiteral("actionImportResults"));
    m_importResults->setToolTip(tr("Open vLLM bench serve, GuideLLM or AIPerf result files as runs (saved in the "
                                   "runs folder), to compare with TokenBench's own"));
    connect(m_importResults, &QAction::triggered, this, &MainWindow::showImportResultsDialog);

    m_copySummary = new QAction(tr("&Copy Summary Table"), this);
    m_copySummary->setObjectName(QStringLiteral("actionCopySummary"));
    m_copySummary->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    m_copySummary->setToolTip(tr("Copy the summary table for a spreadsheet or a document (Ctrl+Shift+C)"));
    connect(m_copySummary, &QAction::triggered, this, &MainWindow::copySummary);
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openConfig);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_recentMenu->setObjectName(QStringLiteral("recentMenu"));
    file->addAction(m_save);
    file->addAction(m_saveAs);
    file->addSeparator();
    file->addAction(m_openRun);
    file->addAction(m_importResults);
    file->addAction(m_export);
    file->addAction(m_exportTimeline);
    file->addAction(m_copySummary);
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu *run = menuBar()->addMenu(tr("&Run"));
    run->addAction(m_run);
    run->addAction(m_stop);
    run->addAction(m_findLimit);
    run->addSeparator();
    run->addAction(m_testConnection);
    run->addAction(m_serveMetrics);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    const QList<QPair<QString, ConfigEditor::Tab>> tabs = {{tr("&Target"), ConfigEditor::TargetTab},
                                                           {tr("&Workload"), ConfigEditor::WorkloadTab},
                                                           {tr("&Load"), ConfigEditor::LoadTab}};
    for (int i = 0; i < tabs.size(); ++i) {
        QAction *show = view->addAction(tabs.at(i).first, this, [this, tab = tabs.at(i).second] {
            setSidePanelVisible(true);
            m_side->setCurrentIndex(ConfigureSideTab);
            m_editor->tabs()->setCurrentIndex(tab);
        });
        show->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
    }
    QAction *runs = view->addAction(tr("Run &History"), this, [this] {
        setSidePanelVisible(true);
        m_side->setCurrentIndex(RunsSideTab);
        m_historyView->table()->setFocus();
    });
    runs->setObjectName(QStringLiteral("actionRunHistory"));
    runs->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_H));
    view->addSeparator();
    m_sidePanel = view->addAction(style()->standardIcon(QStyle::SP_FileDialogDetailedView), tr("&Side Panel"));
    m_sidePanel->setObjectName(QStringLiteral("actionConfigPanel"));
    m_sidePanel->setIconText(tr("Configure"));
    m_sidePanel->setCheckable(true);
    m_sidePanel->setChecked(true);
    m_sidePanel->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    m_sidePanel->setToolTip(tr("Show or hide the configuration and the run history; it steps aside by itself "
                               "while results are read (Ctrl+0)"));
    connect(m_sidePanel, &QAction::toggled, this, &MainWindow::setSidePanelVisible);
    QMenu *theme = view->addMenu(tr("T&heme"));
    auto *themes = new QActionGroup(theme);
    for (const auto &[setting, label] :
         {std::pair(AppTheme::Setting::System, tr("&System")), std::pair(AppTheme::Setting::Light, tr("&Light")),
          std::pair(AppTheme::Setting::Dark, tr("&Dark"))}) {
        QAction *action = theme->addAction(label, this, [this, setting = setting] { setTheme(setting); });
        action->setObjectName(QStringLiteral("actionTheme_%1").arg(AppTheme::name(setting)));
        action->setCheckable(true);
        themes->addAction(action);
        m_themeActions << action;
    }
    // System leaves the desktop's palette alone (Qt follows it); the others replace it.
    const auto storedTheme = AppTheme::fromName(QSettings().value(key::theme).toString());
    m_themeActions.at(int(storedTheme.value_or(AppTheme::Setting::System)))->setChecked(true);
    if (storedTheme && *storedTheme != AppTheme::Setting::System)
        setTheme(*storedTheme);

    QToolBar *toolbar = addToolBar(tr("Toolbar"));
    toolbar->setObjectName(QStringLiteral("mainToolBar"));
    toolbar->setMovable(false);
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toolbar->addAction(m_sidePanel);
    toolbar->addSeparator();
    toolbar->addAction(m_run);
    toolbar->addAction(m_stop);
    toolbar->addSeparator();
    toolbar->addAction(m_testConnection);
    toolbar->addSeparator();
    toolbar->addAction(m_openConfig);
    toolbar->addAction(m_save);
    toolbar->addSeparator();
    toolbar->addAction(m_openRun);
    toolbar->addAction(m_export);
    view->addAction(toolbar->toggleViewAction());

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *gettingStarted = help->addAction(tr("&Getting Started"), this, &MainWindow::showGettingStarted);
    gettingStarted->setObjectName(QStringLiteral("actionGettingStarted"));
    gettingStarted->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&Metrics"), this, &MainWindow::showMetricGlossary)
        ->setObjectName(QStringLiteral("actionMetricGlossary"));
    help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcuts)
        ->setObjectName(QStringLiteral("actionKeyboardShortcuts"));
    help->addSeparator();
    help->addAction(tr("&About TokenBench"), this, &MainWindow::showAbout);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);

    updateRecentMenu();
}

RunConfig MainWindow::currentConfig() const
{
    return m_editor->config();
}

bool MainWindow::openConfig(const QString &path, QString *error)
{
    QString why;
    const auto config = loadRunConfig(path, &why);
    if (!config) {
        if (error)
            *error = why;
        return false;
    }
    m_editor->setConfig(*config);
    setConfigPath(path);
    showConfiguration();
    statusBar()->showMessage(tr("Opened %1").arg(QDir::toNativeSeparators(path)), kStatusMs);
    return true;
}

bool MainWindow::loadRunConfiguration(const QString &directory)
{
    QString error;
    const auto run = RunReader::load(directory, &error, RunReader::SummaryOnly);
    if (!run || !run->hasInfo) {
        statusBar()->showMessage(
            run ? tr("%1 has no run.json to take the configuration from").arg(QDir::toNativeSeparators(directory))
                : error,
            kStatusMs);
        return false;
    }
    RunConfig config = run->info.config;
    config.outDir.clear(); // a new run gets a new directory
    m_editor->setConfig(config);
    showConfiguration();
    statusBar()->showMessage(tr("The configuration of %1 is in the forms: press Run").arg(run->label()), kStatusMs);
    return true;
}

bool MainWindow::saveConfig(const QString &path, QString *error)
{
    if (!saveRunConfig(currentConfig(), path, error))
        return false;
    setConfigPath(path);
    statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), kStatusMs);
    return true;
}

void MainWindow::saveConfigToFile()
{
    if (m_configPath.isEmpty()) {
        saveConfigAs();
        return;
    }
    QString error;
    if (!saveConfig(m_configPath, &error))
        showError(tr("Cannot save the configuration"), error);
}

void MainWindow::saveConfigAs()
{
    const QString name =
        m_configPath.isEmpty() ? QStringLiteral("tokenbench.json") : QFileInfo(m_configPath).fileName();
    askForSaveFile(this, tr("Save Configuration"), name, kConfigFilter, [this](const QString &path) {
        QString error;
        if (!saveConfig(path, &error))
            showError(tr("Cannot save the configuration"), error);
    })->setObjectName(QStringLiteral("saveConfigDialog"));
}

void MainWindow::openConfigDialog()
{
    auto *dialog =
        new QFileDialog(this, tr("Open Configuration"), QFileInfo(m_configPath).absolutePath(), kConfigFilter);
    dialog->setObjectName(QStringLiteral("openConfigDialog"));
    dialog->setFileMode(QFileDialog::ExistingFile);
    // open(), not exec(): the GUI never runs a nested event loop.
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &path) {
        QString error;
        if (!openConfig(path, &error))
            showError(tr("Cannot open the configuration"), error);
    });
    dialog->open();
}

void MainWindow::connectRunner(BenchmarkRunner *runner)
{
    // A search's levels are runs the views follow like the window's own; what the search as a whole
    // starts and ends with is connectSearch()'s.
    const bool level = runner != m_runner;
    connect(runner, &BenchmarkRunner::runStarted, this, [this, runner, level](const QString &directory) {
        m_document->beginLive(runner->info(), directory);
        m_history->setExcluded(directory);
        m_results->setCurrentWidget(m_dashboard);
        setSidePanelVisible(false); // the run is what is read now; the forms are greyed out anyway
        if (!level)
            Q_EMIT runStarted(directory);
    });
    connect(runner, &BenchmarkRunner::progressed, this, [this](const RunProgress &progress) {
        m_document->setProgress(progress);
        updateLiveStatus();
    });
    connect(runner, &BenchmarkRunner::recordsCompleted, m_document, &RunDocument::addRecords);
    connect(runner, &BenchmarkRunner::snapshotUpdated, m_document, &RunDocument::setSnapshot);
    connect(runner, &BenchmarkRunner::runFinished, this, [this, level](const RunOutcome &outcome) {
        m_document->finishLive(outcome);
        if (!level)
            setRunning(false);
        m_history->setExcluded({});
        m_history->refresh();
        if (level)
            return;
        const QString where = QDir::toNativeSeparators(outcome.directory);
        const QString failures = m_document->failureHeadline();
        if (!outcome.error.isEmpty())
            showError(tr("The run failed"), tr("%1\nWhat was measured is in %2").arg(outcome.error, where));
        else if (m_document->allFailed() && !outcome.cancelled)
            statusBar()->showMessage(tr("Run failed: %1; results saved to %2").arg(failures, where));
        else if (!failures.isEmpty())
            statusBar()->showMessage(outcome.cancelled
                                         ? tr("Run stopped (%1); results saved to %2").arg(failures, where)
                                         : tr("Run finished (%1); results saved to %2").arg(failures, where));
        else
            statusBar()->showMessage(outcome.cancelled ? tr("Run stopped; results saved to %1").arg(where)
                                                       : tr("Run finished; results saved to %1").arg(where));
        Q_EMIT runFinished(outcome);
        if (m_closeWhenStopped)
            close();
    });
}

void MainWindow::connectSearch()
{
    connect(m_search, &LimitSearch::searchStarted, this, [this](const QString &directory) {
        statusBar()->showMessage(
            tr("Finding the limit; the levels are saved in %1").arg(QDir::toNativeSeparators(directory)));
        Q_EMIT searchStarted(directory);
    });
    connect(m_search, &LimitSearch::levelRunStarted, this, [this](double level, int run, const QString &) {
        const QString name = m_search->plan()->spec().levelName(level);
        statusBar()->showMessage(run > 1 ? tr("Finding the limit: %1, run %2 (within noise)").arg(name).arg(run)
                                         : tr("Finding the limit: %1").arg(name));
    });
    connect(m_search, &LimitSearch::levelRunFinished, this, [this](const SearchLevel &level) {
        m_searchLevels->updateLevel(level);
        statusBar()->showMessage(m_search->plan()->levelLine(level));
    });
    // Queued: the level's last run is delivered to the views (its runFinished) before the search ends.
    connect(
        m_search, &LimitSearch::searchFinished, this,
        [this] {
            if (!m_searching)
                return; // it ended inside startSearch(), which said why
            m_searching = false;
            setRunning(false);
            m_history->refresh();
            const LimitSearchPlan &plan = *m_search->plan();
            const QString answer = plan.answerLine();
            // The folder is in the dialog: the status bar keeps to what fits beside its other fields.
            statusBar()->showMessage(tr("%1 — %2").arg(answer, plan.stopText()));
            if (m_findLimitDialog)
                m_findLimitDialog->setAnswer(answer, plan.stopText(), m_search->directory());
            if (plan.stopReason() == SearchStop::Error)
                showError(tr("The search failed"), plan.error());
            Q_EMIT searchFinished(answer);
            if (m_closeWhenStopped)
                close();
        },
        Qt::QueuedConnection);
}

void MainWindow::showFindLimit()
{
    if (!m_findLimitDialog) {
        m_findLimitDialog = new FindLimitDialog(m_searchLevels, this);
        connect(m_findLimitDialog, &FindLimitDialog::startRequested, this, [this](const LimitSearchSpec &spec) {
            QString error;
            if (!startSearch(spec, &error) && !error.isEmpty())
                statusBar()->showMessage(tr("Cannot find the limit: %1").arg(error), kStatusMs);
        });
        connect(m_findLimitDialog, &FindLimitDialog::stopRequested, this, &MainWindow::stop);
        if (const auto &plan = m_search->plan(); plan && !m_searching)
            m_findLimitDialog->setAnswer(plan->answerLine(), plan->stopText(), m_search->directory());
    }
    updateFindLimitDialog();
    m_findLimitDialog->show(); // not modal: the dashboard beside it follows the level running
    m_findLimitDialog->raise();
    m_findLimitDialog->activateWindow();
}

void MainWindow::updateFindLimitDialog()
{
    if (!m_findLimitDialog)
        return;
    QStringList problems = LimitSearch::problems(currentConfig());
    if (!m_searching) {
        if (m_running)
            problems.prepend(tr("a run is going"));
        if (!m_runBlocked.isEmpty())
            problems.prepend(m_runBlocked);
        for (const QString &problem : m_editor->problems()) {
            if (!problems.contains(problem))
                problems << problem;
        }
    }
    m_findLimitDialog->setConfig(currentConfig(), problems);
    m_findLimitDialog->setRunning(m_searching);
}

std::optional<RunConfig> MainWindow::configToStart(QString *error) const
{
    QString refusal;
    if (m_running)
        refusal = tr("a run is already going");
    else if (!m_runBlocked.isEmpty())
        refusal = m_runBlocked;
    else if (!m_editor->isValid())
        refusal = m_editor->problems().constFirst();
    else
        return currentConfig();
    if (error)
        *error = refusal;
    return std::nullopt;
}

bool MainWindow::startSearch(const LimitSearchSpec &spec, QString *error)
{
    std::optional<RunConfig> start = configToStart(error);
    if (!start)
        return false;
    RunConfig &config = *start;
    if (config.outDir.isEmpty())
        config.outDir = RunWriter::unusedPath(
            m_runsFolder, QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")) +
                              QStringLiteral("-find-max-") + RunWriter::fileSafeName(config.target.model));
    m_searchLevels->reset(spec);
    QString why;
    if (!m_search->start(config, spec, &why)) {
        if (!m_search->failureIsConfiguration())
            showError(tr("Cannot start the search"), why);
        if (error)
            *error = why;
        return false;
    }
    m_searching = true;
    setRunning(true);
    return true;
}

QString MainWindow::newRunDirectory(const RunConfig &config) const
{
    // A second run within the same second gets a suffix rather than a refusal.
    return RunWriter::defaultDirectory(config, QDateTime::currentDateTime(), m_runsFolder);
}

void MainWindow::run()
{
    if (!m_running && !m_editor->isValid())
        showConfiguration(); // what stops the run is in the forms: show them
    if (m_running || m_probe || !m_runBlocked.isEmpty() || !m_editor->isValid()) {
        startRunOrSay();
        return;
    }
    // A target nobody answers would give a run of nothing but connection errors: a TCP connect
    // first (asynchronous, a few milliseconds when the server is up) offers the full probe instead.
    const QUrl url(currentConfig().target.url);
    const bool tls = url.scheme() == QLatin1String("https");
    m_probe = new QTcpSocket(this);
    auto *timeout = new QTimer(m_probe);
    timeout->setSingleShot(true);
    const auto finish = [this](const QString &problem) {
        QTcpSocket *probe = std::exchange(m_probe, nullptr);
        if (!probe)
            return;
        probe->abort();
        probe->deleteLater();
        if (problem.isEmpty())
            startRunOrSay();
        else
            askUnreachable(problem);
    };
    connect(m_probe, &QTcpSocket::connected, this, [finish] { finish({}); });
    connect(m_probe, &QTcpSocket::errorOccurred, this,
            [this, finish] { finish(m_probe ? m_probe->errorString() : QString()); });
    connect(timeout, &QTimer::timeout, this, [finish] { finish(tr("no answer within %1 s").arg(kProbeMs / 1000)); });
    timeout->start(kProbeMs);
    m_probe->connectToHost(url.host(), quint16(url.port(tls ? 443 : 80)));
}

void MainWindow::startRunOrSay()
{
    QString error;
    if (!startRun(&error) && !error.isEmpty())
        statusBar()->showMessage(tr("Cannot run: %1").arg(error), kStatusMs);
}

void MainWindow::askUnreachable(const QString &problem)
{
    const QString url = currentConfig().target.url;
    auto *box = new QMessageBox(QMessageBox::Warning, tr("The target does not answer"),
                                tr("Nothing answers at %1 (%2).\n\nEvery request of a run would fail. Test the "
                                   "connection first, or run anyway?")
                                    .arg(url, problem),
                                QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("targetUnreachableBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    QPushButton *test = box->addButton(tr("Test Connection"), QMessageBox::AcceptRole);
    QPushButton *anyway = box->addButton(tr("Run Anyway"), QMessageBox::DestructiveRole);
    QPushButton *cancel = box->addButton(QMessageBox::Cancel);
    box->setDefaultButton(test);
    box->setEscapeButton(cancel);
    connect(test, &QPushButton::clicked, this, &MainWindow::testConnection);
    connect(anyway, &QPushButton::clicked, this, &MainWindow::startRunOrSay);
    statusBar()->showMessage(tr("Nothing answers at %1 (%2)").arg(url, problem), kStatusMs);
    box->open();
}

bool MainWindow::startRun(QString *error)
{
    std::optional<RunConfig> start = configToStart(error);
    if (!start)
        return false;
    RunConfig &config = *start;
    if (config.outDir.isEmpty())
        config.outDir = newRunDirectory(config);
    Q_EMIT runRequested(config);
    QString why;
    if (!m_runner->start(config, &why)) {
        showError(tr("Cannot start the run"), why);
        if (error)
            *error = why;
        return false;
    }
    statusBar()->showMessage(
        tr("Running %1 at %2%3")
            .arg(config.target.displayName(), withoutUserInfo(config.target.url),
                 m_runner->metricsUrl().isEmpty() ? QString() : tr("; metrics at %1").arg(m_runner->metricsUrl())),
        kStatusMs);
    setRunning(true);
    return true;
}

void MainWindow::stop()
{
    if (!m_running)
        return;
    // The runner cancels what is in flight and saves; a second Stop changes nothing. A search ends
    // with the level it is running.
    if (m_searching)
        m_search->stop();
    else
        m_runner->stop();
    if (!m_stopping) {
        m_stopping = true;
        statusBar()->showMessage(tr("Stopping: cancelling the requests in flight; results are kept"));
        Q_EMIT stopRequested();
    }
    updateRunState();
}

void MainWindow::confirmStop()
{
    if (!m_running)
        return;
    if (m_stopping || m_document->progress().elapsedNs < m_confirmStopAfterNs) {
        stop();
        return;
    }
    if (findChild<QMessageBox *>(QStringLiteral("confirmStopBox")))
        return; // already asking
    // open(), not exec(): the run goes on while the question is up. Esc (or Continue) keeps it going.
    const double minutes = double(m_document->progress().elapsedNs) / 60e9;
    auto *box = new QMessageBox(QMessageBox::Question, tr("Stop the run?"),
                                tr("The run has been going for %1 min. Stop it now? What was measured "
                                   "so far is kept.")
                                    .arg(minutes, 0, 'f', 1),
                                QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("confirmStopBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    QPushButton *stopButton = box->addButton(tr("Stop Run"), QMessageBox::DestructiveRole);
    QPushButton *goOn = box->addButton(tr("Continue"), QMessageBox::RejectRole);
    box->setDefaultButton(goOn);
    box->setEscapeButton(goOn);
    connect(stopButton, &QPushButton::clicked, this, &MainWindow::stop);
    connect(m_runner, &BenchmarkRunner::runFinished, box, &QWidget::close);
    connect(m_search, &LimitSearch::searchFinished, box, &QWidget::close);
    box->open();
}

bool MainWindow::eventFilter(QObject *watched, QEvent *event)
{
    // View → Side Panel follows the panel however it was shown or hidden (a splitter state restored,
    // the narrow-window collapse, a view action).
    if (watched == m_side && (event->type() == QEvent::ShowToParent || event->type() == QEvent::HideToParent)) {
        const QSignalBlocker blocker(m_sidePanel);
        m_sidePanel->setChecked(!m_side->isHidden());
    }
    if (event->type() == QEvent::ShortcutOverride && static_cast<QKeyEvent *>(event)->key() == Qt::Key_Escape) {
        // Accepting the override hands Esc to the widget as a key press instead of the Stop
        // shortcut: a popup (combo box list, menu) closes, a dialog is dismissed, an edit is cancelled.
        // An open popup takes Esc wherever the window system delivered the key (some deliver it to
        // the window that had the focus before the popup grabbed the keyboard): it closes.
        if (QWidget *popup = QApplication::activePopupWidget()) {
            popup->close();
            event->accept();
            return true;
        }
        // A cell editor is a child of an item view's viewport.
        const QWidget *focus = QApplication::focusWidget();
        const QWidget *viewport = focus ? focus->parentWidget() : nullptr;
        const bool editing = viewport && qobject_cast<const QAbstractItemView *>(viewport->parentWidget());
        if (QApplication::activeModalWidget() || editing) {
            event->accept();
            return true;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::setSidePanelVisible(bool visible)
{
    m_sidePanelAutoHidden = false; // asked for, not the narrow window's doing
    showSidePanel(visible);
}

void MainWindow::showSidePanel(bool visible)
{
    m_side->setVisible(visible);
    if (visible)
        fitSidePanel();
}

void MainWindow::fitSidePanel()
{
    // Results keep most of the window: the panel takes at most its share, its forms scroll.
    const QList<int> sizes = m_splitter->sizes();
    const int total = sizes.value(0) + sizes.value(1);
    const int most = std::max(m_side->minimumSizeHint().width(), int(total * kSidePanelShare));
    if (m_side->isVisible() && total > 0 && sizes.value(0) > most)
        m_splitter->setSizes({most, total - most});
}

void MainWindow::showConfiguration()
{
    setSidePanelVisible(true);
    m_side->setCurrentIndex(ConfigureSideTab);
}

void MainWindow::testConnection()
{
    // Its answer is shown under the target's URL.
    showConfiguration();
    m_editor->tabs()->setCurrentIndex(ConfigEditor::TargetTab);
    m_editor->testConnection();
}

int MainWindow::sidePanelCollapseWidth() const
{
    return m_side->minimumSizeHint().width() + kDashboardTwoColumnWidth + m_splitter->handleWidth() + 20;
}

void MainWindow::resizeEvent(QResizeEvent *event)
{
    QMainWindow::resizeEvent(event);
    // A layout that grew (a minimum size learnt late) can push the window past the screen: fit it
    // again once the layouts have settled (also before it is shown: a size given larger than the
    // screen is fitted once it shows).
    if (!isMaximized() && !isFullScreen() && !fitsTheScreen())
        QTimer::singleShot(0, this, &MainWindow::fitToScreen);
    fitSidePanel();
    const bool narrow = width() < sidePanelCollapseWidth();
    if (narrow == m_narrow)
        return; // only a change of room hides or shows the panel: Ctrl+0 still overrules it
    m_narrow = narrow;
    if (narrow && m_side->isVisible()) {
        m_sidePanelAutoHidden = true;
        showSidePanel(false);
        statusBar()->showMessage(tr("Side panel hidden to give the dashboard room (Ctrl+0 shows it)"), kStatusMs);
    } else if (!narrow && m_sidePanelAutoHidden) {
        m_sidePanelAutoHidden = false;
        showSidePanel(true);
    }
}

bool MainWindow::event(QEvent *event)
{
    const bool handled = QMainWindow::event(event);
    // A window held past the screen by a minimum that has since shrunk (a panel hidden, a
    // comparison laid out) fits again once its layout has settled.
    if (event->type() == QEvent::LayoutRequest && isVisible() && !isMaximized() && !isFullScreen() && !fitsTheScreen())
        QTimer::singleShot(0, this, &MainWindow::fitToScreen);
    return handled;
}

QString MainWindow::screenSettingsKey() const
{
    const QScreen *s = screen() ? screen() : QGuiApplication::primaryScreen();
    QString name = s->name();
    name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]")), QStringLiteral("_"));
    return QStringLiteral("window/screens/%1-%2x%3").arg(name).arg(s->geometry().width()).arg(s->geometry().height());
}

void MainWindow::setScreenSize(const QSize &size)
{
    m_screenSize = size;
    resize(size);
}

bool MainWindow::fitsTheScreen() const
{
    if (m_screenSize.isValid())
        return size().width() <= m_screenSize.width() && size().height() <= m_screenSize.height();
    const QScreen *s = screen() ? screen() : QGuiApplication::primaryScreen();
    return s->availableGeometry().contains(frameGeometry());
}

void MainWindow::fitToScreen()
{
    const QScreen *s = screen() ? screen() : QGuiApplication::primaryScreen();
    // A given screen size is the window's own area (a screenshot's), where it stands.
    const bool given = m_screenSize.isValid();
    const QRect available = given ? QRect(geometry().topLeft(), m_screenSize) : s->availableGeometry();
    // The frame (title bar, borders) is known once the window manager has framed the window;
    // until then a window with no frame fits as it is.
    const QMargins frame =
        given ? QMargins()
              : QMargins(geometry().left() - frameGeometry().left(), geometry().top() - frameGeometry().top(),
                         frameGeometry().right() - geometry().right(), frameGeometry().bottom() - geometry().bottom());
    const QSize room = available.size().shrunkBy(frame);
    if (room.width() < sidePanelCollapseWidth() && m_side->isVisible()) {
        // Too narrow for both: the dashboard gets the room, the panel is a Ctrl+0 away.
        m_narrow = true;
        m_sidePanelAutoHidden = true;
        showSidePanel(false);
    }
    // The layout holds the window at the minimum it last computed (with the panel, perhaps):
    // recompute it first. Never below it: Qt keeps the window at that size whatever is asked.
    layout()->activate();
    const QSize size = this->size().boundedTo(room);
    if (size != this->size())
        resize(size);
    QRect outer = frameGeometry();
    outer.setSize(size.grownBy(frame));
    if (!given && !available.contains(outer)) {
        const int x = std::clamp(outer.left(), available.left(),
                                 std::max(available.left(), available.right() - outer.width() + 1));
        const int y = std::clamp(outer.top(), available.top(),
                                 std::max(available.top(), available.bottom() - outer.height() + 1));
        move(x, y);
    }
}

void MainWindow::showRestored()
{
    const QSettings settings;
    const QString key = screenSettingsKey();
    const QRect available = (screen() ? screen() : QGuiApplication::primaryScreen())->availableGeometry();
    if (!restoreGeometry(settings.value(key + QStringLiteral("/geometry")).toByteArray())) {
        resize(kPreferredSize.boundedTo(available.size() * 0.9));
        move(available.center() - rect().center());
    }
    fitToScreen();
    if (settings.value(key + QStringLiteral("/maximized")).toBool())
        showMaximized();
    else
        show();
    // Once framed: the frame may push the window past the screen's edge.
    QTimer::singleShot(0, this, [this] {
        if (!isMaximized() && !isFullScreen())
            fitToScreen();
    });
}

void MainWindow::setRunning(bool running)
{
    m_running = running;
    m_stopping = false;
    // Greying out every field of the forms is a sizeable repaint: at a run's start it gets an
    // event-loop turn of its own, apart from the dashboard's (the run copied its configuration,
    // so an edit in between changes nothing).
    QTimer::singleShot(0, m_editor, [this] { m_editor->setEnabled(!m_running); });
    m_openConfig->setEnabled(!running);
    m_recentMenu->setEnabled(!running);
    m_historyView->setOpenEnabled(!running);
    m_liveStatus->setVisible(running);
    updateLiveStatus();
    updateRunState();
}

QList<QMenu *> MainWindow::menus() const
{
    // Read off the menu bar, so menus others add (Compare) are listed where they stand.
    QList<QMenu *> menus;
    for (QAction *action : menuBar()->actions()) {
        if (auto *menu = action->menu<QMenu *>())
            menus << menu;
    }
    return menus;
}

void MainWindow::setRunBlocked(const QString &reason)
{
    m_runBlocked = reason;
    updateRunState();
}

void MainWindow::updateRunState()
{
    const QStringList problems = m_editor->problems();
    m_run->setEnabled(!m_running && problems.isEmpty() && m_runBlocked.isEmpty());
    m_stop->setEnabled(m_running);
    m_openRun->setEnabled(!m_running);
    m_export->setEnabled(!m_document->isEmpty());
    m_copySummary->setEnabled(!m_document->isEmpty());
    if (m_running) {
        m_readiness->setText(m_stopping ? tr("Stopping…") : tr("Running…"));
        m_run->setToolTip(tr("A run is going; Esc stops it"));
    } else if (!m_runBlocked.isEmpty()) {
        m_readiness->setText(m_runBlocked);
        m_run->setToolTip(m_runBlocked);
    } else if (problems.isEmpty()) {
        m_readiness->setText(tr("Ready to run"));
        m_readiness->setToolTip(QString());
        m_run->setToolTip(tr("Run the benchmark (Ctrl+R)"));
    } else {
        const QString &first = problems.constFirst();
        m_readiness->setText(problems.size() == 1
                                 ? tr("⚠ Cannot run: %1").arg(first)
                                 : tr("⚠ Cannot run: %1 (and %2 more)").arg(first).arg(problems.size() - 1));
        m_readiness->setToolTip(problems.join(QLatin1Char('\n')));
        m_run->setToolTip(tr("Cannot run: %1").arg(problems.join(QStringLiteral("\n"))));
    }
    updateFindLimitDialog();
}

void MainWindow::updateLiveStatus()
{
    if (!m_running)
        return;
    const RunProgress &p = m_document->progress();
    if (p.calibrating) { // before the load: nothing is in flight, done or failed yet
        m_liveStatus->setText(p.calibrationText());
        m_liveStatus->setToolTip(tr("Prompt sizes are measured against the target before the load starts; "
                                    "this time is not part of the run"));
        return;
    }
    // Connecting and TLS handshakes are shown while they last: a target that accepts and never
    // finishes the handshake would otherwise read as an idle run until the connect timeout.
    QStringList parts{tr("%1 in flight").arg(p.inFlight)};
    if (p.connecting > 0)
        parts << tr("%1 connecting").arg(p.connecting);
    if (p.handshaking > 0)
        parts << tr("%1 TLS handshaking").arg(p.handshaking);
    parts << tr("%1 done").arg(p.completed) << tr("%1 errors").arg(p.failed);
    QString text = parts.join(QStringLiteral(" · "));
    QString tip = text;
    // The first failure's cause at once (a refused connection, a failed handshake), not at the end.
    if (const QStringList causes = m_document->topErrors(1); p.failed > 0 && !causes.isEmpty()) {
        constexpr qsizetype kMaxCause = 90; // the status bar's room; the tooltip has it whole
        const QString &cause = causes.constFirst();
        text +=
            QStringLiteral(" — ") + (cause.size() > kMaxCause ? cause.left(kMaxCause) + QStringLiteral("…") : cause);
        tip += QStringLiteral("\n") + cause;
    }
    m_liveStatus->setText(text);
    m_liveStatus->setToolTip(tip);
    AppTheme::setStyleSheet(m_liveStatus, p.failed > 0 ? QStringLiteral("color: #c62828;") : QString());
}

void MainWindow::setRunsFolder(const QString &folder)
{
    m_runsFolder = QDir::cleanPath(folder);
    m_history->setFolder(m_runsFolder);
}

QString MainWindow::defaultRunsFolder()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).filePath(QStringLiteral("runs"));
}

void MainWindow::openRunDialog()
{
    askForFolder(this, tr("Open Run"), m_runsFolder, QStringLiteral("openRunDialog"), &MainWindow::openRun);
}

bool MainWindow::openRun(const QString &directory)
{
    if (m_running) {
        statusBar()->showMessage(tr("A run is going: open saved runs when it has ended"), kStatusMs);
        return false;
    }
    statusBar()->showMessage(tr("Opening %1…").arg(QDir::toNativeSeparators(directory)));
    m_loader->load(directory);
    return true;
}

void MainWindow::openRuns(const QStringList &directories)
{
    for (auto it = directories.rbegin(); it != directories.rend(); ++it)
        m_history->addDirectory(*it);
    const QString first = directories.value(0);
    const bool compare = directories.size() > 1 || SessionInfo::isSessionDirectory(first);
    // What is left to show before runsShown(): the first run's dashboard, the comparison.
    struct Pending {
        int parts = 0;
        bool ok = true;
    };
    auto pending = std::make_shared<Pending>();
    const auto shown = [this, pending](bool ok) {
        pending->ok = pending->ok && ok;
        if (--pending->parts == 0)
            Q_EMIT runsShown(pending->ok);
    };
    const bool dashboard = !compare || RunReader::isRunDirectory(first);
    pending->parts = int(dashboard) + int(compare);
    if (dashboard) {
        connect(
            this, &MainWindow::runOpened, this, [shown] { shown(true); }, Qt::SingleShotConnection);
        connect(
            this, &MainWindow::runOpenFailed, this, [shown] { shown(false); }, Qt::SingleShotConnection);
        // Behind the comparison: it is what several runs were given for.
        m_showOpened = !compare;
        openRun(first);
    }
    if (compare) {
        ComparisonView *view = m_comparisons->openComparison(directories);
        connect(
            view, &ComparisonView::loaded, this, [shown, view] { shown(view->runCount() > 0); },
            Qt::SingleShotConnection);
    }
}

void MainWindow::runLoaded(const std::shared_ptr<RunData> &run)
{
    if (m_running)
        return; // a run started while the saved one was read: the live run keeps the views
    const QString directory = run->directory;
    if (m_history->rowOf(directory) < 0)
        m_history->addDirectory(directory);
    m_document->load(std::move(*run));
    m_historyView->selectDirectory(directory);
    if (std::exchange(m_showOpened, true))
        m_results->setCurrentWidget(m_dashboard);
    setSidePanelVisible(false);
    statusBar()->showMessage(tr("Opened %1").arg(QDir::toNativeSeparators(directory)), kStatusMs);
    Q_EMIT runOpened(directory);
}

void MainWindow::showExportDialog()
{
    if (m_document->isEmpty()) {
        statusBar()->showMessage(tr("Nothing to export yet: run, or open a saved run"), kStatusMs);
        return;
    }
    m_summaryView->refresh();
    auto *dialog = new ExportDialog(m_document, m_dashboard->shownCharts(), m_summaryView->model(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ExportDialog::exported, this, [this](const QStringList &paths) {
        statusBar()->showMessage(tr("Exported %n file(s)", nullptr, int(paths.size())), kStatusMs);
    });
    dialog->open();
}

void MainWindow::showExportTimelineDialog()
{
    if (m_document->isEmpty() || m_document->directory().isEmpty()) {
        statusBar()->showMessage(tr("Nothing to export yet: run, or open a saved run"), kStatusMs);
        return;
    }
    askForSaveFile(this, tr("Export Timeline"), QDir(m_document->directory()).dirName() + QStringLiteral(".trace.json"),
                   tr("Chrome trace JSON (*.json)"), [this](const QString &path) { exportTimeline(path); });
}

bool MainWindow::exportTimeline(const QString &path)
{
    const QString directory = m_document->directory();
    if (m_document->isEmpty() || directory.isEmpty())
        return false;
    statusBar()->showMessage(tr("Exporting the timeline to %1…").arg(QDir::toNativeSeparators(path)));
    m_exports.run(
        [directory, path] {
            QString error;
            TraceTimeline::Stats stats;
            TraceTimeline::write(directory, path, &error, TraceTimeline::kLimits, &stats);
            return std::pair(error, stats);
        },
        [this, path](const std::pair<QString, TraceTimeline::Stats> &result) {
            const auto &[error, stats] = result;
            if (error.isEmpty())
                statusBar()->showMessage(
                    tr("Exported the timeline of %n request(s) to %1", nullptr, int(stats.requests))
                        .arg(QDir::toNativeSeparators(path)),
                    kStatusMs);
            else
                showError(tr("Export Timeline"), error);
            Q_EMIT timelineExported(path, error);
        });
    return true;
}

void MainWindow::showImportResultsDialog()
{
    auto *dialog = new QFileDialog(this, tr("Import Results"), m_runsFolder,
                                   tr("Benchmark results (*.json *.jsonl *.yaml *.yml);;All files (*)"));
    dialog->setObjectName(QStringLiteral("importResultsDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::ExistingFiles);
    connect(dialog, &QFileDialog::filesSelected, this, &MainWindow::importResults);
    dialog->open();
}

void MainWindow::importResults(const QStringList &files)
{
    if (files.isEmpty())
        return;
    if (m_running) {
        statusBar()->showMessage(tr("A run is going: import results when it has ended"), kStatusMs);
        return;
    }
    statusBar()->showMessage(tr("Importing %n file(s)…", nullptr, int(files.size())));
    const QString folder = m_runsFolder;
    m_exports.run(
        [files, folder] {
            QString error;
            QStringList directories;
            if (const auto imported = ForeignRuns::importInto(files, folder, &error))
                for (const ForeignRuns::Imported &one : *imported)
                    directories << one.directory;
            return std::pair(directories, error);
        },
        [this](const std::pair<QStringList, QString> &result) {
            const auto &[directories, error] = result;
            if (error.isEmpty() && !directories.isEmpty())
                openRuns(directories);
            else
                showError(tr("Import Results"), error);
            Q_EMIT resultsImported(directories, error);
        });
}

void MainWindow::copySummary()
{
    if (!m_document->isEmpty())
        m_summaryView->copyToClipboard();
}

bool MainWindow::saveScreenshot(const QString &path, QString *error)
{
    m_dashboard->refresh();
    m_summaryView->refresh();
    // Charts lay out new legend entries on posted layout requests: settle them (only those)
    // before the picture is taken.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    if (!grab().save(path)) {
        if (error)
            *error = tr("cannot write %1").arg(QDir::toNativeSeparators(path));
        return false;
    }
    return true;
}

void MainWindow::setConfigPath(const QString &path)
{
    m_configPath = QFileInfo(path).absoluteFilePath();
    m_recent.removeAll(m_configPath);
    m_recent.prepend(m_configPath);
    while (m_recent.size() > kMaxRecent)
        m_recent.removeLast();
    updateRecentMenu();
    setWindowFilePath(m_configPath);
    setWindowTitle(tr("%1[*] — TokenBench").arg(QFileInfo(m_configPath).fileName()));
    setWindowModified(false);
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    for (const QString &path : std::as_const(m_recent)) {
        m_recentMenu->addAction(QDir::toNativeSeparators(path), this, [this, path] {
            QString error;
            if (!openConfig(path, &error))
                showError(tr("Cannot open the configuration"), error);
        });
    }
    m_recentMenu->addSeparator();
    QAction *clear = m_recentMenu->addAction(tr("Clear List"), this, [this] {
        m_recent.clear();
        updateRecentMenu();
    });
    clear->setEnabled(!m_recent.isEmpty());
    m_autosave->changed();
}

void MainWindow::showError(const QString &title, const QString &text)
{
    statusBar()->showMessage(text, kStatusMs);
    auto *box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("errorBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::setTheme(AppTheme::Setting theme)
{
    m_theme = theme;
    m_themeActions.at(int(theme))->setChecked(true);
    AppTheme::apply(theme);
    if (m_settingsWritable)
        QSettings().setValue(key::theme, AppTheme::name(theme));
}

void MainWindow::readSettings()
{
    const QSettings settings;
    setRunsFolder(settings.value(key::runsFolder, defaultRunsFolder()).toString());
    restoreState(settings.value(key::state).toByteArray());
    m_splitter->restoreState(settings.value(key::splitter).toByteArray());

    RunConfig config = m_editor->config();
    const QByteArray stored = settings.value(key::config).toString().toUtf8();
    if (!stored.isEmpty()) {
        const auto json = nlohmann::json::parse(stored.constData(), stored.constData() + stored.size(), nullptr, false);
        QString error;
        if (auto last = runConfigFromJson(json, &error))
            config = *last;
        else
            qWarning("TokenBench: ignoring the stored configuration: %s", qPrintable(error));
    }
    m_editor->targets()->setUserTargets(TargetListModel::fromJson(settings.value(key::targets).toString().toUtf8()));
    m_editor->setConfig(config);
    m_editor->tabs()->setCurrentIndex(settings.value(key::tab, 0).toInt());
    m_side->setCurrentIndex(settings.value(key::sideTab, ConfigureSideTab).toInt());

    m_recent = settings.value(key::recent).toStringList();
    updateRecentMenu();
    m_serveMetrics->setChecked(!settings.value(key::metricsListen).toString().isEmpty());
    const QString path = settings.value(key::path).toString();
    if (!path.isEmpty()) {
        m_configPath = path;
        setWindowFilePath(path);
        setWindowTitle(tr("%1[*] — TokenBench").arg(QFileInfo(path).fileName()));
    } else {
        setWindowTitle(tr("TokenBench[*]"));
    }
}

void MainWindow::watchSettings()
{
    m_autosave->watch(m_editor, &ConfigEditor::configChanged); // the target, workload and load forms
    const TargetListModel *targets = m_editor->targets();
    m_autosave->watch(targets, &QAbstractItemModel::dataChanged);
    m_autosave->watch(targets, &QAbstractItemModel::rowsInserted);
    m_autosave->watch(targets, &QAbstractItemModel::rowsRemoved);
    m_autosave->watch(targets, &QAbstractItemModel::modelReset);
    m_autosave->watch(m_editor->tabs(), &QTabWidget::currentChanged);
    m_autosave->watch(m_side, &QTabWidget::currentChanged);
    m_autosave->watch(m_splitter, &QSplitter::splitterMoved);
    m_autosave->watch(m_historyView, &RunHistoryView::folderChosen);
    m_autosave->watch(m_serveMetrics, &QAction::toggled);
    m_autosave->watchWidget(this);
    m_autosave->watchWidget(m_side);
    for (QToolBar *toolbar : findChildren<QToolBar *>())
        m_autosave->watchWidget(toolbar);
}

void MainWindow::writeSettings() const
{
    if (!m_settingsWritable)
        return;
    QSettings settings;
    settings.setValue(key::runsFolder, m_runsFolder);
    settings.setValue(key::sideTab, m_side->currentIndex());
    // Per screen: a laptop's panel and the desk's monitor each get the window as it was left there.
    // A window not shown yet has no place on a screen to keep.
    if (isVisible()) {
        const QString screenKey = screenSettingsKey();
        settings.setValue(screenKey + QStringLiteral("/geometry"), saveGeometry());
        settings.setValue(screenKey + QStringLiteral("/maximized"), isMaximized());
    }
    settings.setValue(key::state, saveState());
    settings.setValue(key::splitter, m_splitter->saveState());
    settings.setValue(key::tab, m_editor->tabs()->currentIndex());
    // Neither form carries a key: toJson() never writes TargetConfig::apiKey.
    settings.setValue(key::targets, QString::fromUtf8(TargetListModel::toJson(m_editor->targets()->userTargets())));
    settings.setValue(key::config, fromStd(toJson(currentConfig()).dump()));
    settings.setValue(key::path, m_configPath);
    settings.setValue(key::recent, m_recent);
    // Off is stored as empty; on keeps the address the user may have edited in the settings.
    settings.setValue(key::metricsListen, m_serveMetrics->isChecked() ? metricsAddress() : QString());
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    m_autosave->flush();
    if (m_running) {
        // Nothing modal: stop, and close when runFinished says the results are saved.
        m_closeWhenStopped = true;
        stop();
        statusBar()->showMessage(tr("Stopping the run; the window closes once its results are saved"));
        event->ignore();
        return;
    }
    event->accept();
}

void MainWindow::showAbout()
{
    // open(), not exec(): the GUI never runs a nested event loop, even for About.
    auto *box = new QMessageBox(QMessageBox::Information, tr("About TokenBench"),
                                tr("<h3>TokenBench %1</h3>"
                                   "<p>Load-testing workbench for LLM inference APIs.</p>"
                                   "<p>Qt %2 (built with Qt %3)</p>")
                                    .arg(version(), QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR)),
                                QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("aboutBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::showTextWindow(const QString &objectName, const QString &title, const QString &html)
{
    auto *dialog = findChild<QDialog *>(objectName);
    if (!dialog) {
        dialog = new QDialog(this);
        dialog->setObjectName(objectName);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->setWindowTitle(title);
        auto *text = new QTextBrowser(dialog);
        text->setObjectName(QStringLiteral("text"));
        text->setOpenLinks(false);
        auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
        connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
        auto *layout = new QVBoxLayout(dialog);
        layout->addWidget(text);
        layout->addWidget(buttons);
        dialog->resize(640, 560);
    }
    dialog->findChild<QTextBrowser *>(QStringLiteral("text"))->setHtml(html);
    dialog->show(); // not modal: it may stay open beside the window, also during a run
    dialog->raise();
    dialog->activateWindow();
}

void MainWindow::showGettingStarted()
{
    showTextWindow(QStringLiteral("gettingStartedDialog"), tr("Getting Started — TokenBench"),
                   GettingStartedPage::html());
}

void MainWindow::showMetricGlossary()
{
    QString html = tr("<p>How TokenBench measures, in the words of docs/metrics.md. "
                      "Latencies come from successful requests; rates divide by the measurement window.</p>");
    html += QStringLiteral("<table cellspacing='0' cellpadding='4'>");
    for (const MetricCatalogue::GlossaryEntry &entry : MetricCatalogue::glossary())
        html += QStringLiteral("<tr><td valign='top'><b>%1</b></td><td>%2</td></tr>")
                    .arg(entry.term.toHtmlEscaped(), entry.definition.toHtmlEscaped());
    html += QStringLiteral("</table>");
    showTextWindow(QStringLiteral("metricGlossaryDialog"), tr("Metrics — TokenBench"), html);
}

void MainWindow::showShortcuts()
{
    // Walked off the menus (sub-menus included), so a changed or added shortcut is listed as it is.
    QString rows;
    const std::function<void(QMenu *, const QString &)> walk = [&](QMenu *menu, const QString &path) {
        const QString here = path + menu->title().remove(QLatin1Char('&'));
        for (QAction *action : menu->actions()) {
            if (QMenu *sub = action->menu())
                walk(sub, here + QStringLiteral(" ▸ "));
            else if (!action->shortcut().isEmpty() && !action->text().isEmpty())
                rows += QStringLiteral("<tr><td><b>%1</b></td><td>%2 ▸ %3</td></tr>")
                            .arg(action->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped(),
                                 here.toHtmlEscaped(), action->text().remove(QLatin1Char('&')).toHtmlEscaped());
        }
    };
    for (QMenu *menu : menus())
        walk(menu, QString());
    showTextWindow(QStringLiteral("shortcutsDialog"), tr("Keyboard Shortcuts — TokenBench"),
                   QStringLiteral("<table cellspacing='0' cellpadding='4'>%1</table>").arg(rows));
}

} // namespace tb
