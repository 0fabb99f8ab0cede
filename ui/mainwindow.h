#pragma once

#include "config/runconfig.h"
#include "run/benchmarkrunner.h"
#include "run/limitsearchplan.h"
#include "threads/backgroundjobs.h"
#include "widgets/apptheme.h"

#include <QMainWindow>

#include <cstdint>
#include <memory>
#include <optional>

class QAction;
class QLabel;
class QMenu;
class QSplitter;
class QTabWidget;
class QTcpSocket;

namespace tb {

class ComparisonController;
class ConfigEditor;
class DashboardView;
class FindLimitDialog;
class LimitSearch;
class RequestsView;
class RunDocument;
class RunHistoryModel;
class RunHistoryView;
class RunLoader;
class SearchLevelsModel;
class SettingsAutosave;
class SimulatorController;
class SummaryView;
struct RunData;

/// The workbench's main window: on the left the configuration forms and the run history (tabs
/// Configure / Runs), on the right the run views (Dashboard, Summary, Requests: one tab each);
/// menus File / Run / View / Help. On first start the target is the built-in simulator, so Run
/// works at once. Configurations are saved as the JSON `tokenbench-cli run --config` reads; the
/// target list, recent files, the last configuration, the runs folder and the window layout are
/// kept in QSettings (never an API key), written when they change (SettingsAutosave) and on quit.
///
/// Run starts a BenchmarkRunner (off the GUI thread) writing a run directory in the runs folder;
/// its batched signals feed the RunDocument that every run view shows, and a saved run opens into
/// the same document. Stop is prompt and safe twice; closing the window during a run stops it and
/// closes once the results are saved, without asking anything modal.
///
/// Run ▸ Find the Limit… runs a LimitSearch (--find-max) instead: each level is a run of its own
/// runner, which the run views follow like a run; FindLimitDialog lists the levels and the answer.
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    /// How long a status-bar message stays, for every message of the window and its controllers.
    static constexpr int kStatusMs = 5000;

    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    /// The menus in the order they appear (File, Run, View, Help); tests walk these.
    QList<QMenu *> menus() const;

    /// What Run would run now.
    RunConfig currentConfig() const;
    ConfigEditor *configEditor() const { return m_editor; }
    SimulatorController *simulator() const { return m_simulator; }
    /// The right-hand area: run views go here as tabs.
    QTabWidget *resultsTabs() const { return m_results; }
    /// The left-hand area: Configure and Runs.
    QTabWidget *sideTabs() const { return m_side; }
    RunDocument *document() const { return m_document; }
    BenchmarkRunner *runner() const { return m_runner; }
    DashboardView *dashboard() const { return m_dashboard; }
    SummaryView *summaryView() const { return m_summaryView; }
    RequestsView *requestsView() const { return m_requestsView; }
    RunHistoryModel *history() const { return m_history; }
    RunHistoryView *historyView() const { return m_historyView; }

    QAction *runAction() const { return m_run; }
    QAction *stopAction() const { return m_stop; }
    QAction *copySummaryAction() const { return m_copySummary; }
    QAction *findLimitAction() const { return m_findLimit; }
    LimitSearch *limitSearch() const { return m_search; }
    /// The levels of the last search (or the one running).
    SearchLevelsModel *searchLevels() const { return m_searchLevels; }
    /// Run ▸ Find the Limit…'s dialog; null until first shown.
    FindLimitDialog *findLimitDialog() const { return m_findLimitDialog; }

    /// Where runs are saved (a run whose configuration names no outDir goes to
    /// <runs folder>/<yyyyMMdd-HHmmss>-<model>) and which folder the history lists.
    QString runsFolder() const { return m_runsFolder; }
    void setRunsFolder(const QString &folder);
    /// "runs" under QStandardPaths::AppDataLocation.
    static QString defaultRunsFolder();
    /// Scripted sessions (--quit-when-done) leave the user's stored settings as they were.
    void setSettingsWritable(bool writable) { m_settingsWritable = writable; }
    /// View ▸ Theme: applies it to the application and keeps it for the next start.
    void setTheme(AppTheme::Setting theme);
    AppTheme::Setting theme() const { return m_theme; }

    /// Starts a run of the forms' configuration; false with *error when it cannot start.
    bool startRun(QString *error = nullptr);
    /// Starts a limit search of the forms' configuration into a new folder of the runs folder;
    /// false with *error when it cannot start.
    bool startSearch(const LimitSearchSpec &spec, QString *error = nullptr);
    /// Shows a saved run in the run views (read off the GUI thread); runOpened() or
    /// runOpenFailed() follows. Refused (false) while a run is going.
    bool openRun(const QString &directory);
    /// Runs given on the command line: all listed in the history, the first shown in the dashboard;
    /// several runs, or a session folder, open on their comparison. runsShown() follows.
    void openRuns(const QStringList &directories);
    ComparisonController *comparisons() const { return m_comparisons; }
    /// Writes the open run's request timelines (TraceTimeline) to `path` off the GUI thread;
    /// timelineExported() follows. False when no run is open.
    bool exportTimeline(const QString &path);
    /// Imports other tools' result files (ForeignRuns::importInto) into the runs folder off the GUI
    /// thread, then opens what was written as openRuns() does; resultsImported() follows.
    void importResults(const QStringList &files);
    /// Redraws the run views now and saves an image of the window.
    bool saveScreenshot(const QString &path, QString *error = nullptr);

    /// Loads a configuration file into the forms; on failure *error says why and the forms stay.
    bool openConfig(const QString &path, QString *error = nullptr);
    /// Writes the forms' configuration (never a key) to a file.
    bool saveConfig(const QString &path, QString *error = nullptr);
    /// The file the configuration was last opened from or saved to; empty: none yet.
    QString configPath() const { return m_configPath; }
    QStringList recentConfigs() const { return m_recent; }
    bool isRunning() const { return m_running; }
    /// Keeps Run disabled while something else loads the machine (a comparison session), with
    /// the reason in its tooltip; empty allows runs again.
    void setRunBlocked(const QString &reason);

    /// Shows the window as it was last left on the screen it opens on — position, size, maximised —
    /// fitted to that screen's available area at any scale factor; on a screen seen for the first
    /// time, 90% of the area (at most 1600×1000), centred.
    void showRestored();
    /// Lays the window out as on a screen of this size, whatever the real one (--size, for
    /// screenshots): resized to it, and like a screen's area never grown past it.
    void setScreenSize(const QSize &size);
    /// Esc or Stop on a run going for longer than this asks first (default one minute).
    void setStopConfirmationAfter(std::int64_t ns) { m_confirmStopAfterNs = ns; }
    /// Shows or hides the configuration and run-history panel (View ▸ Side Panel and the toolbar's
    /// Configure follow). It hides by itself when a run starts, a saved run or a comparison opens,
    /// and comes back when the user goes to edit (a configuration opened, Run refused, Test).
    void setSidePanelVisible(bool visible);
    /// Below this width the dashboard would lose its second chart column beside the side panel, so
    /// the panel collapses by itself (and comes back when the window is widened again).
    int sidePanelCollapseWidth() const;

public Q_SLOTS:
    void showAbout();
    /// Help ▸ Getting Started (F1): a new user's first steps, beside the window, not modal.
    void showGettingStarted();
    /// Help ▸ Metrics: what every figure means (MetricCatalogue::glossary()), beside the window, not modal.
    void showMetricGlossary();
    /// Help ▸ Keyboard Shortcuts: read off the menus' actions, so the list cannot go stale.
    void showShortcuts();
    /// Run This Configuration Again: a saved run's configuration (run.json) into the forms.
    bool loadRunConfiguration(const QString &directory);
    /// Starts a run when the configuration is valid and nothing runs (runRequested() first).
    void run();
    /// Stops the run or the search going (stopRequested()); safe to call twice and when nothing runs.
    void stop();
    /// Run ▸ Find the Limit…: the search's dialog, not modal, with the forms' configuration.
    void showFindLimit();
    /// Ctrl+S: to the current file, else asks where (without a nested event loop).
    void saveConfigToFile();
    void saveConfigAs();
    void openConfigDialog();
    /// Stores the target list, the configuration, recent files, the runs folder and the window layout.
    void writeSettings() const;
    /// Ctrl+O: asks for a run directory (without a nested event loop) and opens it.
    void openRunDialog();
    /// Ctrl+E: the export dialog for the run shown.
    void showExportDialog();
    /// Ctrl+Shift+C: the summary table to the clipboard.
    void copySummary();
    /// File ▸ Export Timeline…: asks where (without a nested event loop), then exportTimeline().
    void showExportTimelineDialog();
    /// File ▸ Import Results…: asks for vLLM, GuideLLM or AIPerf result files or llm-d Benchmark
    /// Reports (JSON or YAML), then importResults().
    void showImportResultsDialog();

Q_SIGNALS:
    /// A run is about to start with this configuration (its outDir filled in).
    void runRequested(const tb::RunConfig &config);
    void stopRequested();
    void runStarted(const QString &directory);
    /// The run ended and its directory is complete (also after Stop).
    void runFinished(const tb::RunOutcome &outcome);
    void runOpened(const QString &directory);
    void runOpenFailed(const QString &directory, const QString &error);
    /// exportTimeline() ended: `error` is empty when `path` was written.
    void timelineExported(const QString &path, const QString &error);
    /// importResults() ended: the run directories written, or `error`.
    void resultsImported(const QStringList &directories, const QString &error);
    /// What openRuns() was given is shown (ok: every part of it could be read).
    void runsShown(bool ok);
    /// A limit search began in `directory`; its levels follow as runs in the run views.
    void searchStarted(const QString &directory);
    /// The search ended: LimitSearchPlan::answerLine(), as the CLI prints it.
    void searchFinished(const QString &answer);

protected:
    bool event(QEvent *event) override;
    void closeEvent(QCloseEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    /// Esc stops a run only when nothing else takes it: an open popup, menu or dialog, or a cell
    /// being edited, gets Esc first (QEvent::ShortcutOverride is accepted for them).
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void createActions();
    void createMenus();
    /// The run views follow `runner`'s runs: the window's own, or a search's levels.
    void connectRunner(BenchmarkRunner *runner);
    void connectSearch();
    void updateFindLimitDialog();
    /// The configuration a run or a search starts from; nullopt, with *error saying why, when
    /// neither can start now.
    std::optional<RunConfig> configToStart(QString *error) const;
    void readSettings();
    /// What the settings hold, changing, has them written (m_autosave).
    void watchSettings();
    void setRunning(bool running);
    void updateRunState();
    void updateLiveStatus();
    void runLoaded(const std::shared_ptr<RunData> &run);
    QString newRunDirectory(const RunConfig &config) const;
    void updateRecentMenu();
    void setConfigPath(const QString &path);
    void showError(const QString &title, const QString &text);
    /// Stop as the user asked for it (Esc, the Stop button): a run longer than a minute asks first.
    void confirmStop();
    void startRunOrSay();
    /// Run found nobody at the target: offers Test Connection, Run Anyway or Cancel (not modal).
    void askUnreachable(const QString &problem);
    void fitToScreen();
    /// Within the screen's available area (or the size setScreenSize() gave), frame included.
    bool fitsTheScreen() const;
    /// Shows or hides the panel without taking it as the user's choice (the narrow window's collapse).
    void showSidePanel(bool visible);
    /// Keeps a shown panel within its share of the window.
    void fitSidePanel();
    /// The Configure side tab, shown: the user is about to edit.
    void showConfiguration();
    /// Test Connection, its answer shown in the Target form.
    void testConnection();
    /// A non-modal window with a page of text and Close (Esc); shown again if already open.
    void showTextWindow(const QString &objectName, const QString &title, const QString &html);
    QString screenSettingsKey() const;

    SimulatorController *m_simulator;
    ConfigEditor *m_editor;
    RunDocument *m_document;
    BenchmarkRunner *m_runner;
    LimitSearch *m_search;
    SearchLevelsModel *m_searchLevels;
    FindLimitDialog *m_findLimitDialog = nullptr;
    RunLoader *m_loader;
    RunHistoryModel *m_history;
    QTabWidget *m_side;
    RunHistoryView *m_historyView;
    QTabWidget *m_results;
    DashboardView *m_dashboard;
    SummaryView *m_summaryView;
    RequestsView *m_requestsView;
    ComparisonController *m_comparisons = nullptr;
    QSplitter *m_splitter;
    QLabel *m_readiness;
    QLabel *m_liveStatus;
    SettingsAutosave *m_autosave;
    QMenu *m_recentMenu = nullptr;
    QAction *m_run = nullptr;
    QAction *m_stop = nullptr;
    QAction *m_save = nullptr;
    QAction *m_saveAs = nullptr;
    QAction *m_openConfig = nullptr;
    QAction *m_openRun = nullptr;
    QAction *m_export = nullptr;
    QAction *m_exportTimeline = nullptr;
    QAction *m_importResults = nullptr;
    QAction *m_testConnection = nullptr;
    QAction *m_serveMetrics = nullptr;
    QAction *m_copySummary = nullptr;
    QAction *m_findLimit = nullptr;
    QAction *m_sidePanel = nullptr;
    QList<QAction *> m_themeActions; ///< View ▸ Theme, in AppTheme::Setting order
    AppTheme::Setting m_theme = AppTheme::Setting::System;
    QTcpSocket *m_probe = nullptr; ///< Run's reachability check, while it goes
    QString m_configPath;
    QStringList m_recent;
    QString m_runsFolder;
    bool m_running = false;
    bool m_searching = false; ///< m_running is a limit search's
    QString m_runBlocked;
    bool m_stopping = false;
    bool m_closeWhenStopped = false;
    bool m_settingsWritable = true;
    std::int64_t m_confirmStopAfterNs;
    bool m_sidePanelAutoHidden = false; ///< collapsed by a narrow window, not by the user
    bool m_narrow = false;
    QSize m_screenSize;       ///< setScreenSize(); invalid: the real screen's
    bool m_showOpened = true; ///< the run being opened comes to the front (not behind a comparison)
    /// Timeline exports (a 100 000-request run takes seconds); last, so that it stops first. Its
    /// jobs hold copies of what they write, not members.
    BackgroundJobs m_exports{this};
};

} // namespace tb
