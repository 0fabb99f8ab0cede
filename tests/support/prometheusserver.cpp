#include "support/prometheusserver.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QThread>
#include <QUrl>

bool PrometheusServer::start(const QString &prometheus, const QString &dir, const QList<Job> &jobs, QString *why)
{
    m_port = ServerProcess::freePort();
    if (!QDir().mkpath(dir + QStringLiteral("/tsdb"))) {
        *why = QStringLiteral("cannot make %1/tsdb").arg(dir);
        return false;
    }
    // Every second: a run of a few seconds is then scraped several times (Prometheus' default
    // of 15 s would see it once or not at all).
    QString config = QStringLiteral("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n");
    for (const Job &job : jobs)
        config += QStringLiteral("  - job_name: %1\n    static_configs:\n      - targets: ['%2']\n")
                      .arg(job.name, job.target);
    QFile file(QDir(dir).filePath(QStringLiteral("prometheus.yml")));
    if (!file.open(QIODevice::WriteOnly) || file.write(config.toUtf8()) < 0) {
        *why = QStringLiteral("cannot write %1").arg(file.fileName());
        return false;
    }
    file.close();
    // Warnings and errors only: its output is read when it fails to come up.
    if (!m_process.start(prometheus,
                         {QStringLiteral("--config.file=") + file.fileName(),
                          QStringLiteral("--storage.tsdb.path=") + QDir(dir).filePath(QStringLiteral("tsdb")),
                          QStringLiteral("--web.listen-address=127.0.0.1:%1").arg(m_port),
                          QStringLiteral("--log.level=warn")},
                         {m_port}, QString(), why))
        return false;
    // The port accepts before the TSDB is open; /-/ready says 503 until then.
    const QDeadlineTimer deadline(20000);
    QString notReady;
    while (!deadline.hasExpired()) {
        QNetworkAccessManager manager;
        manager.setProxy(QNetworkProxy::NoProxy);
        QNetworkRequest request(QUrl(url() + QStringLiteral("/-/ready")));
        request.setTransferTimeout(2000);
        QNetworkReply *reply = manager.get(request);
        QEventLoop loop;
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        loop.exec();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        notReady = QStringLiteral("status %1 (%2)").arg(status).arg(reply->errorString());
        reply->deleteLater();
        if (status == 200)
            return true;
        QThread::msleep(200);
    }
    m_process.stop();
    *why = QStringLiteral("prometheus on port %1 was not ready within 20 s: %2").arg(m_port).arg(notReady);
    return false;
}

QString PrometheusServer::url() const
{
    return QStringLiteral("http://127.0.0.1:%1").arg(m_port);
}

std::optional<nlohmann::json> PrometheusServer::query(const QString &expr, QString *why, const QDateTime &at) const
{
    // Encoded by hand: QUrlQuery leaves '+' as it is, which Prometheus reads as a space.
    QString path = QStringLiteral("/api/v1/query?query=") + QString::fromLatin1(QUrl::toPercentEncoding(expr));
    if (at.isValid())
        path += QStringLiteral("&time=") + QString::number(double(at.toMSecsSinceEpoch()) / 1000.0, 'f', 3);
    return get(path, why);
}

std::optional<nlohmann::json> PrometheusServer::labelValues(const QString &label, const QString &series,
                                                            QString *why) const
{
    return get(QStringLiteral("/api/v1/label/") + label + QStringLiteral("/values?match%5B%5D=") +
                   QString::fromLatin1(QUrl::toPercentEncoding(series)),
               why);
}

std::optional<nlohmann::json> PrometheusServer::get(const QString &pathAndQuery, QString *why) const
{
    QNetworkAccessManager manager;
    manager.setProxy(QNetworkProxy::NoProxy);
    QNetworkRequest request(QUrl::fromEncoded(url().toLatin1() + pathAndQuery.toLatin1(), QUrl::StrictMode));
    request.setTransferTimeout(10000);
    QNetworkReply *reply = manager.get(request);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QObject::connect(reply, &QNetworkReply::downloadProgress, reply, [reply](qint64 received, qint64) {
        if (received > kMaxAnswerBytes)
            reply->abort();
    });
    loop.exec();
    reply->deleteLater();
    const QByteArray body = reply->read(kMaxAnswerBytes + 1);
    if (body.size() > kMaxAnswerBytes) {
        *why = QStringLiteral("%1: an answer over %2 bytes").arg(pathAndQuery).arg(kMaxAnswerBytes);
        return std::nullopt;
    }
    // Prometheus answers a bad query with 400 and a JSON body that says why: read the body first.
    const nlohmann::json answer = nlohmann::json::parse(body.constBegin(), body.constEnd(), nullptr, false);
    if (answer.is_discarded() || !answer.is_object()) {
        *why = QStringLiteral("%1: %2, not JSON: %3")
                   .arg(pathAndQuery, reply->errorString(), QString::fromUtf8(body.left(300)));
        return std::nullopt;
    }
    if (answer.value("status", std::string()) != "success" || !answer.contains("data")) {
        *why = QStringLiteral("%1: %2: %3")
                   .arg(pathAndQuery, QString::fromStdString(answer.value("errorType", std::string("no status"))),
                        QString::fromStdString(answer.value("error", std::string())));
        return std::nullopt;
    }
    return answer["data"];
}
