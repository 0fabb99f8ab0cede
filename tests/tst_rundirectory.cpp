// RunWriter and RunReader on real files: what is written reads back as the same records, summary
// and time series; stopped, torn and damaged directories load or fail with the right message.
#include "formats/csv.h"
#include "metrics/requestmetrics.h"
#include "metrics/runaggregator.h"
#include "platform/iobackend.h"
#include "results/rundirectory.h"
#include "results/runfiles.h"
#include "results/runwriter.h"
#include "tokenbench/version.h"

#include "support/smalldisk.h"
#include "support/testfiles.h"
#include "support/testnumbers.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace tb;
using tb::test::ns;
using tb::test::readFile;
using tb::test::writeFile;

namespace {

/// Whole microseconds: requests.csv keeps 3 decimals of a millisecond, chunks.jsonl whole µs.
std::int64_t us(std::int64_t ns)
{
    return ns < 0 ? -1 : std::llround(double(ns) / 1e3);
}

RunInfo info()
{
    RunConfig c;
    c.target.url = QStringLiteral("http://127.0.0.1:9/v1");
    c.target.model = QStringLiteral("model, \"quoted\"");
    c.target.apiKey = QStringLiteral("sk-never-on-disk-42");
    c.request.maxTokens = 64;
    StageConfig first;
    first.level = 2;
    first.requests = 4;
    StageConfig second;
    second.level = 8;
    second.durationMs = 30000;
    c.load.stages = {first, second};
    c.slo.ttftMs = 200;
    RunInfo i = RunInfo::begin(c);
    i.startedAt = QDateTime(QDate(2024, 5, 1), QTime(10, 15, 0, 123), Qt::OffsetFromUTC, 2 * 3600);
    i.sharedPromptTokens = 17;
    i.saltReplayed = true;
    return i;
}

/// Records with every field set somewhere, odd numbers (sub-ms, µs) and hostile error texts.
std::vector<RequestRecord> records()
{
    std::vector<RequestRecord> out;
    for (int i = 0; i < 12; ++i) {
        RequestRecord r;
        r.id = std::uint64_t(i + 1);
        r.stage = i < 6 ? 0 : 1;
        r.warmup = i == 0;
        r.scheduledNs = ns(100.0 * i + 0.25);
        r.sentNs = r.scheduledNs + 1234;
        r.headersNs = r.sentNs + ns(12.5);
        r.status = RequestStatus::Ok;
        r.httpStatus = 200;
        r.tokenSource = i % 2 ? TokenSource::Usage : TokenSource::Tokenizer;
        r.promptTokens = 100 + i;
        r.cachedTokens = i;
        r.cachedSource = CacheSource(i % 3);
        r.reasoningTokens = i % 3;
        r.responseId = QStringLiteral("chatcmpl-%1").arg(i);
        r.finishReason = QStringLiteral("stop");
        const int chunks = 3 + i % 4;
        for (int c = 0; c < chunks; ++c)
            r.tokenChunks.push_back({r.headersNs + ns(20.0 + 7.3 * c), 3 + c});
        r.chunks = chunks;
        r.firstTokenNs = r.firstContentNs = r.tokenChunks.front().tNs;
        r.lastTokenNs = r.tokenChunks.back().tNs;
        r.completionTokens = chunks * 2;
        r.doneNs = r.lastTokenNs + 500;
        // The phases: the first request of each stage opened its connection over TLS, the rest
        // went on kept-alive ones; one was sent again after a stale connection.
        r.blockedNs = 200;
        r.connectNs = i == 1 || i == 6 ? ns(0.8) : 0;
        r.tlsNs = i == 1 || i == 6 ? ns(2.5) : 0;
        r.sendingNs = 34;
        r.retries = i == 4 ? 1 : 0;
        out.push_back(r);
    }
    // Failures: a 429 whose message has every character CSV must quote, a timeout, a cancel mid-stream.
    out[3].status = RequestStatus::Http;
    out[3].httpStatus = 429;
    out[3].retryAfterS = 1.5;
    out[3].errorMessage = QStringLiteral("Too many \"requests\", slow down,\nplease\r\nretry — ünïcode");
    out[3].tokenChunks.clear();
    out[3].chunks = 0;
    out[3].firstTokenNs = out[3].firstContentNs = out[3].lastTokenNs = -1;
    out[3].completionTokens = 0;
    out[3].doneNs = out[3].headersNs;
    out[7].status = RequestStatus::Timeout;
    out[7].httpStatus = 0;
    out[7].headersNs = out[7].firstTokenNs = out[7].firstContentNs = out[7].lastTokenNs = -1;
    out[7].tokenChunks.clear();
    out[7].chunks = 0;
    out[7].completionTokens = 0;
    out[7].errorMessage = QStringLiteral("no response within 600s");
    out[9].status = RequestStatus::Cancelled;
    out[9].errorMessage = QStringLiteral("stopped");
    // Server text a spreadsheet would run as a formula comes back as the server sent it.
    out[5].responseId = QStringLiteral("=HYPERLINK(\"http://evil.example\",\"x\")");
    out[6].finishReason = QStringLiteral("@SUM(1+1)");
    out[8].responseId = QStringLiteral("'-1");
    // A non-streamed success: no chunks, E2E ends at done.
    out[10].tokenChunks.clear();
    out[10].chunks = 0;
    out[10].firstTokenNs = out[10].firstContentNs = out[10].lastTokenNs = -1;
    out[10].tokenSource = TokenSource::Chunks;
    return out;
}

struct Written {
    RunSummary summary;
    std::vector<TimeSeriesRow> series;
};

/// `csv` (requests.csv) with the cell of `column` in the row of request `id` set to `value`.
QByteArray withCell(const QByteArray &csv, const char *column, std::uint64_t id, const QByteArray &value)
{
    CsvReader reader(csv);
    std::vector<std::string> fields;
    std::vector<std::vector<std::string>> rows;
    while (reader.next(fields))
        rows.push_back(fields);
    const auto at = std::size_t(std::find(rows[0].begin(), rows[0].end(), column) - rows[0].begin());
    std::string out;
    for (std::vector<std::string> &row : rows) {
        if (row[0] == std::to_string(id) && at < row.size())
            row[at] = value.toStdString();
        appendCsvRecord(out, row);
    }
    return QByteArray::fromStdString(out);
}

Written writeRun(const QString &dir, const std::vector<RequestRecord> &rs, bool finish = true)
{
    const RunInfo runInfo = info();
    RunAggregator aggregator(runInfo);
    RunWriter writer;
    if (!writer.open(dir, runInfo))
        qFatal("open: %s", qPrintable(writer.errorString()));
    for (const RequestRecord &r : rs) {
        aggregator.add(r);
        writer.append(r);
    }
    Written w{aggregator.summary(), aggregator.timeSeries()};
    if (finish && !writer.finish(w.summary, w.series))
        qFatal("finish: %s", qPrintable(writer.errorString()));
    return w;
}

void compareRecords(const RequestRecord &a, const RequestRecord &b, bool withChunks)
{
    QCOMPARE(a.id, b.id);
    QCOMPARE(a.stage, b.stage);
    QCOMPARE(a.warmup, b.warmup);
    QCOMPARE(a.status, b.status);
    QCOMPARE(a.httpStatus, b.httpStatus);
    QCOMPARE(a.tokenSource, b.tokenSource);
    for (const auto &[x, y] : {std::pair{a.scheduledNs, b.scheduledNs},
                               {a.sentNs, b.sentNs},
                               {a.headersNs, b.headersNs},
                               {a.firstTokenNs, b.firstTokenNs},
                               {a.firstContentNs, b.firstContentNs},
                               {a.lastTokenNs, b.lastTokenNs},
                               {a.doneNs, b.doneNs}}) {
        // Each time is rounded to 1 µs once, and those derived from sent + a duration twice.
        QVERIFY2((x < 0) == (y < 0) && std::abs(x - y) <= 1000,
                 qPrintable(QStringLiteral("record %1: %2 vs %3").arg(a.id).arg(x).arg(y)));
    }
    QCOMPARE(a.chunks, b.chunks);
    QCOMPARE(a.promptTokens, b.promptTokens);
    QCOMPARE(a.completionTokens, b.completionTokens);
    QCOMPARE(a.cachedTokens, b.cachedTokens);
    QCOMPARE(a.cachedSource, b.cachedSource);
    QCOMPARE(a.reasoningTokens, b.reasoningTokens);
    QCOMPARE(a.retryAfterS, b.retryAfterS);
    QCOMPARE(a.responseId, b.responseId);
    QCOMPARE(a.finishReason, b.finishReason);
    QCOMPARE(a.errorMessage, b.errorMessage);
    for (const auto &[x, y] : {std::pair{a.blockedNs, b.blockedNs},
                               {a.connectNs, b.connectNs},
                               {a.tlsNs, b.tlsNs},
                               {a.sendingNs, b.sendingNs}})
        QVERIFY2((x < 0) == (y < 0) && std::abs(x - y) <= 1000,
                 qPrintable(QStringLiteral("record %1 phase: %2 vs %3").arg(a.id).arg(x).arg(y)));
    QCOMPARE(a.retries, b.retries);
    if (withChunks) {
        QCOMPARE(a.tokenChunks.size(), b.tokenChunks.size());
        for (std::size_t i = 0; i < a.tokenChunks.size(); ++i) {
            QCOMPARE(us(a.tokenChunks[i].tNs), us(b.tokenChunks[i].tNs));
            QCOMPARE(a.tokenChunks[i].chars, b.tokenChunks[i].chars);
        }
    }
}

} // namespace

Q_DECLARE_METATYPE(tb::IoInfo)

class TestRunDirectory : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roundTrip()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("runs/first"));
        const std::vector<RequestRecord> rs = records();
        const Written w = writeRun(dir, rs);
        for (const char *file : {"run.json", "summary.json", "requests.csv", "chunks.jsonl", "timeseries.csv"})
            QVERIFY2(QFile::exists(QDir(dir).filePath(QLatin1String(file))), file);

        QString error;
        const auto data = RunReader::load(dir, &error, RunReader::Chunks);
        QVERIFY2(data, qPrintable(error));
        QVERIFY(data->notes.isEmpty());
        QVERIFY(!data->summaryRecomputed);
        QCOMPARE(data->label(), QStringLiteral("first"));
        QVERIFY(data->hasInfo);
        QCOMPARE(data->info.config.target.model, info().config.target.model);
        QCOMPARE(data->info.config.request.maxTokens, 64);
        QCOMPARE(data->info.stages, info().stages);
        QCOMPARE(data->info.startedAt, info().startedAt);
        QCOMPARE(data->info.sharedPromptTokens, info().sharedPromptTokens);
        QCOMPARE(data->info.saltReplayed, true);
        QVERIFY(data->info.config.target.apiKey.isEmpty());

        QCOMPARE(data->records.size(), rs.size());
        for (std::size_t i = 0; i < rs.size(); ++i) {
            compareRecords(data->records[i], rs[i], true);
            if (QTest::currentTestFailed())
                return;
            const auto itl = TokenTimeline(rs[i]).itlMeanMs();
            QCOMPARE(std::isnan(data->itlMeanMs[i]), !itl);
            if (itl)
                QVERIFY(std::abs(data->itlMeanMs[i] - *itl) <= 0.0005);
        }
        QVERIFY(data->summary.toJson() == w.summary.toJson());
        QCOMPARE(data->timeSeries.size(), w.series.size());
        for (std::size_t i = 0; i < w.series.size(); ++i) {
            const TimeSeriesRow &a = data->timeSeries[i];
            const TimeSeriesRow &b = w.series[i];
            QCOMPARE(a.second, b.second);
            QCOMPARE(a.sent, b.sent);
            QCOMPARE(a.completed, b.completed);
            QCOMPARE(a.failed, b.failed);
            QCOMPARE(a.inFlight, b.inFlight);
            QCOMPARE(a.outputTokens, b.outputTokens);
            QCOMPARE(a.inputTokens, b.inputTokens);
            QCOMPARE(a.stage, b.stage);
            QCOMPARE(a.good, b.good);
            QCOMPARE(a.cancelled, b.cancelled);
            for (const auto &[x, y] : {std::pair{a.ttftP50Ms, b.ttftP50Ms},
                                       {a.ttftP99Ms, b.ttftP99Ms},
                                       {a.e2eP50Ms, b.e2eP50Ms},
                                       {a.e2eP99Ms, b.e2eP99Ms}})
                QVERIFY((std::isnan(x) && std::isnan(y)) || std::abs(x - y) <= 0.0005);
        }

        // The same records from the recomputation path: a summary equal up to µs rounding.
        const RunAggregator again = [&] {
            RunAggregator a(data->info);
            for (const RequestRecord &r : data->records)
                a.add(r);
            return a;
        }();
        QCOMPARE(again.summary().total.requests.ok, w.summary.total.requests.ok);
        QCOMPARE(again.summary().total.stat(Metric::Itl).count, w.summary.total.stat(Metric::Itl).count);
    }

    void requestsCsvIsRfc4180()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        writeRun(dir, records());
        const QByteArray text = readFile(QDir(dir).filePath(QStringLiteral("requests.csv")));
        const QString spec = QStringLiteral(
            "id,stage,warmup,scheduled_ms,sent_ms,ttfb_ms,ttft_ms,e2e_ms,queue_ms,tpot_ms,itl_mean_ms,chunks,prompt_"
            "tokens,"
            "completion_tokens,cached_tokens,reasoning_tokens,token_source,status,http_status,error,response_id");
        QVERIFY2(text.startsWith(spec.toUtf8() + ','), text.left(400).constData());
        QVERIFY(text.endsWith("\r\n"));
        // Quotes doubled, the field quoted because it holds commas, quotes and line breaks.
        QVERIFY2(text.contains(
                     QStringLiteral("\"Too many \"\"requests\"\", slow down,\nplease\r\nretry — ünïcode\"").toUtf8()),
                 text.constData());
        // The model name has a comma and quotes too (the target column).
        QVERIFY(text.contains("\"model, \"\"quoted\"\"\""));

        CsvReader reader(text);
        std::vector<std::string> fields;
        QVERIFY(reader.next(fields));
        const std::size_t columns = fields.size();
        int rows = 0;
        while (reader.next(fields)) {
            QCOMPARE(fields.size(), columns);
            ++rows;
        }
        QVERIFY(!reader.tornTail());
        QCOMPARE(rows, 12);

        // Numbers: durations in ms with 3 decimals, offsets likewise, one row checked by hand.
        reader = CsvReader(text);
        QVERIFY(reader.next(fields));
        QVERIFY(reader.next(fields)); // id 1: scheduled 0.25 ms, sent + 1234 ns, headers + 12.5 ms
        QCOMPARE(fields[0], std::string("1"));
        QCOMPARE(fields[1], std::string("c=2"));
        QCOMPARE(fields[2], std::string("1"));
        QCOMPARE(fields[3], std::string("0.250"));
        QCOMPARE(fields[4], std::string("0.251"));
        QCOMPARE(fields[5], std::string("12.500"));
        QCOMPARE(fields[6], std::string("32.500"));
        QCOMPARE(fields[17], std::string("ok"));
        QCOMPARE(fields[18], std::string("200"));
        QCOMPARE(fields[20], std::string("chatcmpl-0"));
    }

    // Regression: server-controlled response_id, finish_reason and error text reached
    // requests.csv as they came: =1+2 or =HYPERLINK(…) ran as a formula when the file was opened in
    // a spreadsheet. A text cell that begins as a formula does is guarded with a ' (OWASP), and
    // reads back as the server's text.
    void serverTextIsNeutralisedNotAFormula_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QByteArray>("cell");
        QTest::newRow("=1+2") << QStringLiteral("=1+2") << QByteArray("'=1+2");
        QTest::newRow("hyperlink") << QStringLiteral("=HYPERLINK(\"http://evil.example\",\"click\")")
                                   << QByteArray("'=HYPERLINK(\"http://evil.example\",\"click\")");
        QTest::newRow("plus") << QStringLiteral("+1") << QByteArray("'+1");
        QTest::newRow("minus") << QStringLiteral("-2+3") << QByteArray("'-2+3");
        QTest::newRow("at") << QStringLiteral("@SUM(A1)") << QByteArray("'@SUM(A1)");
        QTest::newRow("tab") << QStringLiteral("\t=1") << QByteArray("'\t=1");
        QTest::newRow("carriage return") << QStringLiteral("\r=1") << QByteArray("'\r=1");
        QTest::newRow("already guarded") << QStringLiteral("'=1") << QByteArray("''=1");
        QTest::newRow("a quote") << QStringLiteral("'quoted'") << QByteArray("''quoted'");
        QTest::newRow("plain") << QStringLiteral("chatcmpl-1") << QByteArray("chatcmpl-1");
        QTest::newRow("equals later") << QStringLiteral("a=1") << QByteArray("a=1");
    }

    void serverTextIsNeutralisedNotAFormula()
    {
        QFETCH(QString, text);
        QFETCH(QByteArray, cell);
        std::vector<RequestRecord> rs = records();
        RequestRecord &r = rs[3]; // a failure: it has an error text
        r.responseId = r.finishReason = r.errorMessage = text;
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        writeRun(dir, rs);

        const QByteArray csv = readFile(QDir(dir).filePath(QStringLiteral("requests.csv")));
        CsvReader reader(csv);
        std::vector<std::string> header, fields;
        QVERIFY(reader.next(header));
        const auto column = [&header](const char *name) {
            return std::size_t(std::find(header.begin(), header.end(), name) - header.begin());
        };
        for (int i = 0; i <= 3; ++i)
            QVERIFY(reader.next(fields));
        for (const char *name : {"error", "response_id", "finish_reason"})
            QCOMPARE(QByteArray::fromStdString(fields.at(column(name))), cell);

        QString error;
        const auto data = RunReader::load(dir, &error);
        QVERIFY2(data, qPrintable(error));
        const RequestRecord &back = data->records.at(3);
        QCOMPARE(back.responseId, text);
        QCOMPARE(back.finishReason, text);
        QCOMPARE(back.errorMessage, text);
    }

    void runJsonHasNoSecrets()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        writeRun(dir, records());
        const QByteArray text = readFile(QDir(dir).filePath(QStringLiteral("run.json")));
        QVERIFY(!text.contains("sk-never-on-disk-42"));
        for (const char *file : {"requests.csv", "summary.json", "chunks.jsonl", "timeseries.csv"})
            QVERIFY(!readFile(QDir(dir).filePath(QLatin1String(file))).contains("sk-never-on-disk-42"));
        const nlohmann::json j = nlohmann::json::parse(text.toStdString());
        QVERIFY(j["format"] == "tokenbench-run");
        QVERIFY(j["format_version"] == 1);
        QVERIFY(j["tool"]["name"] == "tokenbench");
        QVERIFY(j["tool"]["version"] == tb::version().toStdString());
        QVERIFY(j["host"].is_string() && !j["host"].get<std::string>().empty());
        QCOMPARE(QString::fromStdString(j["started_at"]), QStringLiteral("2024-05-01T10:15:00.123+02:00"));
        QCOMPARE(j["stages"].size(), std::size_t(2));
        QVERIFY(j["stages"][1]["name"] == "c=8");
        QVERIFY(j["config"]["request"]["max_tokens"] == 64);
        // The start time of a run begun now carries this machine's offset.
        QVERIFY(QRegularExpression(
                    QStringLiteral("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}([+-]\\d\\d:\\d\\d|Z)$"))
                    .match(RunInfo::begin(RunConfig()).startedAtText())
                    .hasMatch());
    }

    void killedWriterLosesNoAppendedRow()
    {
        // A process killed mid-run lost up to a second of finished requests: rows waited in a
        // buffer. Each append() now reaches the operating system before it returns.
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        const RunInfo runInfo = info();
        RunWriter writer;
        QVERIFY2(writer.open(dir, runInfo), qPrintable(writer.errorString()));
        const std::vector<RequestRecord> rs = records();
        for (int i = 0; i < 3; ++i) {
            QVERIFY(writer.append(rs[std::size_t(i)]));
            // Read while the writer is still open, as a kill would leave it.
            const QByteArray text = readFile(QDir(dir).filePath(QStringLiteral("requests.csv")));
            QCOMPARE(text.count(",chatcmpl-"), i + 1);
            QVERIFY(text.endsWith("\r\n"));
            QCOMPARE(readFile(QDir(dir).filePath(QStringLiteral("chunks.jsonl"))).count('\n'), i + 1);
        }
    }

    void stoppedRunStillLoads()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("stopped"));
        const Written w = writeRun(dir, records(), false);
        QVERIFY(!QFile::exists(QDir(dir).filePath(QStringLiteral("summary.json"))));
        QString error;
        const auto data = RunReader::load(dir, &error, RunReader::SummaryOnly);
        QVERIFY2(data, qPrintable(error));
        QVERIFY(data->summaryRecomputed);
        QVERIFY2(data->notes.join(QLatin1Char('\n')).contains(QStringLiteral("recomputed from requests.csv")),
                 qPrintable(data->notes.join(QLatin1Char('\n'))));
        QVERIFY(data->records.empty()); // not asked for
        const SummaryBlock &a = data->summary.total;
        const SummaryBlock &b = w.summary.total;
        QCOMPARE(a.requests.attempted, b.requests.attempted);
        QCOMPARE(a.requests.cancelled, b.requests.cancelled);
        QCOMPARE(a.requests.byStatus, b.requests.byStatus);
        QCOMPARE(a.tokens.output, b.tokens.output);
        QCOMPARE(a.throughput.good, b.throughput.good);
        QCOMPARE(a.concurrency.peakInFlight, b.concurrency.peakInFlight);
        QCOMPARE(a.stat(Metric::Itl).count, b.stat(Metric::Itl).count);
        QVERIFY(std::abs(a.stat(Metric::Itl).mean - b.stat(Metric::Itl).mean) < 0.001);
        QVERIFY(std::abs(a.stat(Metric::Ttft).p99 - b.stat(Metric::Ttft).p99) < 0.01);
        QVERIFY(std::abs(a.windowS - b.windowS) < 1e-5);
        QCOMPARE(data->summary.stages.size(), std::size_t(2));
        QCOMPARE(data->timeSeries.size(), w.series.size());
    }

    // Issue 31: the GPU chart of a saved run comes from gpu_metrics.csv; a damaged file costs that
    // chart with a note, never the run.
    void gpuMetricsCsvIsReadBackForTheChart_data()
    {
        QTest::addColumn<QByteArray>("csv");
        QTest::addColumn<int>("rows"); // -1: damaged
        QTest::newRow("two scrapes") << QByteArray("t_s,name,labels,value,instance\n"
                                                   "0.5,DCGM_FI_DEV_POWER_USAGE,\"{gpu=\"\"0\"\"}\",250.5,\n"
                                                   "1.5,DCGM_FI_DEV_POWER_USAGE,\"{gpu=\"\"0\"\"}\",301.25,\n")
                                     << 2;
        QTest::newRow("damaged") << QByteArray("t_s,name\n1,2\n") << -1;
    }
    void gpuMetricsCsvIsReadBackForTheChart()
    {
        QFETCH(QByteArray, csv);
        QFETCH(int, rows);
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("gpu"));
        writeRun(dir, records());
        QVERIFY(test::writeFile(QDir(dir).filePath(QLatin1String(runfiles::kGpuMetricsCsv)), csv));
        QString error;
        const auto data = RunReader::load(dir, &error, RunReader::Records);
        QVERIFY2(data, qPrintable(error));
        const QString notes = data->notes.join(QLatin1Char('\n'));
        if (rows < 0) {
            QVERIFY(data->gpuTrace.empty());
            QVERIFY2(notes.contains(QStringLiteral("gpu_metrics.csv is not readable (line 1: expected the header")),
                     qPrintable(notes));
            return;
        }
        QVERIFY2(!notes.contains(QStringLiteral("gpu_metrics")), qPrintable(notes));
        QCOMPARE(int(data->gpuTrace.rows.size()), rows);
        QCOMPARE(data->gpuTrace.rows[0].tS, 0.5);
        QCOMPARE(data->gpuTrace.rows[0].powerWSum, 250.5);
        QCOMPARE(data->gpuTrace.rows[1].powerWSum, 301.25);
        // Not asked for with the summary alone.
        QVERIFY(RunReader::load(dir, &error, RunReader::SummaryOnly)->gpuTrace.empty());
    }

    void tornLastRowIsLeftOut()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("torn"));
        writeRun(dir, records(), false);
        QFile csv(QDir(dir).filePath(QStringLiteral("requests.csv")));
        QVERIFY(csv.open(QIODevice::Append));
        csv.write("13,c=8,0,1300.000,1300.1"); // the crash hit mid-row
        csv.close();
        QFile chunks(QDir(dir).filePath(QStringLiteral("chunks.jsonl")));
        QVERIFY(chunks.open(QIODevice::Append));
        chunks.write("{\"id\":13,\"t_us\":[1,");
        chunks.close();
        QString error;
        const auto data = RunReader::load(dir, &error);
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(data->records.size(), std::size_t(12));
        QVERIFY(data->notes.join(QLatin1Char('\n')).contains(QStringLiteral("last row was cut short")));
    }

    /// Found by fuzz_requestscsv: a requests.csv or chunks.jsonl holding what no run records — a
    /// count past 10^12 or past int, a chunk time past int64's nanoseconds — loaded, and overflowed
    /// the sums and conversions after it (undefined behaviour); now each is refused, by name.
    void valuesNoRunRecordsAreRefused_data()
    {
        QTest::addColumn<QString>("column"); // of requests.csv, or "chunks.jsonl" for a whole line
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<QString>("error");
        const auto count = [](const char *column, const char *value, const char *range) {
            return QStringLiteral("damaged requests.csv: line 3: column '%1': '%2' is not a whole number from %3")
                .arg(QLatin1String(column), QLatin1String(value), QLatin1String(range));
        };
        QTest::newRow("prompt_tokens past 10^12") << "prompt_tokens" << QByteArray("1000000000001")
                                                  << count("prompt_tokens", "1000000000001", "0 to 1000000000000");
        QTest::newRow("completion_tokens at int64's maximum")
            << "completion_tokens" << QByteArray("9223372036854775807")
            << count("completion_tokens", "9223372036854775807", "0 to 1000000000000");
        QTest::newRow("negative cached_tokens")
            << "cached_tokens" << QByteArray("-1") << count("cached_tokens", "-1", "0 to 1000000000000");
        QTest::newRow("hidden_reasoning_tokens past 10^12")
            << "hidden_reasoning_tokens" << QByteArray("2000000000000")
            << count("hidden_reasoning_tokens", "2000000000000", "0 to 1000000000000");
        QTest::newRow("chunks past int") << "chunks" << QByteArray("2147483648")
                                         << count("chunks", "2147483648", "0 to 2147483647");
        QTest::newRow("a four-digit http_status")
            << "http_status" << QByteArray("2000") << count("http_status", "2000", "0 to 999");
        QTest::newRow("stage_index past int")
            << "stage_index" << QByteArray("4294967296") << count("stage_index", "4294967296", "-1 to 2147483647");
        const QString chunk =
            QStringLiteral("damaged chunks.jsonl: line 1: chunk %1 is not a time within a century of the run's start "
                           "and a number of characters");
        QTest::newRow("a chunk time past int64's nanoseconds")
            << "chunks.jsonl" << QByteArray(R"({"id":2,"t_us":[9223372036854775807],"chars":[3]})") << chunk.arg(0);
        QTest::newRow("chunk times adding up past a century")
            << "chunks.jsonl" << QByteArray(R"({"id":2,"t_us":[3000000000000000,3000000000000000],"chars":[3,3]})")
            << chunk.arg(1);
        QTest::newRow("a chunk time past int64")
            << "chunks.jsonl" << QByteArray(R"({"id":2,"t_us":[18446744073709551615],"chars":[3]})") << chunk.arg(0);
        QTest::newRow("chunk characters past int32")
            << "chunks.jsonl" << QByteArray(R"({"id":2,"t_us":[1],"chars":[2147483648]})") << chunk.arg(0);
        QTest::newRow("negative chunk characters")
            << "chunks.jsonl" << QByteArray(R"({"id":2,"t_us":[1],"chars":[-1]})") << chunk.arg(0);
    }

    void valuesNoRunRecordsAreRefused()
    {
        QFETCH(QString, column);
        QFETCH(QByteArray, value);
        QFETCH(QString, error);
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        writeRun(dir, records());
        if (column == QLatin1String("chunks.jsonl")) {
            QVERIFY(writeFile(QDir(dir).filePath(column), value + '\n'));
        } else {
            const QString csv = QDir(dir).filePath(QStringLiteral("requests.csv"));
            QVERIFY(writeFile(csv, withCell(readFile(csv), qPrintable(column), 2, value)));
        }
        QString why;
        QVERIFY(!RunReader::load(dir, &why, RunReader::Chunks));
        QVERIFY2(why.contains(error), qPrintable(why));
    }

    /// Found by fuzz_requestscsv: a number too large for 3 fixed decimals (1e300, as requests.csv
    /// may hold) was written as whatever the 48-byte buffer held; now in the shortest form that
    /// reads back.
    void aNumberTooLargeForFixedDecimalsReadsBack()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        std::vector<RequestRecord> rs = records();
        rs[3].retryAfterS = 1e300;
        writeRun(dir, rs);
        QString error;
        const auto data = RunReader::load(dir, &error);
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(data->records[3].retryAfterS, 1e300);
    }

    /// Found by fuzz_requestscsv: one row done a century after the run's start made compare and
    /// report build a per-second series of 3 billion seconds (std::bad_alloc).
    void aRowACenturyAwayLoadsWithABoundedTimeSeries()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("stopped"));
        writeRun(dir, records(), false);
        const QString csv = QDir(dir).filePath(QStringLiteral("requests.csv"));
        QVERIFY(writeFile(csv, withCell(readFile(csv), "done_at_ms", 2, "3153600000000.000")));
        QString error;
        const auto data = RunReader::load(dir, &error);
        QVERIFY2(data, qPrintable(error));
        QVERIFY(data->summaryRecomputed);
        QCOMPARE(data->timeSeries.size(), std::size_t(kMaxTimeSeriesSeconds));
        QVERIFY2(
            data->summary.warnings.join(QLatin1Char('\n')).contains(QStringLiteral("covers the run's first 7 days")),
            qPrintable(data->summary.warnings.join(QLatin1Char('\n'))));
    }

    /// Found by fuzz_requestscsv: a time read as another plus a span (done at sent + e2e) went up to
    /// two centuries, past the century every time read is held to, so what was read, written and
    /// read again differed.
    void timesAddingUpPastACenturyAreHeldToIt()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        writeRun(dir, records());
        const QString csv = QDir(dir).filePath(QStringLiteral("requests.csv"));
        QByteArray text = readFile(csv);
        for (const char *column : {"sent_ms", "e2e_ms", "ttft_ms"})
            text = withCell(text, column, 2, "3153600000000.000");
        QVERIFY(writeFile(csv, withCell(text, "done_at_ms", 2, "")));
        QString error;
        const auto data = RunReader::load(dir, &error);
        QVERIFY2(data, qPrintable(error));
        constexpr std::int64_t kCenturyNs = std::int64_t(100) * 365 * 24 * 3600 * 1'000'000'000;
        QCOMPARE(data->records[1].sentNs, kCenturyNs);
        QCOMPARE(data->records[1].firstTokenNs, kCenturyNs);
        QCOMPARE(data->records[1].doneNs, kCenturyNs);
    }

    /// Found by fuzz_requestscsv: a time with digits past the microsecond (a file edited by hand) was
    /// read to the nanosecond but written to the microsecond, so a figure derived from it (decode
    /// tokens/s) changed when the records were written and read again; times read are microseconds.
    void timesAreReadToTheMicrosecondTheyAreWrittenIn()
    {
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        writeRun(dir, records());
        const QString csv = QDir(dir).filePath(QStringLiteral("requests.csv"));
        QByteArray text = withCell(readFile(csv), "sent_ms", 2, "100.2514");
        QVERIFY(writeFile(csv, withCell(text, "ttft_ms", 2, "20.1236")));
        QString error;
        const auto data = RunReader::load(dir, &error);
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(data->records[1].sentNs, std::int64_t(100'251'000));
        QCOMPARE(data->records[1].firstTokenNs, std::int64_t(100'251'000 + 20'124'000));
    }

    void badDirectories_data()
    {
        QTest::addColumn<QString>("setup");
        QTest::addColumn<QString>("error");
        QTest::newRow("missing") << QStringLiteral("missing") << QStringLiteral("no such directory");
        QTest::newRow("empty") << QStringLiteral("empty")
                               << QStringLiteral("not a run directory (no summary.json/requests.csv)");
        QTest::newRow("summary not JSON")
            << QStringLiteral("summary:{not json") << QStringLiteral("damaged summary.json: not valid JSON");
        QTest::newRow("summary key missing") << QStringLiteral("summary:{\"format_version\":1}")
                                             << QStringLiteral("damaged summary.json: tool: missing");
        QTest::newRow("summary newer")
            << QStringLiteral("summary:{\"format_version\":7}")
            << QStringLiteral("summary.json was written by a newer format version 7 (this build reads up to 1)");
        QTest::newRow("run.json newer") << QStringLiteral("run:{\"format\":\"tokenbench-run\",\"format_version\":7}")
                                        << QStringLiteral("run.json was written by a newer format version 7");
        QTest::newRow("run.json damaged")
            << QStringLiteral("run:[]") << QStringLiteral("damaged run.json: not a JSON object");
        QTest::newRow("requests bad number")
            << QStringLiteral("requests-number")
            << QStringLiteral("damaged requests.csv: line 3: column 'sent_ms': 'soon' is not a number");
        QTest::newRow("requests missing column")
            << QStringLiteral("requests-column") << QStringLiteral("damaged requests.csv: no column 'status'");
        QTest::newRow("stopped without run.json")
            << QStringLiteral("no-run-json")
            << QStringLiteral("summary.json is missing, and without run.json it cannot be recomputed");
    }

    void badDirectories()
    {
        QFETCH(QString, setup);
        QFETCH(QString, error);
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        const QString kind = setup.section(QLatin1Char(':'), 0, 0);
        const QByteArray content = setup.section(QLatin1Char(':'), 1).toUtf8();
        if (kind == QLatin1String("empty")) {
            QVERIFY(QDir().mkpath(dir));
        } else if (kind != QLatin1String("missing")) {
            writeRun(dir, records());
            const QString csvPath = QDir(dir).filePath(QStringLiteral("requests.csv"));
            if (kind == QLatin1String("summary"))
                QVERIFY(writeFile(QDir(dir).filePath(QStringLiteral("summary.json")), content));
            else if (kind == QLatin1String("run"))
                QVERIFY(writeFile(QDir(dir).filePath(QStringLiteral("run.json")), content));
            else if (kind == QLatin1String("requests-number"))
                QVERIFY(writeFile(
                    csvPath, readFile(csvPath).replace("\r\n2,c=2,0,100.250,100.251,", "\r\n2,c=2,0,100.250,soon,")));
            else if (kind == QLatin1String("requests-column"))
                QVERIFY(writeFile(csvPath, readFile(csvPath).replace(",status,", ",state,")));
            else if (kind == QLatin1String("no-run-json")) {
                QVERIFY(QFile::remove(QDir(dir).filePath(QStringLiteral("run.json"))));
                QVERIFY(QFile::remove(QDir(dir).filePath(QStringLiteral("summary.json"))));
            }
        }
        QString why;
        QVERIFY(!RunReader::load(dir, &why));
        QVERIFY2(why.startsWith(QDir::toNativeSeparators(dir) + QStringLiteral(": ")), qPrintable(why));
        QVERIFY2(why.contains(error), qPrintable(why));
    }

    void summaryOnlyDirectoryLoads()
    {
        // requests.csv deleted (too big to keep, say): the summary still shows, without records.
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        const Written w = writeRun(dir, records());
        QVERIFY(QFile::remove(QDir(dir).filePath(QStringLiteral("requests.csv"))));
        QString error;
        const auto data = RunReader::load(dir, &error);
        QVERIFY2(data, qPrintable(error));
        QVERIFY(data->records.empty());
        QCOMPARE(data->summary.total.requests.attempted, w.summary.total.requests.attempted);
        QVERIFY(RunReader::isRunDirectory(dir));
        QVERIFY(!RunReader::isRunDirectory(tmp.path()));
    }

    /// The I/O backend is recorded in both files a run leaves, as this build's: what its chunk
    /// times could see travels with its figures.
    void ioBlockNamesThisBuildsBackend_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("run.json") << QStringLiteral("run.json");
        QTest::newRow("summary.json") << QStringLiteral("summary.json");
    }

    void ioBlockNamesThisBuildsBackend()
    {
        QFETCH(QString, file);
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        writeRun(dir, records());
        const auto json = nlohmann::json::parse(readFile(QDir(dir).filePath(file)).toStdString(), nullptr, false);
        QVERIFY2(json.contains("io"), qPrintable(QString::fromStdString(json.dump())));
        const nlohmann::json &io = json["io"];
        const IoBackend &build = ioBackend();
        QCOMPARE(QString::fromStdString(io.value("backend", std::string())), build.name);
        QCOMPARE(QString::fromStdString(io.value("poller", std::string())), build.poller);
        QCOMPARE(QString::fromStdString(io.value("stamping", std::string())), build.stamping);
        QCOMPARE(io.value("kernel_receive_stamps", !build.kernelReceiveStamps), build.kernelReceiveStamps);
        QCOMPARE(QString::fromStdString(io.value("timer_precision", std::string())), build.timerPrecision);
        QCOMPARE(io.value("clock_step_ns", std::int64_t(-1)), steadyClockResolutionNs());
        QVERIFY(steadyClockResolutionNs() > 0);

        QString error;
        const auto data = RunReader::load(dir, &error);
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(data->info.io, IoInfo::current());
        QCOMPARE(data->summary.io, IoInfo::current());
        QVERIFY(data->io().text().startsWith(build.name + QStringLiteral(" backend (")));
    }

    /// A run written before the block loads as it did, its backend "not recorded" — unless the
    /// other file of the run still says it.
    void aRunWithoutTheIoBlockShowsNotRecorded_data()
    {
        QTest::addColumn<bool>("fromRunJson");
        QTest::addColumn<bool>("fromSummary");
        QTest::addColumn<QString>("removeFile");
        QTest::addColumn<bool>("recorded");
        QTest::newRow("neither file has it") << true << true << QString() << false;
        QTest::newRow("summary.json lacks it: run.json says") << false << true << QString() << true;
        QTest::newRow("run.json lacks it: summary.json says") << true << false << QString() << true;
        QTest::newRow("summary-only directory without it") << false << true << QStringLiteral("run.json") << false;
        QTest::newRow("summary recomputed: run.json says") << false << false << QStringLiteral("summary.json") << true;
    }

    void aRunWithoutTheIoBlockShowsNotRecorded()
    {
        QFETCH(bool, fromRunJson);
        QFETCH(bool, fromSummary);
        QFETCH(QString, removeFile);
        QFETCH(bool, recorded);
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        writeRun(dir, records());
        for (const auto &[file, strip] : {std::pair{QStringLiteral("run.json"), fromRunJson},
                                          std::pair{QStringLiteral("summary.json"), fromSummary}}) {
            if (!strip)
                continue;
            const QString path = QDir(dir).filePath(file);
            auto json = nlohmann::json::parse(readFile(path).toStdString());
            QCOMPARE(json.erase("io"), std::size_t(1));
            QVERIFY(writeFile(path, QByteArray::fromStdString(json.dump(2))));
        }
        if (!removeFile.isEmpty())
            QVERIFY(QFile::remove(QDir(dir).filePath(removeFile)));
        if (removeFile == QLatin1String("run.json")) // without it, only the summary can be read
            QVERIFY(QFile::remove(QDir(dir).filePath(QStringLiteral("requests.csv"))));

        QString error;
        const auto data = RunReader::load(dir, &error);
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(data->io().recorded(), recorded);
        QCOMPARE(data->io().text(), recorded ? IoInfo::current().text() : QStringLiteral("not recorded"));
    }

    void ioTextSaysWhatTheChunkTimesSaw_data()
    {
        const IoInfo epoll{QStringLiteral("linux"),
                           QStringLiteral("epoll"),
                           QStringLiteral("kernel receive stamp (SO_TIMESTAMPING): when the bytes reached the socket"),
                           true,
                           QStringLiteral("1 ns (timerfd)"),
                           24};
        const IoInfo portable{QStringLiteral("portable"),
                              QStringLiteral("poll and Qt socket notifiers"),
                              QStringLiteral("steady clock read at each read"),
                              false,
                              QStringLiteral("1 ms (Qt timer, rounded up)"),
                              31};
        QTest::addColumn<IoInfo>("io");
        QTest::addColumn<QString>("text");
        QTest::newRow("linux") << epoll
                               << QStringLiteral("linux backend (epoll; chunk times: kernel receive stamps; timers "
                                                 "1 ns; clock step 24 ns)");
        QTest::newRow("portable") << portable
                                  << QStringLiteral("portable backend (poll and Qt socket notifiers; chunk times: "
                                                    "when read, with the client's read delay; timers 1 ms; clock "
                                                    "step 31 ns)");
        QTest::newRow("merged shards alike") << IoInfo::merged({epoll, epoll}) << epoll.text();
        QTest::newRow("merged shards that differ")
            << IoInfo::merged({epoll, portable, epoll})
            << QStringLiteral("mixed backends (pollers differ; chunk times: not all kernel receive stamps; timers "
                              "mixed; clock step 31 ns)");
        QTest::newRow("merged with a shard from before it")
            << IoInfo::merged({epoll, IoInfo()}) << QStringLiteral("not recorded");
        QTest::newRow("not recorded") << IoInfo() << QStringLiteral("not recorded");
    }

    void ioTextSaysWhatTheChunkTimesSaw()
    {
        QFETCH(IoInfo, io);
        QFETCH(QString, text);
        QCOMPARE(io.text(), text);
        // What the files hold reads back the same.
        QCOMPARE(IoInfo::fromJson(io.toJson()), io);
    }

    void writerReportsErrors()
    {
        QTemporaryDir tmp;
        // A file where a parent directory should be.
        QVERIFY(writeFile(tmp.filePath(QStringLiteral("file")), "x"));
        RunWriter blocked;
        QVERIFY(!blocked.open(tmp.filePath(QStringLiteral("file/run")), info()));
        QVERIFY2(blocked.errorString().contains(QStringLiteral("cannot create the run directory")),
                 qPrintable(blocked.errorString()));
        QVERIFY(!blocked.append(records().front()));
        QVERIFY(!blocked.finish(RunSummary(), {}));
    }

    void outDirectoryThatHoldsFilesIsRefused_data()
    {
        QTest::addColumn<QStringList>("files"); // made in the directory first; "sub/" a directory
        QTest::addColumn<QString>("refusal");   // empty: accepted
        QTest::newRow("does not exist") << QStringList() << QString();
        QTest::newRow("empty") << QStringList{QString()} << QString();
        QTest::newRow("only run.json") << QStringList{QStringLiteral("run.json")}
                                       << QStringLiteral("it holds run.json");
        QTest::newRow("a hidden file") << QStringList{QStringLiteral(".keep")} << QStringLiteral("it holds .keep");
        QTest::newRow("a subdirectory") << QStringList{QStringLiteral("sub/")} << QStringLiteral("it holds sub");
        QTest::newRow("many files") << QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"),
                                                   QStringLiteral("d"), QStringLiteral("e")}
                                    << QStringLiteral("it holds a, b, c and 2 more");
        QTest::newRow("a file, not a directory")
            << QStringList{QStringLiteral("=")} << QStringLiteral("is a file, not a directory");
    }

    void outDirectoryThatHoldsFilesIsRefused()
    {
        // `--out` naming a directory that held only run.json silently overwrote it.
        QFETCH(QStringList, files);
        QFETCH(QString, refusal);
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        if (files == QStringList{QStringLiteral("=")})
            QVERIFY(writeFile(dir, "not a directory"));
        else if (!files.isEmpty())
            QVERIFY(QDir().mkpath(dir));
        for (const QString &f : std::as_const(files)) {
            if (f.endsWith(QLatin1Char('/')))
                QVERIFY(QDir().mkpath(QDir(dir).filePath(f)));
            else if (!f.isEmpty() && f != QLatin1String("="))
                QVERIFY(writeFile(QDir(dir).filePath(f), "sentinel"));
        }
        const QString why = RunWriter::occupied(dir);
        RunWriter writer;
        const bool opened = writer.open(dir, info());
        if (refusal.isEmpty()) {
            QVERIFY2(why.isEmpty(), qPrintable(why));
            QVERIFY2(opened, qPrintable(writer.errorString()));
            return;
        }
        QVERIFY2(why.startsWith(QDir::toNativeSeparators(dir)) && why.contains(refusal), qPrintable(why));
        QVERIFY(!opened);
        QCOMPARE(writer.errorString(), why);
        if (files.contains(QStringLiteral("run.json")))
            QCOMPARE(readFile(QDir(dir).filePath(QStringLiteral("run.json"))), QByteArray("sentinel"));
    }

    void writerRefusesSymbolicLinksInTheRunDirectory_data()
    {
        QTest::addColumn<QString>("name");
        for (const char *name : {"run.json", "requests.csv", "chunks.jsonl"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }

    /// Regression: `run --force` wrote through symbolic links already in the run directory, so a
    /// link `requests.csv -> ~/.bashrc` had its target overwritten. Refused, the target untouched.
    void writerRefusesSymbolicLinksInTheRunDirectory()
    {
        QFETCH(QString, name);
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        writeRun(dir, records());
        const QString victim = tmp.filePath(QStringLiteral("victim"));
        QVERIFY(writeFile(victim, "precious"));
        const QString link = QDir(dir).filePath(name);
        QVERIFY(QFile::remove(link));
        QVERIFY(QFile::link(victim, link));
        RunWriter again;
        QVERIFY(!again.open(dir, info(), true));
        QCOMPARE(again.errorString(),
                 QStringLiteral("cannot %1 %2: it is a symbolic link, and TokenBench does not write through links "
                                "(remove it, or choose another directory)")
                     .arg(name == QLatin1String("run.json") ? QStringLiteral("write") : QStringLiteral("create"),
                          QDir::toNativeSeparators(link)));
        QCOMPARE(readFile(victim), QByteArray("precious"));
        QVERIFY(QFileInfo(link).isSymLink());
    }

    void replacingARunLeavesNoStaleSummary()
    {
        // With replace (--force) the earlier run's summary and time series go at once: a new run
        // killed before its end must not be shown with the old run's numbers.
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        writeRun(dir, records());
        QVERIFY(writeFile(QDir(dir).filePath(QStringLiteral("notes.txt")), "mine"));
        RunWriter again;
        QVERIFY2(again.open(dir, info(), true), qPrintable(again.errorString()));
        QVERIFY(again.append(records().front()));
        QVERIFY(!QFile::exists(QDir(dir).filePath(QStringLiteral("summary.json"))));
        QVERIFY(!QFile::exists(QDir(dir).filePath(QStringLiteral("timeseries.csv"))));
        QCOMPARE(readFile(QDir(dir).filePath(QStringLiteral("notes.txt"))), QByteArray("mine"));
        QString error;
        const auto data = RunReader::load(dir, &error);
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(data->records.size(), std::size_t(1));
    }

    void diskFullIsAnErrorNotACrash()
    {
        SmallDisk disk(64 * 1024);
        if (!disk.isMounted())
            QSKIP(disk.skipReason());
        const QString dir = disk.filePath(QStringLiteral("run"));
        RunWriter writer;
        QVERIFY2(writer.open(dir, info()), qPrintable(writer.errorString()));
        // The disk fills up: requests.csv's next row still fits in the page its header took, the
        // empty chunks.jsonl gets none.
        QFile filler(disk.filePath(QStringLiteral("filler")));
        QVERIFY(filler.open(QIODevice::WriteOnly | QIODevice::Unbuffered));
        const QByteArray block(4096, 'x');
        while (filler.write(block) > 0) {
        }
        const std::vector<RequestRecord> rs = records();
        QVERIFY(!writer.append(rs[1]));
        QVERIFY2(writer.errorString() ==
                     QStringLiteral("cannot write %1: No space left on device")
                         .arg(QDir::toNativeSeparators(QDir(dir).filePath(QStringLiteral("chunks.jsonl")))),
                 qPrintable(writer.errorString()));
        QVERIFY(!writer.append(rs[2]));
        QVERIFY(filler.remove());
        // The summary is still written: what was measured is worth keeping.
        QVERIFY(!writer.finish(RunSummary(), {}));
        QVERIFY(QFile::exists(QDir(dir).filePath(QStringLiteral("summary.json"))));
        QString error;
        const auto data = RunReader::load(dir, &error);
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(data->records.size(), std::size_t(1)); // requests first: rs[1]'s row is there
    }

    void fullDiskNamesTheErrorAndLeavesNoEmptyFile()
    {
        // A full disk ended a run with "cannot write …: Unknown error" (a short write), and a
        // 0-byte timeseries.csv made the run unopenable.
        SmallDisk disk(32 * 1024);
        if (!disk.isMounted())
            QSKIP(disk.skipReason());
        const QString dir = disk.filePath(QStringLiteral("run"));
        const RunInfo runInfo = info();
        RunAggregator aggregator(runInfo);
        RunWriter writer;
        QVERIFY2(writer.open(dir, runInfo), qPrintable(writer.errorString()));
        const std::vector<RequestRecord> rs = records();
        std::vector<RequestRecord> made;
        std::size_t appended = 0;
        for (std::uint64_t id = 1; id < 100000; ++id) {
            RequestRecord r = rs[id % rs.size()];
            r.id = id;
            r.responseId = QStringLiteral("chatcmpl-%1").arg(id);
            aggregator.add(r);
            made.push_back(r);
            if (!writer.append(r))
                break;
            ++appended;
        }
        QVERIFY(appended > 10);
        QVERIFY2(writer.errorString().startsWith(QStringLiteral("cannot write ") + QDir::toNativeSeparators(dir)) &&
                     writer.errorString().endsWith(QStringLiteral(": No space left on device")),
                 qPrintable(writer.errorString()));
        QVERIFY(!writer.finish(aggregator.summary(), aggregator.timeSeries()));
        // Every file there is whole or absent: none empty, no temporary file left behind.
        const QStringList names = QDir(dir).entryList(QDir::Files | QDir::Hidden);
        for (const QString &name : names) {
            QVERIFY2(
                QStringList({QStringLiteral("run.json"), QStringLiteral("requests.csv"), QStringLiteral("chunks.jsonl"),
                             QStringLiteral("summary.json"), QStringLiteral("timeseries.csv")})
                    .contains(name),
                qPrintable(name));
            QVERIFY2(QFileInfo(QDir(dir).filePath(name)).size() > 0, qPrintable(name));
        }
        QString error;
        const auto data = RunReader::load(dir, &error);
        QVERIFY2(data, qPrintable(error));
        // Each row handed over before the disk filled is there, in order; the failing record's
        // row may be there too (its chunk line was what failed) or cut short (left out).
        QVERIFY(data->records.size() == appended || data->records.size() == appended + 1);
        RunAggregator onDisk(runInfo);
        for (std::size_t i = 0; i < data->records.size(); ++i) {
            QCOMPARE(data->records[i].responseId, made[i].responseId);
            onDisk.add(made[i]);
        }
        QVERIFY(data->summaryRecomputed);
        QCOMPARE(data->summary.total.requests.attempted, onDisk.summary().total.requests.attempted);
        QCOMPARE(data->timeSeries.size(), onDisk.timeSeries().size());
    }

    void emptyFileFromAFullDiskIsRecomputed_data()
    {
        QTest::addColumn<QStringList>("empty");
        QTest::newRow("timeseries.csv") << QStringList{QStringLiteral("timeseries.csv")};
        QTest::newRow("summary.json") << QStringList{QStringLiteral("summary.json")};
        QTest::newRow("both") << QStringList{QStringLiteral("summary.json"), QStringLiteral("timeseries.csv")};
    }

    void emptyFileFromAFullDiskIsRecomputed()
    {
        // Earlier builds left a 0-byte timeseries.csv on a full disk; compare and report refused
        // the run ("damaged timeseries.csv"). It is read as missing, and recomputed.
        QFETCH(QStringList, empty);
        QTemporaryDir tmp;
        const QString dir = tmp.filePath(QStringLiteral("run"));
        const Written w = writeRun(dir, records());
        for (const QString &name : std::as_const(empty))
            QVERIFY(writeFile(QDir(dir).filePath(name), QByteArray()));
        QString error;
        const auto data = RunReader::load(dir, &error);
        QVERIFY2(data, qPrintable(error));
        QCOMPARE(data->summary.total.requests.attempted, w.summary.total.requests.attempted);
        QCOMPARE(data->timeSeries.size(), w.series.size());
        const QString notes = data->notes.join(QLatin1Char('\n'));
        for (const QString &name : std::as_const(empty))
            QVERIFY2(
                notes.contains(name + QStringLiteral(" is empty (the disk was full when the run ended): recomputed")),
                qPrintable(notes));
        QCOMPARE(data->notes.size(), empty.size());
    }

    void defaultDirectory()
    {
        RunConfig c;
        c.target.model = QStringLiteral("org/Model 7B:q4");
        const QDateTime at(QDate(2024, 5, 1), QTime(10, 15, 0));
        QCOMPARE(RunWriter::defaultDirectory(c, at), QStringLiteral("runs/20240501-101500-org_Model_7B_q4"));
        c.target.name = QStringLiteral("My server"); // docs/SPEC.md §1: named after the model, not the target
        QCOMPARE(RunWriter::defaultDirectory(c, at), QStringLiteral("runs/20240501-101500-org_Model_7B_q4"));
        // A name already taken (two runs in one second) gets a suffix.
        QTemporaryDir folder;
        const QString first = RunWriter::defaultDirectory(c, at, folder.path());
        QCOMPARE(first, QDir(folder.path()).filePath(QStringLiteral("20240501-101500-org_Model_7B_q4")));
        QVERIFY(QDir().mkpath(first));
        QCOMPARE(RunWriter::defaultDirectory(c, at, folder.path()), first + QStringLiteral("-2"));
    }
};

QTEST_GUILESS_MAIN(TestRunDirectory)
#include "tst_rundirectory.moc"
