#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTreeView;

namespace tb {

class RunGroupModel;
class RunHistoryModel;

/// The side list of saved runs as a library: the runs folder (shown, and changeable), its runs
/// newest first in sortable columns, Open (double click, Enter) to show one in the dashboard, and
/// on the context menu Rename (F2), Edit Notes, Move to Trash (Delete), Run This Configuration
/// Again, Compare (the selected runs, a load-balanced run's instances, a sweep's stages). A
/// comparison session's runs are grouped under its row (RunGroupModel), collapsible; selecting the
/// session's row selects its runs for Compare.
class RunHistoryView : public QWidget
{
    Q_OBJECT

public:
    explicit RunHistoryView(RunHistoryModel *model, QWidget *parent = nullptr);

    QTreeView *table() const { return m_table; }
    RunGroupModel *groups() const { return m_groups; }
    /// The run directory of the selected row; empty when none.
    QString selectedDirectory() const;
    /// Every selected run directory, in the table's order.
    QStringList selectedDirectories() const;
    void selectDirectory(const QString &directory);
    /// Opening is refused while a run is going (the dashboard is showing it).
    void setOpenEnabled(bool enabled);

public Q_SLOTS:
    /// Asks for another runs folder, without a nested event loop.
    void chooseFolder();

Q_SIGNALS:
    void openRequested(const QString &directory);
    /// Compare Selected (two or more runs).
    void compareRequested(const QStringList &directories);
    void folderChosen(const QString &folder);
    /// Run This Configuration Again: the run's configuration should go into the forms.
    void rerunRequested(const QString &directory);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void updateFolderLabel();
    /// The name column as wide as its names, within what keeps Status beside it in view.
    void fitNameColumn();
    void openSelected();
    void showContextMenu(const QPoint &position);
    void markBaseline(const QString &directory);
    /// Starts editing a column of the row at `index` (Rename, Edit Notes).
    void editColumn(const QModelIndex &index, int column);
    void trashSelected();

    RunHistoryModel *m_model;
    RunGroupModel *m_groups;
    QSortFilterProxyModel *m_proxy;
    QLabel *m_folder;
    QTreeView *m_table;
    QPushButton *m_open;
    QPushButton *m_compare;
    bool m_openEnabled = true;
};

} // namespace tb
