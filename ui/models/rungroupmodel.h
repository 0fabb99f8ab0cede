#pragma once

#include <QAbstractItemModel>
#include <QList>

namespace tb {

class RunHistoryModel;

/// The run library as a tree: a comparison session is one row holding its runs as children (the
/// Runs tab collapses and expands it), a run of its own is a row at the top. Columns, roles and
/// edits are RunHistoryModel's; a session's row names the session and how many runs it has, shows
/// its newest run's date, and sorts (any column but the name) as its newest run does, so a sorted
/// list keeps each session's runs together.
class RunGroupModel : public QAbstractItemModel
{
    Q_OBJECT

public:
    explicit RunGroupModel(RunHistoryModel *source, QObject *parent = nullptr);

    RunHistoryModel *source() const { return m_source; }
    /// The row in the source a run's index stands for; -1 for a session's row.
    int sourceRow(const QModelIndex &index) const;
    /// The index of the source's run `row`, in `column`.
    QModelIndex indexOfSourceRow(int row, int column = 0) const;
    bool isSession(const QModelIndex &index) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;

private:
    /// A session with its runs (source rows, newest first), or one run of its own (session empty).
    struct Group {
        QString session;
        QString directory; ///< the session's directory; empty for a run of its own
        QList<int> rows;
    };
    struct Place {
        int group = -1;
        int child = -1; ///< -1: the run is the group's own top-level row
    };

    void rebuild();
    void forwardDataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight, const QList<int> &roles);

    RunHistoryModel *m_source;
    QList<Group> m_groups;
    QList<Place> m_places; ///< by source row
};

} // namespace tb
