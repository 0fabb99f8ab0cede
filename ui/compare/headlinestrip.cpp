#include "compare/headlinestrip.h"

#include "models/comparisonmodel.h"
#include "widgets/kpitile.h"

#include "analysis/comparison.h"
#include "formats/numberformat.h"

#include <QHBoxLayout>

namespace tb {

namespace {

QString valueText(const std::optional<double> &value, const QString &unit)
{
    return value ? ComparisonTable::formatValue(*value, unit) : QStringLiteral("—");
}

} // namespace

HeadlineStrip::HeadlineStrip(QWidget *parent)
    : QWidget(parent)
    , m_layout(new QHBoxLayout(this))
{
    setObjectName(QStringLiteral("headlineStrip"));
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(8);
}

void HeadlineStrip::setTable(const ComparisonTable &table)
{
    qDeleteAll(m_tiles);
    m_tiles.clear();
    m_keys.clear();
    const QStringList &labels = table.labels();
    const QStringList shortLabels = ComparisonModel::distinguishingLabels(labels);
    for (const ComparisonTable::Row &row : table.rows()) {
        if (!row.headline)
            continue;
        QList<int> winners;
        for (std::size_t i = 0; i < row.best.size(); ++i) {
            if (row.best[i])
                winners << int(i);
        }
        const bool ranked = row.better != ComparisonTable::Better::Neither && !winners.isEmpty() && labels.size() > 1;
        const QString direction =
            row.better == ComparisonTable::Better::Neither
                ? tr("no better direction: each run's value")
                : tr("%1 is better; the winner's value").arg(ComparisonTable::betterName(row.better));
        auto *tile = new KpiTile(row.label, row.unit, ranked ? ComparisonModel::runColor(winners.first()) : QColor(),
                                 direction, this);
        tile->setObjectName(QStringLiteral("headline_%1").arg(row.key));
        tile->setMinimumWidth(120);
        if (ranked) {
            QStringList names;
            QStringList fullNames;
            for (const int w : std::as_const(winners)) {
                names << QStringLiteral("#%1 %2").arg(w + 1).arg(shortLabels[w]);
                fullNames << QStringLiteral("#%1 %2").arg(w + 1).arg(labels[w]);
            }
            const QString detail = winners.size() == labels.size()
                                       ? tr("all runs alike")
                                       : QStringLiteral("★ ") + names.join(QStringLiteral(", "));
            tile->setValue(valueText(row.values[std::size_t(winners.first())], row.unit), detail);
            tile->appendToolTip(fullNames.join(QStringLiteral("<br/>")).toHtmlEscaped());
        } else {
            QStringList values;
            QStringList runs;
            // Three or more figures share one tile: three significant digits each keep them in it.
            const bool crowded = row.values.size() > 2;
            for (std::size_t i = 0; i < row.values.size(); ++i) {
                values << (crowded && row.values[i] ? formatNumber(*row.values[i])
                                                    : valueText(row.values[i], row.unit));
                runs << QStringLiteral("#%1").arg(i + 1);
            }
            // One figure when every run has it: a row of equal numbers would only crowd the tile.
            if (values.size() > 1 && values.count(values.first()) == values.size())
                tile->setValue(values.first(), tr("all runs alike"));
            else
                tile->setValue(values.join(QStringLiteral(" · ")), runs.join(QStringLiteral(" · ")));
        }
        m_layout->addWidget(tile);
        m_tiles.insert(row.key, tile);
        m_keys << row.key;
    }
    setVisible(!m_keys.isEmpty());
}

} // namespace tb
