#pragma once

#include <QDialog>

class QPushButton;
class QStandardItemModel;
class QTableView;

namespace tb {

class RunHistoryModel;

/// Picks what to compare: the comparison sessions in the runs folder and the saved runs the
/// history lists (the marked baseline flagged), plus any folder added by hand. Not modal; Compare
/// emits compareRequested() with the checked directories (sessions stand for their runs).
class ComparisonPicker : public QDialog
{
    Q_OBJECT

public:
    enum Column { NameColumn, KindColumn, ModelColumn, StartedColumn, ColumnCount };
    enum Role { DirectoryRole = Qt::UserRole + 1, RunCountRole };

    ComparisonPicker(const RunHistoryModel *history, const QString &runsFolder, QWidget *parent = nullptr);

    QStandardItemModel *model() const { return m_model; }
    QStringList checkedDirectories() const;
    /// Lists (and checks) a folder chosen by hand: a run or a session.
    void addDirectory(const QString &directory);
    void setChecked(const QString &directory, bool checked);

Q_SIGNALS:
    void compareRequested(const QStringList &directories);

private:
    void addRow(const QString &directory, const QString &name, const QString &kind, const QString &model,
                const QString &started, int runs);
    void updateButton();
    void chooseFolder();

    QStandardItemModel *m_model;
    QTableView *m_table;
    QPushButton *m_compare;
};

} // namespace tb
