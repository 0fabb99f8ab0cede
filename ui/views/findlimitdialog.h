#pragma once

#include "config/runconfig.h"
#include "run/limitsearchplan.h"

#include <QDialog>

#include <optional>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QTableView;

namespace tb {

class SearchLevelsModel;

/// Run ▸ Find the Limit…: what a limit search (--find-max) searches — users or requests/s, from
/// START up to MAX — beside the SLO and target it judges by (read from the configuration, not
/// edited here), with what keeps the configuration from being searched; while and after the
/// search, every level tried (SearchLevelsModel) and the answer. Not modal: the dashboard beside it
/// follows the level running. MainWindow runs the search; the dialog only asks and shows.
class FindLimitDialog : public QDialog
{
    Q_OBJECT

public:
    explicit FindLimitDialog(SearchLevelsModel *levels, QWidget *parent = nullptr);

    /// Shows the configuration's SLO and target, and `problems` (why it cannot be searched) with
    /// Start disabled while there are any.
    void setConfig(const RunConfig &config, const QStringList &problems);
    /// While a search runs, Start is disabled and Stop enabled.
    void setRunning(bool running);
    /// The search's answer (LimitSearchPlan::answerLine()), why it stopped and where it is saved.
    void setAnswer(const QString &answer, const QString &stopText, const QString &directory);
    /// What the form asks for; none with *error while it is not a valid search.
    std::optional<LimitSearchSpec> spec(QString *error = nullptr) const;
    void setSpec(const LimitSearchSpec &spec);

    QPushButton *startButton() const { return m_start; }
    QPushButton *stopButton() const { return m_stop; }
    QLabel *answerLabel() const { return m_answer; }
    QLabel *problemsLabel() const { return m_problems; }
    QTableView *levelsTable() const { return m_table; }

Q_SIGNALS:
    void startRequested(const tb::LimitSearchSpec &spec);
    void stopRequested();

private:
    void modeChanged();
    /// "1 user", "4 users", "0.5 req/s" in the level boxes.
    void unitsChanged();
    void updateState();

    QComboBox *m_mode;
    QDoubleSpinBox *m_startLevel;
    QDoubleSpinBox *m_maxLevel;
    QLabel *m_slo;
    QLabel *m_target;
    QLabel *m_problems;
    QTableView *m_table;
    QLabel *m_answer;
    QPushButton *m_start;
    QPushButton *m_stop;
    QStringList m_configProblems;
    bool m_running = false;
};

} // namespace tb
