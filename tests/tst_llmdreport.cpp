// llm-d Benchmark Report export and its round trip through import (issue 31): `export-report` on a
// run measured against the simulator, the report checked against the schema it claims, read back
// by ForeignRuns and each figure compared with the run's own summary; and hostile reports.
//
// The schema: llm-d/llm-d-benchmark, llmdbenchmark/analysis/benchmark_report/schema_v0_2.py (with
// base.py's Units and br_v0_2_json_schema.json's "required" lists) at commit
// 8bc9f1ddd873a24f1657d6cca2e0d0fb6947dd36 (2026-08-21). Every model of it forbids fields it does not
// declare (extra="forbid"), so the keys allowed below are each model's whole field list.

#include "support/clirunner.h"
#include "support/testfiles.h"
#include "support/testsimulator.h"

#include "results/foreignruns.h"
#include "results/llmdreport.h"
#include "results/rundirectory.h"

#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>
#include <string>

using namespace tb;

namespace {

using nlohmann::json;
using Keys = std::set<std::string>;

/// Each model's fields (schema_v0_2.py), for the objects an export writes.
const Keys kRoot{"version", "run", "scenario", "results"};
const Keys kRun{"uid", "eid", "cid", "pid", "time", "user", "description", "keywords"};
const Keys kRunTime{"start", "end", "duration"};
const Keys kScenario{"stack", "load"};
const Keys kLoad{"metadata", "standardized", "native"};
const Keys kLoadMetadata{"schema_version", "cfg_id", "description"};
const Keys kLoadStandardized{"tool",           "tool_version", "parallelism", "source",   "stage",      "input_seq_len",
                             "output_seq_len", "prefix",       "multi_turn",  "rate_qps", "concurrency"};
const Keys kLoadNative{"args", "envars", "config"};
const Keys kSequenceLength{"distribution", "value", "std_dev", "min", "max"};
const Keys kResults{"request_performance", "session_performance", "observability", "profiling", "component_health"};
const Keys kRequestPerformance{"aggregate", "time_series"};
const Keys kAggregate{"requests", "latency", "throughput"};
const Keys kRequests{"total", "failures", "incomplete", "input_length", "output_length"};
const Keys kLatency{"time_to_first_token", "normalized_time_per_output_token", "time_per_output_token",
                    "inter_token_latency", "request_latency"};
const Keys kThroughput{"input_token_rate", "output_token_rate", "total_token_rate", "request_rate"};
const Keys kStatistics{"units", "mean", "mode", "stddev", "min", "p0p1", "p1",    "p5", "p10",
                       "p25",   "p50",  "p75",  "p90",    "p95", "p99",  "p99p9", "max"};

/// `value` (an object or array) as block-style YAML: keys and strings double-quoted (a JSON string is
/// a YAML one), the other scalars as JSON writes them, which YAML 1.2's core schema reads back as the
/// same types.
void appendYaml(const json &value, int indent, QByteArray &out)
{
    const QByteArray pad(indent, ' ');
    const auto text = [](const json &v) { return QByteArray::fromStdString(v.dump()); };
    const auto item = [&](const json &v) {
        if ((v.is_object() || v.is_array()) && !v.empty()) {
            out += '\n';
            appendYaml(v, indent + 2, out);
        } else {
            out += ' ' + text(v) + '\n';
        }
    };
    if (value.is_object()) {
        for (auto it = value.begin(); it != value.end(); ++it) {
            out += pad + text(json(it.key())) + ':';
            item(it.value());
        }
    } else {
        for (const json &v : value) {
            out += pad + '-';
            item(v);
        }
    }
}

/// Why `object` is not an object with only `allowed` keys and every one of `required`; empty when it is.
QString shapeProblem(const json &object, const QString &at, const Keys &allowed, const Keys &required)
{
    if (!object.is_object())
        return at + QStringLiteral(": not an object");
    for (const auto &[key, value] : object.items()) {
        if (!allowed.count(key))
            return QStringLiteral("%1.%2: not a field of the schema").arg(at, QString::fromStdString(key));
    }
    for (const std::string &key : required) {
        if (!object.contains(key))
            return QStringLiteral("%1.%2: required, missing").arg(at, QString::fromStdString(key));
    }
    return {};
}

/// A Statistics block: units one of `units` (base.py's UNITS_* list for the field), a numeric mean,
/// every other value a number, stddev ≥ 0.
QString statisticsProblem(const json &s, const QString &at, const Keys &units)
{
    if (QString p = shapeProblem(s, at, kStatistics, {"units", "mean"}); !p.isEmpty())
        return p;
    if (!s["units"].is_string() || !units.count(s["units"].get<std::string>()))
        return at + QStringLiteral(".units: not allowed here");
    for (const auto &[key, value] : s.items()) {
        if (key != "units" && !value.is_number())
            return QStringLiteral("%1.%2: not a number").arg(at, QString::fromStdString(key));
    }
    if (s.contains("stddev") && s["stddev"].get<double>() < 0)
        return at + QStringLiteral(".stddev: negative");
    return {};
}

/// The first way `report` breaks schema v0.2 in the parts an export writes; empty when it does not.
QString schemaProblem(const json &report)
{
    QStringList problems;
    const auto check = [&](const QString &p) {
        if (!p.isEmpty())
            problems << p;
    };
    check(shapeProblem(report, QStringLiteral("report"), kRoot, {"run", "results"}));
    if (!problems.isEmpty())
        return problems.first();
    if (report.value("version", "") != "0.2")
        return QStringLiteral("version: not \"0.2\"");
    check(shapeProblem(report["run"], QStringLiteral("run"), kRun, {"uid"}));
    if (report["run"].contains("time"))
        check(shapeProblem(report["run"]["time"], QStringLiteral("run.time"), kRunTime, {}));
    check(shapeProblem(report["scenario"], QStringLiteral("scenario"), kScenario, {}));
    const json &load = report["scenario"]["load"];
    check(shapeProblem(load, QStringLiteral("scenario.load"), kLoad, {"metadata", "standardized", "native"}));
    if (!problems.isEmpty())
        return problems.first();
    check(shapeProblem(load["metadata"], QStringLiteral("load.metadata"), kLoadMetadata, {}));
    check(shapeProblem(load["native"], QStringLiteral("load.native"), kLoadNative, {}));
    const json &standardized = load["standardized"];
    check(shapeProblem(standardized, QStringLiteral("load.standardized"), kLoadStandardized,
                       {"tool", "tool_version", "source", "input_seq_len"}));
    if (!problems.isEmpty())
        return problems.first();
    const Keys sources{"random", "sampled", "unknown"};
    if (!sources.count(standardized["source"].get<std::string>()))
        check(QStringLiteral("load.standardized.source: not a LoadSource"));
    const json &isl = standardized["input_seq_len"];
    check(shapeProblem(isl, QStringLiteral("input_seq_len"), kSequenceLength, {"distribution", "value"}));
    const Keys distributions{"fixed", "gaussian", "uniform", "other"};
    if (isl.is_object() && !distributions.count(isl.value("distribution", "")))
        check(QStringLiteral("input_seq_len.distribution: not a Distribution"));
    if (standardized.contains("rate_qps") && !(standardized["rate_qps"].get<double>() > 0))
        check(QStringLiteral("rate_qps: not > 0"));
    if (standardized.contains("concurrency") &&
        !(standardized["concurrency"].is_number_integer() && standardized["concurrency"].get<int>() >= 1))
        check(QStringLiteral("concurrency: not an integer >= 1"));

    check(shapeProblem(report["results"], QStringLiteral("results"), kResults, {}));
    const json &performance = report["results"]["request_performance"];
    check(shapeProblem(performance, QStringLiteral("request_performance"), kRequestPerformance, {}));
    if (!problems.isEmpty())
        return problems.first();
    const json &aggregate = performance["aggregate"];
    check(shapeProblem(aggregate, QStringLiteral("aggregate"), kAggregate, {}));
    if (!problems.isEmpty())
        return problems.first();
    const json &requests = aggregate["requests"];
    check(shapeProblem(requests, QStringLiteral("requests"), kRequests, {"total"}));
    for (const char *key : {"total", "failures", "incomplete"}) {
        if (requests.contains(key) && !(requests[key].is_number_integer() && requests[key].get<long long>() >= 0))
            check(QStringLiteral("requests.%1: not a count").arg(QLatin1String(key)));
    }
    const Keys quantity{"count", "pixels"};
    const Keys time{"ms", "s"};
    const Keys perToken{"ms/token", "s/token"};
    for (const char *key : {"input_length", "output_length"}) {
        if (requests.contains(key))
            check(statisticsProblem(requests[key], QLatin1String(key), quantity));
    }
    if (aggregate.contains("latency")) {
        const json &latency = aggregate["latency"];
        check(shapeProblem(latency, QStringLiteral("latency"), kLatency, {}));
        for (const auto &[key, value] : latency.items()) {
            const bool isTime = key == "time_to_first_token" || key == "request_latency";
            check(statisticsProblem(value, QString::fromStdString(key), isTime ? time : perToken));
        }
    }
    const json &throughput = aggregate["throughput"];
    check(shapeProblem(throughput, QStringLiteral("throughput"), kThroughput, {}));
    for (const auto &[key, value] : throughput.items())
        check(statisticsProblem(value, QString::fromStdString(key),
                                key == "request_rate" ? Keys{"queries/s"} : Keys{"tokens/s"}));
    return problems.value(0);
}

/// Equal, or both none (NaN).
bool same(double actual, double expected)
{
    return (std::isnan(actual) && std::isnan(expected)) || actual == expected;
}

QString statsMismatch(const LatencyStats &actual, const LatencyStats &expected)
{
    const std::pair<const char *, std::pair<double, double>> values[] = {
        {"mean", {actual.mean, expected.mean}}, {"stddev", {actual.stddev, expected.stddev}},
        {"min", {actual.min, expected.min}},    {"p50", {actual.p50, expected.p50}},
        {"p90", {actual.p90, expected.p90}},    {"p95", {actual.p95, expected.p95}},
        {"p99", {actual.p99, expected.p99}},    {"p999", {actual.p999, expected.p999}},
        {"max", {actual.max, expected.max}}};
    for (const auto &[name, pair] : values) {
        if (!same(pair.first, pair.second))
            return QStringLiteral("%1: %2, expected %3")
                .arg(QLatin1String(name))
                .arg(pair.first, 0, 'g', 17)
                .arg(pair.second, 0, 'g', 17);
    }
    return {};
}

} // namespace

class TestLlmdReport : public QObject
{
    Q_OBJECT

private slots:
    void roundTripThroughImport_data();
    void roundTripThroughImport();
    void readsAnotherToolsReport();
    void unknownReportFormatIsRefused();
};

void TestLlmdReport::roundTripThroughImport_data()
{
    QTest::addColumn<QStringList>("load");
    QTest::newRow("concurrency") << QStringList{QStringLiteral("--concurrency"), QStringLiteral("4")};
    QTest::newRow("rate") << QStringList{QStringLiteral("--rate"), QStringLiteral("100")};
}

void TestLlmdReport::roundTripThroughImport()
{
    QFETCH(QStringList, load);
    auto host = test::startFastSimulator(5, 1);
    QVERIFY(host);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString runDir = dir.filePath(QStringLiteral("run"));
    // Credentials in the URL (user, password, a key in the query) must not reach the report.
    QUrl url = host->baseUrl();
    url.setUserName(QStringLiteral("alice"));
    url.setPassword(QStringLiteral("hunter2pw"));
    url.setQuery(QStringLiteral("api_key=sk-leak-7731"));
    const CliResult run =
        runCli(QStringList{QStringLiteral("run"), QStringLiteral("--url"), url.toString(), QStringLiteral("--model"),
                           host->config().model, QStringLiteral("--requests"), QStringLiteral("30"),
                           QStringLiteral("--max-tokens"), QStringLiteral("24"), QStringLiteral("--prompt-tokens"),
                           QStringLiteral("100"), QStringLiteral("--out"), runDir}
               << load);
    QVERIFY2(run.exitCode == 0, qPrintable(run.err));

    const QString reportPath = dir.filePath(QStringLiteral("report.json"));
    const CliResult exported = runCli({QStringLiteral("export-report"), runDir, QStringLiteral("--format"),
                                       QStringLiteral("llm-d"), QStringLiteral("--out"), reportPath});
    QVERIFY2(exported.exitCode == 0, qPrintable(exported.err));
    QVERIFY2(exported.out.contains(QStringLiteral("(llm-d Benchmark Report v0.2: 30 requests)")),
             qPrintable(exported.out));
    const QByteArray bytes = test::readFile(reportPath);
    for (const char *secret : {"alice", "hunter2pw", "sk-leak-7731"})
        QVERIFY2(!bytes.contains(secret), secret);
    const json report = json::parse(bytes.toStdString());
    const QString problem = schemaProblem(report);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QCOMPARE(report["scenario"]["load"]["native"]["config"]["url"].get<std::string>(),
             host->baseUrl().toString().toStdString());
    QCOMPARE(report["scenario"]["load"]["standardized"]["input_seq_len"],
             json({{"distribution", "fixed"}, {"value", 100}}));

    QString error;
    const auto original = RunReader::load(runDir, &error, RunReader::SummaryOnly);
    QVERIFY2(original, qPrintable(error));
    const auto imported = ForeignRuns::read(reportPath, &error);
    QVERIFY2(imported, qPrintable(error));
    QCOMPARE(imported->size(), std::size_t(1));
    const RunSummary &back = imported->front().summary;
    const SummaryBlock &was = original->summary.total;
    const SummaryBlock &is = back.total;
    QVERIFY(back.imported);
    QCOMPARE(back.imported->tool, QStringLiteral("llm-d Benchmark Report"));
    QCOMPARE(back.imported->pointValues, QStringList({QStringLiteral("ttft"), QStringLiteral("tpot"),
                                                      QStringLiteral("itl"), QStringLiteral("e2e")}));
    QCOMPARE(back.model, host->config().model);
    QCOMPARE(back.startedAt, original->summary.startedAt);
    QCOMPARE(is.load.mode, was.load.mode);
    QCOMPARE(is.load.rate, was.load.rate);
    QCOMPARE(is.load.concurrency, was.load.concurrency);
    QCOMPARE(is.requests.ok, std::int64_t(30));
    QCOMPARE(is.requests.ok, was.requests.ok);
    QCOMPARE(is.requests.failed, was.requests.failed);
    QCOMPARE(is.requests.attempted, was.requests.attempted);
    // JSON numbers carry a double exactly (shortest round-trip form), and the units are ours: equal.
    for (const Metric m : {Metric::Ttft, Metric::Tpot, Metric::Itl, Metric::E2e}) {
        QVERIFY2(was.stat(m).count > 0, qPrintable(metricLabel(m)));
        const QString mismatch = statsMismatch(is.stat(m), was.stat(m));
        QVERIFY2(mismatch.isEmpty(), qPrintable(metricLabel(m) + QStringLiteral(" ") + mismatch));
        QCOMPARE(is.stat(m).count, std::uint64_t(was.requests.ok));
    }
    QCOMPARE(is.throughput.requestsPerS, was.throughput.requestsPerS);
    QCOMPARE(is.throughput.outputTokensPerS, was.throughput.outputTokensPerS);
    QCOMPARE(is.throughput.inputTokensPerS, was.throughput.inputTokensPerS);
    QCOMPARE(is.throughput.totalTokensPerS, was.throughput.totalTokensPerS);
    // Token totals travel as means per request: whole again after × requests.
    QCOMPARE(is.tokens.input, was.tokens.input);
    QCOMPARE(is.tokens.output, was.tokens.output);
    QCOMPARE(is.tokens.promptMin, was.tokens.promptMin);
    QCOMPARE(is.tokens.promptMax, was.tokens.promptMax);
    // The duration is written in shortest form, read to the same double.
    QCOMPARE(is.windowS, was.windowS);

    // The same report in YAML, as llm-d's tools write theirs: the same run.
    QByteArray yaml;
    appendYaml(report, 0, yaml);
    const QString yamlPath = test::writeFile(dir, QStringLiteral("report.yaml"), yaml);
    const auto fromYaml = ForeignRuns::read(yamlPath, &error);
    QVERIFY2(fromYaml, qPrintable(error));
    RunSummary yamlBack = fromYaml->front().summary;
    QVERIFY(yamlBack.imported);
    QCOMPARE(yamlBack.imported->source, QStringLiteral("report.yaml"));
    yamlBack.imported->source = back.imported->source;
    QCOMPARE(yamlBack.toJson().dump(), back.toJson().dump());

    // compare takes the report as it takes a run directory.
    const CliResult compared = runCli({QStringLiteral("compare"), runDir, reportPath});
    QVERIFY2(compared.exitCode == 0, qPrintable(compared.err));
    QVERIFY2(compared.out.contains(QStringLiteral("imported from llm-d Benchmark Report 0.2 (report.json)")),
             qPrintable(compared.out));
    // The report carries the workload (load, requests, prompt size, max_tokens): no false difference.
    QVERIFY2(!compared.out.contains(QStringLiteral("Workload differences")), qPrintable(compared.out));
}

void TestLlmdReport::readsAnotherToolsReport()
{
    // The shape of br_v0_2_1_example.yaml (inference-perf's report), cut down and as JSON: seconds,
    // s/token, the model named by the stack's inference engine, concurrency .inf (Python's json:
    // Infinity), a v0.2.1 field.
    const QByteArray report = R"({"version": "0.2.1", "run": {"uid": "38b1f169", "time": {
        "start": "2025-11-05T18:00:42Z", "duration": "PT1M40.5S"}},
      "scenario": {"stack": [{"metadata": {"label": "epp-0", "cfg_id": "a"}, "standardized": {"kind": "generic",
          "tool": "x", "tool_version": "1"}, "native": {}},
        {"metadata": {"label": "vllm-svc-0", "cfg_id": "b"}, "standardized": {"kind": "inference_engine",
          "tool": "llm-d", "tool_version": "0.3.1", "role": "decode", "replicas": 2,
          "model": {"name": "Qwen/Qwen3-0.6B"}, "accelerator": {"model": "H100", "count": 8, "parallelism": {}}},
         "native": {}}],
        "load": {"metadata": {}, "standardized": {"tool": "inference-perf", "tool_version": "0.3.0",
          "source": "random", "input_seq_len": {"distribution": "fixed", "value": 2148},
          "concurrency": Infinity}, "native": {}}},
      "results": {"request_performance": {"aggregate": {
        "requests": {"total": 500, "failures": 3, "incomplete": 2,
          "input_length": {"units": "count", "mean": 2262.5, "min": 2223, "max": 2328},
          "output_length": {"units": "count", "mean": 1000},
          "multimodal": {"image": {"count": {"units": "count", "mean": 1}}}},
        "latency": {"time_to_first_token": {"units": "s", "mean": 0.0368, "p50": 0.0362, "p99p9": 0.057},
          "inter_token_latency": {"units": "s/token", "mean": 0.005, "p90": NaN},
          "normalized_time_per_output_token": {"units": "ms/token", "mean": 9}},
        "throughput": {"request_rate": {"units": "queries/s", "mean": 4.95},
          "output_token_rate": {"units": "tokens/s", "mean": 4950.5}}}}}})";
    QTemporaryDir dir;
    const QString path = test::writeFile(dir, QStringLiteral("br.json"), report);
    QString error;
    const auto runs = ForeignRuns::read(path, &error);
    QVERIFY2(runs, qPrintable(error));
    const RunSummary &s = runs->front().summary;
    QCOMPARE(s.model, QStringLiteral("Qwen/Qwen3-0.6B"));
    QCOMPARE(s.imported->version, QStringLiteral("0.2.1"));
    QCOMPARE(s.imported->pointValues, QStringList({QStringLiteral("ttft"), QStringLiteral("itl")}));
    QVERIFY(s.imported->definitions.first().contains(QStringLiteral("(inference-perf)")));
    QCOMPARE(s.startedAt, QStringLiteral("2025-11-05T18:00:42.000Z"));
    const SummaryBlock &t = s.total;
    QCOMPARE(t.requests.ok, std::int64_t(495));
    QCOMPARE(t.requests.failed, std::int64_t(3));
    QCOMPARE(t.requests.cancelled, std::int64_t(2));
    QCOMPARE(t.requests.attempted, std::int64_t(498));
    QCOMPARE(t.stat(Metric::Ttft).mean, 0.0368 * 1e3);
    QCOMPARE(t.stat(Metric::Ttft).p50, 0.0362 * 1e3);
    QCOMPARE(t.stat(Metric::Ttft).p999, 0.057 * 1e3);
    QVERIFY(std::isnan(t.stat(Metric::Ttft).p99));
    QCOMPARE(t.stat(Metric::Ttft).count, std::uint64_t(495));
    QCOMPARE(t.stat(Metric::Itl).mean, 0.005 * 1e3);
    QVERIFY(std::isnan(t.stat(Metric::Itl).p90));
    QCOMPARE(t.stat(Metric::Tpot).count, std::uint64_t(0));
    QCOMPARE(t.tokens.input, std::int64_t(1'119'938)); // 2262.5 × 495 = 1 119 937.5, rounded
    QCOMPARE(t.tokens.output, std::int64_t(495'000));
    QCOMPARE(t.tokens.promptMax, std::int64_t(2328));
    QCOMPARE(t.throughput.requestsPerS, 4.95);
    QCOMPARE(t.throughput.outputTokensPerS, 4950.5);
    QCOMPARE(t.windowS, 100.5);
    // concurrency .inf is no number of users: the load is the default closed loop of one.
    QCOMPARE(runs->front().info.config.load.mode, LoadMode::Concurrency);
}

// export-report's --format names the format (docs/SPEC.md); llm-d is the only one, and another is
// exit 2 naming what is accepted, with nothing written.
void TestLlmdReport::unknownReportFormatIsRefused()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("x.json"));
    const CliResult r = runCli({QStringLiteral("export-report"), dir.path(), QStringLiteral("--format"),
                                QStringLiteral("guidellm"), QStringLiteral("--out"), out});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QStringLiteral("--format: 'guidellm' is not a report format (accepted: llm-d)")),
             qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(out));
}

QTEST_GUILESS_MAIN(TestLlmdReport)
#include "tst_llmdreport.moc"
