#pragma once

#include "analysis/metriccatalogue.h"

#include <QAbstractTableModel>

#include <optional>
#include <vector>

class QMimeData;

namespace tb {

/// The summary of a run as a table: one row per figure (counts, rates, latency statistics, tokens,
/// concurrency), one column for the whole run, one per stage when there are several and one per
/// instance ("host:port/path") when the target is load-balanced over replicas. Rows
/// without a value anywhere (e.g. TTFT from schedule in a closed-loop run) are left out. The same
/// table is shown, exported as CSV (exact numbers) and copied to the clipboard (as shown, tab
/// separated for spreadsheets, and as an HTML table for documents).
class SummaryTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { MetricColumn, UnitColumn, FirstBlockColumn };
    enum Role {
        ValueRole = Qt::UserRole, ///< the exact number (double), invalid when there is none
        KeyRole,                  ///< the row's key ("ttft_p50", …)
    };

    explicit SummaryTableModel(QObject *parent = nullptr);

    void setSummary(const RunSummary &summary);
    int blockCount() const { return int(m_blocks.size()); }
    /// "run" (or the --window it covers), then the whole run when a window was chosen, the stage names.
    QStringList blockNames() const;
    QString key(int row) const;
    std::optional<double> value(int row, int block) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /// key,metric,unit,run,<stages…> (RFC 4180, CRLF); numbers in their shortest exact form,
    /// empty where there is none.
    QByteArray toCsv() const;
    /// As shown, tab separated, with a header line.
    QString toText() const;
    QString toHtml() const;
    /// Text and HTML, for the clipboard.
    QMimeData *toMimeData() const;

    /// How a value is shown: integers for counts, 4 significant digits otherwise.
    static QString formatValue(double value, const QString &unit);

private:
    /// The first column's name: `whole`, or the window it covers; with the partial note.
    QString firstBlockName(const QString &whole) const;

    std::vector<const MetricCatalogue::Entry *> m_specs; ///< the catalogue's rows with a value somewhere
    std::vector<SummaryBlock> m_blocks;
    /// The first column's name when --window made it a window of the run ("Steady state 10–30 s").
    QString m_headline;
};

} // namespace tb
