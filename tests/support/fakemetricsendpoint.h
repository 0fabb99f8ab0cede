#pragma once

// A fake Prometheus endpoint for the scraper and dashboard tests.

#include <QHostAddress>
#include <QObject>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>
#include <QUrl>

#include <algorithm>

namespace tb::test {

/// A /metrics endpoint on the test's thread that misbehaves as told, or answers as vLLM or
/// llama.cpp would.
class FakeEndpoint : public QObject
{
public:
    enum Mode {
        Silent,
        Html,
        Huge,
        NotFound,
        Good,
        Trickle,
        HugeAnnounced,
        StallFirst,     ///< Good, but the first answer comes only after stallMs (llama.cpp busy prefilling)
        GoodThenSilent, ///< Good for the first two requests, then Silent
        LlamaCpp,       ///< llama.cpp's gauges and counters: no latency histograms
    };

    explicit FakeEndpoint(Mode mode, int stallMs = 0)
        : m_mode(mode)
        , m_stallMs(stallMs)
    {
        m_server.listen(QHostAddress(QStringLiteral("127.0.0.1")), 0);
        connect(&m_server, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *s = m_server.nextPendingConnection()) {
                connect(s, &QTcpSocket::readyRead, s, [this, s] {
                    if (!s->readAll().contains("\r\n\r\n"))
                        return;
                    ++requests;
                    mostOutstanding = std::max(mostOutstanding, ++m_outstanding);
                    answer(s);
                });
                // A request the client gave up on is no longer outstanding.
                connect(s, &QTcpSocket::disconnected, this, [this, s] {
                    if (s->property("outstanding").toBool())
                        --m_outstanding;
                    s->deleteLater();
                });
            }
        });
    }

    QUrl url() const { return QUrl(QStringLiteral("http://127.0.0.1:%1/metrics").arg(m_server.serverPort())); }
    int requests = 0;
    int mostOutstanding = 0; ///< requests at once that had no answer yet

private:
    void answer(QTcpSocket *s)
    {
        const auto reply = [this, s](const QByteArray &status, const QByteArray &body) {
            --m_outstanding;
            s->setProperty("outstanding", false);
            s->write("HTTP/1.1 " + status + "\r\nContent-Type: text/plain\r\nContent-Length: " +
                     QByteArray::number(body.size()) + "\r\n\r\n" + body);
        };
        s->setProperty("outstanding", true);
        const QByteArray good = "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"m\"} " +
                                QByteArray::number(requests) + "\n";
        switch (m_mode) {
        case Silent:
            return;
        case Html:
            return reply("200 OK", "<!DOCTYPE html><html><body>Grafana</body></html>");
        case Huge:
            // Claims nothing about its length and never ends: the size cap must stop it.
            s->write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n");
            for (int i = 0; i < 64; ++i)
                s->write("4000\r\n" + QByteArray(0x4000, '#') + "\r\n");
            return;
        case NotFound:
            return reply("404 Not Found", "not found");
        case Trickle: {
            // A byte every 100 ms: never silent long enough for a transfer timeout, yet never done.
            s->write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n# ");
            auto *drip = new QTimer(s);
            connect(drip, &QTimer::timeout, s, [s] { s->write("x"); });
            drip->start(100);
            return;
        }
        case HugeAnnounced:
            // Says up front that it is too large: refused before a body byte is read.
            s->write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 1000000000\r\n\r\n");
            return;
        case Good:
            return reply("200 OK", good);
        case StallFirst:
            if (requests > 1)
                return reply("200 OK", good);
            QTimer::singleShot(m_stallMs, s, [reply, good] { reply("200 OK", good); });
            return;
        case GoodThenSilent:
            if (requests <= 2)
                return reply("200 OK", good);
            return;
        case LlamaCpp:
            return reply("200 OK", "# TYPE llamacpp:prompt_tokens_total counter\n"
                                   "llamacpp:prompt_tokens_total " +
                                       QByteArray::number(requests * 100) +
                                       "\n# TYPE llamacpp:requests_processing gauge\n"
                                       "llamacpp:requests_processing " +
                                       QByteArray::number(requests % 3) +
                                       "\n# TYPE llamacpp:requests_deferred gauge\nllamacpp:requests_deferred 0\n");
        }
    }

    Mode m_mode;
    int m_stallMs;
    int m_outstanding = 0;
    QTcpServer m_server;
};

} // namespace tb::test
