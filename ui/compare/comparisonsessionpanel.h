#pragma once

#include "run/comparisonsession.h"

#include <QWidget>

#include <map>
#include <memory>

class QButtonGroup;
class QLabel;
class QLineEdit;
class QListView;
class QProgressBar;
class QPushButton;
class QStandardItemModel;
class QTableView;

namespace tb {

class ConfigEditor;

namespace sim {
class SimulatorHost;
}

/// A window (not modal) to run one workload against several targets as a comparison session:
/// pick the targets — the configured endpoint profiles, and simulator presets that run in this
/// process — take the workload from the Configure tab, choose one after another or interleaved
/// (each request to every target at the same moment), then Run and Stop with the progress of each
/// target. When the session ends, compareRequested() asks for the comparison view.
class ComparisonSessionPanel : public QWidget
{
    Q_OBJECT

public:
    enum StatusColumn { TargetColumn, StatusColumn, StatusColumnCount };

    explicit ComparisonSessionPanel(ConfigEditor *editor, QWidget *parent = nullptr);
    ~ComparisonSessionPanel() override;

    /// Where sessions are written: "<folder>/<yyyyMMdd-HHmmss>-session-<name>/".
    void setRunsFolder(const QString &folder) { m_runsFolder = folder; }
    QString runsFolder() const { return m_runsFolder; }

    /// Re-reads the configured targets; checked ones stay checked.
    void refreshTargets();
    /// The checkable list: configured targets first, then "Simulator: <preset>" rows.
    QStandardItemModel *targetModel() const { return m_targets; }
    int simulatorRow(const QString &preset) const;
    void setTargetChecked(int row, bool checked);
    QList<int> checkedRows() const;

    void setName(const QString &name);
    void setMode(SessionMode mode);
    SessionMode mode() const;

    /// Another run is going in the main window: Run waits until it ends (two loads at once would
    /// measure each other).
    void setOtherRunActive(bool active);

    /// Starts a session of the checked targets; false with *error when it cannot.
    bool start(QString *error = nullptr);
    bool isRunning() const;
    SessionRunner *runner() const { return m_runner; }
    /// The directory of the last session started; empty before the first.
    QString sessionDirectory() const { return m_runner->directory(); }
    QStandardItemModel *statusModel() const { return m_status; }

public Q_SLOTS:
    void run();
    void stop();

Q_SIGNALS:
    void sessionStarted(const QString &directory);
    void sessionFinished(const QString &directory, bool cancelled);
    /// Show these (session) directories side by side.
    void compareRequested(const QStringList &arguments);

private:
    QList<TargetConfig> checkedTargets(QString *error);
    void updateWorkload();
    void updateState();
    void onProgress(const SessionProgress &progress);
    void onRunStarted(int target, const QString &directory);
    /// The status line while `target` runs (-1: all at once) doing `what`.
    void showRunning(int target, const QString &what);
    void setRowStatus(int target, SessionRunStatus status, const QString &text, const QString &tip = {});
    void onRunFinished(int target, SessionRunStatus status, const QString &error);
    void onSessionFinished(const QString &directory, bool cancelled);

    ConfigEditor *m_editor;
    SessionRunner *m_runner;
    QStandardItemModel *m_targets;
    QStandardItemModel *m_status;
    QLineEdit *m_name;
    QListView *m_targetList;
    QLabel *m_workload;
    QButtonGroup *m_modes;
    QLabel *m_destination;
    QPushButton *m_run;
    QPushButton *m_stop;
    QPushButton *m_compare;
    QPushButton *m_close;
    QProgressBar *m_progress;
    QLabel *m_state;
    QTableView *m_statusTable;
    QString m_runsFolder;
    bool m_otherRun = false;
    /// In-process simulators for the preset rows, started on first use.
    std::map<QString, std::unique_ptr<sim::SimulatorHost>> m_simulators;
};

} // namespace tb
