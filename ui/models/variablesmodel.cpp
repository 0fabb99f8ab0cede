#include "models/variablesmodel.h"

#include <QSet>

namespace tb {

VariablesModel::VariablesModel(QObject *parent)
    : EditableRowTableModel({tr("Variable"), tr("Value")}, {}, parent)
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

QVariant VariablesModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    const Variable &v = m_rows.at(index.row());
    return index.column() == NameColumn ? v.name : v.value;
}

bool VariablesModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::EditRole || !isCell(index))
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

} // namespace tb
