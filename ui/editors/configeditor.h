#pragma once

#include "config/runconfig.h"
#include "editors/fieldvalidator.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTabWidget;
class QTableView;

namespace tb {

class ConfigForm;
class LoadEditor;
class SimulatorController;
class TargetEditor;
class TargetListModel;
class WorkloadEditor;

/// The whole run configuration as forms: the target list and the selected target's form, the
/// workload, the load. config() is what a run gets; setConfig() shows a loaded file. Every edit
/// re-validates: problems (tb::configProblems() plus the forms' own checks) are shown at their fields,
/// tabs with problems get a warning icon, and problemsChanged() tells the window whether Run is
/// possible.
class ConfigEditor : public QWidget
{
    Q_OBJECT

public:
    enum Tab { TargetTab, WorkloadTab, LoadTab };

    /// With a simulator, the list starts with the built-in simulator target (started when selected).
    explicit ConfigEditor(SimulatorController *simulator = nullptr, QWidget *parent = nullptr);
    ~ConfigEditor() override;

    /// A configuration that runs at once against the built-in simulator: what a first start shows.
    static RunConfig starterConfig();

    RunConfig config() const;
    /// Shows a configuration. Its target is selected in the list: an existing entry when one matches
    /// (the built-in simulator by name), else it is added.
    void setConfig(const RunConfig &config);

    /// Current problems in "json.path (--flag): reason" form; empty when the configuration can run.
    QStringList problems() const { return m_problems; }
    bool isValid() const { return m_problems.isEmpty(); }

    TargetListModel *targets() const { return m_targets; }
    int currentTarget() const;
    void setCurrentTarget(int row);

    QTabWidget *tabs() const { return m_tabs; }
    TargetEditor *targetEditor() const { return m_targetEditor; }
    WorkloadEditor *workloadEditor() const { return m_workload; }
    LoadEditor *loadEditor() const { return m_load; }

public Q_SLOTS:
    void addTarget();
    void duplicateTarget();
    void removeTarget();
    void testConnection();

Q_SIGNALS:
    /// Any field changed (also after setConfig()).
    void configChanged();
    /// The list of problems changed; empty: the configuration can run.
    void problemsChanged(const QStringList &problems);

private:
    void currentTargetChanged();
    void targetEdited();
    void edited();
    void revalidate();
    void simulatorChanged();
    void ensureSimulator(const QString &preset);
    TargetConfig builtinTarget(const TargetConfig &from) const;

    SimulatorController *m_simulator;
    FieldValidator m_validator;
    TargetListModel *m_targets;
    QTableView *m_targetList;
    QPushButton *m_duplicate;
    QPushButton *m_remove;
    QTabWidget *m_tabs;
    TargetEditor *m_targetEditor;
    WorkloadEditor *m_workload;
    LoadEditor *m_load;
    const QList<ConfigForm *> m_forms; ///< the RunConfig parts, driven alike
    QLabel *m_otherProblems;
    /// What the forms do not show (outDir), carried from setConfig() to config().
    RunConfig m_base;
    QStringList m_problems;
    bool m_loading = false;
};

} // namespace tb
