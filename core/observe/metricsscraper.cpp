#include "observe/metricsscraper.h"

#include "config/outputfile.h"
#include "config/runconfig.h"
#include "formats/csv.h"

#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QPointer>
#include <QThread>
#include <QTimer>

#include <algorithm>
#include <charconv>

namespace tb {

namespace {

constexpr qint64 kReadSlack = 64 * 1024; // more than one read of the socket

} // namespace

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
        connect(m_timer, &QTimer::timeout, this, [this] {
            for (Source &source : m_sources)
                scrape(source);
        });
        m_timer->start(m_options.intervalMs);
        m_sources.resize(m_options.endpoints.size());
        for (std::size_t i = 0; i < m_sources.size(); ++i) {
            Source &source = m_sources[i];
            source.index = int(i);
            source.endpoint = m_options.endpoints[i];
            // Transfer timeouts count silence; this bounds a reply that trickles in, too.
            source.deadline = new QTimer(this);
            source.deadline->setSingleShot(true);
            connect(source.deadline, &QTimer::timeout, this, [this, &source] { overdue(source); });
        }
        for (Source &source : m_sources)
            scrape(source);
    }

    void finish()
    {
        if (m_timer)
            m_timer->stop();
        m_finishing = true;
        for (Source &source : m_sources) {
            if (source.stopped)
                source.finished = true;
            else if (!source.reply)
                scrape(source); // else the scrape under way is the last
        }
        finishIfDone();
    }

private:
    struct Source {
        int index = 0;
        Endpoint endpoint;
        QPointer<QNetworkReply> reply;
        QTimer *deadline = nullptr;
        bool late = false; ///< the reply under way had no answer within timeoutMs (reported)
        bool tooLarge = false;
        bool stopped = false;
        bool everScraped = false;
        bool probed = false;
        bool finished = false; ///< finish(): its last scrape is over
    };

    void scrape(Source &source)
    {
        if (source.stopped || source.reply)
            return; // one at a time: a slow endpoint gets fewer scrapes, never a pile of them
        QNetworkRequest request(source.endpoint.url);
        request.setTransferTimeout(m_options.patienceMs);
        request.setRawHeader(
            "Accept", "application/openmetrics-text;version=1.0.0;q=0.8,text/plain;version=0.0.4;q=0.9,*/*;q=0.1");
        request.setAttribute(QNetworkRequest::Http2AllowedAttribute, false);
        QNetworkReply *reply = m_network->get(request);
        source.reply = reply;
        // The body waits in the reply's buffer until it ends: bounded, though a scrape may be
        // awaited long. Room beyond the cap for one more read lets a body too large show.
        reply->setReadBufferSize(qint64(m_options.limits.maxBytes) + kReadSlack);
        source.deadline->start(m_options.timeoutMs);
        connect(reply, &QNetworkReply::metaDataChanged, this, [this, reply, &source] {
            const qint64 length = reply->header(QNetworkRequest::ContentLengthHeader).toLongLong();
            if (length > qint64(m_options.limits.maxBytes))
                abortTooLarge(source);
        });
        connect(reply, &QNetworkReply::readyRead, this, [this, reply, &source] {
            if (reply->bytesAvailable() > qint64(m_options.limits.maxBytes))
                abortTooLarge(source);
        });
        connect(reply, &QNetworkReply::finished, this, [this, reply, &source] { onReply(source, reply); });
    }

    /// No answer within timeoutMs: said at once, and awaited up to patienceMs.
    void overdue(Source &source)
    {
        if (!source.reply)
            return;
        if (source.late) {
            source.reply->abort();
            return;
        }
        source.late = true;
        source.deadline->start(std::max(0, m_options.patienceMs - m_options.timeoutMs));
        failed(source, QStringLiteral("no answer within %1 ms").arg(m_options.timeoutMs), false);
    }

    void abortTooLarge(Source &source)
    {
        if (source.tooLarge || !source.reply)
            return;
        source.tooLarge = true;
        source.reply->abort();
    }

    void onReply(Source &source, QNetworkReply *reply)
    {
        reply->deleteLater();
        source.reply = nullptr;
        source.deadline->stop();
        const double tS = double(m_options.clock.nowNs()) / 1e9;
        const bool tooLarge = std::exchange(source.tooLarge, false);
        const bool late = std::exchange(source.late, false);
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        QString problem;
        bool absent = false; // what a guessed endpoint that is not there answers
        std::optional<PromExposition> exposition;
        if (tooLarge) {
            problem = QStringLiteral("larger than %1 bytes").arg(m_options.limits.maxBytes);
            absent = true;
        } else if (reply->error() == QNetworkReply::OperationCanceledError ||
                   reply->error() == QNetworkReply::TimeoutError) {
            problem = QStringLiteral("no answer within %1 ms").arg(late ? m_options.patienceMs : m_options.timeoutMs);
        } else if (status != 0 && status != 200) {
            problem = QStringLiteral("answered HTTP %1").arg(status);
            absent = status >= 400 && status < 500;
        } else if (reply->error() != QNetworkReply::NoError) {
            problem = reply->errorString();
            absent = reply->error() == QNetworkReply::ConnectionRefusedError;
        } else {
            const QByteArray body = reply->read(qint64(m_options.limits.maxBytes) + 1);
            QString why;
            exposition = parsePrometheusText(body, &why, m_options.limits);
            if (!exposition)
                problem = QStringLiteral("not Prometheus text (%1)").arg(why);
            absent = !exposition;
        }
        if (exposition) {
            source.everScraped = true;
            writeCsv(tS, *exposition, source.endpoint.instance);
            if (m_options.gpu) {
                QMetaObject::invokeMethod(
                    m_owner,
                    [o = m_owner, i = source.index, point = mapGpuMetrics(*exposition, tS)] {
                        Q_EMIT o->gpuScraped(i, point);
                    },
                    Qt::QueuedConnection);
            } else {
                const ServerPoint point = mapServerMetrics(*exposition, tS);
                const QString engine = detectServerEngine(*exposition);
                QMetaObject::invokeMethod(
                    m_owner, [o = m_owner, i = source.index, point, engine] { Q_EMIT o->scraped(i, point, engine); },
                    Qt::QueuedConnection);
            }
        } else if (!late) { // a late one was reported when it became late
            // A guessed endpoint that is plainly not there: stop asking it.
            failed(source, problem, absent && source.endpoint.discovered && !source.everScraped);
        }
        probedOnce(source);
        if (m_finishing) {
            source.finished = true;
            finishIfDone();
        }
    }

    void failed(Source &source, const QString &problem, bool stop)
    {
        source.stopped = source.stopped || stop;
        const double tS = double(m_options.clock.nowNs()) / 1e9;
        QMetaObject::invokeMethod(
            m_owner,
            [o = m_owner, i = source.index, tS, problem, stop] { Q_EMIT o->scrapeFailed(i, tS, problem, stop); },
            Qt::QueuedConnection);
        probedOnce(source);
    }

    void probedOnce(Source &source)
    {
        if (std::exchange(source.probed, true) || m_probed)
            return;
        if (std::all_of(m_sources.begin(), m_sources.end(), [](const Source &s) { return s.probed; })) {
            m_probed = true;
            QMetaObject::invokeMethod(
                m_owner, [o = m_owner] { Q_EMIT o->probed(); }, Qt::QueuedConnection);
        }
    }

    void finishIfDone()
    {
        if (m_done || !std::all_of(m_sources.begin(), m_sources.end(), [](const Source &s) { return s.finished; }))
            return;
        m_done = true;
        m_csv.close();
        QMetaObject::invokeMethod(
            m_owner, [o = m_owner] { Q_EMIT o->finished(); }, Qt::QueuedConnection);
    }

    void writeCsv(double tS, const PromExposition &exposition, const QString &instance)
    {
        if (m_options.csvPath.isEmpty() || m_csvFailed)
            return;
        if (!m_csv.isOpen()) {
            if (!openOutputFile(m_csv, m_options.csvPath, nullptr)) {
                m_csvFailed = true;
                return;
            }
            m_buffer = "t_s,name,labels,value,instance";
            m_buffer += kCsvLineEnd;
        }
        char stamp[32];
        const int stampLength = std::snprintf(stamp, sizeof stamp, "%.3f", tS);
        std::string from;
        appendCsvField(from, instance.toStdString());
        std::string line;
        for (const PromSample &s : exposition.samples) {
            line.assign(stamp, std::size_t(stampLength));
            appendCsvField(line, s.name);
            appendCsvField(line, formatPromLabels(s.labels));
            char value[32];
            const auto [end, ec] = std::to_chars(value, value + sizeof value, s.value);
            appendCsvField(line, std::string_view(value, ec == std::errc() ? std::size_t(end - value) : 0));
            line += from;
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
    std::vector<Source> m_sources; ///< sized once in start(): its elements' addresses are captured
    QFile m_csv;
    std::string m_buffer;
    bool m_finishing = false;
    bool m_probed = false;
    bool m_done = false;
    bool m_csvFailed = false;
};

std::vector<MetricsScraper::Endpoint> MetricsScraper::endpointsFor(const TargetConfig &target)
{
    if (!target.serverMetrics)
        return {};
    if (!target.serverMetricsUrl.isEmpty())
        return {{QUrl(target.serverMetricsUrl), false,
                 target.replicas.isEmpty() ? withoutUserInfo(target.url) : QString()}};
    std::vector<Endpoint> endpoints;
    for (const QString &instance : target.instanceUrls()) {
        QUrl url(instance);
        if (!url.isValid() || url.host().isEmpty())
            continue;
        url.setUserInfo(QString());
        url.setPath(QStringLiteral("/metrics"));
        url.setQuery(QString());
        url.setFragment(QString());
        // Instances behind one server root share its /metrics: scraped once.
        if (std::none_of(endpoints.begin(), endpoints.end(), [&url](const Endpoint &e) { return e.url == url; }))
            endpoints.push_back({url, true, withoutUserInfo(instance)});
    }
    return endpoints;
}

std::vector<MetricsScraper::Endpoint> MetricsScraper::gpuEndpointsFor(const TargetConfig &target)
{
    if (target.gpuMetricsUrl.isEmpty())
        return {};
    return {{QUrl(target.gpuMetricsUrl), false, target.replicas.isEmpty() ? withoutUserInfo(target.url) : QString()}};
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
