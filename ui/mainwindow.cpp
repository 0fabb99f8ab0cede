#include "mainwindow.h"

#include "configeditor.h"
#include "simulatorcontroller.h"
#include "targetlistmodel.h"

#include "tokenbench/version.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QToolBar>

// Resources compiled into a static library are registered only when asked for by name.
static void initResources()
{
    Q_INIT_RESOURCE(tokenbench);
}

namespace tb {

namespace {

constexpr int kMaxRecent = 8;
constexpr int kStatusMs = 5000;

namespace key {
const QString geometry = QStringLiteral("window/geometry");
const QString state = QStringLiteral("window/state");
const QString splitter = QStringLiteral("window/splitter");
const QString tab = QStringLiteral("window/configTab");
const QString targets = QStringLiteral("targets/user");
const QString config = QStringLiteral("config/last");
const QString path = QStringLiteral("files/current");
const QString recent = QStringLiteral("files/recent");
} // namespace key

const QString kConfigFilter = QStringLiteral("TokenBench configuration (*.json);;All files (*)");

} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_simulator(new SimulatorController(this))
    , m_editor(new ConfigEditor(m_simulator, this))
    , m_results(new QTabWidget(this))
    , m_splitter(new QSplitter(Qt::Horizontal, this))
    , m_readiness(new QLabel(this))
{
    initResources();
    setWindowIcon(QIcon(QStringLiteral(":/icons/tokenbench.svg")));
    m_editor->setObjectName(QStringLiteral("configEditor"));
    m_results->setObjectName(QStringLiteral("resultsTabs"));
    m_splitter->setObjectName(QStringLiteral("mainSplitter"));
    m_readiness->setObjectName(QStringLiteral("runReadiness"));

    auto *placeholder =
        new QLabel(tr("<p style='font-size:large'>No run yet.</p>"
                      "<p>Choose a target, a workload and a load on the left, then press <b>Run</b> (Ctrl+R).<br>"
                      "The built-in simulator is selected, so a run works without any server.</p>"),
                   m_results);
    placeholder->setObjectName(QStringLiteral("noRunPlaceholder"));
    placeholder->setAlignment(Qt::AlignCenter);
    placeholder->setWordWrap(true);
    m_results->addTab(placeholder, tr("Dashboard"));
    m_results->setDocumentMode(true);

    m_editor->setMinimumWidth(440);
    m_splitter->addWidget(m_editor);
    m_splitter->addWidget(m_results);
    m_splitter->setStretchFactor(0, 0);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setChildrenCollapsible(false);
    m_splitter->setSizes({540, 740});
    setCentralWidget(m_splitter);

    createActions();
    createMenus();
    statusBar()->addPermanentWidget(m_readiness);
    resize(1280, 820);

    connect(m_editor, &ConfigEditor::problemsChanged, this, &MainWindow::updateRunState);
    connect(m_editor, &ConfigEditor::configChanged, this, [this] { setWindowModified(true); });
    readSettings();
    updateRunState();
    setWindowModified(false);
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions()
{
    const auto icon = [this](QStyle::StandardPixmap p) { return style()->standardIcon(p); };

    m_run = new QAction(icon(QStyle::SP_MediaPlay), tr("&Run"), this);
    m_run->setObjectName(QStringLiteral("actionRun"));
    m_run->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    connect(m_run, &QAction::triggered, this, &MainWindow::run);

    m_stop = new QAction(icon(QStyle::SP_MediaStop), tr("&Stop"), this);
    m_stop->setObjectName(QStringLiteral("actionStop"));
    m_stop->setShortcut(QKeySequence(Qt::Key_Escape));
    m_stop->setToolTip(tr("Stop the run; what was measured is kept (Esc)"));
    m_stop->setEnabled(false);
    connect(m_stop, &QAction::triggered, this, &MainWindow::stop);

    m_testConnection = new QAction(icon(QStyle::SP_DriveNetIcon), tr("&Test Connection"), this);
    m_testConnection->setObjectName(QStringLiteral("actionTestConnection"));
    m_testConnection->setIconText(tr("Test"));
    m_testConnection->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    m_testConnection->setToolTip(tr("List the target's models to check URL and key (Ctrl+T)"));
    connect(m_testConnection, &QAction::triggered, m_editor, &ConfigEditor::testConnection);

    m_openConfig = new QAction(icon(QStyle::SP_DialogOpenButton), tr("&Open Configuration…"), this);
    m_openConfig->setObjectName(QStringLiteral("actionOpenConfig"));
    m_openConfig->setIconText(tr("Open"));
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

    // Placeholders until run history and export exist; their shortcuts are reserved now.
    m_openRun = new QAction(tr("Open &Run…"), this);
    m_openRun->setObjectName(QStringLiteral("actionOpenRun"));
    m_openRun->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_O));
    m_openRun->setToolTip(tr("Open a saved run directory (not available yet)"));
    m_openRun->setEnabled(false);

    m_export = new QAction(tr("&Export…"), this);
    m_export->setObjectName(QStringLiteral("actionExport"));
    m_export->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_export->setToolTip(tr("Export results as CSV and charts (not available yet)"));
    m_export->setEnabled(false);
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
    file->addAction(m_export);
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu *run = menuBar()->addMenu(tr("&Run"));
    run->addAction(m_run);
    run->addAction(m_stop);
    run->addSeparator();
    run->addAction(m_testConnection);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    const QList<QPair<QString, ConfigEditor::Tab>> tabs = {{tr("&Target"), ConfigEditor::TargetTab},
                                                           {tr("&Workload"), ConfigEditor::WorkloadTab},
                                                           {tr("&Load"), ConfigEditor::LoadTab}};
    for (int i = 0; i < tabs.size(); ++i) {
        QAction *show = view->addAction(tabs.at(i).first, this, [this, tab = tabs.at(i).second] {
            m_editor->show();
            m_editor->tabs()->setCurrentIndex(tab);
        });
        show->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
    }
    view->addSeparator();
    QAction *panel = view->addAction(tr("&Configuration Panel"));
    panel->setObjectName(QStringLiteral("actionConfigPanel"));
    panel->setCheckable(true);
    panel->setChecked(true);
    panel->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    connect(panel, &QAction::toggled, m_editor, &QWidget::setVisible);

    QToolBar *toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolBar"));
    toolbar->setMovable(false);
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toolbar->addAction(m_run);
    toolbar->addAction(m_stop);
    toolbar->addSeparator();
    toolbar->addAction(m_testConnection);
    toolbar->addSeparator();
    toolbar->addAction(m_openConfig);
    toolbar->addAction(m_save);
    view->addAction(toolbar->toggleViewAction());

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About TokenBench"), this, &MainWindow::showAbout);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);

    m_menus = {file, run, view, help};
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
    statusBar()->showMessage(tr("Opened %1").arg(QDir::toNativeSeparators(path)), kStatusMs);
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
    // open(), not exec(): the GUI never runs a nested event loop.
    auto *dialog =
        new QFileDialog(this, tr("Save Configuration"),
                        m_configPath.isEmpty() ? QStringLiteral("tokenbench.json") : m_configPath, kConfigFilter);
    dialog->setObjectName(QStringLiteral("saveConfigDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setDefaultSuffix(QStringLiteral("json"));
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &path) {
        QString error;
        if (!saveConfig(path, &error))
            showError(tr("Cannot save the configuration"), error);
    });
    dialog->open();
}

void MainWindow::openConfigDialog()
{
    auto *dialog =
        new QFileDialog(this, tr("Open Configuration"), QFileInfo(m_configPath).absolutePath(), kConfigFilter);
    dialog->setObjectName(QStringLiteral("openConfigDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::ExistingFile);
    connect(dialog, &QFileDialog::fileSelected, this, [this](const QString &path) {
        QString error;
        if (!openConfig(path, &error))
            showError(tr("Cannot open the configuration"), error);
    });
    dialog->open();
}

void MainWindow::run()
{
    if (m_running)
        return;
    if (!m_editor->isValid()) {
        statusBar()->showMessage(tr("Cannot run: %1").arg(m_editor->problems().constFirst()), kStatusMs);
        return;
    }
    const RunConfig config = currentConfig();
    statusBar()->showMessage(tr("Run requested: %1 at %2").arg(config.target.displayName(), config.target.url),
                             kStatusMs);
    Q_EMIT runRequested(config);
}

void MainWindow::stop()
{
    if (m_running)
        Q_EMIT stopRequested();
}

void MainWindow::setRunning(bool running)
{
    m_running = running;
    m_editor->setEnabled(!running);
    m_openConfig->setEnabled(!running);
    m_recentMenu->setEnabled(!running);
    updateRunState();
}

void MainWindow::updateRunState()
{
    const QStringList problems = m_editor->problems();
    m_run->setEnabled(!m_running && problems.isEmpty());
    m_stop->setEnabled(m_running);
    if (m_running) {
        m_readiness->setText(tr("Running…"));
        m_run->setToolTip(tr("A run is going; Esc stops it"));
    } else if (problems.isEmpty()) {
        m_readiness->setText(tr("Ready to run"));
        m_readiness->setToolTip(QString());
        m_run->setToolTip(tr("Run the benchmark (Ctrl+R)"));
    } else {
        const QString first = problems.constFirst();
        m_readiness->setText(problems.size() == 1
                                 ? tr("⚠ Cannot run: %1").arg(first)
                                 : tr("⚠ Cannot run: %1 (and %2 more)").arg(first).arg(problems.size() - 1));
        m_readiness->setToolTip(problems.join(QLatin1Char('\n')));
        m_run->setToolTip(tr("Cannot run: %1").arg(problems.join(QStringLiteral("\n"))));
    }
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
}

void MainWindow::showError(const QString &title, const QString &text)
{
    statusBar()->showMessage(text, kStatusMs);
    auto *box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("errorBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::readSettings()
{
    const QSettings settings;
    restoreGeometry(settings.value(key::geometry).toByteArray());
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

    m_recent = settings.value(key::recent).toStringList();
    updateRecentMenu();
    const QString path = settings.value(key::path).toString();
    if (!path.isEmpty()) {
        m_configPath = path;
        setWindowFilePath(path);
        setWindowTitle(tr("%1[*] — TokenBench").arg(QFileInfo(path).fileName()));
    } else {
        setWindowTitle(tr("TokenBench[*]"));
    }
}

void MainWindow::writeSettings() const
{
    QSettings settings;
    settings.setValue(key::geometry, saveGeometry());
    settings.setValue(key::state, saveState());
    settings.setValue(key::splitter, m_splitter->saveState());
    settings.setValue(key::tab, m_editor->tabs()->currentIndex());
    // Neither form carries a key: toJson() never writes TargetConfig::apiKey.
    settings.setValue(key::targets, QString::fromUtf8(TargetListModel::toJson(m_editor->targets()->userTargets())));
    settings.setValue(key::config, fromStd(toJson(currentConfig()).dump()));
    settings.setValue(key::path, m_configPath);
    settings.setValue(key::recent, m_recent);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    writeSettings();
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

} // namespace tb
