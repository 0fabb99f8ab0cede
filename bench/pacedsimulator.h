#pragma once

// The simulator as a separate process (`tokenbench-cli sim`), paced so that `streams` concurrent
// streams receive `tokensPerS` tokens/s in total, about 4 s per response: the steady load the
// engine and GUI benchmarks measure against, without the simulator's CPU in their process.

#include <QProcess>
#include <QString>

#include <algorithm>

class PacedSimulator
{
public:
    /// Starts it; false when it did not print its "listening on" line.
    bool start(const QString &cli, int streams, double tokensPerS, double ttftMs)
    {
        // Each stream decodes one token per step of the whole batch: step = streams / tokensPerS s.
        const double stepMs = 1000.0 * double(streams) / tokensPerS;
        m_outputTokens = int(std::max(50.0, 4000.0 / stepMs));
        m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_process.start(cli, {QStringLiteral("sim"),
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
                              QStringLiteral("fixed"),
                              QStringLiteral("--output-tokens"),
                              QString::number(m_outputTokens),
                              QStringLiteral("--output-min"),
                              QString::number(m_outputTokens),
                              QStringLiteral("--trace-capacity"),
                              QStringLiteral("1000000")});
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
    /// Tokens in each response.
    int outputTokens() const { return m_outputTokens; }

private:
    QProcess m_process;
    QString m_base;
    int m_outputTokens = 0;
};
