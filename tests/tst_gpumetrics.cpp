// GPU telemetry and energy (issue 31): the DCGM exporter's text mapped per GPU, hostile values
// and counter resets, the energy over the measurement window, and a run on the simulator's power
// model whose joules per output token are known exactly.
//
// The series names, units and labels are NVIDIA dcgm-exporter's: etc/default-counters.csv at
// commit 00d6d344ea4a39112b211b9ff5af3d97e0bb51c2 (DCGM_FI_DEV_POWER_USAGE in W,
// DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION a counter in mJ since boot, DCGM_FI_DEV_FB_USED/FREE in
// MiB, DCGM_FI_DEV_GPU_UTIL in %), labelled gpu, UUID, device, modelName, Hostname.
#include "analysis/comparison.h"
#include "metrics/gpumetrics.h"
#include "results/rundirectory.h"
#include "run/benchmarkrunner.h"
#include "sim/simulatorhost.h"
#include "support/clirunner.h"
#include "support/comparisonrows.h"
#include "support/testsimulator.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>
#include <utility>

using namespace tb;
using tb::sim::SimConfig;
using tb::sim::SimulatorHost;
using tb::test::findRow;

namespace {

// Two GPUs of one host as dcgm-exporter writes them (HELP, TYPE, labels in its order), with a
// series TokenBench does not read.
constexpr char kDcgmText[] = R"(# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).
# TYPE DCGM_FI_DEV_SM_CLOCK gauge
DCGM_FI_DEV_SM_CLOCK{gpu="0",UUID="GPU-0a1b",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 1980
DCGM_FI_DEV_SM_CLOCK{gpu="1",UUID="GPU-2c3d",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 1980
# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-0a1b",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 412.25
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-2c3d",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 398.5
# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Total energy consumption since boot (in mJ).
# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter
DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0",UUID="GPU-0a1b",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 2765428710
DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="1",UUID="GPU-2c3d",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 2704419021
# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-0a1b",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 97
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-2c3d",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 95
# HELP DCGM_FI_DEV_FB_FREE Framebuffer memory free (in MiB).
# TYPE DCGM_FI_DEV_FB_FREE gauge
DCGM_FI_DEV_FB_FREE{gpu="0",UUID="GPU-0a1b",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 6018
DCGM_FI_DEV_FB_FREE{gpu="1",UUID="GPU-2c3d",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 6018
# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).
# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-0a1b",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 75540
DCGM_FI_DEV_FB_USED{gpu="1",UUID="GPU-2c3d",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node-1"} 75540
)";

GpuPoint parsed(const QByteArray &text, double tS = 0)
{
    QString why;
    const auto exposition = parsePrometheusText(text, &why);
    if (!exposition)
        qFatal("not Prometheus text: %s", qPrintable(why));
    return mapGpuMetrics(*exposition, tS);
}

/// One GPU's scrape: energy in mJ and power in W, each left out when NaN.
GpuPoint onePoint(double tS, double energyMj, double powerW)
{
    GpuPoint p;
    p.tS = tS;
    GpuSample g;
    g.id = "GPU-x";
    if (!std::isnan(energyMj))
        g.energyMj = energyMj;
    if (!std::isnan(powerW))
        g.powerW = powerW;
    g.utilPct = 50;
    p.gpus.push_back(g);
    return p;
}

RunData runWithGpu(double joulesPerToken, QString name)
{
    RunData run;
    run.name = std::move(name);
    GpuSummary gpu;
    gpu.energyJ = joulesPerToken * 1000;
    gpu.energySource = QStringLiteral("counter");
    gpu.gpus = 1;
    gpu.powerWMean = 300;
    gpu.setWork(1000, 10, 0.2);
    run.summary.gpu = gpu;
    return run;
}

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

} // namespace

class TestGpuMetrics : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<RunOutcome>(); }

    void readsDcgmExporterText()
    {
        const GpuPoint p = parsed(kDcgmText, 3.5);
        QCOMPARE(p.tS, 3.5);
        QCOMPARE(p.rejected, 0);
        QCOMPARE(int(p.gpus.size()), 2);
        const GpuSample &g0 = p.gpus[0];
        QCOMPARE(g0.id, std::string("GPU-0a1b"));
        QCOMPARE(g0.gpu, std::string("0"));
        QCOMPARE(g0.model, std::string("NVIDIA H100 80GB HBM3"));
        QCOMPARE(g0.host, std::string("node-1"));
        QCOMPARE(*g0.powerW, 412.25);
        QCOMPARE(*g0.energyMj, 2765428710.0);
        QCOMPARE(*g0.utilPct, 97.0);
        QCOMPARE(*g0.memoryUsedMib, 75540.0);
        QCOMPARE(*g0.memoryFreeMib, 6018.0);
        QCOMPARE(p.gpus[1].id, std::string("GPU-2c3d"));
        QCOMPARE(*p.gpus[1].powerW, 398.5);
    }

    void withoutUuidTheHostAndIndexName()
    {
        const GpuPoint p = parsed("DCGM_FI_DEV_POWER_USAGE{gpu=\"3\",Hostname=\"n\"} 250\n"
                                  "DCGM_FI_DEV_POWER_USAGE{gpu=\"4\"} 260\n");
        QCOMPARE(int(p.gpus.size()), 2);
        QCOMPARE(p.gpus[0].id, std::string("gpu4"));
        QCOMPARE(p.gpus[1].id, std::string("n:gpu3"));
    }

    // A hostile or broken exporter: every such value is left out and counted, never summed.
    void hostileValuesAreLeftOut_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::newRow("NaN power") << QByteArray("DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} NaN\n");
        QTest::newRow("negative power") << QByteArray("DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} -5\n");
        QTest::newRow("absurd power") << QByteArray("DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 1e12\n");
        QTest::newRow("infinite energy") << QByteArray("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\"} +Inf\n");
        QTest::newRow("huge energy") << QByteArray("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\"} 1e300\n");
        QTest::newRow("util over 100") << QByteArray("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 150\n");
        QTest::newRow("negative memory") << QByteArray("DCGM_FI_DEV_FB_USED{gpu=\"0\"} -1\n");
    }

    void hostileValuesAreLeftOut()
    {
        QFETCH(QByteArray, line);
        const GpuPoint p = parsed(line);
        QCOMPARE(p.rejected, 1);
        QCOMPARE(int(p.gpus.size()), 1);
        const GpuSample &g = p.gpus[0];
        QVERIFY(!g.powerW && !g.energyMj && !g.utilPct && !g.memoryUsedMib);
        GpuSeries series;
        series.add(p);
        QVERIFY(series.warnings().join(QLatin1Char('\n')).contains(QStringLiteral("1 value(s)")));
    }

    // Energy over the window: the counter's increase from the last scrape before the mark, a
    // reset counted from zero, else the power gauge integrated.
    void energyOverTheWindow_data()
    {
        QTest::addColumn<QList<double>>("times");
        QTest::addColumn<QList<double>>("energiesMj"); ///< NaN: absent
        QTest::addColumn<QList<double>>("powersW");    ///< NaN: absent
        QTest::addColumn<double>("markS");
        QTest::addColumn<double>("energyJ"); ///< NaN: none
        QTest::addColumn<QString>("source");
        QTest::addColumn<int>("resets");
        QTest::addColumn<int>("rejected");
        const QList<double> t{0, 1, 2, 3};
        QTest::newRow("counter") << t << QList<double>{1000, 6000, 11000, 16000}
                                 << QList<double>{kNone, kNone, kNone, kNone} << 0.5 << 15.0
                                 << QStringLiteral("counter") << 0 << 0;
        QTest::newRow("baseline is the last scrape before the mark")
            << t << QList<double>{0, 5000, 8000, 9000} << QList<double>{kNone, kNone, kNone, kNone} << 1.5 << 4.0
            << QStringLiteral("counter") << 0 << 0;
        QTest::newRow("counter reset counted from zero")
            << t << QList<double>{1000, 6000, 2000, 4000} << QList<double>{kNone, kNone, kNone, kNone} << 0.5 << 9.0
            << QStringLiteral("counter") << 1 << 0;
        QTest::newRow("power when no counter")
            << t << QList<double>{kNone, kNone, kNone, kNone} << QList<double>{100, 200, 200, 100} << 0.5 << 500.0
            << QStringLiteral("power") << 0 << 0;
        QTest::newRow("counter preferred to power")
            << t << QList<double>{0, 1000, 2000, 3000} << QList<double>{100, 100, 100, 100} << 0.5 << 3.0
            << QStringLiteral("counter") << 0 << 0;
        QTest::newRow("a counter leap beyond belief is not believed")
            << t << QList<double>{0, 1000, 1e15, 1e15 + 1000} << QList<double>{kNone, kNone, kNone, kNone} << 0.5 << 2.0
            << QStringLiteral("counter") << 0 << 1;
        QTest::newRow("neither") << t << QList<double>{kNone, kNone, kNone, kNone}
                                 << QList<double>{kNone, kNone, kNone, kNone} << 0.5 << kNone << QString() << 0 << 0;
    }

    void energyOverTheWindow()
    {
        QFETCH(QList<double>, times);
        QFETCH(QList<double>, energiesMj);
        QFETCH(QList<double>, powersW);
        QFETCH(double, markS);
        QFETCH(double, energyJ);
        QFETCH(QString, source);
        QFETCH(int, resets);
        QFETCH(int, rejected);
        GpuSeries series;
        series.setUrl(QStringLiteral("http://gpu:9400/metrics"));
        for (qsizetype i = 0; i < times.size(); ++i) {
            if (times[i] > markS && (i == 0 || times[i - 1] <= markS))
                series.markMeasurementStart(markS);
            series.add(onePoint(times[i], energiesMj[i], powersW[i]));
        }
        const auto s = series.summary();
        QVERIFY(s);
        QCOMPARE(s->scrapes, int(times.size()));
        QCOMPARE(s->gpus, 1);
        QCOMPARE(s->energyJ.has_value(), !std::isnan(energyJ));
        if (s->energyJ)
            QCOMPARE(*s->energyJ, energyJ);
        QCOMPARE(s->energySource, source);
        QCOMPARE(s->counterResets, resets);
        QCOMPARE(s->rejected, rejected);
        const QString warnings = series.warnings().join(QLatin1Char('\n'));
        QCOMPARE(warnings.contains(QStringLiteral("went down")), resets > 0);
        QCOMPARE(warnings.contains(QStringLiteral("no energy")), std::isnan(energyJ));
    }

    void perTokenAndCost()
    {
        GpuSummary s;
        s.energyJ = 7.2e6; // 2 kWh
        s.setWork(4'000'000, 1000, 0.25);
        QCOMPARE(*s.joulesPerOutputToken, 1.8);
        QCOMPARE(*s.joulesPerRequest, 7200.0);
        QCOMPARE(*s.energyCost, 0.5);
        QCOMPARE(*s.energyCostPerMOutputTokens, 0.125);
        s.setWork(0, 0, std::nullopt);
        QVERIFY(!s.joulesPerOutputToken && !s.joulesPerRequest && !s.energyCost);
        // summary.json's block reads back as written.
        s.setWork(4'000'000, 1000, 0.25);
        s.perGpu.push_back({QStringLiteral("GPU-1"), QStringLiteral("H100"), 7.2e6, QStringLiteral("counter"), 300.0,
                            90.0, 70000.0, 1});
        QString why;
        const auto back = GpuSummary::fromJson(s.toJson(), &why);
        QVERIFY2(back, qPrintable(why));
        QVERIFY(back->toJson() == s.toJson());
    }

    // The simulator's power model makes the figure exact: with no idle power the counter grows by
    // gpu_j_per_token per output token and gpu_j_per_prompt_token per prompt token, so the run's
    // joules per output token are (a·output + b·prompt) / output, whatever the timing.
    void joulesPerOutputTokenOnTheSimulator_data()
    {
        QTest::addColumn<int>("gpus");
        QTest::addColumn<double>("perToken");
        QTest::addColumn<double>("perPromptToken");
        QTest::newRow("one GPU, output only") << 1 << 0.25 << 0.0;
        QTest::newRow("two GPUs, prompt too") << 2 << 0.3 << 0.01;
    }

    void joulesPerOutputTokenOnTheSimulator()
    {
        QFETCH(int, gpus);
        QFETCH(double, perToken);
        QFETCH(double, perPromptToken);
        constexpr int kRequests = 8;
        constexpr int kOutputTokens = 20;
        SimConfig sc = *SimConfig::preset(QStringLiteral("fast"));
        sc.outputDist = sim::OutputDistribution::Fixed;
        sc.outputTokens = kOutputTokens;
        sc.outputMin = kOutputTokens;
        sc.gpus = gpus;
        sc.gpuIdleW = 0;
        sc.gpuJPerToken = perToken;
        sc.gpuJPerPromptToken = perPromptToken;
        SimulatorHost host(sc);
        QVERIFY(host.start());
        QTemporaryDir dir;
        RunConfig c;
        c.target = tb::test::targetOf(host);
        c.target.gpuMetricsUrl = host.baseUrl().resolved(QUrl(QStringLiteral("/dcgm"))).toString();
        c.target.energyPricePerKwh = 0.15;
        c.load.concurrency = 2;
        c.load.requests = kRequests;
        c.request.maxTokens = 64;
        c.prompt.promptTokens = 100;
        c.outDir = dir.filePath(QStringLiteral("run"));
        BenchmarkRunner runner;
        QSignalSpy finished(&runner, &BenchmarkRunner::runFinished);
        QString error;
        QVERIFY2(runner.start(c, &error), qPrintable(error));
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 60000);
        const RunOutcome outcome = finished.first().first().value<RunOutcome>();
        const SummaryBlock &t = outcome.summary.total;
        QCOMPARE(t.requests.ok, std::int64_t(kRequests));
        QCOMPARE(t.tokens.output, std::int64_t(kRequests * kOutputTokens));
        const auto &gpu = outcome.summary.gpu;
        QVERIFY(gpu);
        QCOMPARE(gpu->gpus, gpus);
        QCOMPARE(gpu->energySource, QStringLiteral("counter"));
        QCOMPARE(gpu->counterResets, 0);
        QCOMPARE(gpu->rejected, 0);
        const double energy = perToken * double(t.tokens.output) + perPromptToken * double(t.tokens.input);
        QCOMPARE(*gpu->energyJ, energy);
        QCOMPARE(*gpu->joulesPerOutputToken, energy / double(t.tokens.output));
        QCOMPARE(*gpu->joulesPerRequest, energy / kRequests);
        QCOMPARE(*gpu->energyCost, energy / 3.6e6 * 0.15);
        QVERIFY(gpu->powerWMax && *gpu->powerWMax >= 0);
        QCOMPARE(*gpu->memoryUsedMibMax, double(gpus) * std::round(0.9 * double(sc.gpuMemoryMib)));

        // Its raw series are kept, and summary.json's block reads back.
        QVERIFY(QFile::exists(outcome.directory + QStringLiteral("/gpu_metrics.csv")));
        QFile file(outcome.directory + QStringLiteral("/summary.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto json = nlohmann::json::parse(file.readAll().toStdString());
        QCOMPARE(json["gpu"]["energy_source"].get<std::string>(), std::string("counter"));
        QString why;
        const auto back = RunSummary::fromJson(json, &why);
        QVERIFY2(back, qPrintable(why));
        QVERIFY(back->gpu);
        QCOMPARE(*back->gpu->joulesPerOutputToken, *gpu->joulesPerOutputToken);
    }

    void cliRunPrintsTheGpuLine()
    {
        SimConfig sc = *SimConfig::preset(QStringLiteral("fast"));
        sc.outputDist = sim::OutputDistribution::Fixed;
        sc.outputTokens = 10;
        sc.outputMin = 10;
        sc.gpuIdleW = 0;
        sc.gpuJPerToken = 0.5;
        sc.gpuJPerPromptToken = 0;
        SimulatorHost host(sc);
        QVERIFY(host.start());
        QTemporaryDir dir;
        const QString url = host.baseUrl().toString();
        const CliResult r =
            runCli({QStringLiteral("run"), QStringLiteral("--url"), url, QStringLiteral("--model"), sc.model,
                    QStringLiteral("--requests"), QStringLiteral("4"), QStringLiteral("--gpu-metrics"),
                    host.baseUrl().resolved(QUrl(QStringLiteral("/dcgm"))).toString(), QStringLiteral("--price-kwh"),
                    QStringLiteral("0.2"), QStringLiteral("--out"), dir.filePath(QStringLiteral("run"))});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QString all = r.out + r.err;
        QVERIFY2(all.contains(QStringLiteral("gpu        ")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("0.5000 J/output token")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("/kWh")), qPrintable(all));
    }

    // The GUI's chart over time (issue 31): each scrape's power per GPU and summed, utilisation per
    // GPU and its mean; read back from gpu_metrics.csv (server_metrics.csv's columns) the same as
    // collected live. Beyond GpuTrace::kMaxTracedGpus GPUs count in the sum only.
    void traceFromCsvEqualsTheLiveOne_data()
    {
        QTest::addColumn<int>("gpus");
        QTest::addColumn<bool>("instanceColumn");
        QTest::newRow("one GPU") << 1 << true;
        QTest::newRow("two GPUs") << 2 << true;
        QTest::newRow("ten GPUs: eight drawn apart") << 10 << true;
        QTest::newRow("without the instance column") << 2 << false;
    }
    void traceFromCsvEqualsTheLiveOne()
    {
        QFETCH(int, gpus);
        QFETCH(bool, instanceColumn);
        GpuTrace live;
        QByteArray csv = instanceColumn ? "t_s,name,labels,value,instance\n" : "t_s,name,labels,value\n";
        for (int scrape = 0; scrape < 3; ++scrape) {
            QByteArray text;
            const QByteArray at = QByteArray::number(0.5 + scrape, 'f', 3);
            for (int g = 0; g < gpus; ++g) {
                const QByteArray labels =
                    "{gpu=\"" + QByteArray::number(g) + "\",UUID=\"GPU-" + QByteArray::number(10 + g) + "\"}";
                const double watts = 100.25 + 10 * g + scrape;
                const double util = scrape == 1 ? 0 : 50 + g;
                for (const auto &[name, value] : {std::pair(dcgm::kPower, watts), std::pair(dcgm::kUtil, util)}) {
                    text += name + labels + ' ' + QByteArray::number(value, 'g', 17) + '\n';
                    QByteArray quoted = labels;
                    quoted.replace("\"", "\"\"");
                    csv += at + ',' + name + ",\"" + quoted + "\"," + QByteArray::number(value, 'g', 17) +
                           (instanceColumn ? ",\n" : "\n");
                }
            }
            QString why;
            const auto exposition = parsePrometheusText(text, &why);
            QVERIFY2(exposition, qPrintable(why));
            live.add(mapGpuMetrics(*exposition, at.toDouble()));
        }
        QString error;
        const std::optional<GpuTrace> saved = gpuTraceFromCsv(csv, &error);
        QVERIFY2(saved, qPrintable(error));
        for (const GpuTrace *trace : {&std::as_const(live), &*saved}) {
            QCOMPARE(int(trace->rows.size()), 3);
            QCOMPARE(trace->peakGpus(), gpus);
            QCOMPARE(int(trace->ids.size()), std::min(gpus, int(GpuTrace::kMaxTracedGpus)));
            QCOMPARE(trace->ids.front(), std::string("GPU-10"));
            for (int scrape = 0; scrape < 3; ++scrape) {
                const GpuTrace::Row &row = trace->rows[std::size_t(scrape)];
                QCOMPARE(row.tS, 0.5 + scrape);
                double sum = 0;
                double utilSum = 0;
                for (int g = 0; g < gpus; ++g) {
                    sum += 100.25 + 10 * g + scrape;
                    utilSum += scrape == 1 ? 0 : 50 + g;
                }
                QCOMPARE(row.powerWSum, sum);
                QCOMPARE(row.utilPctMean, utilSum / gpus);
                QCOMPARE(trace->powerW(row, 1 % std::size_t(gpus)), 100.25 + 10 * (1 % gpus) + scrape);
                QVERIFY(std::isnan(trace->powerW(row, GpuTrace::kMaxTracedGpus))); // never traced apart
            }
        }
    }

    void damagedTraceFileSaysWhere_data()
    {
        QTest::addColumn<QByteArray>("csv");
        QTest::addColumn<QString>("error");
        QTest::newRow("no header") << QByteArray("1,DCGM_FI_DEV_POWER_USAGE,,1\n")
                                   << QStringLiteral("line 1: expected the header t_s,name,labels,value,instance");
        QTest::newRow("a field short") << QByteArray("t_s,name,labels,value\n1,DCGM_FI_DEV_POWER_USAGE,\n")
                                       << QStringLiteral("line 2: expected 4 fields");
        QTest::newRow("not Prometheus text") << QByteArray("t_s,name,labels,value\n1,DCGM_FI_DEV_POWER_USAGE,{gpu=,1\n")
                                             << QStringLiteral("the scrape at 1 s: ");
    }
    void damagedTraceFileSaysWhere()
    {
        QFETCH(QByteArray, csv);
        QFETCH(QString, error);
        QString why;
        QVERIFY(!gpuTraceFromCsv(csv, &why));
        QVERIFY2(why.startsWith(error), qPrintable(why));
    }

    void compareShowsTheEnergyRow()
    {
        const ComparisonTable table({runWithGpu(0.5, QStringLiteral("a")), runWithGpu(0.25, QStringLiteral("b"))});
        const auto *row = findRow(table, QStringLiteral("gpu_joules_per_output_token"));
        QVERIFY(row);
        QCOMPARE(row->label, QStringLiteral("Energy per output token"));
        QCOMPARE(*row->values[0], 0.5);
        QCOMPARE(*row->values[1], 0.25);
        QCOMPARE(row->best, (std::vector<bool>{false, true}));
        QVERIFY(findRow(table, QStringLiteral("gpu_power_mean")));
        const auto *cost = findRow(table, QStringLiteral("gpu_energy_cost_per_1m_output_tokens"));
        QVERIFY(cost);
        QCOMPARE(*cost->values[1], 250.0 / 3.6e6 * 0.2 / 1000 * 1e6);
        QVERIFY(table.toText().contains(QStringLiteral("Energy per output token")));
        // A run without GPU figures has no such row.
        QVERIFY(!findRow(ComparisonTable({RunData{}}), QStringLiteral("gpu_joules_per_output_token")));
    }
};

QTEST_GUILESS_MAIN(TestGpuMetrics)
#include "tst_gpumetrics.moc"
