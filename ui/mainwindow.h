#pragma once

#include "config/runconfig.h"

#include <QMainWindow>

class QAction;
class QLabel;
class QMenu;
class QSplitter;
class QTabWidget;

namespace tb {

class ConfigEditor;
class SimulatorController;

/// The workbench's main window: the configuration forms on the left, the run views (dashboard,
/// requests, comparison: one tab each) on the right; menus File / Run / View / Help. On first start
/// the target is the built-in simulator, so Run works at once. Configurations are saved as the JSON
/// `tokenbench-cli run --config` reads; the target list, recent files, the last configuration and the
/// window layout are kept in QSettings (never an API key).
///
/// The window does not run benchmarks itself: Run emits runRequested() with a validated
/// configuration, Stop emits stopRequested(), and the owner of the run reports back with
/// setRunning().
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    /// The menus in the order they appear (File, Run, View, Help); tests walk these.
    QList<QMenu *> menus() const { return m_menus; }

    /// What Run would run now.
    RunConfig currentConfig() const;
    ConfigEditor *configEditor() const { return m_editor; }
    SimulatorController *simulator() const { return m_simulator; }
    /// The right-hand area: run views go here as tabs.
    QTabWidget *resultsTabs() const { return m_results; }

    QAction *runAction() const { return m_run; }
    QAction *stopAction() const { return m_stop; }
    QAction *saveAction() const { return m_save; }
    QAction *openRunAction() const { return m_openRun; }
    QAction *exportAction() const { return m_export; }

    /// Loads a configuration file into the forms; on failure *error says why and the forms stay.
    bool openConfig(const QString &path, QString *error = nullptr);
    /// Writes the forms' configuration (never a key) to a file.
    bool saveConfig(const QString &path, QString *error = nullptr);
    /// The file the configuration was last opened from or saved to; empty: none yet.
    QString configPath() const { return m_configPath; }
    QStringList recentConfigs() const { return m_recent; }
    bool isRunning() const { return m_running; }

public Q_SLOTS:
    void showAbout();
    /// Emits runRequested() when the configuration is valid and nothing runs.
    void run();
    /// Emits stopRequested() while a run is going.
    void stop();
    /// Called by the run's owner: locks the forms and swaps Run for Stop while a run goes.
    void setRunning(bool running);
    /// Ctrl+S: to the current file, else asks where (without a nested event loop).
    void saveConfigToFile();
    void saveConfigAs();
    void openConfigDialog();
    /// Stores the target list, the configuration, recent files and the window layout.
    void writeSettings() const;

Q_SIGNALS:
    void runRequested(const tb::RunConfig &config);
    void stopRequested();

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void createActions();
    void createMenus();
    void readSettings();
    void updateRunState();
    void updateRecentMenu();
    void setConfigPath(const QString &path);
    void showError(const QString &title, const QString &text);

    SimulatorController *m_simulator;
    ConfigEditor *m_editor;
    QTabWidget *m_results;
    QSplitter *m_splitter;
    QLabel *m_readiness;
    QList<QMenu *> m_menus;
    QMenu *m_recentMenu = nullptr;
    QAction *m_run = nullptr;
    QAction *m_stop = nullptr;
    QAction *m_save = nullptr;
    QAction *m_saveAs = nullptr;
    QAction *m_openConfig = nullptr;
    QAction *m_openRun = nullptr;
    QAction *m_export = nullptr;
    QAction *m_testConnection = nullptr;
    QString m_configPath;
    QStringList m_recent;
    bool m_running = false;
};

} // namespace tb
