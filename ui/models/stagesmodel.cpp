#include "models/stagesmodel.h"

#include <QBrush>
#include <QPalette>

#include <algorithm>
#include <cmath>

namespace tb {

namespace {

QString levelText(const StageConfig &s)
{
    const QString n = QString::number(s.level, 'g', 12);
    return s.mode == LoadMode::Rate ? QStringLiteral("%1 req/s").arg(n) : QStringLiteral("%1 users").arg(n);
}

} // namespace

StagesModel::StagesModel(QObject *parent)
    : EditableRowTableModel({tr("Name"), tr("Mode"), tr("Level"), tr("Duration"), tr("Requests"), tr("Prompt tokens")},
                            {}, parent)
{}

void StagesModel::setStages(const QList<StageConfig> &stages)
{
    beginResetModel();
    m_rows = stages;
    endResetModel();
}

QVariant StagesModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const StageConfig &s = m_rows.at(index.row());
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case NameColumn:
            return s.name.isEmpty() ? stageDefaultName(s) : s.name;
        case ModeColumn:
            return s.mode == LoadMode::Rate ? tr("Rate") : tr("Concurrency");
        case LevelColumn:
            return levelText(s);
        case DurationColumn:
            return s.durationMs > 0 ? formatDuration(s.durationMs) : QStringLiteral("—");
        case RequestsColumn:
            return s.requests > 0 ? QString::number(s.requests) : QStringLiteral("—");
        case PromptColumn:
            return s.promptTokens > 0 ? QString::number(s.promptTokens) : QStringLiteral("—");
        }
    } else if (role == Qt::EditRole) {
        switch (index.column()) {
        case NameColumn:
            return s.name;
        case ModeColumn:
            return loadModeName(s.mode);
        case LevelColumn:
            return s.level;
        case DurationColumn:
            return s.durationMs > 0 ? formatDuration(s.durationMs) : QString();
        case RequestsColumn:
            return s.requests;
        case PromptColumn:
            return s.promptTokens;
        }
    } else if (role == Qt::ForegroundRole && index.column() == NameColumn && s.name.isEmpty()) {
        // A generated name is shown greyed: it follows the level, the user did not type it.
        return QPalette().brush(QPalette::Disabled, QPalette::Text);
    } else if (role == Qt::TextAlignmentRole && index.column() >= LevelColumn) {
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

bool StagesModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::EditRole || !isCell(index))
        return false;
    StageConfig s = m_rows.at(index.row());
    switch (index.column()) {
    case NameColumn:
        s.name = value.toString().trimmed();
        break;
    case ModeColumn: {
        const auto mode = loadModeFromName(value.toString());
        if (!mode)
            return false;
        s.mode = *mode;
        break;
    }
    case LevelColumn: {
        bool ok = false;
        const double level = value.toDouble(&ok);
        if (!ok || !std::isfinite(level))
            return false;
        s.level = level;
        break;
    }
    case DurationColumn: {
        const QString text = value.toString().trimmed();
        const auto ms = text.isEmpty() ? std::optional<qint64>(0) : parseDurationMs(text);
        if (!ms)
            return false;
        s.durationMs = *ms;
        break;
    }
    case RequestsColumn: {
        bool ok = false;
        const qint64 requests = value.toLongLong(&ok);
        if (!ok || requests < 0)
            return false;
        s.requests = requests;
        break;
    }
    case PromptColumn: {
        bool ok = false;
        const qint64 tokens = value.toLongLong(&ok);
        if (!ok || tokens < 0 || tokens > limits::kMaxPromptTokens)
            return false;
        s.promptTokens = int(tokens);
        break;
    }
    default:
        return false;
    }
    if (s == m_rows.at(index.row()))
        return true;
    m_rows[index.row()] = s;
    // Mode and level change the generated name and the level's unit, so the whole row repaints.
    Q_EMIT dataChanged(this->index(index.row(), 0), this->index(index.row(), ColumnCount - 1));
    return true;
}

bool StagesModel::insertRows(int row, int count, const QModelIndex &parent)
{
    if (parent.isValid() || row < 0 || row > m_rows.size() || count < 1)
        return false;
    StageConfig next;
    next.durationMs = 30000;
    if (row > 0) {
        next = m_rows.at(row - 1);
        next.name.clear();
    }
    beginInsertRows(parent, row, row + count - 1);
    for (int i = 0; i < count; ++i) {
        // The next step of what the stages vary: a context sweep's prompt, else the load.
        if ((row > 0 || i > 0) && next.promptTokens > 0)
            next.promptTokens = int(std::min<qint64>(qint64(next.promptTokens) * 2, limits::kMaxPromptTokens));
        else if (row > 0 || i > 0)
            next.level *= 2;
        m_rows.insert(row + i, next);
    }
    endInsertRows();
    return true;
}

bool StagesModel::moveRows(const QModelIndex &sourceParent, int sourceRow, int count,
                           const QModelIndex &destinationParent, int destinationChild)
{
    if (sourceParent.isValid() || destinationParent.isValid() || count < 1 || sourceRow < 0 ||
        sourceRow + count > m_rows.size() || destinationChild < 0 || destinationChild > m_rows.size() ||
        (destinationChild >= sourceRow && destinationChild <= sourceRow + count))
        return false;
    if (!beginMoveRows(sourceParent, sourceRow, sourceRow + count - 1, destinationParent, destinationChild))
        return false;
    const QList<StageConfig> moved = m_rows.mid(sourceRow, count);
    m_rows.remove(sourceRow, count);
    const int to = destinationChild > sourceRow ? destinationChild - count : destinationChild;
    for (int i = 0; i < count; ++i)
        m_rows.insert(to + i, moved.at(i));
    endMoveRows();
    return true;
}

} // namespace tb
