// bench_engine: how exact and how cheap the measurement engine is (issue 4's benchmark).
//
// Starts the simulator as a separate process (so its CPU is not ours), runs the full
// BenchmarkRunner (engine + aggregator + run directory writer) at each concurrency, and prints:
//  - concurrency reached on the wire: the simulator's peak of concurrent requests vs the target;
//  - client CPU per SSE event: this process's user+sys time / token-bearing events received (and
//    the two apart);
//  - timing error: client TTFT minus the simulator's own first-token time for the same request
//    (joined on the response id; both clocks are steady_clock on this machine);
//  - heap per in-flight request and per recorded request (as the GUI keeps them), from glibc's
//    exact count of allocated bytes;
//  - the socket read backlog the client health measured (docs/metrics.md "Client health"), and its
//    verdict: the share of the run's seconds this machine limited;
//  - memory per stream: this process's RSS mid-run (every stream in flight) less its RSS before
//    the run, over the streams; the simulator's peak RSS; the load average before and after (the
//    machine may be shared: its other work is in the figures).
//
// 10,000 streams (docs/measuring.md "10,000 streams"): --concurrency 10000 --transport native
// --tokens-per-s 50000 --seconds 30 --warmup 2 (20 ms to the first token, 200 ms between tokens, 50
// tokens; the warm-up is when the 10,000 connections open, which client health does not judge).
//
// Usage: bench_engine [--cli PATH] [--concurrency 200,1000] [--transport native,qnam] [--seconds 20] [--tokens-per-s
// 20000]
//                     [--warmup S]                (a warm-up of S seconds first; default none)
//                     [--length-spread X]         (response lengths uniform within ±X of the mean, so
//                     that streams begun together do not end together; default 0: all alike)
//                     [--workers N]               (transport threads; default the engine's, --workers)
//                     [--server-metrics on|off]   (scrape the simulator's /metrics once a second;
//                     default off: the CPU figure then is the engine's alone)
//                     [--metrics-listen on|off]   (serve TokenBench's own OpenMetrics and scrape it
//                     once a second, as Prometheus would; default off)
//                     [--http 1.1,2]              (HTTP versions; default 1.1. HTTP/2 is cleartext by prior
//                     knowledge: h2c, which both transports speak)
//                     [--csv FILE]                (append one line per row, the header first when FILE is
//                     new: what bench/compare_backends.sh tabulates)
//                     [--ttft-ms X]               (the simulator's time to the first token; default 20)
//                     [--sim "ARGS"]              (more of the simulator's flags, after the pacing's: e.g.
//                     "--nagle-writes 1" writes as llama.cpp does, Nagle on and an event a write)
//
// The client's I/O backend (core/platform: linux or portable, chosen when it was built) heads the
// output and each row: the same source against the same simulator measures what the backend costs.
#include "pacedsimulator.h"

#include "platform/iobackend.h"
#include "platform/openfilelimit.h"
#include "run/benchmarkrunner.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <malloc.h>
#include <map>
#include <sys/resource.h>
#include <unistd.h>

using namespace tb;

namespace {

/// This process's CPU time so far, user and system apart: the kernel's share (recvmsg, the poller's
/// waits, wake-ups) is what the two backends do differently.
struct CpuTime {
    double user = 0;
    double sys = 0;
    double total() const { return user + sys; }
    CpuTime operator-(const CpuTime &o) const { return {user - o.user, sys - o.sys}; }
};

CpuTime cpuTime()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return {double(u.ru_utime.tv_sec) + double(u.ru_utime.tv_usec) / 1e6,
            double(u.ru_stime.tv_sec) + double(u.ru_stime.tv_usec) / 1e6};
}

/// Bytes allocated on the heap right now (glibc's exact count; RSS is too coarse for this).
double heapMiB()
{
    return double(mallinfo2().uordblks) / (1024.0 * 1024.0);
}

/// A "Name:   1234 kB" line of /proc/PID/status (VmRSS, VmHWM), in MiB; 0 when absent.
double statusMiB(const QString &pid, const QByteArray &name)
{
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> lines = status.readAll().split('\n');
    for (const QByteArray &line : lines)
        if (line.startsWith(name + ':'))
            return line.mid(name.size() + 1).trimmed().split(' ').constFirst().toDouble() / 1024.0;
    return 0;
}

/// The 1-, 5- and 15-minute load averages ("2.31 1.90 1.75").
QByteArray loadAverage()
{
    QFile file(QStringLiteral("/proc/loadavg"));
    if (!file.open(QIODevice::ReadOnly))
        return "?";
    const QList<QByteArray> fields = file.readAll().split(' ');
    return fields.size() >= 3 ? fields[0] + ' ' + fields[1] + ' ' + fields[2] : QByteArray("?");
}

nlohmann::json getJson(QNetworkAccessManager &nam, const QString &url)
{
    QNetworkReply *reply = nam.get(QNetworkRequest(QUrl(url)));
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    const QByteArray body = reply->readAll();
    reply->deleteLater();
    return nlohmann::json::parse(body.constData(), body.constData() + body.size(), nullptr, false);
}

QList<HttpVersion> parseHttpVersions(const QString &list)
{
    QList<HttpVersion> versions;
    for (const QString &v : list.split(QLatin1Char(',')))
        versions << (v.trimmed() == QLatin1String("2") ? HttpVersion::Http2 : HttpVersion::Http1);
    return versions;
}

/// Transport × HTTP version, in that order.
QList<std::pair<TransportKind, HttpVersion>> transportRows(const QList<TransportKind> &transports,
                                                           const QList<HttpVersion> &versions)
{
    QList<std::pair<TransportKind, HttpVersion>> rows;
    for (const TransportKind transport : transports)
        for (const HttpVersion version : versions)
            rows.append({transport, version});
    return rows;
}

/// What carried the row on the wire: the HTTP version, and how many connections the simulator saw
/// at once for the streams of its peak (HTTP/2 multiplexes many on one).
void printWire(HttpVersion version, const nlohmann::json &stats)
{
    std::printf("         HTTP/%s: wire peak %lld streams over %lld connections (peak open; %lld spoke HTTP/2)\n",
                version == HttpVersion::Http2 ? "2" : "1.1", stats.value("peak_concurrent_requests", 0LL),
                stats.value("peak_open_connections", 0LL), stats.value("h2_connections", 0LL));
}

double percentile(std::vector<double> v, double q)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, std::size_t(q * double(v.size())))];
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    // 10,000 streams need 10,000 descriptors; the usual soft limit is 1,024.
    const qint64 fileLimit = raiseOpenFileLimit();
    QString cli = QCoreApplication::applicationDirPath() + QStringLiteral("/../app/tokenbench-cli");
    QList<int> levels{200, 1000};
    int seconds = 20;
    int warmupSeconds = 0;
    double lengthSpread = 0;
    int workers = 0; // the engine's default: a transport thread per core, at least 2
    double tokensPerS = 20000;
    bool scrape = false;
    QList<TransportKind> transports{TransportKind::Native, TransportKind::Qnam};
    bool serve = false;
    QList<HttpVersion> versions{HttpVersion::Http1};
    QString csvPath;
    QStringList simArgs;
    double ttftMs = 20;
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--cli"))
            cli = args[i + 1];
        else if (args[i] == QLatin1String("--concurrency")) {
            levels.clear();
            for (const QString &l : args[i + 1].split(QLatin1Char(',')))
                levels << l.toInt();
        } else if (args[i] == QLatin1String("--seconds"))
            seconds = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--warmup"))
            warmupSeconds = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--length-spread"))
            lengthSpread = args[i + 1].toDouble();
        else if (args[i] == QLatin1String("--workers"))
            workers = args[i + 1].toInt();
        else if (args[i] == QLatin1String("--tokens-per-s"))
            tokensPerS = args[i + 1].toDouble();
        else if (args[i] == QLatin1String("--transport")) {
            transports.clear();
            for (const QString &t : args[i + 1].split(QLatin1Char(',')))
                transports << transportKindFromName(t).value_or(TransportKind::Native);
        } else if (args[i] == QLatin1String("--server-metrics"))
            scrape = args[i + 1] == QLatin1String("on");
        else if (args[i] == QLatin1String("--metrics-listen"))
            serve = args[i + 1] == QLatin1String("on");
        else if (args[i] == QLatin1String("--http"))
            versions = parseHttpVersions(args[i + 1]);
        else if (args[i] == QLatin1String("--csv"))
            csvPath = args[i + 1];
        else if (args[i] == QLatin1String("--ttft-ms"))
            ttftMs = std::max(0.0, args[i + 1].toDouble());
        else if (args[i] == QLatin1String("--sim"))
            simArgs = args[i + 1].split(QLatin1Char(' '), Qt::SkipEmptyParts);
    }
    QFile csv(csvPath);
    if (!csvPath.isEmpty()) {
        const bool fresh = !csv.exists() || csv.size() == 0;
        if (!csv.open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Text)) {
            std::fprintf(stderr, "cannot write %s\n", qPrintable(csvPath));
            return 1;
        }
        if (fresh)
            csv.write("backend,transport,http,streams,seconds,wire_peak,events_per_s,cpu_user_us_per_event,"
                      "cpu_sys_us_per_event,ttft_err_p50_ms,ttft_err_p99_ms,stamp_lag_p50_ms,stamp_lag_p99_ms,"
                      "request_lag_p50_ms,request_lag_p99_ms,ok,failed\n");
    }
    const IoBackend &backend = ioBackend();

    std::printf("bench_engine: %d s per level, simulator paced at %.0f tokens/s in total, separate process; server "
                "metrics %s; own metrics %s\n",
                seconds, tokensPerS, scrape ? "scraped every second" : "not scraped",
                serve ? "served and scraped every second" : "not served");
    std::printf("client I/O backend: %s (%s; stamps: %s; timers %s; steady clock step %lld ns)\n",
                qPrintable(backend.name), qPrintable(backend.poller), qPrintable(backend.stamping),
                qPrintable(backend.timerPrecision), static_cast<long long>(steadyClockResolutionNs()));
    std::printf("%8s %9s %8s %10s %9s %11s %12s %12s %12s %12s %12s\n", "backend", "transport", "streams", "wire peak",
                "events/s", "CPU us/evt", "TTFT err p50", "TTFT err p99", "err max ms", "KiB/in-fl", "B/record");
    QNetworkAccessManager nam;
    for (const auto &[transport, version] : transportRows(transports, versions))
        for (int concurrency : levels) {
            PacedSimulator sim;
            if (!sim.start(cli, concurrency, tokensPerS, ttftMs, lengthSpread, simArgs)) {
                std::fprintf(stderr, "cannot start the simulator (%s)\n", qPrintable(cli));
                return 1;
            }
            QTemporaryDir dir;
            RunConfig config;
            config.target.url = sim.base() + QStringLiteral("/v1");
            config.target.model = QStringLiteral("fast");
            config.target.serverMetrics = scrape;
            config.target.transport = transport;
            if (version == HttpVersion::Http2)
                config.target.httpVersion = version; // else as before: the transport's default
            config.load.concurrency = concurrency;
            config.load.durationMs = seconds * 1000;
            config.load.warmupMs = warmupSeconds * 1000;
            config.request.maxTokens = sim.maxTokens();
            config.prompt.promptTokens = 64;
            config.outDir = dir.filePath(QStringLiteral("run"));

            BenchmarkRunner runner;
            if (workers > 0)
                runner.setWorkerThreads(workers);
            QTimer ownScrape; // Prometheus scraping --metrics-listen
            if (serve) {
                runner.setMetricsListen(QStringLiteral("127.0.0.1:0"));
                QObject::connect(&ownScrape, &QTimer::timeout, [&] {
                    QNetworkReply *reply = nam.get(QNetworkRequest(QUrl(runner.metricsUrl())));
                    QObject::connect(reply, &QNetworkReply::finished, reply, &QObject::deleteLater);
                });
                ownScrape.start(1000);
            }
            QList<RequestRecord> kept; // as the GUI's requests table keeps them
            QObject::connect(&runner, &BenchmarkRunner::recordsCompleted,
                             [&kept](const QList<RequestRecord> &batch) { kept += batch; });
            const QByteArray loadBefore = loadAverage();
            const QString self = QString::number(QCoreApplication::applicationPid());
            const double rssBase = statusMiB(self, "VmRSS");
            double heapBase = heapMiB();
            double heapMid = 0;
            double rssMid = 0;
            qsizetype keptMid = 0;
            QTimer::singleShot(seconds * 500, [&] {
                heapMid = heapMiB();
                rssMid = statusMiB(self, "VmRSS");
                keptMid = kept.size();
            });
            // The run's own peak: VmHWM would also hold what this program parses after it (the
            // simulator's traces).
            double rssPeak = rssBase;
            QTimer rssProbe;
            QObject::connect(&rssProbe, &QTimer::timeout,
                             [&] { rssPeak = std::max(rssPeak, statusMiB(self, "VmRSS")); });
            rssProbe.start(250);
            RunOutcome outcome;
            QEventLoop loop;
            QObject::connect(&runner, &BenchmarkRunner::runFinished, [&](const RunOutcome &o) {
                outcome = o;
                loop.quit();
            });
            const CpuTime cpu0 = cpuTime();
            QString error;
            if (!runner.start(config, &error)) {
                std::fprintf(stderr, "run: %s\n", qPrintable(error));
                return 1;
            }
            loop.exec();
            rssProbe.stop();
            const CpuTime cpuUsed = cpuTime() - cpu0;
            const double cpu = cpuUsed.total();

            const nlohmann::json stats = getJson(nam, sim.base() + QStringLiteral("/sim/stats"));
            const double simPeakMiB = statusMiB(QString::number(sim.pid()), "VmHWM");
            struct Trace {
                std::int64_t receivedNs = -1;
                std::int64_t firstTokenNs = -1;
                std::int64_t doneNs = -1;
            };
            std::map<std::string, Trace> traces;
            for (qint64 since = 0;;) {
                const nlohmann::json page =
                    getJson(nam, sim.base() + QStringLiteral("/sim/requests?since=%1&limit=20000").arg(since));
                const nlohmann::json &list = page.is_object() && page.contains("requests") ? page["requests"] : page;
                if (!list.is_array() || list.empty())
                    break;
                for (const auto &t : list) {
                    traces[t.value("id", std::string())] = {t.value("received_ns", std::int64_t(-1)),
                                                            t.value("first_token_ns", std::int64_t(-1)),
                                                            t.value("done_ns", std::int64_t(-1))};
                    since = std::max<qint64>(since, t.value("seq", qint64(0)));
                }
            }
            // TTFT error = client TTFT − the simulator's (first token written − request read). It adds
            // two parts, shown apart: how late the client stamped the first token after the
            // simulator wrote it (the client's own error), and how long the request waited before the
            // simulator read it (the simulator's backlog, invisible to a client).
            std::vector<double> errors;
            std::vector<double> stampLag;
            std::vector<double> endLag; // the response's end, as stampLag the first token
            std::vector<double> requestLag;
            // A read's kernel stamp is that of the newest segment it took (the kernel merges queued
            // segments, and their stamps with them): requests read together share one stamp, the
            // last one's. What is left of a request's lag after the newest request sent into the
            // same read is the lag the stamp cannot explain.
            struct SimulatorRead {
                std::int64_t newestSentNs = 0;
                int requests = 0;
            };
            std::map<std::int64_t, SimulatorRead> reads; // by the simulator's stamp of the read
            for (const RequestRecord &r : kept) {
                const auto it = traces.find(r.responseId.toStdString());
                if (!r.ok() || it == traces.end() || it->second.receivedNs < 0 || it->second.firstTokenNs < 0 ||
                    !r.ttftMs())
                    continue;
                errors.push_back(*r.ttftMs() - double(it->second.firstTokenNs - it->second.receivedNs) / 1e6);
                stampLag.push_back(double(outcome.steadyOriginNs + r.firstTokenNs - it->second.firstTokenNs) / 1e6);
                if (it->second.doneNs >= 0)
                    endLag.push_back(double(outcome.steadyOriginNs + r.doneNs - it->second.doneNs) / 1e6);
                const std::int64_t sent = outcome.steadyOriginNs + r.sentNs;
                requestLag.push_back(double(it->second.receivedNs - sent) / 1e6);
                SimulatorRead &read = reads[it->second.receivedNs];
                read.newestSentNs = read.requests++ == 0 ? sent : std::max(read.newestSentNs, sent);
            }
            std::vector<double> lagAfterNewest; // per request, as requestLag
            for (const auto &[received, read] : reads)
                lagAfterNewest.insert(lagAfterNewest.end(), std::size_t(read.requests),
                                      double(received - read.newestSentNs) / 1e6);
            const double events = double(outcome.progress.chunks);
            const qsizetype keptCount = kept.size();
            const double heapEnd = heapMiB();
            kept = {};
            const double perRecordBytes =
                keptCount > 0 ? (heapEnd - heapMiB()) * 1024.0 * 1024.0 / double(keptCount) : 0;
            const double perInFlightKiB = (heapMid - heapBase) * 1024.0 / double(concurrency) -
                                          perRecordBytes * double(keptMid) / 1024.0 / double(concurrency);
            std::printf("%8s %9s %8d %10lld %9.0f %11.2f %12.3f %12.3f %12.3f %12.1f %12.0f\n",
                        qPrintable(backend.name), qPrintable(transportKindName(transport)), concurrency,
                        stats.value("peak_concurrent_requests", 0LL), events / outcome.summary.total.windowS,
                        cpu * 1e6 / std::max(1.0, events), percentile(errors, 0.5), percentile(errors, 0.99),
                        errors.empty() ? 0.0 : *std::max_element(errors.begin(), errors.end()), perInFlightKiB,
                        perRecordBytes);
            std::printf(
                "         first token stamped after the simulator wrote it: p50 %.3f ms, p99 %.3f ms; the end: p50 "
                "%.3f ms, p99 %.3f ms;\n"
                "         request read by the simulator after it was sent: p50 %.3f ms, p99 %.3f ms; %zu simulator "
                "reads took them,\n"
                "         stamped after the newest request each took was sent: p50 %.3f ms, p99 %.3f ms\n",
                percentile(stampLag, 0.5), percentile(stampLag, 0.99), percentile(endLag, 0.5),
                percentile(endLag, 0.99), percentile(requestLag, 0.5), percentile(requestLag, 0.99), reads.size(),
                percentile(lagAfterNewest, 0.5), percentile(lagAfterNewest, 0.99));
            printWire(version, stats);
            std::printf("         (%lld requests ok, %lld failed, %zu joined on id, %.0f events, CPU %.2f s = user "
                        "%.2f + sys %.2f in %.1f s)\n",
                        static_cast<long long>(outcome.summary.total.requests.ok),
                        static_cast<long long>(outcome.summary.total.requests.failed), errors.size(), events, cpu,
                        cpuUsed.user, cpuUsed.sys, outcome.summary.total.windowS);
            if (const auto &client = outcome.summary.client; client && client->readBacklogP50Ms)
                std::printf("         socket read backlog (kernel stamp -> read, by bytes): p50 %.3f ms, p99 %.3f ms, "
                            "max %.1f ms\n",
                            *client->readBacklogP50Ms, *client->readBacklogP99Ms, *client->readBacklogMaxMs);
            if (const auto &client = outcome.summary.client)
                std::printf("         client health: %s for %.0f%% of %d s judged (CPU mean %.0f%%, peak %.0f%% of %d "
                            "cores; event-loop lag mean %.1f ms, max %.0f ms)\n",
                            client->saturated ? "SATURATED" : "not saturated, limited",
                            100 * client->saturatedFraction(), client->seconds, client->cpuMeanPct, client->cpuPeakPct,
                            client->cores, client->loopLagMeanMs, client->loopLagMaxMs);
            std::printf(
                "         memory: RSS %.1f MiB before the run, %.1f MiB mid-run (%lld records kept), %.1f MiB at "
                "most during it: %.1f KiB per stream; the simulator's peak RSS %.1f MiB; open-file limit %lld\n",
                rssBase, rssMid, static_cast<long long>(keptMid), rssPeak,
                (rssMid - rssBase) * 1024.0 / double(concurrency), simPeakMiB, static_cast<long long>(fileLimit));
            std::printf("         load average before %s, after %s (%d cores)\n", loadBefore.constData(),
                        loadAverage().constData(), QThread::idealThreadCount());
            if (csv.isOpen()) {
                const double perEvent = 1e6 / std::max(1.0, events);
                csv.write(QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17\n")
                              .arg(backend.name, transportKindName(transport),
                                   version == HttpVersion::Http2 ? QStringLiteral("2") : QStringLiteral("1.1"))
                              .arg(concurrency)
                              .arg(seconds)
                              .arg(stats.value("peak_concurrent_requests", 0LL))
                              .arg(events / outcome.summary.total.windowS, 0, 'f', 0)
                              .arg(cpuUsed.user * perEvent, 0, 'f', 2)
                              .arg(cpuUsed.sys * perEvent, 0, 'f', 2)
                              .arg(percentile(errors, 0.5), 0, 'f', 3)
                              .arg(percentile(errors, 0.99), 0, 'f', 3)
                              .arg(percentile(stampLag, 0.5), 0, 'f', 3)
                              .arg(percentile(stampLag, 0.99), 0, 'f', 3)
                              .arg(percentile(requestLag, 0.5), 0, 'f', 3)
                              .arg(percentile(requestLag, 0.99), 0, 'f', 3)
                              .arg(outcome.summary.total.requests.ok)
                              .arg(outcome.summary.total.requests.failed)
                              .toUtf8());
                csv.flush();
            }
            std::fflush(stdout);
        }
    return 0;
}
