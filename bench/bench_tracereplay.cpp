// bench_tracereplay: how closely a trace replay keeps its trace's times. A Mooncake-style trace of
// N requests (Poisson arrivals with bursts) is replayed against an in-process simulator; for each
// request the arrival on the server's clock minus its trace time is one constant (the clocks'
// offset and the way there) up to the replay's error. Prints the error's percentiles and the
// client's own queue delay (sent − scheduled). `--arrival poisson|constant` replays no trace but
// the same number of requests at that rate's open-loop schedule (the same arrival timer), the
// error then against each request's scheduled time. Last, the CPU time (user + sys) of the
// process (the in-process simulator's included) and of the load controller's thread alone.
//
//   bench_tracereplay [--requests N] [--rate R] [--time-scale X] [--arrival trace|poisson|constant]
#include "client/loadcontroller.h"
#include "platform/iobackend.h"
#include "sim/simulatorhost.h"

#include <QCoreApplication>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <random>
#include <sys/resource.h>

using namespace tb;

namespace {

double percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, std::size_t(p * double(v.size())))];
}

/// `who`: RUSAGE_SELF (the process) or RUSAGE_THREAD (the calling one).
double cpuSeconds(int who)
{
    rusage u{};
    getrusage(who, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    int requests = 600;
    double rate = 40;
    double timeScale = 1;
    std::optional<Arrival> arrival; // none: the trace
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--requests"))
            requests = std::clamp(args[i + 1].toInt(), 2, 100000);
        else if (args[i] == QLatin1String("--rate"))
            rate = std::clamp(args[i + 1].toDouble(), 0.1, 10000.0);
        else if (args[i] == QLatin1String("--time-scale"))
            timeScale = std::clamp(args[i + 1].toDouble(), 0.001, 1000.0);
        else if (args[i] == QLatin1String("--arrival") && args[i + 1] != QLatin1String("trace"))
            arrival = arrivalFromName(args[i + 1]);
    }

    // Poisson gaps, every tenth request a burst of three at the same millisecond.
    QTemporaryDir dir;
    QFile trace(dir.filePath(QStringLiteral("trace.jsonl")));
    if (!arrival) {
        if (!trace.open(QIODevice::WriteOnly))
            return 1;
        std::mt19937_64 rng(7);
        std::exponential_distribution<double> gap(rate / 1000.0);
        double t = 0;
        for (int i = 0; i < requests; ++i) {
            if (i % 10 >= 3)
                t += gap(rng);
            trace.write(
                QStringLiteral("{\"timestamp\": %1, \"input_length\": 64, \"output_length\": 8, \"hash_ids\": [%2]}\n")
                    .arg(std::llround(t))
                    .arg(i % 5)
                    .toUtf8());
        }
        trace.close();
    }

    sim::SimConfig simConfig = *sim::SimConfig::preset(QStringLiteral("fast"));
    simConfig.maxBatch = 256;
    sim::SimulatorHost host(simConfig);
    if (!host.start())
        return 1;
    RunConfig config;
    config.target.url = host.baseUrl().toString();
    config.target.model = simConfig.model;
    if (arrival) {
        config.load.mode = LoadMode::Rate;
        config.load.rate = rate;
        config.load.arrival = *arrival;
        config.load.requests = requests;
    } else {
        config.load.trace = trace.fileName();
        config.load.timeScale = timeScale;
    }
    QString error;
    const auto plan = RunPlan::create(config, &error);
    if (!plan) {
        std::fprintf(stderr, "%s\n", qPrintable(error));
        return 1;
    }
    std::vector<RequestRecord> records;
    LoadController controller(plan, RunClock(), [&records](RequestRecord &&r) { records.push_back(std::move(r)); });
    QObject::connect(&controller, &LoadController::finished, &app, &QCoreApplication::quit);
    const double cpuBefore = cpuSeconds(RUSAGE_SELF);
    const double controllerCpuBefore = cpuSeconds(RUSAGE_THREAD); // the controller lives on this thread
    controller.start(2);
    app.exec();
    const double cpu = cpuSeconds(RUSAGE_SELF) - cpuBefore;
    const double controllerCpu = cpuSeconds(RUSAGE_THREAD) - controllerCpuBefore;

    std::map<QString, qint64> received;
    for (const sim::RequestTrace &tr : host.requests())
        received[tr.id] = tr.receivedNs;
    std::vector<double> lag, queue;
    for (const RequestRecord &r : records) {
        const auto it = received.find(r.responseId);
        if (!r.ok() || it == received.end())
            continue;
        lag.push_back(double(it->second - r.scheduledNs) / 1e6);
        queue.push_back(double(r.sentNs - r.scheduledNs) / 1e6);
    }
    const double shift = percentile(lag, 0.5);
    std::vector<double> err;
    for (const double l : lag)
        err.push_back(std::abs(l - shift));
    if (arrival)
        std::printf("%s arrivals: %zu of %d requests ok, %.0f req/s\n", qPrintable(arrivalName(*arrival)), lag.size(),
                    requests, rate);
    else
        std::printf("trace replay: %zu of %d requests ok, %.0f req/s, time scale %g\n", lag.size(), requests, rate,
                    timeScale);
    // The arrival timer is this build's backend's (timerfd, or a Qt timer in whole milliseconds).
    std::printf("I/O backend: %s (arrival timer %s)\n", qPrintable(ioBackend().name),
                qPrintable(ioBackend().timerPrecision));
    std::printf("arrival error (server clock vs schedule) ms:   p50 %.2f  p90 %.2f  p99 %.2f  max %.2f\n",
                percentile(err, 0.5), percentile(err, 0.9), percentile(err, 0.99), percentile(err, 1.0));
    std::printf("client queue delay (sent - scheduled) ms:      p50 %.2f  p90 %.2f  p99 %.2f  max %.2f\n",
                percentile(queue, 0.5), percentile(queue, 0.9), percentile(queue, 0.99), percentile(queue, 1.0));
    const double perRequest = 1e6 / double(std::max<std::size_t>(1, records.size()));
    std::printf("CPU (user + sys) s: process %.3f (simulator included), %.0f us per request; controller thread "
                "%.3f, %.0f us per request\n",
                cpu, cpu * perRequest, controllerCpu, controllerCpu * perRequest);
    return 0;
}
