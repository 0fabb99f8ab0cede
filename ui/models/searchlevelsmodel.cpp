#include "models/searchlevelsmodel.h"

#include "models/quantitystyle.h"

#include <QColor>

#include <algorithm>

namespace tb {

SearchLevelsModel::SearchLevelsModel(QObject *parent)
    : RowTableModel({tr("Level"), tr("Runs"), tr("Goodput"), tr("95% interval"), tr("Verdict")},
                    {{GoodputColumn, tr("Share of the level's requests (all its runs pooled) that met the SLO")},
                     {IntervalColumn, tr("Wilson score interval of the goodput; a level whose interval holds the "
                                         "target runs again, up to %1 runs")
                                          .arg(LimitSearchPlan::kMaxRunsPerLevel)},
                     {VerdictColumn, tr("Pass: the goodput meets the SLO target")}},
                    parent)
{}

void SearchLevelsModel::reset(const LimitSearchSpec &spec)
{
    beginResetModel();
    m_spec = spec;
    m_rows.clear();
    endResetModel();
}

void SearchLevelsModel::updateLevel(const SearchLevel &level)
{
    const auto it =
        std::find_if(m_rows.begin(), m_rows.end(), [&level](const SearchLevel &l) { return l.level == level.level; });
    if (it != m_rows.end()) {
        *it = level;
        const int row = int(it - m_rows.begin());
        Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
        return;
    }
    const int row = int(m_rows.size());
    beginInsertRows({}, row, row);
    m_rows.push_back(level);
    endInsertRows();
}

QVariant SearchLevelsModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const SearchLevel &l = m_rows[std::size_t(index.row())];
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case LevelColumn:
            return m_spec.levelName(l.level);
        case RunsColumn:
            return QString::number(l.runs.size());
        case GoodputColumn:
            if (const auto fraction = l.goodFraction())
                return QStringLiteral("%1% (%2 of %3)")
                    .arg(QString::number(*fraction * 100, 'f', 1))
                    .arg(l.good)
                    .arg(l.attempted);
            return QStringLiteral("—");
        case IntervalColumn:
            return l.attempted > 0 ? LimitSearchPlan::intervalText(l) : QStringLiteral("—");
        case VerdictColumn:
            return LimitSearchPlan::verdictText(l);
        }
        break;
    case Qt::ToolTipRole:
        if (column == RunsColumn)
            return l.runs.join(QLatin1Char('\n'));
        break;
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(column == RunsColumn || column == GoodputColumn ? Qt::AlignRight | Qt::AlignVCenter
                                                                                   : Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (column == VerdictColumn && (l.verdict == LevelVerdict::Pass || l.verdict == LevelVerdict::Fail))
            return chartstyle::themed(l.verdict == LevelVerdict::Pass ? QColor(0x15, 0x80, 0x3d)
                                                                      : QColor(0xb9, 0x1c, 0x1c),
                                      chartstyle::screenTheme());
        break;
    case VerdictRole:
        return int(l.verdict);
    default:
        break;
    }
    return {};
}

} // namespace tb
