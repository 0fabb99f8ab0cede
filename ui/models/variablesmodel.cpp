#include "models/variablesmodel.h"

#include <QSet>

namespace tb {

VariablesModel::VariablesModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

QMap<QString, QString> VariablesModel::variables() const
{
    QMap<QString, QString> map;
    for (const Variable &v : m_rows) {
        if (!v.name.isEmpty())
            map.insert(v.name, v.value);
    }
    return map;
}

void VariablesModel::setVariables(const QMap<QString, QString> &variables)
{
    beginResetModel();
    m_rows.clear();
    for (auto it = variables.cbegin(); it != variables.cend(); ++it)
        m_rows.append({it.key(), it.value()});
    endResetModel();
}

QStringList VariablesModel::names() const
{
    QStringList names;
    for (const Variable &v : m_rows)
        names << v.name;
    return names;
}

int VariablesModel::addVariable(const QString &name, const QString &value)
{
    const int row = int(m_rows.size());
    insertRows(row, 1);
    m_rows[row] = {name, value};
    Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
    return row;
}

QStringList VariablesModel::problems() const
{
    QStringList problems;
    QSet<QString> seen;
    for (int i = 0; i < m_rows.size(); ++i) {
        const QString &name = m_rows.at(i).name;
        if (name.isEmpty())
            problems << QStringLiteral("prompt.variables[%1]: the variable has no name").arg(i);
        else if (seen.contains(name))
            problems << QStringLiteral("prompt.variables[%1]: '%2' is defined twice").arg(i).arg(name);
        seen.insert(name);
    }
    return problems;
}

int VariablesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int VariablesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant VariablesModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    const Variable &v = m_rows.at(index.row());
    return index.column() == NameColumn ? v.name : v.value;
}

bool VariablesModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::EditRole || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    Variable &v = m_rows[index.row()];
    QString &slot = index.column() == NameColumn ? v.name : v.value;
    const QString text = index.column() == NameColumn ? value.toString().trimmed() : value.toString();
    if (slot == text)
        return true;
    slot = text;
    Q_EMIT dataChanged(index, index);
    return true;
}

QVariant VariablesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section + 1;
    return section == NameColumn ? tr("Variable") : tr("Value");
}

Qt::ItemFlags VariablesModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return QAbstractTableModel::flags(index) | Qt::ItemIsEditable;
}

bool VariablesModel::insertRows(int row, int count, const QModelIndex &parent)
{
    if (parent.isValid() || row < 0 || row > m_rows.size() || count < 1)
        return false;
    beginInsertRows(parent, row, row + count - 1);
    for (int i = 0; i < count; ++i)
        m_rows.insert(row, Variable{});
    endInsertRows();
    return true;
}

bool VariablesModel::removeRows(int row, int count, const QModelIndex &parent)
{
    if (parent.isValid() || row < 0 || count < 1 || row + count > m_rows.size())
        return false;
    beginRemoveRows(parent, row, row + count - 1);
    m_rows.remove(row, count);
    endRemoveRows();
    return true;
}

} // namespace tb
