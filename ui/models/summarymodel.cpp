#include "models/summarymodel.h"

#include "analysis/comparison.h"
#include "analysis/metricglossary.h"
#include "formats/csv.h"
#include "formats/numberformat.h"

#include <QLocale>
#include <QMimeData>

#include <cmath>

namespace tb {

namespace {

std::optional<double> finite(double v)
{
    return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

/// A count shown only where there is any.
std::optional<double> ifAny(std::int64_t count)
{
    return count > 0 ? std::optional<double>(double(count)) : std::nullopt;
}

std::optional<double> perOk(const SummaryBlock &b, std::int64_t total)
{
    return b.requests.ok > 0 ? std::optional<double>(double(total) / double(b.requests.ok)) : std::nullopt;
}

QString exact(double v)
{
    return QString::number(v, 'g', QLocale::FloatingPointShortest);
}

const QString kCount = QStringLiteral("count");

} // namespace

std::vector<SummaryTableModel::Spec> SummaryTableModel::allSpecs()
{
    const auto count = [](std::int64_t RequestCounts::*field) {
        return [field](const SummaryBlock &b) { return std::optional<double>(double(b.requests.*field)); };
    };
    const auto stat = [](Metric m, double LatencyStats::*field) {
        return
            [m, field](const SummaryBlock &b) { return b.stat(m).count > 0 ? finite(b.stat(m).*field) : std::nullopt; };
    };
    std::vector<Spec> specs = {
        {QStringLiteral("requests_ok"), tr("Successful requests"), kCount, count(&RequestCounts::ok)},
        {QStringLiteral("requests_failed"), tr("Failed requests"), kCount, count(&RequestCounts::failed)},
        {QStringLiteral("requests_cancelled"), tr("Cancelled by Stop"), kCount, count(&RequestCounts::cancelled)},
        {QStringLiteral("error_pct"), tr("Error rate"), QStringLiteral("%"),
         [](const SummaryBlock &b) {
             return b.requests.attempted > 0
                        ? std::optional<double>(100.0 * double(b.requests.failed) / double(b.requests.attempted))
                        : std::nullopt;
         }},
        {QStringLiteral("window_s"), tr("Measurement window"), QStringLiteral("s"),
         [](const SummaryBlock &b) { return finite(b.windowS); }},
        {QStringLiteral("requests_per_s"), tr("Requests/s"), QStringLiteral("req/s"),
         [](const SummaryBlock &b) { return finite(b.throughput.requestsPerS); }},
        {QStringLiteral("goodput_requests_per_s"), tr("Goodput"), QStringLiteral("req/s"),
         [](const SummaryBlock &b) { return finite(b.throughput.goodputRequestsPerS); }},
        {QStringLiteral("good_pct"), tr("Good fraction"), QStringLiteral("%"),
         [](const SummaryBlock &b) {
             return b.throughput.goodFraction ? std::optional<double>(*b.throughput.goodFraction * 100) : std::nullopt;
         }},
        {QStringLiteral("output_tokens_per_s"), tr("Output tokens/s"), QStringLiteral("tok/s"),
         [](const SummaryBlock &b) { return finite(b.throughput.outputTokensPerS); }},
        {QStringLiteral("input_tokens_per_s"), tr("Input tokens/s"), QStringLiteral("tok/s"),
         [](const SummaryBlock &b) { return finite(b.throughput.inputTokensPerS); }},
        {QStringLiteral("peak_output_tokens_per_s"), tr("Peak output tokens/s"), QStringLiteral("tok/s"),
         [](const SummaryBlock &b) { return finite(b.throughput.peakOutputTokensPerS); }},
    };
    struct LatencyRows {
        Metric metric;
        const char *key;
        const char *label;
        std::vector<std::pair<const char *, double LatencyStats::*>> stats;
    };
    using S = LatencyStats;
    const std::vector<std::pair<const char *, double S::*>> full = {
        {"mean", &S::mean}, {"p50", &S::p50}, {"p90", &S::p90}, {"p99", &S::p99}, {"p999", &S::p999}, {"max", &S::max}};
    const std::vector<std::pair<const char *, double S::*>> brief = {
        {"mean", &S::mean}, {"p50", &S::p50}, {"p99", &S::p99}};
    const std::vector<LatencyRows> latencies = {
        {Metric::Ttft, "ttft", "TTFT", full},
        {Metric::Ttfo, "ttfo", "TTFO", brief},
        {Metric::TtftFromSchedule, "ttft_from_schedule", "TTFT from schedule", brief},
        {Metric::Ttfb, "ttfb", "TTFB", brief},
        {Metric::E2e, "e2e", "E2E", full},
        {Metric::E2eFromSchedule, "e2e_from_schedule", "E2E from schedule", brief},
        {Metric::Tpot, "tpot", "TPOT", brief},
        {Metric::Itl, "itl", "ITL", brief},
        {Metric::Icl, "icl", "ICL", brief},
        {Metric::QueueDelay, "queue_delay", "Queue delay", brief},
        {Metric::Blocked, "blocked", "Blocked", brief},
        {Metric::Connect, "connect", "Connect", brief},
        {Metric::Tls, "tls", "TLS", brief},
        {Metric::Sending, "sending", "Sending", brief},
        {Metric::Waiting, "waiting", "Waiting", brief},
        {Metric::Receiving, "receiving", "Receiving", brief},
    };
    for (const LatencyRows &rows : latencies) {
        for (const auto &[name, field] : rows.stats) {
            const QString statName = QString::fromLatin1(name) == QLatin1String("p999") ? QStringLiteral("p99.9")
                                                                                        : QString::fromLatin1(name);
            specs.push_back({QStringLiteral("%1_%2").arg(QLatin1String(rows.key), QLatin1String(name)),
                             QStringLiteral("%1 %2").arg(QLatin1String(rows.label), statName), QStringLiteral("ms"),
                             stat(rows.metric, field)});
        }
    }
    const std::vector<Spec> rest = {
        {QStringLiteral("connections_opened"), tr("New connections"), kCount,
         [](const SummaryBlock &b) {
             return b.connections.opened + b.connections.reused > 0
                        ? std::optional<double>(double(b.connections.opened))
                        : std::nullopt;
         }},
        {QStringLiteral("connections_reused"), tr("Kept-alive connections"), kCount,
         [](const SummaryBlock &b) {
             return b.connections.opened + b.connections.reused > 0
                        ? std::optional<double>(double(b.connections.reused))
                        : std::nullopt;
         }},
        {QStringLiteral("retries"), tr("Retries"), kCount,
         [](const SummaryBlock &b) {
             return b.requests.retries > 0 ? std::optional<double>(double(b.requests.retries)) : std::nullopt;
         }},
        {QStringLiteral("decode_tokens_per_s_p50"), tr("Decode speed p50"), QStringLiteral("tok/s"),
         stat(Metric::DecodeSpeed, &S::p50)},
        {QStringLiteral("tokens_per_chunk_mean"), tr("Tokens per chunk"), QStringLiteral("tokens"),
         stat(Metric::TokensPerChunk, &S::mean)},
        {QStringLiteral("input_tokens"), tr("Prompt tokens"), QStringLiteral("tokens"),
         [](const SummaryBlock &b) { return std::optional<double>(double(b.tokens.input)); }},
        {QStringLiteral("output_tokens"), tr("Output tokens"), QStringLiteral("tokens"),
         [](const SummaryBlock &b) { return std::optional<double>(double(b.tokens.output)); }},
        {QStringLiteral("reasoning_tokens"), tr("Reasoning tokens"), QStringLiteral("tokens"),
         [](const SummaryBlock &b) { return ifAny(b.tokens.reasoning); }},
        {QStringLiteral("reasoning_hidden_tokens"), tr("Hidden reasoning tokens"), QStringLiteral("tokens"),
         [](const SummaryBlock &b) { return ifAny(b.tokens.reasoningHidden); }},
        {QStringLiteral("stopped_at_cap"), tr("Stopped at max_tokens"), QStringLiteral("requests"),
         [](const SummaryBlock &b) { return ifAny(b.requests.stoppedAtCap()); }},
        {QStringLiteral("input_tokens_per_request"), tr("Prompt tokens per request"), QStringLiteral("tokens"),
         [](const SummaryBlock &b) { return perOk(b, b.tokens.input); }},
        {QStringLiteral("output_tokens_per_request"), tr("Output tokens per request"), QStringLiteral("tokens"),
         [](const SummaryBlock &b) { return perOk(b, b.tokens.output); }},
        {QStringLiteral("out_in_ratio"), tr("Out/in ratio"), QStringLiteral("×"),
         [](const SummaryBlock &b) { return b.tokens.outInRatio; }},
        {QStringLiteral("cache_hit_pct"), tr("Cache hit ratio"), QStringLiteral("%"),
         [](const SummaryBlock &b) {
             return b.tokens.cacheHitRatio ? std::optional<double>(*b.tokens.cacheHitRatio * 100) : std::nullopt;
         }},
        // Where the cached counts came from: a server may report its cache only in llama.cpp's timings.
        {QStringLiteral("cached_from_usage"), tr("Cached counts from usage"), QStringLiteral("requests"),
         [](const SummaryBlock &b) { return ifAny(b.tokens.cachedFromUsage); }},
        {QStringLiteral("cached_from_timings"), tr("Cached counts from timings"), QStringLiteral("requests"),
         [](const SummaryBlock &b) { return ifAny(b.tokens.cachedFromTimings); }},
        {QStringLiteral("concurrency_target"), tr("Target concurrency"), QStringLiteral("requests"),
         [](const SummaryBlock &b) {
             return b.concurrency.target ? std::optional<double>(*b.concurrency.target) : std::nullopt;
         }},
        {QStringLiteral("peak_in_flight"), tr("Peak in flight"), QStringLiteral("requests"),
         [](const SummaryBlock &b) { return std::optional<double>(b.concurrency.peakInFlight); }},
        {QStringLiteral("mean_in_flight"), tr("Mean in flight"), QStringLiteral("requests"),
         [](const SummaryBlock &b) { return finite(b.concurrency.meanInFlight); }},
    };
    specs.insert(specs.end(), rest.begin(), rest.end());
    return specs;
}

SummaryTableModel::SummaryTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

void SummaryTableModel::setSummary(const RunSummary &summary)
{
    std::vector<SummaryBlock> blocks{summary.total};
    if (summary.stages.size() > 1)
        blocks.insert(blocks.end(), summary.stages.begin(), summary.stages.end());
    for (const SummaryBlock &instance : summary.instances) {
        blocks.push_back(instance);
        blocks.back().name = instanceName(instance.name);
    }
    std::vector<Spec> specs;
    for (Spec &spec : allSpecs()) {
        if (std::any_of(blocks.begin(), blocks.end(), [&](const SummaryBlock &b) { return spec.value(b).has_value(); }))
            specs.push_back(std::move(spec));
    }
    const bool sameShape = blocks.size() == m_blocks.size() && specs.size() == m_specs.size() &&
                           std::equal(specs.begin(), specs.end(), m_specs.begin(),
                                      [](const Spec &a, const Spec &b) { return a.key == b.key; }) &&
                           std::equal(blocks.begin(), blocks.end(), m_blocks.begin(),
                                      [](const SummaryBlock &a, const SummaryBlock &b) { return a.name == b.name; });
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
    for (std::size_t i = 0; i < m_blocks.size(); ++i)
        names << (i == 0 ? tr("run") : m_blocks[i].name);
    return names;
}

QString SummaryTableModel::key(int row) const
{
    return row >= 0 && std::size_t(row) < m_specs.size() ? m_specs[std::size_t(row)].key : QString();
}

std::optional<double> SummaryTableModel::value(int row, int block) const
{
    if (row < 0 || std::size_t(row) >= m_specs.size() || block < 0 || std::size_t(block) >= m_blocks.size())
        return std::nullopt;
    return m_specs[std::size_t(row)].value(m_blocks[std::size_t(block)]);
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
    if (unit == kCount || (unit == QLatin1String("tokens") && value == std::floor(value)))
        return QString::number(qint64(value));
    return formatNumber(value, 4);
}

QVariant SummaryTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Spec &spec = m_specs[std::size_t(index.row())];
    if (role == KeyRole)
        return spec.key;
    if (role == Qt::ToolTipRole)
        return MetricGlossary::definitionOf(spec.key);
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
    return section == FirstBlockColumn ? tr("Whole run") : blockNames().at(section - FirstBlockColumn);
}

QByteArray SummaryTableModel::toCsv() const
{
    std::string out;
    std::vector<std::string> fields = {"key", "metric", "unit"};
    for (const QString &name : blockNames())
        fields.push_back(name.toStdString());
    appendCsvRecord(out, fields);
    for (int row = 0; row < rowCount(); ++row) {
        const Spec &spec = m_specs[std::size_t(row)];
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
