#pragma once

#include "metrics/requestrecord.h"

#include "models/rowtablemodel.h"

#include <QSortFilterProxyModel>
#include <QStringList>

#include <vector>

namespace tb {

/// The requests of a run, one row each, in completion order (a saved run: in requests.csv's order).
/// Live runs append a batch at a time (one beginInsertRows per batch) and keep records without
/// their chunk stamps, so 100 000 rows and more stay light; a request's chunk timeline is read on
/// demand from chunks.jsonl (ChunkReader).
class RequestsModel : public RowTableModel<std::vector<RequestRecord>>
{
    Q_OBJECT

public:
    enum Column {
        IdColumn,
        StageColumn,
        StatusColumn,
        SentColumn,
        TtftColumn,
        E2eColumn,
        TpotColumn,
        PromptTokensColumn,
        CompletionTokensColumn,
        CachedTokensColumn,
        ChunksColumn,
        ErrorColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole, ///< a number (or text) that sorts the column naturally
        IdRole,                  ///< the request's id (quint64)
    };

    explicit RequestsModel(QObject *parent = nullptr);

    /// The stage names RequestRecord::stage indexes.
    void setStageNames(const QStringList &names);
    void append(const QList<RequestRecord> &records);
    void setRecords(std::vector<RequestRecord> records);
    void clear();

    const RequestRecord &record(int row) const { return m_rows[std::size_t(row)]; }
    const std::vector<RequestRecord> &records() const { return m_rows; }
    /// The row holding request `id`; -1 when none.
    int rowOf(std::uint64_t id) const;

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

    /// "ok", "HTTP 429", "timeout", …
    static QString statusText(const RequestRecord &record);
    /// What a numeric column sorts by (-1 for a missing duration, so those come first); NaN for the
    /// error text, which sorts as text.
    static double sortKey(const RequestRecord &record, int column);

private:
    QString stageName(const RequestRecord &record) const;

    QStringList m_stageNames;
};

/// Sorting and filtering for the requests table: only errors (cancelled requests included, they
/// did not complete), one stage, or all.
class RequestsFilterModel : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    explicit RequestsFilterModel(QObject *parent = nullptr);

    void setErrorsOnly(bool errorsOnly);
    bool errorsOnly() const { return m_errorsOnly; }
    /// -1: every stage.
    void setStage(int stage);
    int stage() const { return m_stage; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    /// Compares the records themselves: sorting 100 000 rows through QVariants takes several times
    /// longer.
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    bool m_errorsOnly = false;
    int m_stage = -1;
};

} // namespace tb
