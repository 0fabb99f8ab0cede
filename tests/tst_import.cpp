// Other tools' result files as runs (issue 31): ForeignRuns, LoadedRuns given a file, the import
// subcommand, and a comparison of an imported run with a native one.
//
// The fixtures in tests/data/import/ follow the tools' own code (what each reads is named in
// tests/data/README.md); each row below names the file and version its fixture follows.

#include "support/clirunner.h"
#include "support/testfiles.h"

#include "analysis/comparison.h"
#include "metrics/runaggregator.h"
#include "results/foreignruns.h"
#include "results/foreignruns_p.h"
#include "results/loadedruns.h"
#include "results/rundirectory.h"
#include "results/runwriter.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

using namespace tb;

namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

QString importFile(const char *name)
{
    return test::testFile((QByteArray("import/") + name).constData());
}

/// The statistic's mean, NaN when the summary has none.
double meanOf(const RunData &run, Metric metric)
{
    const LatencyStats &s = run.summary.total.stat(metric);
    return s.count > 0 ? s.mean : kNone;
}

/// Equal within 1e-6 relative: GuideLLM's Unix-second stamps (about 1.76e9) carry 0.24 µs as doubles.
bool same(double actual, double expected)
{
    if (std::isnan(expected))
        return std::isnan(actual);
    return std::abs(actual - expected) <= 1e-6 * std::max(1.0, std::abs(expected));
}

/// vllm-detailed.json's shape with `n` successful requests (TTFT 100 + 10·i ms, two 20 ms chunk gaps,
/// 3 tokens each, one every 500 ms): enough for the comparison's noise test (10 a run at least).
QString writeDetailedVllm(const QTemporaryDir &dir, int n)
{
    nlohmann::json r = nlohmann::json::parse(test::readFile(importFile("vllm-detailed.json")).toStdString());
    for (const char *key : {"input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times", "queue_times",
                            "generated_texts", "errors"})
        r[key] = nlohmann::json::array();
    for (int i = 0; i < n; ++i) {
        r["input_lens"].push_back(10);
        r["output_lens"].push_back(3);
        r["ttfts"].push_back(0.1 + 0.01 * i);
        r["itls"].push_back({0.02, 0.02});
        r["latencies"].push_back(0.14 + 0.01 * i);
        r["start_times"].push_back(100.0 + 0.5 * i);
        r["queue_times"].push_back(0.0);
        r["generated_texts"].push_back("a b c");
        r["errors"].push_back("");
    }
    r["completed"] = n;
    r["failed"] = 0;
    return test::writeFile(dir, QStringLiteral("vllm-detailed-%1.json").arg(n), QByteArray::fromStdString(r.dump()));
}

/// A native run directory: 12 requests measured by TokenBench (TTFT 100 + 40·i ms).
QString writeNativeRun(const QTemporaryDir &dir)
{
    RunConfig config;
    config.target.model = QStringLiteral("Qwen/Qwen2.5-0.5B-Instruct");
    config.target.url = QStringLiteral("http://127.0.0.1:8000/v1");
    config.load.concurrency = 1;
    const RunInfo info = RunInfo::begin(config);
    std::vector<RequestRecord> records;
    for (int i = 0; i < 12; ++i) {
        RequestRecord r;
        r.id = std::uint64_t(i + 1);
        r.scheduledNs = r.sentNs = std::int64_t(i) * 500'000'000;
        r.headersNs = r.sentNs + 50'000'000;
        r.firstTokenNs = r.firstContentNs = r.sentNs + (100 + 40 * i) * 1'000'000LL;
        r.tokenChunks = {{r.firstTokenNs, 4}, {r.firstTokenNs + 20'000'000, 4}, {r.firstTokenNs + 40'000'000, 4}};
        r.chunks = 3;
        r.lastTokenNs = r.firstTokenNs + 40'000'000;
        r.doneNs = r.lastTokenNs;
        r.completionTokens = 3;
        r.promptTokens = 10;
        r.tokenSource = r.promptTokenSource = TokenSource::Usage;
        r.httpStatus = 200;
        records.push_back(r);
    }
    RunAggregator aggregator(info);
    const QString path = dir.filePath(QStringLiteral("native"));
    RunWriter writer;
    if (!writer.open(path, info))
        return {};
    for (const RequestRecord &r : records) {
        aggregator.add(r);
        writer.append(r);
    }
    return writer.finish(aggregator.summary(), aggregator.timeSeries()) ? path : QString();
}

} // namespace

class TestImport : public QObject
{
    Q_OBJECT

private slots:
    void mapsEachFormat_data();
    void mapsEachFormat();
    void spreadsMultiTokenChunksForItl();
    void hostileFile_data();
    void hostileFile();
    void yamlAndJsonFormsReadAlike();
    void startPastTheClockLeavesItUnknown();
    void yamlScalarsTypedAsCoreSchema_data();
    void yamlScalarsTypedAsCoreSchema();
    void hostileYaml_data();
    void hostileYaml();
    void saturatesHugeCounts();
    void importCommandWritesRunDirectories();
    void comparisonNamesDefinitions();
    void summaryOnlyRunIsNotNoiseTested();
};

void TestImport::mapsEachFormat_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("run");
    QTest::addColumn<int>("runs");
    QTest::addColumn<QString>("tool");
    QTest::addColumn<QString>("version");
    QTest::addColumn<QString>("source");
    QTest::addColumn<bool>("perRequest");
    QTest::addColumn<qint64>("ok");
    QTest::addColumn<qint64>("failed");
    QTest::addColumn<double>("ttft");
    QTest::addColumn<double>("tpot");
    QTest::addColumn<double>("e2e");
    QTest::addColumn<double>("icl");
    QTest::addColumn<qint64>("input");
    QTest::addColumn<qint64>("output");
    QTest::addColumn<QStringList>("pointValues");

    const QString vllm = QStringLiteral("vLLM bench serve");
    // vllm-project/vllm vllm/benchmarks/serve.py @ 009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1: result_json
    // without --save-detailed (latencies and queue_times stay), default --percentile-metrics ttft,tpot,itl.
    QTest::newRow("vllm summary (serve.py @009e6d4a)")
        << importFile("vllm-summary.json") << 0 << 1 << vllm << QString() << QStringLiteral("vllm-summary.json")
        << false << qint64(4) << qint64(1) << 120.5 << 20.0 << kNone << 18.0 << qint64(2048) << qint64(512)
        << QStringList{QStringLiteral("ttft"), QStringLiteral("tpot"), QStringLiteral("icl")};
    // The same with --save-detailed (input_lens, output_lens, ttfts, itls, start_times, generated_texts,
    // errors) and e2el among the percentile metrics; endpoint_request_func.py @02cfb534 for what each holds.
    QTest::newRow("vllm detailed (serve.py @009e6d4a)")
        << importFile("vllm-detailed.json") << 0 << 1 << vllm << QString() << QStringLiteral("vllm-detailed.json")
        << true << qint64(2) << qint64(1) << 150.0 << (80.0 / 3 + 20.0) / 2 << 240.0 << 36.0 << qint64(30) << qint64(10)
        << QStringList();
    // --append-result: one result_json a line.
    QTest::newRow("vllm appended, 1st (serve.py @009e6d4a)")
        << importFile("vllm-appended.json") << 0 << 2 << vllm << QString() << QStringLiteral("vllm-appended.json")
        << false << qint64(2) << qint64(0) << 100.0 << 10.0 << kNone << 10.0 << qint64(20) << qint64(8)
        << QStringList{QStringLiteral("ttft"), QStringLiteral("tpot"), QStringLiteral("icl")};
    QTest::newRow("vllm appended, 2nd (serve.py @009e6d4a)")
        << importFile("vllm-appended.json") << 1 << 2 << vllm << QString() << QStringLiteral("vllm-appended.json")
        << false << qint64(2) << qint64(0) << 200.0 << 12.0 << kNone << 12.0 << qint64(20) << qint64(8)
        << QStringList{QStringLiteral("ttft"), QStringLiteral("tpot"), QStringLiteral("icl")};
    // vllm-project/guidellm @ ee7a77457ba668b4b5ccb40f110518829893b36a: benchmark/schemas/report.py
    // (metadata, config, benchmarks), benchmark.py, metrics.py, schemas/request_stats.py, info.py,
    // statistics.py (DistributionSummary). Benchmark 0 keeps its requests, benchmark 1 none.
    QTest::newRow("guidellm requests (report.py @ee7a7745)")
        << importFile("guidellm-benchmarks.json") << 0 << 2 << QStringLiteral("GuideLLM") << QStringLiteral("0.4.0")
        << QStringLiteral("guidellm-benchmarks.json") << true << qint64(2) << qint64(1) << 150.0 << 50.0 << 400.0
        << kNone << qint64(150) << qint64(12) << QStringList();
    QTest::newRow("guidellm summary (report.py @ee7a7745)")
        << importFile("guidellm-benchmarks.json") << 1 << 2 << QStringLiteral("GuideLLM") << QStringLiteral("0.4.0")
        << QStringLiteral("guidellm-benchmarks.json") << false << qint64(40) << qint64(0) << 80.0 << 12.0 << 1500.0
        << kNone << qint64(8000) << qint64(4000)
        << QStringList{QStringLiteral("ttft"), QStringLiteral("tpot"), QStringLiteral("e2e")};
    // ai-dynamo/aiperf v0.1.1 @ db4f6397d11ee2d4cfbb41f70b2327315163dcf0: record_models.py MetricRecordInfo
    // as docs/tutorials/working-with-profile-exports.md shows it; export_models.py JsonExportData.
    QTest::newRow("aiperf records (record_models.py v0.1.1)")
        << importFile("aiperf/profile_export.jsonl") << 0 << 1 << QStringLiteral("AIPerf") << QString()
        << QStringLiteral("profile_export.jsonl") << true << qint64(2) << qint64(0) << 110.0 << 26.25 << 155.0 << 30.0
        << qint64(1100) << qint64(7) << QStringList();
    // Its summary with the records beside it: the records are read.
    QTest::newRow("aiperf summary beside records (v0.1.1)")
        << importFile("aiperf/profile_export_aiperf.json") << 0 << 1 << QStringLiteral("AIPerf") << QString()
        << QStringLiteral("profile_export.jsonl") << true << qint64(2) << qint64(0) << 110.0 << 26.25 << 155.0 << 30.0
        << qint64(1100) << qint64(7) << QStringList();
    QTest::newRow("aiperf summary alone (export_models.py v0.1.1)")
        << importFile("aiperf-summary/profile_export_aiperf.json") << 0 << 1 << QStringLiteral("AIPerf") << QString()
        << QStringLiteral("profile_export_aiperf.json") << false << qint64(2) << qint64(1) << 110.0 << 26.25 << 155.0
        << kNone << qint64(1100) << qint64(7)
        << QStringList{QStringLiteral("ttft"), QStringLiteral("tpot"), QStringLiteral("e2e")};
    // llm-d/llm-d-benchmark: br_v0_2_1_example.yaml @ dc48906f cut down, written by PyYAML 6.0 as
    // base.py @ 3b7decff writes it (export_yaml: yaml.dump(indent=2); export_json: json.dump(indent=2);
    // tests/data/README.md). 1005 requests, 3 failed, 2 incomplete: 1000 successful; TTFT in s,
    // TPOT in s/token, its p99 .nan (NaN) read as missing; tokens are means × successful requests.
    for (const char *form : {"yaml", "json"}) {
        const QString name = QStringLiteral("llmd-report.") + QLatin1String(form);
        QTest::addRow("llm-d report in %s (br_v0_2_1_example.yaml @dc48906f)", form)
            << importFile(qPrintable(name)) << 0 << 1 << QStringLiteral("llm-d Benchmark Report")
            << QStringLiteral("0.2.1") << name << false << qint64(1000) << qint64(3) << 36.8578234128654 << 5.2
            << 5237.2 << kNone << qint64(2'262'448) << qint64(1'000'000)
            << QStringList{QStringLiteral("ttft"), QStringLiteral("tpot"), QStringLiteral("itl"),
                           QStringLiteral("e2e")};
    }
}

void TestImport::mapsEachFormat()
{
    QFETCH(QString, file);
    QFETCH(int, run);
    QFETCH(int, runs);
    QFETCH(QString, tool);
    QFETCH(QString, version);
    QFETCH(QString, source);
    QFETCH(bool, perRequest);
    QFETCH(qint64, ok);
    QFETCH(qint64, failed);
    QFETCH(double, ttft);
    QFETCH(double, tpot);
    QFETCH(double, e2e);
    QFETCH(double, icl);
    QFETCH(qint64, input);
    QFETCH(qint64, output);
    QFETCH(QStringList, pointValues);

    QString error;
    const auto read = ForeignRuns::read(file, &error);
    QVERIFY2(read, qPrintable(error));
    QCOMPARE(int(read->size()), runs);
    const RunData &r = (*read)[std::size_t(run)];
    QVERIFY(r.summary.imported);
    const ImportedFrom &from = *r.summary.imported;
    QCOMPARE(from.tool, tool);
    QCOMPARE(from.version, version);
    QCOMPARE(from.source, source);
    QCOMPARE(from.perRequest, perRequest);
    QCOMPARE(from.pointValues, pointValues);
    QVERIFY(!from.definitions.isEmpty());
    QCOMPARE(r.summary.toolName, tool);
    QCOMPARE(r.summary.total.requests.ok, ok);
    QCOMPARE(r.summary.total.requests.failed, failed);
    QCOMPARE(r.records.empty(), !perRequest);
    QVERIFY2(same(meanOf(r, Metric::Ttft), ttft), qPrintable(QString::number(meanOf(r, Metric::Ttft))));
    QVERIFY2(same(meanOf(r, Metric::Tpot), tpot), qPrintable(QString::number(meanOf(r, Metric::Tpot))));
    QVERIFY2(same(meanOf(r, Metric::E2e), e2e), qPrintable(QString::number(meanOf(r, Metric::E2e))));
    QVERIFY2(same(meanOf(r, Metric::Icl), icl), qPrintable(QString::number(meanOf(r, Metric::Icl))));
    QCOMPARE(r.summary.total.tokens.input, input);
    QCOMPARE(r.summary.total.tokens.output, output);

    // What import writes, RunReader reads back the same.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("run"));
    QVERIFY2(ForeignRuns::write(r, path, &error), qPrintable(error));
    const auto loaded = RunReader::load(path, &error);
    QVERIFY2(loaded, qPrintable(error));
    QCOMPARE(loaded->summary.imported, r.summary.imported);
    QCOMPARE(loaded->records.size(), r.records.size());
    QVERIFY(same(meanOf(*loaded, Metric::Ttft), ttft));
}

void TestImport::spreadsMultiTokenChunksForItl()
{
    // vLLM's itls are chunk gaps: request 2 of the fixture streams 6 tokens in 3 chunks, 50 ms apart.
    // TokenBench's ITL spreads each gap over its chunk's tokens: 20, 20, 40 (one token a chunk) and
    // 25 four times → (80 + 100) / 7 per token; ICL keeps vLLM's gaps (mean 36 ms).
    QString error;
    const auto read = ForeignRuns::read(importFile("vllm-detailed.json"), &error);
    QVERIFY2(read, qPrintable(error));
    const RunData &r = read->front();
    QVERIFY(same(meanOf(r, Metric::Itl), 180.0 / 7));
    QCOMPARE(r.summary.total.stat(Metric::Icl).count, std::uint64_t(5));
    QCOMPARE(r.records[2].status, RequestStatus::ServerError);
    QCOMPARE(r.records[2].errorMessage, QStringLiteral("Bad Request"));
    // start_times (perf_counter readings) become offsets from the first.
    QCOMPARE(r.records[1].sentNs, std::int64_t(500'000'000));

    // GuideLLM keeps first and last token times: each request's ITL is its (last − first) / (tokens − 1),
    // 300 ms / 6 and 200 ms / 4.
    const auto guidellm = ForeignRuns::read(importFile("guidellm-benchmarks.json"), &error);
    QVERIFY2(guidellm, qPrintable(error));
    QVERIFY(same(meanOf(guidellm->front(), Metric::Itl), 50.0));
    QCOMPARE(guidellm->front().summary.total.stat(Metric::Icl).count, std::uint64_t(0));
}

void TestImport::hostileFile_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("error"); ///< what the error says, after the file's path

    const QByteArray detailed = test::readFile(importFile("vllm-detailed.json"));
    QTest::newRow("truncated JSON") << detailed.left(200) << QStringLiteral("not JSON (line 1)");
    QTest::newRow("empty") << QByteArray() << QStringLiteral("empty");
    QTest::newRow("not a result") << QByteArray(R"({"hello": 1})")
                                  << QStringLiteral("not a vLLM, GuideLLM, AIPerf or llm-d Benchmark Report file");
    QTest::newRow("string for a number") << QByteArray(R"({"backend": "vllm", "completed": "4", "duration": 1.0})")
                                         << QStringLiteral("completed: not a number");
    QTest::newRow("negative duration") << QByteArray(R"({"backend": "vllm", "completed": 4, "duration": -1})")
                                       << QStringLiteral("duration: negative (-1)");
    QTest::newRow("arrays of different lengths")
        << QByteArray(R"({"backend": "vllm", "completed": 2, "duration": 1, "ttfts": [0.1, 0.2], "itls": [[]]})")
        << QStringLiteral("itls: 1 values, ttfts has 2");
    QTest::newRow("itls not arrays")
        << QByteArray(R"({"backend": "vllm", "completed": 1, "duration": 1, "ttfts": [0.1], "itls": [5]})")
        << QStringLiteral("itls[0]: not an array");
    // A claim of more requests than an import takes, made without 10^9 elements: one past the bound.
    QByteArray many = R"({"backend": "vllm", "completed": 1, "duration": 1, "itls": [], "ttfts": [)";
    many += QByteArray("0,").repeated(qsizetype(ForeignRuns::kMaxRequests));
    many += "0]}";
    QTest::newRow("more requests than the bound") << many << QStringLiteral("ttfts: more than 2000000 requests");
    QTest::newRow("aiperf stamp not a number")
        << QByteArray(R"({"metadata": {"request_start_ns": "soon"}, "metrics": {}, "error": null})")
        << QStringLiteral("line 1.metadata.request_start_ns: not a time in ns");
    QTest::newRow("aiperf unknown unit")
        << QByteArray(R"({"metadata": {"request_start_ns": 1}, "metrics": {"time_to_first_token": )"
                      R"({"value": 1, "unit": "fortnights"}}, "error": null})")
        << QStringLiteral("line 1.metrics.time_to_first_token.unit: unknown unit \"fortnights\"");
    QTest::newRow("guidellm benchmark not an object")
        << QByteArray(R"({"metadata": {}, "benchmarks": [7]})") << QStringLiteral("benchmarks[0]: not an object");
    QTest::newRow("guidellm timing a string")
        << QByteArray(R"({"benchmarks": [{"requests": {"successful": [{"info": {"timings": )"
                      R"({"request_start": "x"}}}]}}]})")
        << QStringLiteral("benchmarks[0].requests.successful[0].info.timings.request_start: not a number");
    // llm-d Benchmark Reports (llmdreportreader.cpp; tst_llmdreport has the round trip).
    const QByteArray head = R"({"version": "0.2", "run": {"uid": "x"}, "results": {"request_performance": )"
                            R"({"aggregate": )";
    QTest::newRow("llm-d: version 0.1") << QByteArray(R"({"version": "0.1", "run": {}, "results": {}})")
                                        << QStringLiteral(
                                               "version: llm-d Benchmark Report \"0.1\" (this build reads 0.2 "
                                               "and 0.2.1)");
    QTest::newRow("llm-d: version not a string")
        << QByteArray(R"({"version": 2, "run": {}, "results": {}})")
        << QStringLiteral("version: llm-d Benchmark Report \"\" (this build reads 0.2 and 0.2.1)");
    QTest::newRow("llm-d: total a string")
        << head + R"({"requests": {"total": "9"}}}}})"
        << QStringLiteral("results.request_performance.aggregate.requests.total: not a number");
    QTest::newRow("llm-d: negative failures")
        << head + R"({"requests": {"total": 9, "failures": -1}}}}})"
        << QStringLiteral("results.request_performance.aggregate.requests.failures: negative (-1)");
    QTest::newRow("llm-d: unit of another field")
        << head + R"({"latency": {"time_to_first_token": {"units": "tokens/s", "mean": 1}}}}}})"
        << QStringLiteral("results.request_performance.aggregate.latency.time_to_first_token.units: \"tokens/s\" "
                          "is not one of ms, s");
    QTest::newRow("llm-d: statistics without a mean")
        << head + R"({"latency": {"request_latency": {"units": "s", "p50": 1}}}}}})"
        << QStringLiteral("results.request_performance.aggregate.latency.request_latency.mean: missing");
    QTest::newRow("llm-d: statistics not an object")
        << head + R"({"throughput": {"request_rate": [1, 2]}}}}})"
        << QStringLiteral("results.request_performance.aggregate.throughput.request_rate: not an object");
    QTest::newRow("llm-d: percentile a string")
        << head + R"({"latency": {"time_to_first_token": {"units": "ms", "mean": 1, "p99": "high"}}}}}})"
        << QStringLiteral("results.request_performance.aggregate.latency.time_to_first_token.p99: not a number");
    QTest::newRow("llm-d: rate a string")
        << QByteArray(R"({"version": "0.2", "run": {"uid": "x"}, "results": {}, )"
                      R"("scenario": {"load": {"standardized": {"rate_qps": "fast"}}}})")
        << QStringLiteral("scenario.load.standardized.rate_qps: not a number");
}

void TestImport::hostileFile()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, error);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = test::writeFile(dir, QStringLiteral("hostile.json"), bytes);
    QVERIFY(!path.isEmpty());
    QString why;
    QVERIFY(!ForeignRuns::read(path, &why));
    QCOMPARE(why, path + QStringLiteral(": ") + error);
}

void TestImport::yamlAndJsonFormsReadAlike()
{
    // One report, as llm-d's tools write it in YAML and in JSON: the same run, file for file, but
    // for the file name it names as its source.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString error;
    QStringList written;
    for (const char *form : {"yaml", "json"}) {
        const auto read =
            ForeignRuns::read(importFile(qPrintable(QStringLiteral("llmd-report.") + QLatin1String(form))), &error);
        QVERIFY2(read, qPrintable(error));
        QCOMPARE(read->size(), std::size_t(1));
        written << dir.filePath(QLatin1String(form));
        QVERIFY2(ForeignRuns::write(read->front(), written.last(), &error), qPrintable(error));
    }
    const QStringList files = QDir(written[0]).entryList(QDir::Files, QDir::Name);
    QCOMPARE(files, QDir(written[1]).entryList(QDir::Files, QDir::Name));
    QVERIFY(files.contains(QStringLiteral("summary.json")));
    for (const QString &file : files) {
        QByteArray yaml = test::readFile(QDir(written[0]).filePath(file));
        yaml.replace("llmd-report.yaml", "llmd-report.json");
        QVERIFY2(yaml == test::readFile(QDir(written[1]).filePath(file)), qPrintable(file));
    }
}

void TestImport::startPastTheClockLeavesItUnknown()
{
    // Regression (fuzz_llmdreport, its corpus's start-in-6026.yaml): a report's run.time.start in
    // 6026 made the run's wall origin overflow int64 nanoseconds (undefined behaviour). The run
    // reads, its wall origin unknown; the date itself is kept.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = test::writeFile(dir, QStringLiteral("br.yaml"),
                                         "version: '0.2'\nrun: {uid: x, time: {start: '6026-01-01T00:00:00Z'}}\n"
                                         "results: {request_performance: {aggregate: {requests: {total: 2}}}}\n");
    QString error;
    const auto read = ForeignRuns::read(path, &error);
    QVERIFY2(read, qPrintable(error));
    QCOMPARE(read->front().info.wallOriginNs, std::int64_t(0));
    QCOMPARE(read->front().info.startedAt.date().year(), 6026);
}

void TestImport::yamlScalarsTypedAsCoreSchema_data()
{
    QTest::addColumn<QByteArray>("scalar");
    QTest::addColumn<QByteArray>("json"); ///< the value parseYaml gives, as JSON

    // YAML 1.2's core schema (yaml.org/spec/1.2.2 §10.3.2), as PyYAML writes llm-d's values.
    const QList<std::pair<const char *, const char *>> rows{
        {"1", "1"},
        {"-12", "-12"},
        {"+7", "7"},
        {"0o17", "15"},
        {"0x1F", "31"},
        {"18446744073709551615", "18446744073709551615"},
        {"100000000000000000000", "1e+20"},
        {"2262.448", "2262.448"},
        {"1.0e-05", "1e-05"},
        {".5", "0.5"},
        {"1.", "1.0"},
        {"1e-999", "0.0"},
        {".inf", "null"},
        {"-.Inf", "null"},
        {".NaN", "null"},
        {"~", "null"},
        {"", "null"},
        {"True", "true"},
        {"false", "false"},
        {"yes", "\"yes\""},
        {"0.2.1", "\"0.2.1\""},
        {"'0.2'", "\"0.2\""},
        {"\"1\"", "\"1\""},
        {"2025-11-05T18:00:42Z", "\"2025-11-05T18:00:42Z\""},
        {"\"t\\u00e9\"", "\"t\u00e9\""},
        {"PT1M40.5S", "\"PT1M40.5S\""},
    };
    for (const auto &[scalar, json] : rows)
        QTest::addRow("[%s]", scalar) << QByteArray(scalar) << QByteArray(json);
}

void TestImport::yamlScalarsTypedAsCoreSchema()
{
    QFETCH(QByteArray, scalar);
    QFETCH(QByteArray, json);
    QString problem;
    const auto value = foreign::parseYaml("v: " + scalar + "\n", &problem);
    QVERIFY2(value, qPrintable(problem));
    QCOMPARE(QByteArray::fromStdString(value->at("v").dump()), json);
}

void TestImport::hostileYaml_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("error"); ///< what the error says, after the file's path

    const QByteArray head = "version: '0.2'\nrun: {uid: x}\nresults:\n  request_performance: ";
    // Nesting is refused at the 65th level, whatever the depth asked for: no stack grows with it.
    QTest::newRow("100,000 nested flow sequences")
        << QByteArray(100'000, '[') << QStringLiteral("YAML line 1, column 65: nested deeper than 64 levels");
    QTest::newRow("100,000 nested flow mappings")
        << QByteArray("{a: ").repeated(100'000)
        << QStringLiteral("YAML line 1, column 257: nested deeper than 64 levels");
    QTest::newRow("100,000 nested block sequences")
        << QByteArray("- ").repeated(100'000) + "x"
        << QStringLiteral("YAML line 1, column 129: nested deeper than 64 levels");
    // Billion laughs: each level holds nine aliases of the one before. Refused when the values,
    // aliases expanded, pass 10^6 (level f: 597,871 values, and its anchor's copy), before any copy.
    QByteArray laughs = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
    for (char level = 'b'; level <= 'i'; ++level) {
        const QByteArray alias = QByteArray("*") + char(level - 1);
        laughs += QByteArray(1, level) + ": &" + char(level) + " [" + (alias + ", ").repeated(8) + alias + "]\n";
    }
    QTest::newRow("alias bomb") << laughs
                                << QStringLiteral(
                                       "YAML line 6, column 42: more than 1000000 values (aliases expanded)");
    QTest::newRow("alias of an anchor still open")
        << QByteArray("a: &a [*a]\n") << QStringLiteral("YAML line 1, column 8: alias *a names no anchor before it");
    QTest::newRow("value over 1 MiB")
        << "version: '" + QByteArray((1 << 20) + 1, 'x') + "'\n"
        << QStringLiteral("YAML line 1, column 10: a value of 1048577 bytes, more than an import reads (1 MiB)");
    QTest::newRow("tag") << QByteArray("version: !!python/object/apply:os.system ['true']\n")
                         << QStringLiteral(
                                "YAML line 1, column 10: tag \"tag:yaml.org,2002:python/object/apply:os.system\": "
                                "import reads untagged YAML");
    QTest::newRow("local tag") << head + "!report {}\n"
                               << QStringLiteral("YAML line 4, column 24: tag \"!report\": import reads untagged YAML");
    QTest::newRow("duplicate key") << QByteArray("version: '0.2'\nrun: {}\nversion: '0.2.1'\n")
                                   << QStringLiteral("YAML line 3, column 1: duplicate key \"version\"");
    QTest::newRow("key not text") << QByteArray("? [a]\n: 1\n")
                                  << QStringLiteral("YAML line 1, column 3: a mapping key that is not text");
    QTest::newRow("not UTF-8") << QByteArray("version: '0.2'\nrun: \xff\n")
                               << QStringLiteral("YAML line 2, column 6: not UTF-8 (invalid leading UTF-8 octet)");
    QTest::newRow("UTF-16") << QByteArray("\xff\xfev\0:\0 \0x\0", 10)
                            << QStringLiteral("YAML line 1, column 1: not UTF-8 (UTF-16)");
    QTest::newRow("number past a double")
        << head + "{aggregate: {requests: {total: 1e999}}}\n"
        << QStringLiteral("YAML line 4, column 55: the number \"1e999\" is out of range");
    QTest::newRow("no document") << QByteArray("# nothing but a comment\n")
                                 << QStringLiteral("YAML without a document");
    QTest::newRow("empty document") << QByteArray("---\n...\n") << QStringLiteral("YAML an empty document");
    QTest::newRow("two documents")
        << QByteArray("version: '0.2'\n---\nversion: '0.2'\n")
        << QStringLiteral("YAML line 2, column 1: a second document (a report is one; split the stream)");
    QTest::newRow("syntax error")
        << QByteArray("version: '0.2'\n  run: x\n")
        << QStringLiteral("YAML line 2, column 3: while parsing a block mapping: did not find expected key");
    // Well-formed YAML that is no report, and a report's own problems, read as in JSON.
    QTest::newRow("YAML, not a report") << QByteArray("hello: world\n")
                                        << QStringLiteral(
                                               "not a vLLM, GuideLLM, AIPerf or llm-d Benchmark Report file");
    QTest::newRow("version a number") << QByteArray("version: 0.2\nrun: {}\nresults: {}\n")
                                      << QStringLiteral(
                                             "version: llm-d Benchmark Report \"\" (this build reads 0.2 and "
                                             "0.2.1)");
    QTest::newRow("total a string") << head + "{aggregate: {requests: {total: '9'}}}\n"
                                    << QStringLiteral(
                                           "results.request_performance.aggregate.requests.total: not a number");
}

void TestImport::hostileYaml()
{
    // Each refused by import (the CLI's and the GUI's way in) with its message, nothing written.
    QFETCH(QByteArray, bytes);
    QFETCH(QString, error);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = test::writeFile(dir, QStringLiteral("hostile.yaml"), bytes);
    QVERIFY(!path.isEmpty());
    const QString folder = dir.filePath(QStringLiteral("runs"));
    QString why;
    bool readFailed = false;
    QVERIFY(!ForeignRuns::importInto({path}, folder, &why, &readFailed));
    QVERIFY(readFailed);
    QCOMPARE(why, path + QStringLiteral(": ") + error);
    QVERIFY(!QFileInfo::exists(folder));
}

void TestImport::saturatesHugeCounts()
{
    // Counts far beyond any run (10^30 requests) saturate; NaN (Python's json writes it) is no value.
    QTemporaryDir dir;
    const QString path =
        test::writeFile(dir, QStringLiteral("huge.json"),
                        R"({"backend": "vllm", "completed": 1e30, "failed": 0, "duration": 2, "mean_ttft_ms": NaN,
            "median_ttft_ms": NaN, "mean_tpot_ms": 5.0, "median_tpot_ms": 5.0})");
    QString error;
    const auto read = ForeignRuns::read(path, &error);
    QVERIFY2(read, qPrintable(error));
    const SummaryBlock &t = read->front().summary.total;
    QCOMPARE(t.requests.ok, std::int64_t(1) << 40);
    QCOMPARE(t.stat(Metric::Ttft).count, std::uint64_t(0));
    QCOMPARE(read->front().summary.imported->pointValues, QStringList{QStringLiteral("tpot")});

    // A device in place of a file is not read without end.
    const QString zero = dir.filePath(QStringLiteral("zero.json"));
    QVERIFY(test::makeUnreadableFile(zero, QStringLiteral("dev-zero")));
    QVERIFY(!ForeignRuns::read(zero, &error));
    QCOMPARE(error, zero + QStringLiteral(": not a regular file"));
}

void TestImport::importCommandWritesRunDirectories()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath(QStringLiteral("runs"));
    const CliResult r = runCli({QStringLiteral("import"), importFile("guidellm-benchmarks.json"),
                                importFile("vllm-summary.json"), QStringLiteral("--out"), out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    // One run directory per benchmark: GuideLLM's file holds two.
    for (const char *name : {"guidellm-benchmarks-1", "guidellm-benchmarks-2", "vllm-summary"}) {
        QString error;
        const auto run = RunReader::load(QDir(out).filePath(QLatin1String(name)), &error);
        QVERIFY2(run, qPrintable(error));
        QVERIFY(run->summary.imported);
    }
    QVERIFY2(r.out.contains(QStringLiteral("imported from vLLM bench serve (vllm-summary.json): 5 requests, point "
                                           "values only: ttft, tpot, icl")),
             qPrintable(r.out));

    // A damaged file: nothing written, exit 2.
    const QString bad = test::writeFile(dir, QStringLiteral("bad.json"), "{");
    const QString out2 = dir.filePath(QStringLiteral("runs2"));
    const CliResult refused =
        runCli({QStringLiteral("import"), importFile("vllm-summary.json"), bad, QStringLiteral("--out"), out2});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY(!QFileInfo::exists(out2));
}

void TestImport::comparisonNamesDefinitions()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString native = writeNativeRun(dir);
    QVERIFY(!native.isEmpty());
    const QString imported = writeDetailedVllm(dir, 12);
    QVERIFY(!imported.isEmpty());
    // compare and report take the file as it is: imported on the fly.
    const LoadedRuns loaded = LoadedRuns::load({native, imported}, LoadedRuns::Stop);
    QVERIFY2(loaded.problems.isEmpty(), qPrintable(loaded.problems.join(u'\n')));
    QCOMPARE(loaded.runs.size(), std::size_t(2));
    const ComparisonTable table(loaded.runs);
    const QString notes = table.notes().join(u'\n');
    QVERIFY2(notes.contains(QStringLiteral("#2 vllm-detailed-12: imported from vLLM bench serve "
                                           "(vllm-detailed-12.json): figures computed by TokenBench from its "
                                           "per-request values")),
             qPrintable(notes));
    QVERIFY2(notes.contains(QStringLiteral("#2 vllm-detailed-12: vLLM's ITL is the gap between streamed chunks")),
             qPrintable(notes));
    QVERIFY2(
        notes.contains(QStringLiteral("#2 vllm-detailed-12: vLLM's TTFT starts before the HTTP request is posted")),
        qPrintable(notes));
    // Per-request values: the noise test runs on TTFT.
    bool tested = false;
    for (const ComparisonTable::Row &row : table.rows()) {
        if (row.key == QLatin1String("ttft_mean"))
            tested = row.noise[1] != ComparisonTable::Noise::NotTested;
    }
    QVERIFY(tested);

    // The same through the CLI.
    const CliResult r = runCli({QStringLiteral("compare"), native, imported});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains(QStringLiteral("vLLM's TPOT is (latency − TTFT) / (output tokens − 1), as TokenBench's")),
             qPrintable(r.out));
}

void TestImport::summaryOnlyRunIsNotNoiseTested()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString native = writeNativeRun(dir);
    QVERIFY(!native.isEmpty());
    const LoadedRuns loaded = LoadedRuns::load({native, importFile("vllm-summary.json")}, LoadedRuns::Stop);
    QVERIFY2(loaded.problems.isEmpty(), qPrintable(loaded.problems.join(u'\n')));
    const ComparisonTable table(loaded.runs);
    QVERIFY(table.notes().join(u'\n').contains(
        QStringLiteral("#2 vllm-summary: imported from vLLM bench serve (vllm-summary.json): the tool's summary only, "
                       "point values (ttft, tpot, icl), no noise test")));
    bool found = false;
    for (const ComparisonTable::Row &row : table.rows()) {
        if (row.key != QLatin1String("ttft_mean"))
            continue;
        found = true;
        QCOMPARE(row.values[1], std::optional<double>(120.5));
        QCOMPARE(row.noise[1], ComparisonTable::Noise::NotTested);
    }
    QVERIFY(found);
}

QTEST_GUILESS_MAIN(TestImport)
#include "tst_import.moc"
