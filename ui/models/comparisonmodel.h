#pragma once

#include "analysis/comparison.h"

#include <QAbstractTableModel>
#include <QColor>

#include <memory>
#include <optional>

namespace tb {

/// What the comparison view shows, computed off the GUI thread and shared read-only.
struct ComparisonResult {
    ComparisonTable table;
    std::optional<PairedComparison> paired; ///< runs of one interleaved session
    QStringList directories;                ///< per run
    QStringList runTips;                    ///< per run: model, URL, start (header tooltips)
};

/// The comparison table (tb::ComparisonTable) as a model: one row per metric, columns Metric and
/// Unit, then one column per run. A run's cell shows its value (DisplayRole), bold where it is the
/// row's best; the change against the baseline and its noise verdict come as DeltaTextRole and
/// DeltaToneRole for the delegate, and in full (confidence interval, paired per-request median)
/// in the tooltip. Run headers carry the run's colour — the colour of its lines in the charts.
class ComparisonModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { MetricColumn, UnitColumn, FirstRunColumn };
    enum Role {
        ValueRole = Qt::UserRole, ///< double, or invalid when the run has no value
        BestRole,                 ///< bool
        BaselineRole,             ///< bool: the column is the baseline
        DeltaPctRole,             ///< double against the baseline, or invalid
        DeltaTextRole,            ///< "+12.3% · significant"; empty for the baseline
        DeltaToneRole,            ///< int: +1 significantly better, −1 significantly worse, 0 otherwise
        NoiseRole,                ///< int: ComparisonTable::Noise
        RunColorRole,             ///< QColor of the run
        KeyRole,                  ///< the row's key ("ttft_p50")
        BetterRole,               ///< "lower", "higher" or empty: which way the row is better
    };

    explicit ComparisonModel(QObject *parent = nullptr);

    /// Shows a comparison (a reset); null clears.
    void setResult(std::shared_ptr<const ComparisonResult> result);
    const ComparisonResult *result() const { return m_result.get(); }
    int runCount() const;
    static int columnOfRun(int run) { return FirstRunColumn + run; }
    static QColor runColor(int run);
    /// Runs' names as short as still tells them apart: a prefix they all share (the date of
    /// timestamp-named runs, "20261203-11…") becomes "…", cut where a word ends.
    static QStringList distinguishingLabels(const QStringList &labels);

    /// The table as tab-separated text (values and deltas) for a spreadsheet or a document.
    QString toTsv() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant runData(const ComparisonTable::Row &row, int run, int role) const;
    QString deltaText(const ComparisonTable::Row &row, int run) const;
    QString tooltip(const ComparisonTable::Row &row, int run) const;

    std::shared_ptr<const ComparisonResult> m_result;
};

/// The paired per-request differences of an interleaved session (tb::PairedComparison): one row per
/// latency metric, columns Metric and Unit, then one column per run other than the baseline:
/// the median difference with its share of the baseline's median, the interval in the tooltip.
class PairedDeltaModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { MetricColumn, UnitColumn, FirstRunColumn };

    explicit PairedDeltaModel(QObject *parent = nullptr);

    void setResult(std::shared_ptr<const ComparisonResult> result);
    /// The run a column shows, −1 for Metric and Unit.
    int runOfColumn(int column) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const ComparisonResult> m_result;
};

} // namespace tb
