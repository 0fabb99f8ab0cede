#include "compare/comparisonpicker.h"

#include "models/runhistorymodel.h"
#include "widgets/folderdialog.h"

#include "analysis/baseline.h"
#include "results/rundirectory.h"
#include "run/comparisonsession.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

namespace tb {

ComparisonPicker::ComparisonPicker(const RunHistoryModel *history, const QString &runsFolder, QWidget *parent)
    : QDialog(parent)
    , m_model(new QStandardItemModel(0, ColumnCount, this))
    , m_table(new QTableView(this))
    , m_compare(new QPushButton(tr("Compare"), this))
{
    setObjectName(QStringLiteral("comparisonPicker"));
    setWindowTitle(tr("Compare Runs"));
    resize(760, 480);
    m_model->setHorizontalHeaderLabels({tr("Run or session"), tr("Kind"), tr("Model"), tr("Started")});

    // Sessions first: a whole session is the usual thing to compare.
    const QFileInfoList folders =
        QDir(runsFolder).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name | QDir::Reversed);
    for (const QFileInfo &folder : folders) {
        QString error;
        const auto session = SessionInfo::isSessionDirectory(folder.filePath())
                                 ? SessionInfo::load(folder.filePath(), &error)
                                 : std::nullopt;
        if (!session)
            continue;
        QStringList targets;
        for (const SessionInfo::Run &run : session->runs)
            targets << run.target.displayName();
        addRow(folder.filePath(), folder.fileName(),
               tr("%1 session, %n run(s)", nullptr, int(session->runs.size())).arg(sessionModeName(session->mode)),
               targets.join(QStringLiteral(", ")), QLocale().toString(session->createdAt, QLocale::ShortFormat),
               int(session->runs.size()));
    }
    for (int row = 0; row < history->rowCount(); ++row) {
        const RunHistoryModel::Entry &e = history->entry(row);
        if (!e.problem.isEmpty())
            continue;
        addRow(e.directory, e.name, Baseline::isBaseline(e.directory) ? tr("run · baseline ★") : tr("run"), e.model,
               QLocale().toString(e.started, QLocale::ShortFormat), 1);
    }

    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setSectionResizeMode(NameColumn, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(ModelColumn, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(KindColumn, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(StartedColumn, QHeaderView::ResizeToContents);
    // Clicking anywhere on a row checks it: the check box alone is a small target.
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex &index) {
        if (index.column() == NameColumn)
            return; // the check box handles its own clicks
        QStandardItem *item = m_model->item(index.row(), NameColumn);
        item->setCheckState(item->checkState() == Qt::Checked ? Qt::Unchecked : Qt::Checked);
    });
    connect(m_model, &QStandardItemModel::itemChanged, this, &ComparisonPicker::updateButton);

    auto *hint = new QLabel(tr("Check a session, or two or more runs. Runs are compared in the order listed; the "
                               "first is the baseline unless one is marked."),
                            this);
    hint->setWordWrap(true);
    auto *buttons = new QDialogButtonBox(this);
    QPushButton *add = buttons->addButton(tr("Add Folder…"), QDialogButtonBox::ActionRole);
    buttons->addButton(m_compare, QDialogButtonBox::AcceptRole);
    buttons->addButton(QDialogButtonBox::Close);
    m_compare->setObjectName(QStringLiteral("compareButton"));
    connect(add, &QPushButton::clicked, this, &ComparisonPicker::chooseFolder);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_compare, &QPushButton::clicked, this, [this] {
        Q_EMIT compareRequested(checkedDirectories());
        accept();
    });

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(hint);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
    updateButton();
}

void ComparisonPicker::addRow(const QString &directory, const QString &name, const QString &kind, const QString &model,
                              const QString &started, int runs)
{
    auto *first = new QStandardItem(name);
    first->setCheckable(true);
    first->setData(directory, DirectoryRole);
    first->setData(runs, RunCountRole);
    first->setToolTip(QDir::toNativeSeparators(directory));
    m_model->appendRow({first, new QStandardItem(kind), new QStandardItem(model), new QStandardItem(started)});
}

QStringList ComparisonPicker::checkedDirectories() const
{
    QStringList directories;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const QStandardItem *item = m_model->item(row, NameColumn);
        if (item->checkState() == Qt::Checked)
            directories << item->data(DirectoryRole).toString();
    }
    return directories;
}

void ComparisonPicker::setChecked(const QString &directory, bool checked)
{
    for (int row = 0; row < m_model->rowCount(); ++row) {
        QStandardItem *item = m_model->item(row, NameColumn);
        if (item->data(DirectoryRole).toString() == directory)
            item->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
    }
}

void ComparisonPicker::addDirectory(const QString &directory)
{
    const bool session = SessionInfo::isSessionDirectory(directory);
    QString kind = session ? tr("session") : RunReader::isRunDirectory(directory) ? tr("run") : tr("not a run folder");
    addRow(directory, QFileInfo(directory).fileName(), kind, QString(), QString(), session ? 2 : 1);
    setChecked(directory, true);
}

void ComparisonPicker::chooseFolder()
{
    askForFolder(this, tr("Add a Run or Session Folder"), {}, {}, &ComparisonPicker::addDirectory);
}

void ComparisonPicker::updateButton()
{
    int runs = 0;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        const QStandardItem *item = m_model->item(row, NameColumn);
        if (item->checkState() == Qt::Checked)
            runs += item->data(RunCountRole).toInt();
    }
    m_compare->setEnabled(runs >= 2);
}

} // namespace tb
