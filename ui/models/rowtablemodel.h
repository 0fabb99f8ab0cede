#pragma once

#include <QAbstractTableModel>

namespace tb {

/// A flat table whose rows are the elements of one container (a QList or std::vector of row
/// values): the row and column counts and the index check that each such model would write again.
/// A derived model names its columns, keeps its rows in m_rows and answers data() and headerData().
template<typename Rows> class RowTableModel : public QAbstractTableModel
{
public:
    RowTableModel(int columns, QObject *parent)
        : QAbstractTableModel(parent)
        , m_columns(columns)
    {}

    int rowCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : int(m_rows.size()); }
    int columnCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : m_columns; }

protected:
    /// A valid index of this table (checked before data() or setData() read a row).
    bool isCell(const QModelIndex &index) const
    {
        return checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid);
    }

    /// removeRows() for a model any of whose rows the user may delete.
    bool eraseRows(int row, int count, const QModelIndex &parent)
    {
        if (parent.isValid() || row < 0 || count < 1 || row + count > rowCount())
            return false;
        beginRemoveRows(parent, row, row + count - 1);
        m_rows.erase(m_rows.begin() + row, m_rows.begin() + row + count);
        endRemoveRows();
        return true;
    }

    Rows m_rows;

private:
    int m_columns;
};

} // namespace tb
