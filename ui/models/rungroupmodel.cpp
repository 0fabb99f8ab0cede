#include "models/rungroupmodel.h"

#include "models/runhistorymodel.h"

#include <QFileInfo>
#include <QHash>

#include <algorithm>

namespace tb {

namespace {

/// internalId of a top-level row; a child's is its group's row + 1.
constexpr quintptr kTopLevel = 0;

} // namespace

RunGroupModel::RunGroupModel(RunHistoryModel *source, QObject *parent)
    : QAbstractItemModel(parent)
    , m_source(source)
{
    // The source changes its rows as a whole (a scan's reset) or one at a time (trash): either
    // way the groups are rebuilt, in one reset.
    connect(source, &QAbstractItemModel::modelAboutToBeReset, this, &RunGroupModel::beginResetModel);
    connect(source, &QAbstractItemModel::modelReset, this, [this] {
        rebuild();
        endResetModel();
    });
    const auto resetAround = [this] {
        beginResetModel();
        rebuild();
        endResetModel();
    };
    connect(source, &QAbstractItemModel::rowsInserted, this, resetAround);
    connect(source, &QAbstractItemModel::rowsRemoved, this, resetAround);
    connect(source, &QAbstractItemModel::layoutChanged, this, resetAround);
    connect(source, &QAbstractItemModel::dataChanged, this, &RunGroupModel::forwardDataChanged);
    rebuild();
}

void RunGroupModel::rebuild()
{
    m_groups.clear();
    m_places.fill(Place{}, m_source->rowCount());
    QHash<QString, int> sessions;
    for (int row = 0; row < m_source->rowCount(); ++row) {
        const RunHistoryModel::Entry &e = m_source->entry(row);
        if (e.session.isEmpty()) {
            m_places[row] = {int(m_groups.size()), -1};
            m_groups.append({{}, {}, {row}});
            continue;
        }
        const QString directory = QFileInfo(e.directory).absolutePath();
        auto it = sessions.find(directory);
        if (it == sessions.end()) {
            it = sessions.insert(directory, int(m_groups.size()));
            m_groups.append({e.session, directory, {}});
        }
        m_groups[*it].rows << row;
    }
    for (int g = 0; g < m_groups.size(); ++g) {
        Group &group = m_groups[g];
        if (group.session.isEmpty())
            continue;
        std::stable_sort(group.rows.begin(), group.rows.end(),
                         [this](int a, int b) { return m_source->entry(a).started > m_source->entry(b).started; });
        for (int i = 0; i < group.rows.size(); ++i)
            m_places[group.rows[i]] = {g, i};
    }
}

void RunGroupModel::forwardDataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight,
                                       const QList<int> &roles)
{
    for (int row = topLeft.row(); row <= bottomRight.row(); ++row)
        Q_EMIT dataChanged(indexOfSourceRow(row, topLeft.column()), indexOfSourceRow(row, bottomRight.column()), roles);
}

bool RunGroupModel::isSession(const QModelIndex &index) const
{
    return index.isValid() && index.internalId() == kTopLevel && !m_groups.at(index.row()).session.isEmpty();
}

int RunGroupModel::sourceRow(const QModelIndex &index) const
{
    if (!index.isValid() || isSession(index))
        return -1;
    if (index.internalId() == kTopLevel)
        return m_groups.at(index.row()).rows.constFirst();
    return m_groups.at(int(index.internalId() - 1)).rows.at(index.row());
}

QModelIndex RunGroupModel::indexOfSourceRow(int row, int column) const
{
    if (row < 0 || row >= m_places.size())
        return {};
    const Place &place = m_places.at(row);
    if (place.child < 0)
        return createIndex(place.group, column, kTopLevel);
    return createIndex(place.child, column, quintptr(place.group) + 1);
}

QModelIndex RunGroupModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, kTopLevel);
    return createIndex(row, column, quintptr(parent.row()) + 1);
}

QModelIndex RunGroupModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == kTopLevel)
        return {};
    return createIndex(int(child.internalId() - 1), 0, kTopLevel);
}

int RunGroupModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_groups.size());
    if (parent.column() != 0 || !isSession(parent))
        return 0;
    return int(m_groups.at(parent.row()).rows.size());
}

int RunGroupModel::columnCount(const QModelIndex &) const
{
    return RunHistoryModel::ColumnCount;
}

QVariant RunGroupModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid())
        return {};
    if (const int row = sourceRow(index); row >= 0)
        return m_source->index(row, index.column()).data(role);
    const Group &group = m_groups.at(index.row());
    const QModelIndex newest = m_source->index(group.rows.constFirst(), index.column());
    if (index.column() == RunHistoryModel::NameColumn) {
        switch (role) {
        case Qt::DisplayRole:
            return group.rows.size() == 1 ? tr("%1 — session, 1 run").arg(group.session)
                                          : tr("%1 — session, %2 runs").arg(group.session).arg(group.rows.size());
        case Qt::ToolTipRole:
            return tr("Comparison session “%1” in %2").arg(group.session, group.directory);
        case RunHistoryModel::SortRole:
            return group.session;
        default:
            return {};
        }
    }
    switch (role) {
    case RunHistoryModel::SortRole:
        return newest.data(role);
    case Qt::DisplayRole:
        if (index.column() == RunHistoryModel::SessionColumn || index.column() == RunHistoryModel::DateColumn)
            return newest.data(role);
        return {};
    default:
        return {};
    }
}

QVariant RunGroupModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    return m_source->headerData(section, orientation, role);
}

Qt::ItemFlags RunGroupModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    if (const int row = sourceRow(index); row >= 0)
        return m_source->flags(m_source->index(row, index.column()));
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable;
}

bool RunGroupModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    const int row = sourceRow(index);
    return row >= 0 && m_source->setData(m_source->index(row, index.column()), value, role);
}

} // namespace tb
