#include "observe/metricsscraper.h"

#include "config/runconfig.h"
#include "formats/csv.h"

#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QThread>
#include <QTimer>

#include <charconv>

namespace tb {

/// The scraping itself, on the scraper's thread; reports to the MetricsScraper by queued calls.
class MetricsScraper::Worker : public QObject
{
public:
    Worker(MetricsScraper *owner, Options options)
        : m_owner(owner)
        , m_options(std::move(options))
    {}

    void start()
    {
        m_network = new QNetworkAccessManager(this);
        m_timer = new QTimer(this);
        m_timer->setTimerType(Qt::PreciseTimer);
        connect(m_timer, &QTimer::timeout, this, [this] { scrape(); });
        m_timer->start(m_options.intervalMs);
        // Transfer timeouts count silence; this bounds a reply that trickles in, too.
        m_deadline = new QTimer(this);
        m_deadline->setSingleShot(true);
        connect(m_deadline, &QTimer::timeout, this, [this] {
            if (m_reply) {
                m_timedOut = true;
                m_reply->abort();
            }
        });
        scrape();
    }

    void finish()
    {
        if (m_timer)
            m_timer->stop();
        m_finishing = true;
        if (m_stopped) {
            done();
            return;
        }
        if (!m_reply)
            scrape(); // else the scrape under way is the last
    }

private:
    void scrape()
    {
        if (m_stopped || m_reply)
            return; // one at a time: a slow endpoint gets fewer scrapes, never a pile of them
        QNetworkRequest request(m_options.url);
        request.setTransferTimeout(m_options.timeoutMs);
        request.setRawHeader(
            "Accept", "application/openmetrics-text;version=1.0.0;q=0.8,text/plain;version=0.0.4;q=0.9,*/*;q=0.1");
        request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
        QNetworkReply *reply = m_network->get(request);
        m_reply = reply;
        m_deadline->start(m_options.timeoutMs);
        connect(reply, &QNetworkReply::metaDataChanged, this, [this, reply] {
            const qint64 length = reply->header(QNetworkRequest::ContentLengthHeader).toLongLong();
            if (length > qint64(m_options.limits.maxBytes))
                abortTooLarge(reply);
        });
        connect(reply, &QNetworkReply::downloadProgress, this, [this, reply](qint64 received, qint64) {
            if (received > qint64(m_options.limits.maxBytes))
                abortTooLarge(reply);
        });
        connect(reply, &QNetworkReply::finished, this, [this, reply] { onReply(reply); });
    }

    void abortTooLarge(QNetworkReply *reply)
    {
        if (m_tooLarge)
            return;
        m_tooLarge = true;
        reply->abort();
    }

    void onReply(QNetworkReply *reply)
    {
        reply->deleteLater();
        m_reply = nullptr;
        m_deadline->stop();
        const double tS = double(m_options.clock.nowNs()) / 1e9;
        const bool tooLarge = std::exchange(m_tooLarge, false);
        const bool timedOut = std::exchange(m_timedOut, false);
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        QString problem;
        std::optional<PromExposition> exposition;
        if (tooLarge) {
            problem = QStringLiteral("larger than %1 bytes").arg(m_options.limits.maxBytes);
        } else if (timedOut || reply->error() == QNetworkReply::OperationCanceledError ||
                   reply->error() == QNetworkReply::TimeoutError) {
            problem = QStringLiteral("no answer within %1 ms").arg(m_options.timeoutMs);
        } else if (status != 0 && status != 200) {
            problem = QStringLiteral("answered HTTP %1").arg(status);
        } else if (reply->error() != QNetworkReply::NoError) {
            problem = reply->errorString();
        } else {
            const QByteArray body = reply->read(qint64(m_options.limits.maxBytes) + 1);
            QString why;
            exposition = parsePrometheusText(body, &why, m_options.limits);
            if (!exposition)
                problem = QStringLiteral("not Prometheus text (%1)").arg(why);
        }
        if (exposition) {
            m_everScraped = true;
            writeCsv(tS, *exposition);
            const ServerPoint point = mapServerMetrics(*exposition, tS);
            const QString engine = detectServerEngine(*exposition);
            QMetaObject::invokeMethod(
                m_owner, [o = m_owner, point, engine] { Q_EMIT o->scraped(point, engine); }, Qt::QueuedConnection);
        } else {
            // A guessed endpoint that does not answer is simply not there: stop asking it.
            const bool stop = m_options.discovered && !m_everScraped;
            m_stopped = m_stopped || stop;
            if (stop && m_timer)
                m_timer->stop();
            QMetaObject::invokeMethod(
                m_owner, [o = m_owner, problem, stop] { Q_EMIT o->scrapeFailed(problem, stop); }, Qt::QueuedConnection);
        }
        if (m_finishing)
            done();
    }

    void done()
    {
        if (m_done)
            return;
        m_done = true;
        m_csv.close();
        QMetaObject::invokeMethod(
            m_owner, [o = m_owner] { Q_EMIT o->finished(); }, Qt::QueuedConnection);
    }

    void writeCsv(double tS, const PromExposition &exposition)
    {
        if (m_options.csvPath.isEmpty() || m_csvFailed)
            return;
        if (!m_csv.isOpen()) {
            m_csv.setFileName(m_options.csvPath);
            if (!m_csv.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
                m_csvFailed = true;
                return;
            }
            m_buffer = "t_s,name,labels,value";
            m_buffer += kCsvLineEnd;
        }
        char stamp[32];
        const int stampLength = std::snprintf(stamp, sizeof stamp, "%.3f", tS);
        std::string line;
        for (const PromSample &s : exposition.samples) {
            line.assign(stamp, std::size_t(stampLength));
            appendCsvField(line, s.name);
            appendCsvField(line, formatPromLabels(s.labels));
            char value[32];
            const auto [end, ec] = std::to_chars(value, value + sizeof value, s.value);
            appendCsvField(line, std::string_view(value, ec == std::errc() ? std::size_t(end - value) : 0));
            line += kCsvLineEnd;
            m_buffer += line;
        }
        if (m_csv.write(m_buffer.data(), qint64(m_buffer.size())) != qint64(m_buffer.size()) || !m_csv.flush())
            m_csvFailed = true; // the run's own files matter more; scraping goes on without its CSV
        m_buffer.clear();
    }

    MetricsScraper *m_owner;
    Options m_options;
    QNetworkAccessManager *m_network = nullptr;
    QTimer *m_timer = nullptr;
    QTimer *m_deadline = nullptr;
    QPointer<QNetworkReply> m_reply;
    QFile m_csv;
    std::string m_buffer;
    bool m_tooLarge = false;
    bool m_timedOut = false;
    bool m_stopped = false;
    bool m_finishing = false;
    bool m_done = false;
    bool m_everScraped = false;
    bool m_csvFailed = false;
};

QUrl MetricsScraper::endpointFor(const TargetConfig &target, bool *discovered)
{
    if (discovered)
        *discovered = false;
    if (!target.serverMetrics)
        return {};
    if (!target.serverMetricsUrl.isEmpty())
        return QUrl(target.serverMetricsUrl);
    QUrl url(target.url);
    if (!url.isValid() || url.host().isEmpty())
        return {};
    url.setUserInfo(QString());
    url.setPath(QStringLiteral("/metrics"));
    url.setQuery(QString());
    url.setFragment(QString());
    if (discovered)
        *discovered = true;
    return url;
}

QString MetricsScraper::displayUrl(const QUrl &url)
{
    return url.adjusted(QUrl::RemoveUserInfo | QUrl::RemoveQuery | QUrl::RemoveFragment).toString();
}

MetricsScraper::MetricsScraper(Options options, QObject *parent)
    : QObject(parent)
    , m_thread(new QThread)
    , m_worker(new Worker(this, std::move(options)))
{
    m_thread->setObjectName(QStringLiteral("tb-scrape"));
    m_worker->moveToThread(m_thread);
}

MetricsScraper::~MetricsScraper()
{
    if (m_thread->isRunning()) {
        Worker *worker = m_worker;
        // Its network objects belong to its thread: delete it there.
        QMetaObject::invokeMethod(
            worker, [worker] { delete worker; }, Qt::BlockingQueuedConnection);
        m_thread->quit();
        m_thread->wait();
    } else {
        delete m_worker;
    }
    delete m_thread;
}

void MetricsScraper::start()
{
    m_thread->start();
    Worker *worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker] { worker->start(); }, Qt::QueuedConnection);
}

void MetricsScraper::finish()
{
    Worker *worker = m_worker;
    QMetaObject::invokeMethod(
        worker, [worker] { worker->finish(); }, Qt::QueuedConnection);
}

} // namespace tb
