#include "models/summarymodel.h"

#include "analysis/comparison.h"
#include "analysis/metriccatalogue.h"
#include "formats/csv.h"
#include "formats/numberformat.h"

#include <QLocale>
#include <QMimeData>

namespace tb {

namespace {

QString exact(double v)
{
    return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

const QString kCount = QStringLiteral("count");

} // namespace

SummaryTableModel::SummaryTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

void SummaryTableModel::setSummary(const RunSummary &summary)
{
    std::vector<SummaryBlock> blocks{summary.total};
    // --window: the headline column is the window; the whole run follows it.
    m_headline = summary.window
                     ? tr("%1 %2–%3 s")
                           .arg(summary.window->mode == QLatin1String("steady") ? tr("Steady state") : tr("Sent"))
                           .arg(formatNumber(summary.window->startS))
                           .arg(formatNumber(summary.window->endS))
                     : QString();
    if (summary.window) {
        blocks.push_back(summary.window->whole);
        blocks.back().name = tr("Whole run");
    }
    if (summary.stages.size() > 1)
        blocks.insert(blocks.end(), summary.stages.begin(), summary.stages.end());
    for (const SummaryBlock &instance : summary.instances) {
        blocks.push_back(instance);
        blocks.back().name = instanceName(instance.name);
    }
    // A --model mix: a column per model, named after it (the block's own name).
    blocks.insert(blocks.end(), summary.models.begin(), summary.models.end());
    std::vector<const MetricCatalogue::Entry *> specs;
    for (const MetricCatalogue::Entry &metric : MetricCatalogue::all()) {
        if (metric.inSummary &&
            std::any_of(blocks.begin(), blocks.end(), [&](const SummaryBlock &b) { return metric.of(b).has_value(); }))
            specs.push_back(&metric);
    }
    const bool sameShape =
        blocks.size() == m_blocks.size() && specs.size() == m_specs.size() &&
        std::equal(specs.begin(), specs.end(), m_specs.begin(),
                   [](const auto *a, const auto *b) { return a->key == b->key; }) &&
        std::equal(blocks.begin(), blocks.end(), m_blocks.begin(),
                   [](const SummaryBlock &a, const SummaryBlock &b) { return a.label() == b.label(); });
    if (sameShape) {
        // A live run updates values in place, so the view keeps its selection and scroll position.
        m_blocks = std::move(blocks);
        if (!m_specs.empty())
            Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
        return;
    }
    beginResetModel();
    m_blocks = std::move(blocks);
    m_specs = std::move(specs);
    endResetModel();
}

QStringList SummaryTableModel::blockNames() const
{
    QStringList names;
    // A block Stop cut says so in its name, wherever its column goes (the header, CSV, a copy).
    for (std::size_t i = 0; i < m_blocks.size(); ++i)
        names << (i == 0 ? firstBlockName(tr("run")) : m_blocks[i].label());
    return names;
}

QString SummaryTableModel::firstBlockName(const QString &whole) const
{
    const QString name = m_headline.isEmpty() ? whole : m_headline;
    const SummaryBlock &run = m_blocks.front();
    return run.partial() ? tr("%1 (%2)").arg(name, run.partialNote()) : name;
}

QString SummaryTableModel::key(int row) const
{
    return row >= 0 && std::size_t(row) < m_specs.size() ? m_specs[std::size_t(row)]->key : QString();
}

std::optional<double> SummaryTableModel::value(int row, int block) const
{
    if (row < 0 || std::size_t(row) >= m_specs.size() || block < 0 || std::size_t(block) >= m_blocks.size())
        return std::nullopt;
    return m_specs[std::size_t(row)]->of(m_blocks[std::size_t(block)]);
}

int SummaryTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_specs.size());
}

int SummaryTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : FirstBlockColumn + int(m_blocks.size());
}

QString SummaryTableModel::formatValue(double value, const QString &unit)
{
    if (MetricCatalogue::isWholeCount(value, unit))
        return QString::number(qint64(value));
    return formatNumber(value, 4);
}

QVariant SummaryTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const MetricCatalogue::Entry &spec = *m_specs[std::size_t(index.row())];
    if (role == KeyRole)
        return spec.key;
    if (role == Qt::ToolTipRole)
        return MetricCatalogue::definition(spec.key);
    if (index.column() == MetricColumn)
        return role == Qt::DisplayRole ? QVariant(spec.label) : QVariant();
    if (index.column() == UnitColumn)
        return role == Qt::DisplayRole ? QVariant(spec.unit == kCount ? QString() : spec.unit) : QVariant();
    const std::optional<double> v = value(index.row(), index.column() - FirstBlockColumn);
    switch (role) {
    case Qt::DisplayRole:
        return v ? formatValue(*v, spec.unit) : QStringLiteral("—");
    case ValueRole:
        return v ? QVariant(*v) : QVariant();
    case Qt::TextAlignmentRole:
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant SummaryTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= columnCount())
        return QAbstractTableModel::headerData(section, orientation, role);
    if (section == MetricColumn)
        return tr("Metric");
    if (section == UnitColumn)
        return tr("Unit");
    if (section > FirstBlockColumn)
        return blockNames().at(section - FirstBlockColumn);
    return firstBlockName(tr("Whole run"));
}

QByteArray SummaryTableModel::toCsv() const
{
    std::string out;
    std::vector<std::string> fields = {"key", "metric", "unit"};
    for (const QString &name : blockNames())
        fields.push_back(name.toStdString());
    appendCsvRecord(out, fields);
    for (int row = 0; row < rowCount(); ++row) {
        const MetricCatalogue::Entry &spec = *m_specs[std::size_t(row)];
        fields = {spec.key.toStdString(), spec.label.toStdString(), spec.unit.toStdString()};
        for (int block = 0; block < blockCount(); ++block) {
            const std::optional<double> v = value(row, block);
            fields.push_back(v ? exact(*v).toStdString() : std::string());
        }
        appendCsvRecord(out, fields);
    }
    return QByteArray::fromStdString(out);
}

QString SummaryTableModel::toText() const
{
    QStringList lines;
    QStringList header;
    for (int c = 0; c < columnCount(); ++c)
        header << headerData(c, Qt::Horizontal).toString();
    lines << header.join(QLatin1Char('\t'));
    for (int row = 0; row < rowCount(); ++row) {
        QStringList cells;
        for (int c = 0; c < columnCount(); ++c)
            cells << index(row, c).data().toString();
        lines << cells.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QString SummaryTableModel::toHtml() const
{
    QString html = QStringLiteral("<table border='1' cellspacing='0' cellpadding='3'><tr>");
    for (int c = 0; c < columnCount(); ++c)
        html += QStringLiteral("<th>%1</th>").arg(headerData(c, Qt::Horizontal).toString().toHtmlEscaped());
    html += QStringLiteral("</tr>");
    for (int row = 0; row < rowCount(); ++row) {
        html += QStringLiteral("<tr>");
        for (int c = 0; c < columnCount(); ++c)
            html +=
                (c >= FirstBlockColumn ? QStringLiteral("<td align='right'>%1</td>") : QStringLiteral("<td>%1</td>"))
                    .arg(index(row, c).data().toString().toHtmlEscaped());
        html += QStringLiteral("</tr>");
    }
    return html + QStringLiteral("</table>");
}

QMimeData *SummaryTableModel::toMimeData() const
{
    auto *mime = new QMimeData;
    mime->setText(toText());
    mime->setHtml(toHtml());
    return mime;
}

} // namespace tb
