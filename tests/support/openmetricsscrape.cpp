#include "support/openmetricsscrape.h"

#include <QTcpSocket>
#include <QUrl>

#include <algorithm>

namespace tb::test {

Scrape scrape(const QString &url, const QByteArray &path)
{
    const QUrl u(url);
    QTcpSocket socket;
    socket.connectToHost(u.host(), quint16(u.port()));
    if (!socket.waitForConnected(5000))
        return {};
    // Closed after the answer, so the end of the body is the end of the stream (a keep-alive server
    // would hold the socket open).
    socket.write("GET " + path +
                 " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/openmetrics-text\r\nConnection: close\r\n\r\n");
    QByteArray response;
    while (socket.state() == QAbstractSocket::ConnectedState && socket.waitForReadyRead(5000))
        response += socket.readAll();
    response += socket.readAll();
    Scrape s;
    const qsizetype end = response.indexOf("\r\n\r\n");
    if (end < 0)
        return s;
    const QList<QByteArray> lines = response.left(end).split('\n');
    s.status = lines.value(0).split(' ').value(1).toInt();
    for (const QByteArray &line : lines) {
        if (line.toLower().startsWith("content-type:"))
            s.contentType = line.mid(13).trimmed();
    }
    s.body = response.mid(end + 4);
    return s;
}

double value(const PromExposition &e, const std::string &name, const PromLabels &labels)
{
    double sum = 0;
    for (const PromSample &s : e.samples) {
        if (s.name != name)
            continue;
        const bool match = std::all_of(labels.begin(), labels.end(), [&s](const auto &l) {
            return std::find(s.labels.begin(), s.labels.end(), l) != s.labels.end();
        });
        if (match)
            sum += s.value;
    }
    return sum;
}

std::optional<PromExposition> parsed(const Scrape &s)
{
    QString why;
    auto e = parsePrometheusText(s.body, &why);
    if (!e)
        qWarning("not OpenMetrics: %s", qPrintable(why));
    return e;
}

} // namespace tb::test
