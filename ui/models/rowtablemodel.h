#pragma once

#include <QAbstractTableModel>
#include <QMap>
#include <QStringList>

namespace tb {

/// A flat table whose rows are the elements of one container (a QList or std::vector of row
/// values): the row and column counts, the header and the index check that each such model would
/// write again. A derived model names its columns (their titles and some tooltips, translated),
/// keeps its rows in m_rows and answers data().
template<typename Rows> class RowTableModel : public QAbstractTableModel
{
public:
    RowTableModel(QStringList titles, QMap<int, QString> toolTips, QObject *parent)
        : QAbstractTableModel(parent)
        , m_titles(std::move(titles))
        , m_toolTips(std::move(toolTips))
    {}

    int rowCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : int(m_rows.size()); }
    int columnCount(const QModelIndex &parent = {}) const override
    {
        return parent.isValid() ? 0 : int(m_titles.size());
    }
    /// The columns' titles and tooltips; the rows are numbered as Qt numbers them.
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override
    {
        if (orientation != Qt::Horizontal || section < 0 || section >= m_titles.size())
            return QAbstractTableModel::headerData(section, orientation, role);
        if (role == Qt::DisplayRole)
            return m_titles.at(section);
        if (role == Qt::ToolTipRole && m_toolTips.contains(section))
            return m_toolTips.value(section);
        return {};
    }

protected:
    /// A valid index of this table (checked before data() or setData() read a row).
    bool isCell(const QModelIndex &index) const
    {
        return checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid);
    }

    Rows m_rows;

private:
    QStringList m_titles;
    QMap<int, QString> m_toolTips;
};

/// A RowTableModel the user edits in place (a form's table): every cell is editable and any rows
/// may be removed. A derived model still says how rows are inserted and what an edit does.
template<typename Rows> class EditableRowTableModel : public RowTableModel<Rows>
{
public:
    using RowTableModel<Rows>::RowTableModel;

    Qt::ItemFlags flags(const QModelIndex &index) const override
    {
        if (!index.isValid())
            return Qt::NoItemFlags;
        return QAbstractTableModel::flags(index) | Qt::ItemIsEditable;
    }

    bool removeRows(int row, int count, const QModelIndex &parent = {}) override
    {
        if (parent.isValid() || row < 0 || count < 1 || row + count > this->rowCount())
            return false;
        this->beginRemoveRows(parent, row, row + count - 1);
        this->m_rows.erase(this->m_rows.begin() + row, this->m_rows.begin() + row + count);
        this->endRemoveRows();
        return true;
    }
};

} // namespace tb
