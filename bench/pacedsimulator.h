#pragma once

// The simulator as a separate process (`tokenbench-cli sim`), paced so that `streams` concurrent
// streams receive `tokensPerS` tokens/s in total, about 4 s per response: the steady load the
// engine and GUI benchmarks measure against, without the simulator's CPU in their process.

#include <QProcess>
#include <QString>

#include <algorithm>
#include <cmath>

class PacedSimulator
{
public:
    /// Starts it; false when it did not print its "listening on" line. `lengthSpread` > 0: response
    /// lengths drawn uniformly within ±that share of the mean (as real responses vary), so that
    /// streams that began together do not all end together again; 0: every response the same length.
    bool start(const QString &cli, int streams, double tokensPerS, double ttftMs, double lengthSpread = 0,
               const QStringList &more = {})
    {
        // Each stream decodes one token per step of the whole batch: step = streams / tokensPerS s.
        const double stepMs = 1000.0 * double(streams) / tokensPerS;
        m_outputTokens = int(std::max(50.0, 4000.0 / stepMs));
        const double spread = std::clamp(lengthSpread, 0.0, 0.9);
        m_maxTokens = int(std::ceil(m_outputTokens * (1 + spread)));
        m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_process.start(cli, QStringList{QStringLiteral("sim"),
                                         QStringLiteral("--port"),
                                         QStringLiteral("0"),
                                         QStringLiteral("--preset"),
                                         QStringLiteral("fast"),
                                         QStringLiteral("--ttft-ms"),
                                         QString::number(ttftMs),
                                         QStringLiteral("--prefill-ms-per-1k"),
                                         QStringLiteral("0"),
                                         QStringLiteral("--prefill-quadratic-ms"),
                                         QStringLiteral("0"),
                                         QStringLiteral("--step-ms"),
                                         QString::number(stepMs),
                                         QStringLiteral("--step-ms-per-seq"),
                                         QStringLiteral("0"),
                                         QStringLiteral("--max-batch"),
                                         QString::number(streams * 2),
                                         QStringLiteral("--queue-limit"),
                                         QString::number(streams * 4),
                                         QStringLiteral("--output-dist"),
                                         spread > 0 ? QStringLiteral("uniform") : QStringLiteral("fixed"),
                                         QStringLiteral("--output-spread"),
                                         QString::number(spread),
                                         QStringLiteral("--output-tokens"),
                                         QString::number(m_outputTokens),
                                         QStringLiteral("--output-min"),
                                         QString::number(int(std::floor(m_outputTokens * (1 - spread)))),
                                         QStringLiteral("--trace-capacity"),
                                         QStringLiteral("1000000")} +
                                 more);
        if (!m_process.waitForStarted() || !m_process.waitForReadyRead(10000))
            return false;
        const QString line = QString::fromUtf8(m_process.readLine()).trimmed();
        if (!line.startsWith(QStringLiteral("listening on ")))
            return false;
        m_base = line.mid(13);
        return true;
    }

    ~PacedSimulator()
    {
        m_process.terminate();
        m_process.waitForFinished(5000);
    }

    /// http://127.0.0.1:PORT (the API is under /v1, the ground truth under /sim/…).
    const QString &base() const { return m_base; }
    /// Its process id (for its /proc/PID/status).
    qint64 pid() const { return m_process.processId(); }
    /// Tokens in each response (their mean with a length spread).
    int outputTokens() const { return m_outputTokens; }
    /// The longest response: what a request's max_tokens must allow.
    int maxTokens() const { return m_maxTokens; }

private:
    QProcess m_process;
    QString m_base;
    int m_outputTokens = 0;
    int m_maxTokens = 0;
};
