#pragma once

#include "config/runconfig.h"

#include "models/rowtablemodel.h"

namespace tb {

struct TargetListRow {
    TargetConfig target;
    bool builtin = false;
};

/// The endpoint profiles the user keeps, one row each; the selected one becomes the run's target.
/// Row 0 may be the built-in simulator, whose URL follows the in-process server and which cannot be
/// removed. Typed-in API keys live only in this model's memory: the JSON form below never has them.
class TargetListModel : public RowTableModel<QList<TargetListRow>>
{
    Q_OBJECT

public:
    enum Column { NameColumn, ApiColumn, ModelColumn, UrlColumn, ColumnCount };

    explicit TargetListModel(QObject *parent = nullptr);

    /// The display name of the built-in simulator's row; a loaded config naming it means the simulator.
    static QString builtinName();

    int count() const { return int(m_rows.size()); }
    const TargetConfig &target(int row) const { return m_rows.at(row).target; }
    void setTarget(int row, const TargetConfig &target);
    bool isBuiltin(int row) const { return row >= 0 && row < m_rows.size() && m_rows.at(row).builtin; }
    /// -1 when there is no simulator row.
    int builtinRow() const;
    /// Adds the simulator row (first) or updates it.
    void setBuiltin(const TargetConfig &target);

    /// The user's own targets (every row but the simulator's).
    QList<TargetConfig> userTargets() const;
    /// Replaces the user's targets; the simulator row stays.
    void setUserTargets(const QList<TargetConfig> &targets);

    int addTarget(const TargetConfig &target);
    /// Appends a copy named "… (copy)"; returns its row.
    int duplicateTarget(int row);
    /// The simulator row cannot be removed.
    bool removeTarget(int row);
    /// The row holding this target, comparing everything but the typed-in key; -1 if none.
    int findTarget(const TargetConfig &target) const;

    /// For QSettings: a JSON array of targets without keys, and back (bad entries are skipped).
    static QByteArray toJson(const QList<TargetConfig> &targets);
    static QList<TargetConfig> fromJson(const QByteArray &json);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
    using Row = TargetListRow;
};

} // namespace tb
