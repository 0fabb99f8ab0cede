#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace tb {

class RunHistoryModel;

/// The side list of saved runs: the runs folder (shown, and changeable), its runs newest first,
/// and Open (double click, Enter) to show one in the dashboard.
class RunHistoryView : public QWidget
{
    Q_OBJECT

public:
    explicit RunHistoryView(RunHistoryModel *model, QWidget *parent = nullptr);

    QTableView *table() const { return m_table; }
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

private:
    void updateFolderLabel();
    void openSelected();
    void showContextMenu(const QPoint &position);
    void markBaseline(const QString &directory);

    RunHistoryModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLabel *m_folder;
    QTableView *m_table;
    QPushButton *m_open;
    QPushButton *m_compare;
    bool m_openEnabled = true;
};

} // namespace tb
