#pragma once

#include "config/runconfig.h"
#include "editors/configfieldwidgets.h"
#include "editors/configform.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTableView;

namespace tb {

class DurationEdit;
class FieldValidator;
class OptionalSpinBox;
class StagesModel;

/// How hard and how long to push: closed-loop concurrency, open-loop rate (constant or Poisson
/// arrivals, optional in-flight cap) or a table of stages; when to stop, warm-up, timeout, seed,
/// and the SLO thresholds that define goodput. Edits config.load and config.slo.
class LoadEditor : public ConfigForm
{
    Q_OBJECT

public:
    /// Index order of the shape combo box.
    enum class Shape { Concurrency, Rate, Stages };

    explicit LoadEditor(FieldValidator *validator, QWidget *parent = nullptr);
    ~LoadEditor() override;

    void setConfig(const RunConfig &config) override;
    void applyTo(RunConfig &config) const override;

    Shape shape() const;
    void setShape(Shape shape);
    StagesModel *stages() const { return m_stages; }
    /// The stages the run will execute (tb::effectiveStages), as shown under the table.
    QString effectiveStagesText() const;

    /// Problems the config cannot express (unreadable durations, a stage run without stages).
    QStringList problems() const override;

private:
    void changed();
    void updateRows();
    /// Stop after: enabled, and its hint and tooltip, for the stages it ends (plain, staged, sweep).
    void updateStopAfter(const LoadConfig &load);
    void seedStages();
    void moveStage(int delta);
    /// Replaces the stages with the sweep typed next to the table (tb::parseSweep).
    void generateSweep();
    /// The load of the simple form (users or rate) as a stage.
    StageConfig simpleLoad() const;

    /// The rows made from the configuration table: concurrency, rate, the in-flight cap, the SLO
    /// target and fail-on-SLO. Declared first: the members below are made by it.
    ConfigFieldWidgets m_fields;
    QFormLayout *m_loadForm = nullptr;
    QComboBox *m_shape;
    QSpinBox *m_concurrency;
    QDoubleSpinBox *m_rate;
    QComboBox *m_arrival;
    QSpinBox *m_maxInFlight;
    QWidget *m_stagesBox;
    StagesModel *m_stages;
    QTableView *m_stagesView;
    QLabel *m_effective;
    QLineEdit *m_sweep;
    QLabel *m_sweepProblem;
    QSpinBox *m_requests;
    DurationEdit *m_duration;
    QLabel *m_stopAfterHint; ///< under Stop after: which stages it ends, or that none
    QLabel *m_stopAfterLabel = nullptr;
    DurationEdit *m_warmupDuration;
    QSpinBox *m_warmupRequests;
    DurationEdit *m_timeout;
    QLineEdit *m_seed;
    QSpinBox *m_turns;      ///< conversations (--turns)
    QLineEdit *m_thinkTime; ///< "2s" or "exp:2s" (--think-time)
    OptionalSpinBox *m_ttft;
    OptionalSpinBox *m_tpot;
    OptionalSpinBox *m_e2e;
    QDoubleSpinBox *m_sloTarget;
    QCheckBox *m_failOnSlo;
    QDoubleSpinBox *m_cancelRate; ///< the share abandoned, as a percent
    QLineEdit *m_cancelAfter;     ///< "200ms" or "first-token+100ms" (--cancel-after)
    /// load.mode: the last simple shape's mode, kept while the shape is Stages (stages carry their
    /// own modes, but the config still has one).
    LoadMode m_simpleMode = LoadMode::Concurrency;
};

} // namespace tb
