#include "comparisoncontroller.h"

#include "compare/comparisonpicker.h"
#include "compare/comparisonsessionpanel.h"
#include "compare/comparisonview.h"
#include "mainwindow.h"
#include "models/runhistorymodel.h"
#include "views/rundocument.h"
#include "views/runhistoryview.h"

#include "analysis/baseline.h"
#include "results/rundirectory.h"
#include "run/comparisonsession.h"

#include <QAction>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QToolButton>

namespace tb {

namespace {

/// The local directories among dropped URLs.
QStringList droppedDirectories(const QMimeData *mime)
{
    QStringList directories;
    if (!mime || !mime->hasUrls())
        return directories;
    for (const QUrl &url : mime->urls()) {
        if (url.isLocalFile() && QFileInfo(url.toLocalFile()).isDir())
            directories << QDir::cleanPath(url.toLocalFile());
    }
    return directories;
}

} // namespace

ComparisonController::ComparisonController(MainWindow *window)
    : QObject(window)
    , m_window(window)
    , m_menu(new QMenu(tr("&Compare"), window))
{
    setObjectName(QStringLiteral("comparisonController"));
    m_menu->setObjectName(QStringLiteral("compareMenu"));

    m_compareRuns = new QAction(tr("Compare &Runs…"), this);
    m_compareRuns->setObjectName(QStringLiteral("actionCompareRuns"));
    m_compareRuns->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
    m_compareRuns->setToolTip(tr("Saved runs or sessions side by side: table, noise tests, overlaid charts"));
    connect(m_compareRuns, &QAction::triggered, this, &ComparisonController::showPicker);

    m_newSession = new QAction(tr("New Comparison &Session…"), this);
    m_newSession->setObjectName(QStringLiteral("actionNewSession"));
    m_newSession->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N));
    m_newSession->setToolTip(tr("Run the current workload against several targets, one after another or "
                                "interleaved, and compare them"));
    connect(m_newSession, &QAction::triggered, this, &ComparisonController::showSessionPanel);

    m_markBaseline = new QAction(tr("&Mark Shown Run as Baseline"), this);
    m_markBaseline->setObjectName(QStringLiteral("actionMarkBaseline"));
    m_markBaseline->setToolTip(tr("Comparisons open against the baseline, and the run history shows each later "
                                  "run's change against it"));
    connect(m_markBaseline, &QAction::triggered, this, &ComparisonController::markShownRunAsBaseline);
    m_clearBaseline = new QAction(tr("C&lear Baseline"), this);
    m_clearBaseline->setObjectName(QStringLiteral("actionClearBaseline"));
    connect(m_clearBaseline, &QAction::triggered, this, &ComparisonController::clearBaseline);

    m_menu->addAction(m_compareRuns);
    m_menu->addAction(m_newSession);
    m_menu->addSeparator();
    m_menu->addAction(m_markBaseline);
    m_menu->addAction(m_clearBaseline);
    const QList<QMenu *> menus = window->menus();
    window->menuBar()->insertMenu(menus.isEmpty() ? nullptr : menus.last()->menuAction(), m_menu);

    connect(window->document(), &RunDocument::stateChanged, this, &ComparisonController::updateActions);
    // A run or a limit search in the main window holds a session back (two loads would measure each other).
    const auto otherRunActive = [this](bool active) {
        if (m_panel)
            m_panel->setOtherRunActive(active);
    };
    connect(window, &MainWindow::runStarted, this, [otherRunActive] { otherRunActive(true); });
    connect(window, &MainWindow::runFinished, this, [otherRunActive] { otherRunActive(false); });
    connect(window, &MainWindow::searchStarted, this, [otherRunActive] { otherRunActive(true); });
    connect(window, &MainWindow::searchFinished, this, [otherRunActive] { otherRunActive(false); });
    if (auto *history = window->findChild<RunHistoryView *>())
        connect(history, &RunHistoryView::compareRequested, this,
                [this](const QStringList &directories) { openComparison(directories); });
    window->setAcceptDrops(true);
    window->installEventFilter(this);
    m_shownBaseline = Baseline::directory();
    updateActions();
}

QList<ComparisonView *> ComparisonController::views() const
{
    QList<ComparisonView *> views;
    for (const QPointer<ComparisonView> &view : m_views) {
        if (view)
            views << view;
    }
    return views;
}

ComparisonView *ComparisonController::openComparison(const QStringList &arguments)
{
    QTabWidget *tabs = m_window->resultsTabs();
    auto *view = new ComparisonView(tabs);
    m_views << view;
    const int index = tabs->addTab(view, tr("Compare"));
    // Only comparison tabs close; the run views stay.
    auto *close = new QToolButton(tabs);
    close->setAutoRaise(true);
    close->setText(QStringLiteral("×"));
    close->setToolTip(tr("Close this comparison"));
    tabs->tabBar()->setTabButton(index, QTabBar::RightSide, close);
    connect(close, &QToolButton::clicked, view, [this, view] { closeTab(view); });
    tabs->setCurrentWidget(view);
    m_window->setSidePanelVisible(false); // comparing wants the whole width

    connect(view, &ComparisonView::titleChanged, this,
            [tabs, view](const QString &title) { tabs->setTabText(tabs->indexOf(view), title); });
    connect(view, &ComparisonView::loaded, this, [this, view] {
        if (view->runCount() == 0) {
            warn(tr("Nothing to compare"),
                 tr("None of these folders could be read:\n%1").arg(view->problems().join(QLatin1Char('\n'))));
            closeTab(view);
        } else if (!view->problems().isEmpty()) {
            m_window->statusBar()->showMessage(
                tr("Left out of the comparison: %1").arg(view->problems().join(QStringLiteral("; "))),
                MainWindow::kStatusMs);
        }
    });
    connect(view, &ComparisonView::saved, this, [this](const QString &path, const QString &error) {
        if (error.isEmpty())
            m_window->statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)),
                                               MainWindow::kStatusMs);
        else
            warn(tr("Cannot save"), error);
    });
    connect(view, &ComparisonView::baselineMarked, this, [this](const QString &directory) {
        m_window->statusBar()->showMessage(tr("Baseline: %1").arg(QDir::toNativeSeparators(directory)),
                                           MainWindow::kStatusMs);
        updateActions();
    });
    view->openDirectories(arguments);
    return view;
}

void ComparisonController::closeTab(ComparisonView *view)
{
    QTabWidget *tabs = m_window->resultsTabs();
    const int index = tabs->indexOf(view);
    if (index >= 0)
        tabs->removeTab(index);
    view->deleteLater();
}

ComparisonSessionPanel *ComparisonController::sessionPanel()
{
    if (!m_panel) {
        m_panel = new ComparisonSessionPanel(m_window->configEditor(), m_window);
        m_panel->setOtherRunActive(m_window->isRunning());
        connect(m_panel, &ComparisonSessionPanel::compareRequested, this,
                [this](const QStringList &arguments) { openComparison(arguments); });
        // One load at a time: a run started beside a session would disturb both measurements.
        connect(m_panel, &ComparisonSessionPanel::sessionStarted, this,
                [this] { m_window->setRunBlocked(tr("A comparison session is running")); });
        connect(m_panel, &ComparisonSessionPanel::sessionFinished, this, [this](const QString &directory) {
            m_window->setRunBlocked({});
            // The runs live in the session's folder, below the history's: list them there too.
            QStringList runs;
            QString error;
            if (expandRunDirectories({directory}, &runs, &error)) {
                for (const QString &run : std::as_const(runs))
                    m_window->history()->addDirectory(run);
                m_window->history()->refresh();
            }
        });
    }
    return m_panel;
}

void ComparisonController::showSessionPanel()
{
    ComparisonSessionPanel *panel = sessionPanel();
    panel->setRunsFolder(m_window->runsFolder());
    panel->refreshTargets();
    panel->show();
    panel->raise();
    panel->activateWindow();
}

void ComparisonController::showPicker()
{
    auto *picker = new ComparisonPicker(m_window->history(), m_window->runsFolder(), m_window);
    picker->setAttribute(Qt::WA_DeleteOnClose);
    connect(picker, &ComparisonPicker::compareRequested, this,
            [this](const QStringList &directories) { openComparison(directories); });
    picker->open();
}

void ComparisonController::markShownRunAsBaseline()
{
    const QString directory = m_window->document()->directory();
    if (directory.isEmpty() || m_window->document()->isLive())
        return;
    Baseline::setDirectory(directory);
    m_window->statusBar()->showMessage(tr("Baseline: %1").arg(QDir::toNativeSeparators(directory)),
                                       MainWindow::kStatusMs);
    updateActions();
}

void ComparisonController::clearBaseline()
{
    Baseline::setDirectory({});
    m_window->statusBar()->showMessage(tr("No baseline marked"), MainWindow::kStatusMs);
    updateActions();
}

void ComparisonController::updateActions()
{
    // The history shows changes against the baseline; a new mark means new numbers there.
    const QString baseline = Baseline::directory();
    if (baseline != m_shownBaseline) {
        m_shownBaseline = baseline;
        m_window->history()->refresh();
    }
    const RunDocument *document = m_window->document();
    const bool saved = !document->isEmpty() && !document->isLive() && !document->directory().isEmpty();
    m_markBaseline->setEnabled(saved && !Baseline::isBaseline(document->directory()));
    m_clearBaseline->setEnabled(!Baseline::directory().isEmpty());
}

void ComparisonController::warn(const QString &title, const QString &text)
{
    auto *box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, m_window);
    box->setObjectName(QStringLiteral("comparisonWarning"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::NonModal); // the window stays usable; nothing else is lost
    box->show();
}

bool ComparisonController::eventFilter(QObject *watched, QEvent *event)
{
    if (watched != m_window)
        return QObject::eventFilter(watched, event);
    if (event->type() == QEvent::DragEnter || event->type() == QEvent::DragMove) {
        auto *drag = static_cast<QDropEvent *>(event);
        if (!droppedDirectories(drag->mimeData()).isEmpty()) {
            drag->acceptProposedAction();
            return true;
        }
    } else if (event->type() == QEvent::Drop) {
        auto *drop = static_cast<QDropEvent *>(event);
        const QStringList directories = droppedDirectories(drop->mimeData());
        if (!directories.isEmpty()) {
            drop->acceptProposedAction();
            // One run: show it like Open Run; a session or several runs: compare them.
            if (directories.size() == 1 && RunReader::isRunDirectory(directories.first()))
                m_window->openRun(directories.first());
            else
                openComparison(directories);
            return true;
        }
    }
    return QObject::eventFilter(watched, event);
}

} // namespace tb
