#include "views/runhistoryview.h"

#include "analysis/baseline.h"
#include "widgets/card.h"
#include "widgets/folderdialog.h"

#include "models/rungroupmodel.h"
#include "models/runhistorymodel.h"

#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace tb {

RunHistoryView::RunHistoryView(RunHistoryModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
    , m_groups(new RunGroupModel(model, this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_folder(new QLabel(this))
    , m_table(new QTreeView(this))
    , m_open(new QPushButton(tr("&Open"), this))
    , m_compare(new QPushButton(tr("Compare"), this))
{
    setObjectName(QStringLiteral("runHistory"));
    m_proxy->setSourceModel(m_groups);
    m_proxy->setSortRole(RunHistoryModel::SortRole);

    m_folder->setObjectName(QStringLiteral("runsFolder"));
    m_folder->setWordWrap(true);
    m_folder->setTextInteractionFlags(Qt::TextSelectableByMouse);
    setTextColor(m_folder, QColor(0x4b, 0x55, 0x63));
    auto *change = new QPushButton(tr("Change…"), this);
    change->setObjectName(QStringLiteral("changeRunsFolder"));
    change->setToolTip(tr("Where new runs are saved and which folder this list shows"));
    auto *refresh = new QPushButton(tr("Refresh"), this);
    refresh->setObjectName(QStringLiteral("refreshRuns"));
    m_open->setObjectName(QStringLiteral("openRun"));
    m_open->setToolTip(tr("Show the selected run in the dashboard (Enter, double click)"));

    m_table->setObjectName(QStringLiteral("runHistoryTable"));
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(RunHistoryModel::DateColumn, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    // Double click opens; F2 renames or edits notes, like a file manager.
    m_table->setEditTriggers(QAbstractItemView::EditKeyPressed);
    m_table->setAlternatingRowColors(true);
    // Run names end with the model: keep both ends when the name does not fit.
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->setUniformRowHeights(true);
    // The name (elided in the middle) and Status stay in view in a narrow side panel; the other
    // columns fit their contents and scroll sideways, notes take what is left.
    m_table->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->header()->setSectionResizeMode(RunHistoryModel::NameColumn, QHeaderView::Interactive);
    m_table->header()->moveSection(m_table->header()->visualIndex(RunHistoryModel::StatusColumn), 1);
    m_table->header()->setStretchLastSection(true);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &RunHistoryView::fitNameColumn);
    connect(m_proxy, &QAbstractItemModel::rowsInserted, this, &RunHistoryView::fitNameColumn);
    // Sessions open: a fresh list shows every run; the user collapses what is not of interest.
    m_table->expandAll();
    connect(m_proxy, &QAbstractItemModel::modelReset, m_table, &QTreeView::expandAll);
    auto *trash = new QAction(tr("Move to Trash"), m_table);
    trash->setShortcut(QKeySequence::Delete);
    trash->setShortcutContext(Qt::WidgetShortcut);
    connect(trash, &QAction::triggered, this, &RunHistoryView::trashSelected);
    m_table->addAction(trash);

    auto *folderRow = new QHBoxLayout;
    folderRow->addWidget(m_folder, 1);
    folderRow->addWidget(change);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(refresh);
    buttons->addStretch();
    m_compare->setObjectName(QStringLiteral("compareRuns"));
    m_compare->setToolTip(tr("Compare the selected runs side by side (select two or more with Ctrl or Shift)"));
    buttons->addWidget(m_compare);
    buttons->addWidget(m_open);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(folderRow);
    layout->addWidget(m_table, 1);
    layout->addLayout(buttons);

    connect(change, &QPushButton::clicked, this, &RunHistoryView::chooseFolder);
    connect(refresh, &QPushButton::clicked, m_model, &RunHistoryModel::refresh);
    connect(m_open, &QPushButton::clicked, this, &RunHistoryView::openSelected);
    connect(m_table, &QTreeView::activated, this, &RunHistoryView::openSelected);
    connect(m_model, &RunHistoryModel::refreshed, this, &RunHistoryView::updateFolderLabel);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        m_open->setEnabled(m_openEnabled && !selectedDirectory().isEmpty());
        m_compare->setEnabled(selectedDirectories().size() >= 2);
    });
    connect(m_compare, &QPushButton::clicked, this, [this] { Q_EMIT compareRequested(selectedDirectories()); });
    connect(m_table, &QWidget::customContextMenuRequested, this, &RunHistoryView::showContextMenu);
    updateFolderLabel();
    m_open->setEnabled(false);
    m_compare->setEnabled(false);
}

void RunHistoryView::fitNameColumn()
{
    // As wide as the longest name, at most what leaves Status in view beside it.
    constexpr double kNameShare = 0.55;
    const int most = int(m_table->viewport()->width() * kNameShare);
    const int least = m_table->fontMetrics().averageCharWidth() * 12;
    const QAbstractItemView *view = m_table; // QTreeView's override is protected, the base's is not
    const int names = view->sizeHintForColumn(RunHistoryModel::NameColumn);
    m_table->header()->resizeSection(RunHistoryModel::NameColumn, std::clamp(names, least, std::max(least, most)));
}

void RunHistoryView::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    fitNameColumn();
}

QString RunHistoryView::selectedDirectory() const
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    return rows.isEmpty() ? QString() : rows.constFirst().data(RunHistoryModel::DirectoryRole).toString();
}

QStringList RunHistoryView::selectedDirectories() const
{
    QModelIndexList rows = m_table->selectionModel()->selectedRows();
    // In the list's order: a session's row stands for its runs, under it.
    std::sort(rows.begin(), rows.end(), [this](const QModelIndex &a, const QModelIndex &b) {
        return m_table->visualRect(a).top() < m_table->visualRect(b).top();
    });
    QStringList directories;
    const auto add = [&directories](const QModelIndex &run) {
        const QString directory = run.data(RunHistoryModel::DirectoryRole).toString();
        if (!directory.isEmpty() && !directories.contains(directory))
            directories << directory;
    };
    for (const QModelIndex &row : std::as_const(rows)) {
        add(row);
        for (int child = 0; child < m_proxy->rowCount(row); ++child)
            add(m_proxy->index(child, 0, row));
    }
    return directories;
}

void RunHistoryView::showContextMenu(const QPoint &position)
{
    const QModelIndex index = m_table->indexAt(position);
    if (!index.isValid() || index.data(RunHistoryModel::DirectoryRole).toString().isEmpty())
        return; // a session's row: Compare (the button) takes its runs
    const QString directory = index.data(RunHistoryModel::DirectoryRole).toString();
    const QStringList selected = selectedDirectories();
    auto *menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    QAction *open = menu->addAction(tr("&Open"), this, [this, directory] { Q_EMIT openRequested(directory); });
    open->setEnabled(m_openEnabled);
    QAction *compare =
        menu->addAction(tr("&Compare Selected"), this, [this, selected] { Q_EMIT compareRequested(selected); });
    compare->setEnabled(selected.size() >= 2);
    const int instances = index.data(RunHistoryModel::InstancesRole).toInt();
    const int stages = index.data(RunHistoryModel::StagesRole).toInt();
    const int models = index.data(RunHistoryModel::ModelsRole).toInt();
    // Comparing the run alone splits it the way ComparisonView does: instances, else models.
    if (instances > 1) {
        menu->addAction(tr("Compare its %1 &Instances").arg(instances), this,
                        [this, directory] { Q_EMIT compareRequested({directory}); });
    } else if (models > 1) {
        menu->addAction(tr("Compare its %1 &Models").arg(models), this,
                        [this, directory] { Q_EMIT compareRequested({directory}); });
    } else if (stages > 1) {
        menu->addAction(tr("Compare its %1 S&tages").arg(stages), this,
                        [this, directory] { Q_EMIT compareRequested({directory}); });
    }
    menu->addAction(tr("Run This Configuration &Again"), this, [this, directory] { Q_EMIT rerunRequested(directory); });
    menu->addSeparator();
    menu->addAction(tr("&Rename…"), this, [this, index] { editColumn(index, RunHistoryModel::NameColumn); });
    menu->addAction(tr("Edit &Notes…"), this, [this, index] { editColumn(index, RunHistoryModel::NotesColumn); });
    menu->addAction(tr("Move to &Trash"), this, &RunHistoryView::trashSelected);
    menu->addSeparator();
    if (Baseline::isBaseline(directory))
        menu->addAction(tr("Clear &Baseline"), this, [this] { markBaseline({}); });
    else
        menu->addAction(tr("Mark as &Baseline"), this, [this, directory] { markBaseline(directory); });
    menu->popup(m_table->viewport()->mapToGlobal(position)); // not exec(): no nested event loop
}

void RunHistoryView::editColumn(const QModelIndex &index, int column)
{
    const QModelIndex cell = index.siblingAtColumn(column);
    m_table->setCurrentIndex(cell);
    m_table->edit(cell);
}

void RunHistoryView::trashSelected()
{
    QStringList directories = selectedDirectories();
    for (const QString &directory : std::as_const(directories)) {
        QString error;
        if (!m_model->moveToTrash(m_model->rowOf(directory), &error))
            Q_EMIT m_model->editFailed(error);
    }
    updateFolderLabel();
}

void RunHistoryView::markBaseline(const QString &directory)
{
    Baseline::setDirectory(directory);
    m_model->refresh(); // every row's change is against the new baseline
}

void RunHistoryView::selectDirectory(const QString &directory)
{
    const int row = m_model->rowOf(directory);
    if (row < 0)
        return;
    const QModelIndex index = m_proxy->mapFromSource(m_groups->indexOfSourceRow(row));
    m_table->expand(index.parent());
    m_table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(index);
}

void RunHistoryView::setOpenEnabled(bool enabled)
{
    m_openEnabled = enabled;
    m_open->setEnabled(enabled && !selectedDirectory().isEmpty());
}

void RunHistoryView::chooseFolder()
{
    askForFolder(this, tr("Runs Folder"), m_model->folder(), QStringLiteral("runsFolderDialog"),
                 &RunHistoryView::folderChosen);
}

void RunHistoryView::updateFolderLabel()
{
    m_folder->setText(tr("<b>%n run(s)</b> in %1", nullptr, m_model->rowCount())
                          .arg(QDir::toNativeSeparators(m_model->folder()).toHtmlEscaped()));
}

void RunHistoryView::openSelected()
{
    const QString dir = selectedDirectory();
    if (m_openEnabled && !dir.isEmpty())
        Q_EMIT openRequested(dir);
}

} // namespace tb
