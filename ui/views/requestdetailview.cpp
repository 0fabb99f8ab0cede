#include "views/requestdetailview.h"

#include "charts/chartstyle.h"
#include "charts/chartview.h"
#include "formats/numberformat.h"
#include "models/requestsmodel.h"
#include "models/timelinemodel.h"
#include "results/chunkreader.h"
#include "widgets/apptheme.h"
#include "widgets/card.h"

#include <QChart>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <QValueAxis>

namespace tb {

namespace {

QString ms(const std::optional<double> &value)
{
    return value ? formatMs(*value) : QStringLiteral("—");
}

} // namespace

RequestDetailView::RequestDetailView(QWidget *parent)
    : QWidget(parent)
    , m_reader(new ChunkReader(this))
    , m_timeline(new TimelineModel(this))
    , m_heading(new QLabel(this))
    , m_facts(new QLabel(this))
    , m_error(new QLabel(this))
    , m_chunkStatus(new QLabel(this))
    , m_events(new QTableView(this))
    , m_chart(new QChart)
    , m_chartView(new ChartView(m_chart, this))
{
    setObjectName(QStringLiteral("requestDetail"));
    QFont headingFont = m_heading->font();
    headingFont.setWeight(QFont::DemiBold);
    m_heading->setFont(headingFont);
    m_heading->setObjectName(QStringLiteral("requestHeading"));
    m_facts->setObjectName(QStringLiteral("requestFacts"));
    m_facts->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_facts->setWordWrap(true);
    m_error->setObjectName(QStringLiteral("requestError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    AppTheme::setStyleSheet(m_error, QStringLiteral("QLabel { background: #fdecea; color: #8a1c1c; border: 1px solid "
                                                    "#f5c2c0; border-radius: 3px; padding: 6px; }"));
    m_error->hide();
    m_chunkStatus->setObjectName(QStringLiteral("chunkStatus"));
    setTextColor(m_chunkStatus, QColor(0x4b, 0x55, 0x63));
    m_chunkStatus->setWordWrap(true);

    m_events->setObjectName(QStringLiteral("timelineTable"));
    m_events->setModel(m_timeline);
    m_events->verticalHeader()->hide();
    m_events->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_events->verticalHeader()->setDefaultSectionSize(m_events->fontMetrics().height() + 6);
    m_events->horizontalHeader()->setSectionResizeMode(TimelineModel::EventColumn, QHeaderView::Stretch);
    m_events->setAlternatingRowColors(true);
    m_events->setSelectionBehavior(QAbstractItemView::SelectRows);

    m_chart->setTitle(tr("Token arrival"));
    chartstyle::applyTheme(m_chart);
    m_chart->legend()->setVisible(false);
    m_chartView->setObjectName(QStringLiteral("tokenArrivalChart"));
    m_chartView->setMinimumSize(260, 180);

    auto *left = new QWidget(this);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_heading);
    leftLayout->addWidget(m_facts);
    leftLayout->addWidget(m_error);
    leftLayout->addWidget(m_chunkStatus);
    leftLayout->addWidget(m_events, 1);
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(left);
    split->addWidget(m_chartView);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addWidget(split);

    connect(m_reader, &ChunkReader::loaded, this, [this](quint64 id, const std::vector<ChunkStamp> &chunks) {
        if (!m_hasRecord || id != m_record.id)
            return; // an answer for a request no longer shown
        m_record.tokenChunks = chunks;
        m_chunkStatus->setText(tr("%n streamed chunk(s) from chunks.jsonl.", nullptr, int(chunks.size())));
        m_chunkStatus->setProperty("state", QStringLiteral("loaded"));
        showTimeline(m_record);
        Q_EMIT timelineReady();
    });
    connect(m_reader, &ChunkReader::failed, this, [this](quint64 id, const QString &error) {
        if (!m_hasRecord || id != m_record.id)
            return;
        m_chunkStatus->setText(error);
        m_chunkStatus->setProperty("state", error);
        showTimeline(m_record); // the chart says why it stays empty, no longer "Loading…"
        Q_EMIT timelineReady();
    });
    clear();
}

RequestDetailView::~RequestDetailView() = default;

void RequestDetailView::clear()
{
    m_hasRecord = false;
    m_record = RequestRecord();
    m_heading->setText(tr("Select a request to see its timeline."));
    m_facts->clear();
    m_error->hide();
    m_chunkStatus->clear();
    m_timeline->clear();
    m_chart->removeAllSeries();
    m_chartView->setEmptyText(tr("Select a request to see when its tokens arrived."));
    m_chartView->setEmpty(true);
}

void RequestDetailView::showRecord(const RequestRecord &record, const QString &runDirectory)
{
    m_record = record;
    m_record.tokenChunks = {};
    m_hasRecord = true;
    m_heading->setText(tr("Request %1 · %2").arg(record.id).arg(RequestsModel::statusText(record)));
    QStringList facts;
    facts << tr("sent at %1 s").arg(double(record.sentNs) / 1e9, 0, 'f', 3) << tr("TTFB %1").arg(ms(record.ttfbMs()))
          << tr("TTFT %1").arg(ms(record.ttftMs())) << tr("E2E %1").arg(ms(record.e2eMs()))
          << tr("TPOT %1").arg(ms(record.tpotMs()));
    if (record.queueMs() && *record.queueMs() > 0)
        facts << tr("queued %1").arg(ms(record.queueMs()));
    if (record.blockedNs >= 0) {
        QStringList phases{tr("blocked %1").arg(ms(record.blockedMs()))};
        if (record.connectNs >= 0)
            phases << tr("connect %1").arg(ms(record.connectMs())) << tr("TLS %1").arg(ms(record.tlsMs()))
                   << tr("sending %1").arg(ms(record.sendingMs()));
        phases << tr("waiting %1").arg(ms(record.waitingMs())) << tr("receiving %1").arg(ms(record.receivingMs()));
        facts << tr("phases: %1").arg(phases.join(QStringLiteral(", ")));
    }
    if (record.retries > 0)
        facts << tr("sent again (×%1): its kept-alive connection closed before any response").arg(record.retries);
    facts << tr("tokens in %1 (cached %2) / out %3 (%4)")
                 .arg(record.promptTokens)
                 .arg(record.cachedTokens)
                 .arg(record.completionTokens)
                 .arg(QLatin1String(tokenSourceName(record.tokenSource)));
    if (record.reasoningTokens > 0)
        facts << tr("reasoning %1").arg(record.reasoningTokens);
    if (!record.finishReason.isEmpty())
        facts << tr("finish: %1").arg(record.finishReason);
    if (!record.responseId.isEmpty())
        facts << tr("response id %1").arg(record.responseId);
    if (record.retryAfterS >= 0)
        facts << tr("Retry-After %1 s").arg(record.retryAfterS);
    m_facts->setText(facts.join(QStringLiteral(" · ")));
    m_error->setVisible(!record.errorMessage.isEmpty());
    m_error->setText(record.errorMessage);

    if (record.chunks > 0 && !runDirectory.isEmpty()) {
        m_chunkStatus->setText(tr("Loading the chunk timeline…"));
        m_chunkStatus->setProperty("state", QStringLiteral("loading"));
        m_reader->request(runDirectory, record.id);
    } else {
        m_chunkStatus->setText(record.chunks > 0 ? tr("No chunk stamps: they are read from a saved run's chunks.jsonl.")
                                                 : tr("No streamed chunks."));
        m_chunkStatus->setProperty("state", QStringLiteral("none"));
    }
    showTimeline(m_record);
}

QString RequestDetailView::chunkStatus() const
{
    return m_chunkStatus->property("state").toString();
}

QString RequestDetailView::errorText() const
{
    return m_error->isVisible() ? m_error->text() : QString();
}

void RequestDetailView::showTimeline(const RequestRecord &record)
{
    m_timeline->setRecord(record);
    m_events->resizeColumnsToContents();

    // Cumulative tokens against time since sent: stalls, bursts and the first-token wait show as
    // flat stretches and steps.
    m_chart->removeAllSeries();
    for (QAbstractAxis *axis : m_chart->axes()) {
        m_chart->removeAxis(axis);
        delete axis;
    }
    const double sent = double(record.sentNs);
    auto *tokens = new QLineSeries;
    tokens->setName(tr("output tokens"));
    tokens->setPen(chartstyle::pen(chartstyle::color(Quantity::OutputTokens), false, 1.5));
    chartstyle::setDescription(tokens, tr("Tokens received so far"));
    auto *arrivals = new QScatterSeries;
    arrivals->setName(tr("chunks"));
    arrivals->setMarkerSize(6);
    arrivals->setColor(chartstyle::color(Quantity::OutputTokens));
    arrivals->setBorderColor(Qt::white);
    chartstyle::setDescription(arrivals, tr("A streamed chunk arrived (its tokens counted in)"));
    double total = 0;
    double endMs = 0;
    for (const TimelineModel::Event &e : m_timeline->events()) {
        endMs = std::max(endMs, (double(e.tNs) - sent) / 1e6);
        if (e.tokens < 0)
            continue;
        const double x = (double(e.tNs) - sent) / 1e6;
        tokens->append(x, total);
        total += double(e.tokens);
        tokens->append(x, total);
        arrivals->append(x, total);
    }
    // Dots help while they can be told apart; a long stream reads better as the step line alone.
    arrivals->setVisible(arrivals->count() <= 200);
    const bool empty = tokens->count() == 0;
    auto *x = new QValueAxis;
    x->setTitleText(tr("ms since sent"));
    auto *y = new QValueAxis;
    y->setTitleText(tr("tokens"));
    m_chart->addAxis(x, Qt::AlignBottom);
    m_chart->addAxis(y, Qt::AlignLeft);
    chartstyle::styleAxis(x);
    chartstyle::styleAxis(y);
    for (QXYSeries *series : {static_cast<QXYSeries *>(tokens), static_cast<QXYSeries *>(arrivals)}) {
        m_chart->addSeries(series);
        series->attachAxis(x);
        series->attachAxis(y);
    }
    // First token and done, as the dashboard colours TTFT and E2E.
    const auto mark = [&](const std::optional<double> &at, const QString &name, Quantity quantity) {
        if (!at)
            return;
        auto *line = new QLineSeries;
        line->setName(name);
        line->setPen(chartstyle::pen(chartstyle::color(quantity), true, 1.2));
        line->append(*at, 0);
        line->append(*at, std::max(total, 1.0));
        chartstyle::setDescription(line, name == tr("TTFT") ? chartstyle::describe(Metric::Ttft)
                                                            : chartstyle::describe(Metric::E2e));
        m_chart->addSeries(line);
        line->attachAxis(x);
        line->attachAxis(y);
    };
    mark(record.ttftMs(), tr("TTFT"), Quantity::Ttft);
    mark(record.e2eMs(), tr("E2E"), Quantity::E2e);
    chartstyle::setNiceRange(x, 0, std::max(endMs, 1.0), 5);
    chartstyle::setNiceRange(y, 0, std::max(total, 1.0), 4);
    m_chartView->setEmptyText(record.chunks == 0                          ? tr("No tokens were streamed.")
                              : chunkStatus() == QLatin1String("loading") ? tr("Loading the chunk timeline…")
                                                                          : m_chunkStatus->text());
    m_chartView->setEmpty(empty);
    m_chartView->updateTooltips();
}

} // namespace tb
