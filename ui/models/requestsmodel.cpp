#include "models/requestsmodel.h"

#include "models/quantitystyle.h"

#include <QBrush>
#include <QColor>

#include <cmath>
#include <limits>

namespace tb {

namespace {

QVariant optionalMs(const std::optional<double> &ms)
{
    return ms ? QVariant(QString::number(*ms, 'f', 1)) : QVariant();
}

} // namespace

RequestsModel::RequestsModel(QObject *parent)
    : RowTableModel({tr("Id"), tr("Stage"), tr("Status"), tr("Sent (s)"), tr("TTFT (ms)"), tr("E2E (ms)"),
                     tr("TPOT (ms)"), tr("Prompt tok"), tr("Output tok"), tr("Cached tok"), tr("Chunks"), tr("Error")},
                    {{SentColumn, tr("When the request was sent, in seconds since the run's start")},
                     {TtftColumn, chartstyle::describe(Metric::Ttft)},
                     {E2eColumn, chartstyle::describe(Metric::E2e)},
                     {TpotColumn, chartstyle::describe(Metric::Tpot)},
                     {CachedTokensColumn, chartstyle::describe(Quantity::CachedTokens)},
                     {ChunksColumn, tr("Streamed chunks that carried generated text")}},
                    parent)
{}

void RequestsModel::setStageNames(const QStringList &names)
{
    m_stageNames = names;
    if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, StageColumn), index(rowCount() - 1, StageColumn));
}

void RequestsModel::append(const QList<RequestRecord> &records)
{
    if (records.isEmpty())
        return;
    const int first = rowCount();
    beginInsertRows({}, first, first + int(records.size()) - 1);
    // No reserve(): an exact reserve per batch would reallocate (and move every row) each time.
    for (const RequestRecord &r : records) {
        m_rows.push_back(r);
        m_rows.back().tokenChunks = {}; // the table never needs them; chunks.jsonl has them
    }
    endInsertRows();
}

void RequestsModel::setRecords(std::vector<RequestRecord> records)
{
    beginResetModel();
    m_rows = std::move(records);
    for (RequestRecord &r : m_rows)
        r.tokenChunks = {};
    endResetModel();
}

void RequestsModel::clear()
{
    setRecords({});
}

int RequestsModel::rowOf(std::uint64_t id) const
{
    // Completion order is nearly id order: look near the id first.
    const auto n = std::int64_t(m_rows.size());
    const std::int64_t guess = std::clamp<std::int64_t>(std::int64_t(id) - 1, 0, std::max<std::int64_t>(0, n - 1));
    for (std::int64_t d = 0; d < n; ++d) {
        for (const std::int64_t row : {guess - d, guess + d}) {
            if (row >= 0 && row < n && m_rows[std::size_t(row)].id == id)
                return int(row);
        }
        if (guess - d < 0 && guess + d >= n)
            break;
    }
    return -1;
}

QString RequestsModel::statusText(const RequestRecord &record)
{
    if (record.status == RequestStatus::Http)
        return QStringLiteral("HTTP %1").arg(record.httpStatus);
    return QString::fromLatin1(statusName(record.status));
}

QString RequestsModel::stageName(const RequestRecord &record) const
{
    QString name = record.stage >= 0 && record.stage < m_stageNames.size() ? m_stageNames.at(record.stage)
                                                                           : QString::number(record.stage + 1);
    if (record.warmup)
        name += tr(" (warm-up)");
    return name;
}

QVariant RequestsModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const RequestRecord &r = m_rows[std::size_t(index.row())];
    if (role == IdRole)
        return QVariant::fromValue<quint64>(r.id);
    if (role == SortRole)
        return index.column() == ErrorColumn ? QVariant(r.errorMessage) : QVariant(sortKey(r, index.column()));
    if (role == Qt::TextAlignmentRole)
        return index.column() == StageColumn || index.column() == StatusColumn || index.column() == ErrorColumn
                   ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && !r.ok() && (index.column() == StatusColumn || index.column() == ErrorColumn))
        return QBrush(chartstyle::themed(r.status == RequestStatus::Cancelled ? QColor(0x4b, 0x55, 0x63)
                                                                              : QColor(0xc6, 0x28, 0x28),
                                         chartstyle::screenTheme()));
    if (role == Qt::ToolTipRole && index.column() == ErrorColumn && !r.errorMessage.isEmpty())
        return r.errorMessage;
    if (role != Qt::DisplayRole)
        return {};

    switch (Column(index.column())) {
    case IdColumn:
        return QString::number(r.id);
    case StageColumn:
        return stageName(r);
    case StatusColumn:
        return statusText(r);
    case SentColumn:
        return r.sentNs < 0 ? QString() : QString::number(double(r.sentNs) / 1e9, 'f', 3);
    case TtftColumn:
        return optionalMs(r.ttftMs());
    case E2eColumn:
        return optionalMs(r.e2eMs());
    case TpotColumn:
        return optionalMs(r.tpotMs());
    case PromptTokensColumn:
        return QString::number(r.promptTokens);
    case CompletionTokensColumn:
        return QString::number(r.completionTokens);
    case CachedTokensColumn:
        return QString::number(r.cachedTokens);
    case ChunksColumn:
        return QString::number(r.chunks);
    case ErrorColumn:
        return r.errorMessage;
    case ColumnCount:
        break;
    }
    return {};
}

double RequestsModel::sortKey(const RequestRecord &r, int column)
{
    switch (Column(column)) {
    case IdColumn:
        return double(r.id);
    case StageColumn:
        return r.stage;
    case StatusColumn:
        return int(r.status) * 1000 + r.httpStatus;
    case SentColumn:
        return double(r.sentNs);
    case TtftColumn:
        return r.ttftMs().value_or(-1);
    case E2eColumn:
        return r.e2eMs().value_or(-1);
    case TpotColumn:
        return r.tpotMs().value_or(-1);
    case PromptTokensColumn:
        return double(r.promptTokens);
    case CompletionTokensColumn:
        return double(r.completionTokens);
    case CachedTokensColumn:
        return double(r.cachedTokens);
    case ChunksColumn:
        return r.chunks;
    case ErrorColumn:
    case ColumnCount:
        break;
    }
    return std::numeric_limits<double>::quiet_NaN();
}

RequestsFilterModel::RequestsFilterModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{}

void RequestsFilterModel::setErrorsOnly(bool errorsOnly)
{
    if (errorsOnly == m_errorsOnly)
        return;
    m_errorsOnly = errorsOnly;
    invalidateRowsFilter();
}

void RequestsFilterModel::setStage(int stage)
{
    if (stage == m_stage)
        return;
    m_stage = stage;
    invalidateRowsFilter();
}

bool RequestsFilterModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const auto *model = static_cast<const RequestsModel *>(sourceModel());
    const RequestRecord &a = model->record(left.row());
    const RequestRecord &b = model->record(right.row());
    if (left.column() == RequestsModel::ErrorColumn)
        return a.errorMessage < b.errorMessage;
    return RequestsModel::sortKey(a, left.column()) < RequestsModel::sortKey(b, left.column());
}

bool RequestsFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (sourceParent.isValid())
        return false;
    const auto *model = static_cast<const RequestsModel *>(sourceModel());
    const RequestRecord &r = model->record(sourceRow);
    return (!m_errorsOnly || !r.ok()) && (m_stage < 0 || r.stage == m_stage);
}

} // namespace tb
