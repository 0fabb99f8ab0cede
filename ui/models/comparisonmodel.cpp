#include "models/comparisonmodel.h"

#include "models/quantitystyle.h"

#include "analysis/metriccatalogue.h"
#include "analysis/svgchart.h"

#include <QFont>
#include <QIcon>
#include <QPixmap>

#include <algorithm>
#include <cmath>

namespace tb {

namespace {

using Noise = ComparisonTable::Noise;
using Better = ComparisonTable::Better;

const QColor kBaselineTint(0xf1, 0xf5, 0xfb);

/// "+341.0", "−232.2": a difference always shows its sign.
QString signedNumber(double value)
{
    const QString text = ComparisonTable::formatValue(std::abs(value));
    return (value < 0 ? QString(QChar(0x2212)) : QStringLiteral("+")) + text;
}

/// The paired row behind a comparison row ("ttft_p99" → "ttft").
const PairedComparison::Row *pairedRow(const ComparisonResult &result, const QString &key)
{
    if (!result.paired)
        return nullptr;
    const QString metric = key.section(QLatin1Char('_'), 0, 0);
    for (const PairedComparison::Row &row : result.paired->rows()) {
        if (row.key == metric)
            return &row;
    }
    return nullptr;
}

QIcon swatchIcon(const QColor &color)
{
    QPixmap pixmap(12, 12);
    pixmap.fill(color);
    return QIcon(pixmap);
}

} // namespace

ComparisonModel::ComparisonModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

QColor ComparisonModel::runColor(int run)
{
    return QColor(tb::runColor(run));
}

QStringList ComparisonModel::distinguishingLabels(const QStringList &labels)
{
    if (labels.size() < 2)
        return labels;
    qsizetype common = labels.first().size();
    for (const QString &label : labels) {
        qsizetype same = 0;
        while (same < std::min(common, label.size()) && label[same] == labels.first()[same])
            ++same;
        common = same;
    }
    // Only at a separator, and before the last shared word: "…gpt4-like" and "…gpt4-turbo-like",
    // not "…like" and "…turbo-like", where what is left no longer reads as the run's name.
    qsizetype cut = 0;
    for (qsizetype i = 0; i + 1 < common; ++i) {
        if (QStringLiteral("-_ .:").contains(labels.first()[i]))
            cut = i + 1;
    }
    // A short shared word ("run-") says little but costs little: only a long prefix goes.
    constexpr qsizetype kWorthCutting = 6;
    const bool leavesSomething =
        std::all_of(labels.begin(), labels.end(), [cut](const QString &label) { return label.size() > cut; });
    if (cut < kWorthCutting || !leavesSomething)
        return labels;
    QStringList shortened;
    for (const QString &label : labels)
        shortened << QStringLiteral("…") + label.mid(cut);
    return shortened;
}

void ComparisonModel::setResult(std::shared_ptr<const ComparisonResult> result)
{
    beginResetModel();
    m_result = std::move(result);
    endResetModel();
}

int ComparisonModel::runCount() const
{
    return m_result ? int(m_result->table.labels().size()) : 0;
}

int ComparisonModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_result ? 0 : int(m_result->table.rows().size());
}

int ComparisonModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : FirstRunColumn + runCount();
}

QString ComparisonModel::deltaText(const ComparisonTable::Row &row, int run) const
{
    if (run == m_result->table.baseline())
        return {};
    const auto &delta = row.deltaPct[std::size_t(run)];
    QString text = delta ? ComparisonTable::formatChange(*delta) : QStringLiteral("—");
    const QString noise = ComparisonTable::noiseName(row.noise[std::size_t(run)]);
    if (!noise.isEmpty())
        text += QStringLiteral(" · ") + noise;
    return text;
}

QString ComparisonModel::tooltip(const ComparisonTable::Row &row, int run) const
{
    const ComparisonTable &table = m_result->table;
    const auto &value = row.values[std::size_t(run)];
    QStringList lines;
    lines << QStringLiteral("<b>%1</b> · %2").arg(row.label.toHtmlEscaped(), table.labels()[run].toHtmlEscaped());
    lines << (value ? QStringLiteral("%1 %2").arg(ComparisonTable::formatValue(*value, row.unit),
                                                  row.unit.toHtmlEscaped())
                    : tr("no value (nothing measured)"));
    if (row.best[std::size_t(run)])
        lines << tr("Best of the compared runs (%1 is better)").arg(ComparisonTable::betterName(row.better));
    const int base = table.baseline();
    if (run == base) {
        lines << tr("The baseline the other runs are compared with");
    } else {
        const auto &delta = row.deltaPct[std::size_t(run)];
        if (delta)
            lines << tr("%1 against the baseline #%2")
                         .arg(ComparisonTable::formatChange(*delta), QString::number(base + 1));
        const auto &interval = row.intervals[std::size_t(run)];
        const Noise noise = row.noise[std::size_t(run)];
        switch (noise) {
        case Noise::Significant:
        case Noise::WithinNoise:
            lines << (noise == Noise::Significant
                          ? tr("<b>Significant</b>: the bootstrap 95% confidence interval of the difference, [%1, %2] "
                               "%3, excludes 0")
                          : tr("<b>Within noise</b>: the bootstrap 95% confidence interval of the difference, [%1, "
                               "%2] %3, includes 0"))
                         .arg(ComparisonTable::formatValue(interval->low), ComparisonTable::formatValue(interval->high),
                              row.unit.toHtmlEscaped());
            break;
        case Noise::NotTested:
            lines << (row.better == Better::Neither || !row.key.contains(QLatin1Char('_'))
                          ? tr("One value per run: no noise test")
                          : tr("Not tested: too few requests for a confidence interval"));
            break;
        }
        if (const PairedComparison::Row *paired = pairedRow(*m_result, row.key)) {
            const PairedComparison::Cell &c = paired->cells[std::size_t(run)];
            if (c.median && c.interval)
                lines << tr("Paired (same requests): median %1 ms [%2, %3], %4 over %n requests", nullptr, int(c.pairs))
                             .arg(ComparisonTable::formatValue(*c.median),
                                  ComparisonTable::formatValue(c.interval->low),
                                  ComparisonTable::formatValue(c.interval->high), ComparisonTable::noiseName(c.noise));
        }
    }
    return lines.join(QStringLiteral("<br/>"));
}

QVariant ComparisonModel::runData(const ComparisonTable::Row &row, int run, int role) const
{
    const std::size_t i = std::size_t(run);
    const auto &value = row.values[i];
    const bool isBase = run == m_result->table.baseline();
    switch (role) {
    case Qt::DisplayRole:
        return value ? ComparisonTable::formatValue(*value, row.unit) : QStringLiteral("—");
    case Qt::ToolTipRole:
        return tooltip(row, run);
    case Qt::FontRole:
        if (row.best[i]) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::BackgroundRole:
        return isBase ? QVariant(chartstyle::themed(kBaselineTint, chartstyle::screenTheme())) : QVariant();
    case ValueRole:
        return value ? QVariant(*value) : QVariant();
    case BestRole:
        return bool(row.best[i]);
    case BaselineRole:
        return isBase;
    case DeltaPctRole:
        return row.deltaPct[i] ? QVariant(*row.deltaPct[i]) : QVariant();
    case DeltaTextRole:
        return deltaText(row, run);
    case DeltaToneRole: {
        if (row.noise[i] != Noise::Significant || !row.deltaPct[i] || *row.deltaPct[i] == 0)
            return 0;
        const bool improved = (row.better == Better::Lower) == (*row.deltaPct[i] < 0);
        return improved ? 1 : -1;
    }
    case NoiseRole:
        return int(row.noise[i]);
    case RunColorRole:
        return runColor(run);
    case KeyRole:
        return row.key;
    case BetterRole:
        return ComparisonTable::betterName(row.better);
    default:
        return {};
    }
}

QVariant ComparisonModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_result)
        return {};
    const ComparisonTable::Row &row = m_result->table.rows()[std::size_t(index.row())];
    if (index.column() >= FirstRunColumn)
        return runData(row, index.column() - FirstRunColumn, role);
    if (role == KeyRole)
        return row.key;
    if (role == BetterRole)
        return ComparisonTable::betterName(row.better);
    if (role == Qt::ToolTipRole) {
        const QString better = ComparisonTable::betterName(row.better);
        const QString description = MetricCatalogue::definition(row.key);
        return better.isEmpty() ? description : tr("%1 (%2 is better)").arg(description, better);
    }
    if (role != Qt::DisplayRole)
        return {};
    return index.column() == MetricColumn ? row.label : row.unit;
}

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return {};
    if (section == MetricColumn && role == Qt::TextAlignmentRole)
        return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
    if (section == MetricColumn)
        return role == Qt::DisplayRole ? QVariant(tr("Metric")) : QVariant();
    if (section == UnitColumn)
        return role == Qt::DisplayRole ? QVariant(tr("Unit")) : QVariant();
    const int run = section - FirstRunColumn;
    const bool isBase = run == m_result->table.baseline();
    switch (role) {
    case Qt::DisplayRole:
        return QStringLiteral("#%1 %2%3")
            .arg(QString::number(run + 1), m_result->table.labels()[run], isBase ? tr("\n(baseline)") : QString());
    case Qt::DecorationRole:
        return swatchIcon(runColor(run));
    case Qt::ToolTipRole:
        return m_result->runTips.value(run);
    case RunColorRole:
        return runColor(run);
    case BaselineRole:
        return isBase;
    default:
        return {};
    }
}

QString ComparisonModel::toTsv() const
{
    if (!m_result)
        return {};
    const ComparisonTable &table = m_result->table;
    QStringList header{tr("Metric"), tr("Unit")};
    for (int run = 0; run < runCount(); ++run) {
        header << QStringLiteral("#%1 %2").arg(QString::number(run + 1), table.labels()[run]);
        if (run != table.baseline())
            header << tr("#%1 vs #%2").arg(run + 1).arg(table.baseline() + 1);
    }
    QStringList lines{header.join(QLatin1Char('\t'))};
    for (const ComparisonTable::Row &row : table.rows()) {
        QStringList cells{row.label, row.unit};
        for (int run = 0; run < runCount(); ++run) {
            const auto &value = row.values[std::size_t(run)];
            cells << (value ? ComparisonTable::formatValue(*value, row.unit) : QString());
            if (run != table.baseline())
                cells << deltaText(row, run);
        }
        lines << cells.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

PairedDeltaModel::PairedDeltaModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

void PairedDeltaModel::setResult(std::shared_ptr<const ComparisonResult> result)
{
    beginResetModel();
    m_result = result && result->paired ? std::move(result) : nullptr;
    endResetModel();
}

int PairedDeltaModel::runOfColumn(int column) const
{
    if (!m_result || column < FirstRunColumn)
        return -1;
    // Every run but the baseline, in order.
    const int run = column - FirstRunColumn;
    return run >= m_result->paired->baseline() ? run + 1 : run;
}

int PairedDeltaModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_result ? 0 : int(m_result->paired->rows().size());
}

int PairedDeltaModel::columnCount(const QModelIndex &parent) const
{
    if (parent.isValid())
        return 0;
    return m_result ? FirstRunColumn + int(m_result->paired->labels().size()) - 1 : FirstRunColumn;
}

QVariant PairedDeltaModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_result)
        return {};
    const PairedComparison::Row &row = m_result->paired->rows()[std::size_t(index.row())];
    if (index.column() < FirstRunColumn)
        return role == Qt::DisplayRole ? QVariant(index.column() == MetricColumn ? row.label : row.unit) : QVariant();
    const PairedComparison::Cell &c = row.cells[std::size_t(runOfColumn(index.column()))];
    switch (role) {
    case Qt::DisplayRole: {
        if (!c.median)
            return QStringLiteral("—");
        QString text = signedNumber(*c.median);
        if (c.medianPct)
            text += QStringLiteral(" (%1)").arg(ComparisonTable::formatChange(*c.medianPct));
        return text;
    }
    case ComparisonModel::DeltaTextRole:
        if (!c.interval)
            return tr("%1 pairs").arg(c.pairs);
        return tr("95% CI [%1, %2] · %3 · %4 pairs")
            .arg(ComparisonTable::formatValue(c.interval->low), ComparisonTable::formatValue(c.interval->high),
                 ComparisonTable::noiseName(c.noise), QString::number(c.pairs));
    case ComparisonModel::DeltaToneRole:
        // Lower latency is better.
        if (c.noise != Noise::Significant || !c.median || *c.median == 0)
            return 0;
        return *c.median < 0 ? 1 : -1;
    case Qt::ToolTipRole:
        if (!c.interval)
            return tr("%1 request(s) in both runs: too few for a confidence interval").arg(c.pairs);
        return tr("Median over %1 requests of (run − baseline) for the same request: 95% CI [%2, %3] ms, %4")
            .arg(QString::number(c.pairs), ComparisonTable::formatValue(c.interval->low),
                 ComparisonTable::formatValue(c.interval->high), ComparisonTable::noiseName(c.noise));
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    case ComparisonModel::ValueRole:
        return c.median ? QVariant(*c.median) : QVariant();
    default:
        return {};
    }
}

QVariant PairedDeltaModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= columnCount())
        return {};
    if (section == MetricColumn && role == Qt::TextAlignmentRole)
        return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
    if (section < FirstRunColumn)
        return role == Qt::DisplayRole ? QVariant(section == MetricColumn ? tr("Metric") : tr("Unit")) : QVariant();
    const int run = runOfColumn(section);
    const int base = m_result->paired->baseline();
    switch (role) {
    case Qt::DisplayRole:
        return tr("#%1 %2 − #%3")
            .arg(QString::number(run + 1), m_result->paired->labels()[run], QString::number(base + 1));
    case Qt::DecorationRole:
        return swatchIcon(ComparisonModel::runColor(run));
    default:
        return {};
    }
}

} // namespace tb
