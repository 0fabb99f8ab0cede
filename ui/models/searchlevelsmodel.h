#pragma once

#include "run/limitsearchplan.h"

#include "models/rowtablemodel.h"

#include <vector>

namespace tb {

/// The levels a limit search (Run ▸ Find the Limit…, LimitSearch) has tried, one row a level in
/// the order tried: its name, its runs, the pooled good fraction, its 95% interval and the verdict
/// in LimitSearchPlan's words. A level run again (within noise) updates its row.
class SearchLevelsModel : public RowTableModel<std::vector<SearchLevel>>
{
    Q_OBJECT

public:
    enum Column { LevelColumn, RunsColumn, GoodputColumn, IntervalColumn, VerdictColumn, ColumnCount };
    /// Qt::UserRole of every column: the row's LevelVerdict as an int.
    static constexpr int VerdictRole = Qt::UserRole;

    explicit SearchLevelsModel(QObject *parent = nullptr);

    /// Empties the table for a search over `spec` (which names the levels).
    void reset(const LimitSearchSpec &spec);
    /// Adds the level, or updates its row when it is already listed.
    void updateLevel(const SearchLevel &level);
    const std::vector<SearchLevel> &levels() const { return m_rows; }

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
    LimitSearchSpec m_spec;
};

} // namespace tb
