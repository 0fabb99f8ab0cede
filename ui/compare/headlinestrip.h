#pragma once

#include <QHash>
#include <QWidget>

class QHBoxLayout;

namespace tb {

class ComparisonTable;
class KpiTile;

/// The comparison at a glance, above its table: a tile per headline row of the core comparison
/// (ComparisonTable::Row::headline — TTFT p50, output tokens/s, requests/s, out/in, errors, cost)
/// with the winner's value and name in the winner's colour; a row without a better direction
/// (out/in) shows every run's value instead. New headline rows of the core appear by themselves.
class HeadlineStrip : public QWidget
{
    Q_OBJECT

public:
    explicit HeadlineStrip(QWidget *parent = nullptr);

    /// Rebuilds the tiles from the table's headline rows; the run labels name the winners.
    void setTable(const ComparisonTable &table);
    /// The tile of a row by key ("ttft_p50"); null when the table has no such headline row.
    KpiTile *tile(const QString &key) const { return m_tiles.value(key); }
    QStringList keys() const { return m_keys; }

private:
    QHBoxLayout *m_layout;
    QHash<QString, KpiTile *> m_tiles;
    QStringList m_keys;
};

} // namespace tb
