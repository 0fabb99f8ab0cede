#include "observe/metricsexporter.h"

#include "formats/prometheustext.h"

#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QThread>
#include <QTimer>

#include <cmath>

namespace tb {

namespace {

/// Bucket bounds in seconds, from 1 ms (ITL of a fast server) to 160 s (E2E of a long answer).
const std::vector<double> kBounds{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3,
                                  0.5,   0.75,   1,     2.5,  5,     7.5,  10,    20,  40,   80,  160};

std::string text(const QString &s)
{
    return s.toStdString();
}

/// Cumulative counts per bound (then +Inf) of a histogram in ms.
std::vector<std::uint64_t> cumulativeSeconds(const LogHistogram &h)
{
    std::vector<std::uint64_t> counts(kBounds.size() + 1, 0);
    const double total = double(h.count());
    std::size_t b = 0;
    std::uint64_t seen = 0;
    for (const CdfPoint &p : h.cdf()) {
        while (b < kBounds.size() && p.value / 1000.0 > kBounds[b])
            counts[b++] = seen;
        seen = std::uint64_t(std::llround(p.fraction * total));
    }
    while (b < kBounds.size())
        counts[b++] = seen;
    counts.back() = h.count();
    return counts;
}

} // namespace

QByteArray openMetricsText(const std::vector<ExportedTarget> &targets)
{
    PromWriter w;
    const auto eachStage = [&targets](auto &&fn) {
        for (const ExportedTarget &t : targets) {
            for (const SummaryBlock &stage : t.summary.stages)
                fn(PromLabels{{"target", text(t.name)}, {"stage", text(stage.name)}}, stage);
        }
    };
    w.family("tokenbench_requests", PromType::Counter,
             "Requests that reached a verdict or were cancelled, by status: ok or the error class (warm-up excluded).");
    eachStage([&w](PromLabels labels, const SummaryBlock &b) {
        labels.emplace_back("status", "ok");
        w.sample("tokenbench_requests_total", labels, double(b.requests.ok));
        for (const auto &[error, n] : b.requests.byError) {
            labels.back().second = text(error);
            w.sample("tokenbench_requests_total", labels, double(n));
        }
    });
    w.family("tokenbench_http_responses", PromType::Counter, "Responses by HTTP status code (warm-up excluded).");
    eachStage([&w](PromLabels labels, const SummaryBlock &b) {
        labels.emplace_back("code", std::string());
        for (const auto &[code, n] : b.requests.byStatus) {
            labels.back().second = std::to_string(code);
            w.sample("tokenbench_http_responses_total", labels, double(n));
        }
    });
    w.family("tokenbench_tokens", PromType::Counter,
             "Tokens of successful requests by kind: input (cached included), cached, output.");
    eachStage([&w](PromLabels labels, const SummaryBlock &b) {
        labels.emplace_back("kind", "input");
        w.sample("tokenbench_tokens_total", labels, double(b.tokens.input));
        labels.back().second = "cached";
        w.sample("tokenbench_tokens_total", labels, double(b.tokens.cached));
        labels.back().second = "output";
        w.sample("tokenbench_tokens_total", labels, double(b.tokens.output));
    });
    w.family("tokenbench_requests_in_flight", PromType::Gauge, "Requests sent and not yet done.");
    for (const ExportedTarget &t : targets)
        w.sample("tokenbench_requests_in_flight", {{"target", text(t.name)}}, double(t.inFlight));
    for (const auto &[metric, name, help] :
         {std::tuple{Metric::Ttft, "tokenbench_ttft_seconds", "Time to first token from sent, of successful requests."},
          std::tuple{Metric::Itl, "tokenbench_itl_seconds",
                     "Token-normalised inter-token latency, one value per token."},
          std::tuple{Metric::E2e, "tokenbench_e2e_seconds", "End-to-end latency from sent, of successful requests."}}) {
        w.family(name, PromType::Histogram, help);
        w.unit(name, "seconds");
        eachStage([&w, metric = metric, name = name](const PromLabels &labels, const SummaryBlock &b) {
            const LogHistogram &h = b.histogram(metric);
            w.histogram(name, labels, kBounds, cumulativeSeconds(h), h.sum() / 1000.0);
        });
    }
    w.end();
    return QByteArray::fromStdString(w.text());
}

/// The listening socket and its connections, on the exporter's thread.
class MetricsExporter::Server : public QObject
{
public:
    explicit Server(const MetricsExporter *owner)
        : m_owner(owner)
    {}

    bool listen(const QHostAddress &address, quint16 port, QString *error)
    {
        m_tcp = new QTcpServer(this);
        m_tcp->setMaxPendingConnections(kMaxConnections);
        if (!m_tcp->listen(address, port)) {
            *error = m_tcp->errorString();
            return false;
        }
        connect(m_tcp, &QTcpServer::newConnection, this, &Server::accept);
        return true;
    }
    quint16 port() const { return m_tcp->serverPort(); }

private:
    void accept()
    {
        while (QTcpSocket *socket = m_tcp->nextPendingConnection()) {
            connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            connect(socket, &QObject::destroyed, this, [this] { --m_open; });
            ++m_open;
            if (m_open > kMaxConnections) {
                socket->abort(); // enough scrapers at once: a flood gets nothing, and costs nothing
                socket->deleteLater();
                continue;
            }
            socket->setReadBufferSize(kMaxRequestBytes + 1);
            auto *deadline = new QTimer(socket);
            deadline->setSingleShot(true);
            connect(deadline, &QTimer::timeout, socket, [socket] {
                socket->abort();
                socket->deleteLater();
            });
            deadline->start(kDeadlineMs);
            connect(socket, &QTcpSocket::readyRead, socket, [this, socket] { read(socket); });
        }
    }

    void read(QTcpSocket *socket)
    {
        if (socket->property("answered").toBool()) {
            socket->skip(socket->bytesAvailable()); // one request per connection
            return;
        }
        QByteArray head = socket->property("head").toByteArray();
        head += socket->read(kMaxRequestBytes + 1 - head.size());
        const qsizetype end = head.indexOf("\r\n\r\n");
        if (end < 0) {
            if (head.size() > kMaxRequestBytes)
                answer(socket, 431, "text/plain", "request header too large\n");
            else
                socket->setProperty("head", head);
            return;
        }
        const QList<QByteArray> line = head.left(head.indexOf("\r\n")).split(' ');
        if (line.size() != 3 || !line[2].startsWith("HTTP/1."))
            answer(socket, 400, "text/plain", "bad request\n");
        else if (line[0] != "GET" && line[0] != "HEAD")
            answer(socket, 405, "text/plain", "only GET\n");
        else if (line[1] != "/metrics" && !line[1].startsWith("/metrics?"))
            answer(socket, 404, "text/plain", "TokenBench serves /metrics\n");
        else
            answer(socket, 200, kContentType, m_owner->render(), line[0] == "HEAD");
    }

    void answer(QTcpSocket *socket, int status, const char *type, const QByteArray &body, bool headOnly = false)
    {
        socket->setProperty("answered", true);
        socket->setProperty("head", QVariant());
        const char *reason = status == 200   ? "OK"
                             : status == 404 ? "Not Found"
                             : status == 405 ? "Method Not Allowed"
                             : status == 431 ? "Request Header Fields Too Large"
                                             : "Bad Request";
        QByteArray response = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reason + "\r\nContent-Type: " + type +
                              "\r\nContent-Length: " + QByteArray::number(body.size()) +
                              "\r\nConnection: close\r\n\r\n";
        if (!headOnly)
            response += body;
        socket->write(response);
        // Closed once written (disconnectFromHost waits for the buffer); the deadline ends a reader
        // that never takes it.
        socket->disconnectFromHost();
    }

    const MetricsExporter *m_owner;
    QTcpServer *m_tcp = nullptr;
    int m_open = 0;
};

std::optional<std::pair<QHostAddress, quint16>> MetricsExporter::parseAddress(const QString &text, QString *error)
{
    const qsizetype colon = text.lastIndexOf(QLatin1Char(':'));
    QString host = colon > 0 ? text.left(colon) : QString();
    if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
        host = host.mid(1, host.size() - 2);
    bool ok = false;
    const uint port = colon > 0 ? text.mid(colon + 1).toUInt(&ok) : 0;
    const QHostAddress address(host);
    if (!ok || port > 65535 || address.isNull()) {
        if (error)
            *error = QStringLiteral("'%1' is not ADDRESS:PORT with a numeric address, e.g. 127.0.0.1:9464")
                         .arg(text.left(80));
        return std::nullopt;
    }
    return std::pair{address, quint16(port)};
}

MetricsExporter::MetricsExporter(QObject *parent)
    : QObject(parent)
{}

MetricsExporter::~MetricsExporter()
{
    if (!m_thread)
        return;
    Server *server = m_server;
    QMetaObject::invokeMethod(
        server, [server] { delete server; }, Qt::BlockingQueuedConnection);
    m_thread->quit();
    m_thread->wait();
    delete m_thread;
}

bool MetricsExporter::listen(const QHostAddress &address, quint16 port, QString *error)
{
    if (m_thread) {
        if (error)
            *error = QStringLiteral("already listening");
        return false;
    }
    m_thread = new QThread;
    m_thread->setObjectName(QStringLiteral("tb-metrics"));
    m_server = new Server(this);
    m_server->moveToThread(m_thread);
    m_thread->start();
    bool ok = false;
    QString why;
    quint16 bound = 0;
    Server *server = m_server;
    QMetaObject::invokeMethod(
        server,
        [&] {
            ok = server->listen(address, port, &why);
            bound = ok ? server->port() : 0;
        },
        Qt::BlockingQueuedConnection);
    if (!ok) {
        QMetaObject::invokeMethod(
            server, [server] { delete server; }, Qt::BlockingQueuedConnection);
        m_server = nullptr;
        m_thread->quit();
        m_thread->wait();
        delete std::exchange(m_thread, nullptr);
        if (error)
            *error = why;
        return false;
    }
    const QString host = address.protocol() == QAbstractSocket::IPv6Protocol
                             ? QLatin1Char('[') + address.toString() + QLatin1Char(']')
                             : address.toString();
    m_url = QStringLiteral("http://%1:%2/metrics").arg(host).arg(bound);
    return true;
}

QString MetricsExporter::url() const
{
    return m_url;
}

void MetricsExporter::publish(std::vector<ExportedTarget> targets)
{
    const QMutexLocker lock(&m_mutex);
    m_targets = std::move(targets);
}

void MetricsExporter::publish(int target, ExportedTarget figures)
{
    const QMutexLocker lock(&m_mutex);
    if (target < 0)
        return;
    if (std::size_t(target) >= m_targets.size())
        m_targets.resize(std::size_t(target) + 1);
    m_targets[std::size_t(target)] = std::move(figures);
}

QByteArray MetricsExporter::render() const
{
    std::vector<ExportedTarget> targets;
    {
        const QMutexLocker lock(&m_mutex);
        targets = m_targets;
    }
    return openMetricsText(targets);
}

} // namespace tb
