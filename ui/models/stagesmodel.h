#pragma once

#include "config/runconfig.h"

#include "models/rowtablemodel.h"

namespace tb {

/// The stages of a staged run (load.stages / --stages), one row per stage, editable in place.
/// Edit roles carry config values: Mode as "concurrency"/"rate", Level as double, Duration as the
/// CLI's duration text ("30s"; empty = not set), Requests as qint64 (0 = not set).
class StagesModel : public EditableRowTableModel<QList<StageConfig>>
{
    Q_OBJECT

public:
    enum Column { NameColumn, ModeColumn, LevelColumn, DurationColumn, RequestsColumn, PromptColumn, ColumnCount };

    explicit StagesModel(QObject *parent = nullptr);

    QList<StageConfig> stages() const { return m_rows; }
    void setStages(const QList<StageConfig> &stages);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    /// New rows continue the ramp: the same mode and end as the stage before, at twice its level.
    bool insertRows(int row, int count, const QModelIndex &parent = {}) override;
    bool moveRows(const QModelIndex &sourceParent, int sourceRow, int count, const QModelIndex &destinationParent,
                  int destinationChild) override;
};

} // namespace tb
