// The run views' item models and readers on real run directories: the requests table (batched
// appends, sorting, filters, 100 000 rows), the summary table (and its CSV, which parses back to
// the summary's numbers), a request's timeline and detail view, errors by status, the on-demand
// chunk reader and the run history — each model under QAbstractItemModelTester.
#include "charts/timechart.h"
#include "editors/configeditor.h"
#include "mainwindow.h"
#include "models/requestsmodel.h"
#include "models/rungroupmodel.h"
#include "models/runhistorymodel.h"
#include "models/summarymodel.h"
#include "models/timelinemodel.h"
#include "views/requestdetailview.h"
#include "views/requestsview.h"
#include "views/rundocument.h"
#include "views/runhistoryview.h"

#include "analysis/baseline.h"
#include "analysis/metriccatalogue.h"
#include "formats/csv.h"
#include "formats/numberformat.h"
#include "metrics/errortimeline.h"
#include "metrics/runaggregator.h"
#include "results/chunkreader.h"
#include "results/runfiles.h"
#include "results/runwriter.h"
#include "results/sessioninfo.h"

#include "support/testfiles.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QMimeData>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <cmath>

using namespace Qt::Literals::StringLiterals;

using namespace tb;

namespace {

std::int64_t ms(double value)
{
    return std::llround(value * 1e6);
}

RunInfo runInfo(const QString &model = QStringLiteral("m-7b"))
{
    RunConfig c;
    c.target.url = QStringLiteral("http://127.0.0.1:9/v1");
    c.target.model = model;
    StageConfig a;
    a.level = 2;
    a.durationMs = 5000;
    StageConfig b;
    b.level = 4;
    b.durationMs = 5000;
    c.load.stages = {a, b};
    return RunInfo::begin(c);
}

/// Request `id` of stage `stage`: sent at `sentMs`, `chunks` chunks 10 ms apart after a TTFT that
/// grows with the id; every seventh fails with HTTP 503, every eleventh times out.
RequestRecord record(std::uint64_t id, int stage, double sentMs, int chunks = 4)
{
    RequestRecord r;
    r.id = id;
    r.stage = stage;
    r.scheduledNs = ms(sentMs);
    r.sentNs = ms(sentMs);
    r.headersNs = r.sentNs + ms(5);
    r.promptTokens = 100;
    r.cachedTokens = 20;
    r.tokenSource = TokenSource::Usage;
    r.responseId = QStringLiteral("resp-%1").arg(id);
    if (id % 7 == 0) {
        r.status = RequestStatus::Http;
        r.httpStatus = 503;
        r.errorMessage = QStringLiteral("HTTP 503: overloaded");
        r.doneNs = r.headersNs;
        return r;
    }
    if (id % 11 == 0) {
        r.status = RequestStatus::Timeout;
        r.errorMessage = QStringLiteral("no response within 1s");
        r.doneNs = r.sentNs + ms(1000);
        return r;
    }
    r.httpStatus = 200;
    const double ttft = 50 + double(id);
    for (int c = 0; c < chunks; ++c)
        r.tokenChunks.push_back({r.sentNs + ms(ttft + 10.0 * c), 4});
    r.chunks = chunks;
    r.completionTokens = chunks;
    r.firstTokenNs = r.firstContentNs = r.tokenChunks.front().tNs;
    r.lastTokenNs = r.tokenChunks.back().tNs;
    r.doneNs = r.lastTokenNs + ms(1);
    r.finishReason = QStringLiteral("stop");
    return r;
}

std::vector<RequestRecord> records(int n)
{
    std::vector<RequestRecord> out;
    for (int i = 1; i <= n; ++i)
        out.push_back(record(std::uint64_t(i), i <= n / 2 ? 0 : 1, 100.0 * i));
    return out;
}

/// A finished run directory written the way a run writes it.
RunSummary writeRun(const QString &directory, const std::vector<RequestRecord> &recs, const RunInfo &info = runInfo())
{
    RunAggregator aggregator(info);
    RunWriter writer;
    if (!writer.open(directory, info))
        qFatal("cannot open %s: %s", qPrintable(directory), qPrintable(writer.errorString()));
    for (const RequestRecord &r : recs) {
        aggregator.add(r);
        writer.append(r);
    }
    const RunSummary summary = aggregator.summary();
    writer.finish(summary, aggregator.timeSeries());
    return summary;
}

QList<RequestRecord> batch(const std::vector<RequestRecord> &all, std::size_t from, std::size_t to)
{
    return QList<RequestRecord>(all.begin() + qsizetype(from), all.begin() + qsizetype(to));
}

} // namespace

class TestUiRunModels : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void requestsModelAppendsInBatches()
    {
        RequestsModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setStageNames({QStringLiteral("c=2"), QStringLiteral("c=4")});
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        const std::vector<RequestRecord> all = records(30);
        model.append(batch(all, 0, 10));
        model.append({});
        model.append(batch(all, 10, 30));
        QCOMPARE(inserted.size(), 2); // one insertion per batch, none for an empty one
        QCOMPARE(inserted.at(1).at(1).toInt(), 10);
        QCOMPARE(inserted.at(1).at(2).toInt(), 29);
        QCOMPARE(model.rowCount(), 30);
        QVERIFY(model.record(0).tokenChunks.empty()); // the table keeps no chunk stamps

        const auto cell = [&model](int row, int column) { return model.index(row, column).data().toString(); };
        QCOMPARE(cell(0, RequestsModel::IdColumn), QStringLiteral("1"));
        QCOMPARE(cell(0, RequestsModel::StageColumn), QStringLiteral("c=2"));
        QCOMPARE(cell(20, RequestsModel::StageColumn), QStringLiteral("c=4"));
        QCOMPARE(cell(0, RequestsModel::StatusColumn), QStringLiteral("ok"));
        QCOMPARE(cell(6, RequestsModel::StatusColumn), QStringLiteral("HTTP 503"));
        QCOMPARE(cell(10, RequestsModel::StatusColumn), QStringLiteral("timeout"));
        QCOMPARE(cell(0, RequestsModel::TtftColumn), QStringLiteral("51.0"));
        QCOMPARE(cell(0, RequestsModel::E2eColumn), QStringLiteral("81.0"));
        QCOMPARE(cell(0, RequestsModel::TpotColumn), QStringLiteral("10.0"));
        QCOMPARE(cell(0, RequestsModel::SentColumn), QStringLiteral("0.100"));
        QCOMPARE(cell(6, RequestsModel::TtftColumn), QString());
        QCOMPARE(cell(6, RequestsModel::ErrorColumn), QStringLiteral("HTTP 503: overloaded"));
        QCOMPARE(model.index(6, RequestsModel::ErrorColumn).data(Qt::ToolTipRole).toString(),
                 QStringLiteral("HTTP 503: overloaded"));
        QCOMPARE(model.rowOf(17), 16);
        QCOMPARE(model.rowOf(99), -1);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void requestsSortAndFilter()
    {
        RequestsModel model;
        model.setStageNames({QStringLiteral("c=2"), QStringLiteral("c=4")});
        model.setRecords(records(40));
        RequestsFilterModel filter;
        filter.setSourceModel(&model);
        QAbstractItemModelTester tester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);

        // Numbers sort as numbers: TTFT 59 ms before 100 ms, failed requests (no TTFT) first.
        filter.sort(RequestsModel::TtftColumn, Qt::AscendingOrder);
        double previous = -2;
        for (int row = 0; row < filter.rowCount(); ++row) {
            const double v = filter.index(row, RequestsModel::TtftColumn).data(RequestsModel::SortRole).toDouble();
            QVERIFY(v >= previous);
            previous = v;
        }
        QCOMPARE(filter.index(filter.rowCount() - 1, RequestsModel::IdColumn).data().toString(), QStringLiteral("40"));

        filter.setErrorsOnly(true);
        QStringList ids;
        for (int row = 0; row < filter.rowCount(); ++row)
            ids << filter.index(row, RequestsModel::IdColumn).data().toString();
        ids.sort();
        QCOMPARE(ids, (QStringList{u"11"_s, u"14"_s, u"21"_s, u"22"_s, u"28"_s, u"33"_s, u"35"_s, u"7"_s}));
        filter.setStage(1);
        QCOMPARE(filter.rowCount(), 5); // 21 22 28 33 35
        filter.setErrorsOnly(false);
        QCOMPARE(filter.rowCount(), 20);
        filter.setStage(-1);
        QCOMPARE(filter.rowCount(), 40);
        // Appending to a sorted, filtered view keeps both.
        filter.setErrorsOnly(true);
        model.append({record(77, 1, 9000)}); // 77 = 7 · 11: HTTP 503
        QCOMPARE(filter.rowCount(), 9);
    }

    void hundredThousandRows()
    {
        // What a long run leaves in the table: 100 batches of 1 000, in a sorting, filtering view.
        RequestsModel model;
        RequestsFilterModel filter;
        filter.setSourceModel(&model);
        QTableView view;
        view.setModel(&filter);
        view.verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
        view.setSortingEnabled(true);
        view.sortByColumn(-1, Qt::AscendingOrder);
        view.resize(800, 400);
        view.show();
        const std::vector<RequestRecord> template_ = records(1000);
        for (int b = 0; b < 100; ++b) {
            QList<RequestRecord> batch;
            batch.reserve(1000);
            for (RequestRecord r : template_) {
                r.id += std::uint64_t(b) * 1000;
                batch.append(std::move(r));
            }
            model.append(batch);
        }
        QCOMPARE(model.rowCount(), 100000);
        QCOMPARE(filter.rowCount(), 100000);
        view.sortByColumn(RequestsModel::TtftColumn, Qt::DescendingOrder);
        QCOMPARE(filter.index(0, RequestsModel::TtftColumn).data().toString(), QStringLiteral("1050.0"));
        filter.setErrorsOnly(true);
        QCOMPARE(filter.rowCount(), 100 * (142 + 90 - 12)); // multiples of 7 or 11 in 1..1000
        QCOMPARE(model.rowOf(99999), 99998);
    }

    void summaryTableMatchesSummary()
    {
        RunAggregator aggregator(runInfo());
        for (const RequestRecord &r : records(60))
            aggregator.add(r);
        const RunSummary summary = aggregator.summary();
        SummaryTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setSummary(summary);
        QCOMPARE(model.blockCount(), 3); // run, c=2, c=4
        QCOMPARE(model.columnCount(), SummaryTableModel::FirstBlockColumn + 3);
        QCOMPARE(model.headerData(SummaryTableModel::FirstBlockColumn + 1, Qt::Horizontal).toString(),
                 summary.stages[0].name);
        QStringList keys;
        for (int row = 0; row < model.rowCount(); ++row)
            keys << model.key(row);
        QVERIFY(keys.contains(QStringLiteral("ttft_p50")));
        QVERIFY(keys.contains(QStringLiteral("e2e_p999")));
        // Closed loop: from when each user was ready. These records carry no phases and no
        // retries: rows without a value anywhere are left out.
        QVERIFY(keys.contains(QStringLiteral("ttft_from_schedule_p50")));
        QVERIFY(!keys.contains(QStringLiteral("connect_p99")));
        QVERIFY(!keys.contains(QStringLiteral("retries")));
        const int ttftRow = int(keys.indexOf(QStringLiteral("ttft_p50")));
        QCOMPARE(*model.value(ttftRow, 0), summary.total.stat(Metric::Ttft).p50);
        QCOMPARE(*model.value(ttftRow, 2), summary.stages[1].stat(Metric::Ttft).p50);
        QCOMPARE(model.index(ttftRow, SummaryTableModel::UnitColumn).data().toString(), QStringLiteral("ms"));
        QCOMPARE(
            model.index(ttftRow, SummaryTableModel::FirstBlockColumn).data(SummaryTableModel::ValueRole).toDouble(),
            summary.total.stat(Metric::Ttft).p50);

        // Live updates with the same shape change values in place (no reset: selection survives).
        QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setSummary(summary);
        QCOMPARE(reset.size(), 0);
        QCOMPARE(changed.size(), 1);
        model.setSummary(RunSummary());
        QCOMPARE(reset.size(), 1);
        QCOMPARE(model.blockCount(), 1);
    }

    // Help had only About: every summary row now explains its metric (the core's glossary).
    void summaryCountsPrintWithTwoDecimals_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("unit");
        QTest::addColumn<QString>("text");
        QTest::newRow("target concurrency") << 50.0 << QStringLiteral("requests") << QStringLiteral("50");
        QTest::newRow("server running") << 12.0 << QStringLiteral("req") << QStringLiteral("12");
        QTest::newRow("a count") << 7.0 << QStringLiteral("count") << QStringLiteral("7");
        QTest::newRow("prompt tokens") << 123456.0 << QStringLiteral("tokens") << QStringLiteral("123456");
        QTest::newRow("mean in flight") << 12.5 << QStringLiteral("requests") << QStringLiteral("12.50");
        QTest::newRow("milliseconds") << 50.0 << QStringLiteral("ms") << QStringLiteral("50.00");
    }

    // The summary table printed "50.00" in the requests unit (Target concurrency, Peak in flight).
    void summaryCountsPrintWithTwoDecimals()
    {
        QFETCH(double, value);
        QFETCH(QString, unit);
        QFETCH(QString, text);
        QCOMPARE(SummaryTableModel::formatValue(value, unit), text);
    }

    void summaryRowsExplainTheirMetric()
    {
        QVERIFY(MetricCatalogue::glossary().size() > 10); // the resource is compiled in and reads
        RunAggregator aggregator(runInfo());
        for (const RequestRecord &r : records(60))
            aggregator.add(r);
        SummaryTableModel model;
        model.setSummary(aggregator.summary());
        QVERIFY(model.rowCount() > 20);
        for (int row = 0; row < model.rowCount(); ++row) {
            QVERIFY2(MetricCatalogue::glossaryEntry(model.key(row)), qPrintable(model.key(row)));
            for (int column : {int(SummaryTableModel::MetricColumn), int(SummaryTableModel::FirstBlockColumn)})
                QCOMPARE(model.index(row, column).data(Qt::ToolTipRole).toString(),
                         MetricCatalogue::definition(model.key(row)));
        }
        QCOMPARE(MetricCatalogue::glossaryEntry(QStringLiteral("ttft_from_schedule_p99"))->term,
                 QStringLiteral("TTFT from schedule")); // the longest prefix, not "ttft"
        QCOMPARE(MetricCatalogue::glossaryEntry(QStringLiteral("ttft_p99"))->term, QStringLiteral("TTFT"));
        QVERIFY(!MetricCatalogue::glossaryEntry(QStringLiteral("no_such_row")));
    }

    void summaryCsvParsesBack()
    {
        RunAggregator aggregator(runInfo());
        for (const RequestRecord &r : records(60))
            aggregator.add(r);
        const RunSummary summary = aggregator.summary();
        SummaryTableModel model;
        model.setSummary(summary);
        const QByteArray csv = model.toCsv();
        CsvReader reader(csv);
        std::vector<std::string> fields;
        QVERIFY(reader.next(fields));
        QCOMPARE(fields, (std::vector<std::string>{"key", "metric", "unit", "run", "c=2", "c=4"}));
        int rows = 0;
        QHash<QString, std::vector<std::string>> byKey;
        while (reader.next(fields)) {
            QCOMPARE(fields.size(), std::size_t(6));
            byKey.insert(QString::fromStdString(fields[0]), fields);
            ++rows;
        }
        QCOMPARE(rows, model.rowCount());
        // The exact numbers, not the rounded display.
        const auto number = [&byKey](const char *key, int column) {
            return std::stod(byKey.value(QString::fromLatin1(key)).at(std::size_t(3 + column)));
        };
        QCOMPARE(number("ttft_p99", 0), summary.total.stat(Metric::Ttft).p99);
        QCOMPARE(number("e2e_mean", 1), summary.stages[0].stat(Metric::E2e).mean);
        QCOMPARE(number("requests_per_s", 0), summary.total.throughput.requestsPerS);
        QCOMPARE(number("requests_failed", 0), double(summary.total.requests.failed));
        QCOMPARE(number("cache_hit_pct", 2), *summary.stages[1].tokens.cacheHitRatio * 100);
        QCOMPARE(number("error_pct", 0),
                 100.0 * double(summary.total.requests.failed) / double(summary.total.requests.attempted));

        // The clipboard gets the table as shown: tab-separated text and HTML.
        std::unique_ptr<QMimeData> mime(model.toMimeData());
        const QStringList lines = mime->text().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), model.rowCount() + 1);
        QCOMPARE(lines.first().split(QLatin1Char('\t')).size(), model.columnCount());
        QVERIFY(mime->html().contains(QStringLiteral("<table")));
        QVERIFY(mime->html().contains(QStringLiteral("TTFT p99")));
    }

    void timelineOfOneRequest()
    {
        RequestRecord r = record(3, 0, 1000, 5);
        r.scheduledNs = r.sentNs - ms(2);
        r.completionTokens = 12; // 5 chunks of 4 characters: 1 each, then 7 more shared out
        TimelineModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRecord(r);
        QStringList names;
        std::int64_t tokens = 0;
        for (const TimelineModel::Event &e : model.events()) {
            names << e.name;
            tokens += std::max<std::int64_t>(0, e.tokens);
        }
        QCOMPARE(names, (QStringList{u"scheduled"_s, u"sent"_s, u"headers"_s, u"first token"_s, u"chunk 2"_s,
                                     u"chunk 3"_s, u"chunk 4"_s, u"chunk 5"_s, u"done"_s}));
        QCOMPARE(tokens, 12);
        QCOMPARE(model.index(0, TimelineModel::AtColumn).data().toString(), QStringLiteral("-2.000"));
        QCOMPARE(model.index(3, TimelineModel::AtColumn).data().toString(), QStringLiteral("53.000")); // TTFT
        QCOMPARE(model.index(4, TimelineModel::GapColumn).data().toString(), QStringLiteral("10.000"));
        QCOMPARE(model.index(4, TimelineModel::CharsColumn).data().toString(), QStringLiteral("4"));

        // Without chunk stamps (the table's records): first and last token from the record.
        r.tokenChunks.clear();
        model.setRecord(r);
        names.clear();
        for (const TimelineModel::Event &e : model.events())
            names << e.name;
        QCOMPARE(names,
                 (QStringList{u"scheduled"_s, u"sent"_s, u"headers"_s, u"first token"_s, u"last token"_s, u"done"_s}));
        const RequestRecord failed = record(7, 0, 0);
        model.setRecord(failed);
        QCOMPARE(model.events().back().name, QStringLiteral("failed"));
    }

    // Against llama.cpp users waited ≈1 s to connect (a SYN retried) and the request view showed
    // only sent, headers and tokens: where the wait went was nowhere to be seen.
    void requestViewShowsWhereTheWaitWent()
    {
        RequestRecord r = record(3, 0, 1200);
        r.scheduledNs = ms(100);
        r.blockedNs = ms(0.05);
        r.connectNs = ms(1030);
        r.tlsNs = ms(12);
        r.sendingNs = ms(0.02);
        // ready at 100 ms → connecting 100.05 → TCP up 1130.05 → TLS done 1142.05 → sent 1142.07
        r.sentNs = ms(100 + 0.05 + 1030 + 12 + 0.02);
        r.retries = 1;
        TimelineModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setRecord(r);
        QStringList names;
        for (const TimelineModel::Event &e : model.events())
            names << e.name;
        QCOMPARE(names.mid(0, 5), (QStringList{u"scheduled"_s, u"connecting"_s, u"TCP connected, TLS handshake"_s,
                                               u"connection open, sending"_s, u"sent"_s}));
        QCOMPARE(model.index(1, TimelineModel::GapColumn).data().toString(), QStringLiteral("0.050"));    // blocked
        QCOMPARE(model.index(2, TimelineModel::GapColumn).data().toString(), QStringLiteral("1030.000")); // connect
        QCOMPARE(model.index(3, TimelineModel::GapColumn).data().toString(), QStringLiteral("12.000"));   // TLS

        RequestDetailView view;
        view.resize(1280, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.showRecord(r, QString());
        const QString facts = view.findChild<QLabel *>(QStringLiteral("requestFacts"))->text();
        QVERIFY2(facts.contains(QStringLiteral("connect ") + formatMs(1030)), qPrintable(facts));
        QVERIFY2(facts.contains(QStringLiteral("sent again (×1)")), qPrintable(facts));
        QTest::qWait(50); // the facts' new height is laid out on the next pass
        view.grab().save(QDir::temp().filePath(QStringLiteral("tokenbench-request-phases.png")));

        // A kept-alive connection: no connect, the bytes went out at once.
        r.connectNs = r.tlsNs = 0;
        model.setRecord(r);
        names.clear();
        for (const TimelineModel::Event &e : model.events())
            names << e.name;
        QVERIFY2(names.contains(QStringLiteral("sending on a kept-alive connection")), qPrintable(names.join(u',')));
        QVERIFY(!names.contains(QStringLiteral("connecting")));
    }

    void errorTimelineByStatus()
    {
        ErrorTimeline errors;
        for (const RequestRecord &r : records(40))
            errors.add(r);
        RequestRecord cancelled = record(100, 0, 0);
        cancelled.status = RequestStatus::Cancelled;
        errors.add(cancelled);
        RequestRecord warm = record(7 * 20, 0, 0);
        warm.warmup = true;
        errors.add(warm);
        QCOMPARE(errors.total(), 8); // 5 × 503 (7, 14, 21, 28, 35), 3 timeouts (11, 22, 33)
        QCOMPARE(errors.labels(), (QStringList{u"503"_s, u"timeout"_s}));
        QCOMPARE(errors.count(QStringLiteral("503")), 5);
        // Request 7 was sent at 0.7 s and failed 5 ms later: second 0.
        const QList<QPointF> points = errorRatePoints(errors, QStringLiteral("503"), 4, 600);
        QCOMPARE(points.size(), 5);
        QCOMPARE(points[0], QPointF(0.5, 1));
        QCOMPARE(points[1], QPointF(1.5, 1)); // 14 at 1.4 s
        double total = 0;
        for (const QPointF &p : points)
            total += p.y();
        QCOMPARE(total, 5.0);
    }

    void chunkReaderFindsOneRequest()
    {
        QTemporaryDir dir;
        const QString run = dir.filePath(QStringLiteral("run"));
        const std::vector<RequestRecord> all = records(50);
        writeRun(run, all);
        ChunkReader reader;
        QString error;
        const auto chunks = reader.read(run, 23, &error);
        QVERIFY2(chunks, qPrintable(error));
        QCOMPARE(chunks->size(), all[22].tokenChunks.size());
        for (std::size_t i = 0; i < chunks->size(); ++i) {
            QCOMPARE((*chunks)[i].tNs, all[22].tokenChunks[i].tNs); // whole µs, as written
            QCOMPARE((*chunks)[i].chars, all[22].tokenChunks[i].chars);
        }
        // A failed request streamed nothing: it has no line.
        QVERIFY(!reader.read(run, 7, &error));
        QVERIFY2(error.contains(QStringLiteral("request 7")), qPrintable(error));
        QVERIFY(!reader.read(dir.filePath(QStringLiteral("absent")), 1, &error));
        QVERIFY2(error.contains(QStringLiteral("chunks.jsonl")), qPrintable(error));
    }

    void chunkReaderFollowsAGrowingFile()
    {
        QTemporaryDir dir;
        const RunInfo info = runInfo();
        RunWriter writer;
        QVERIFY(writer.open(dir.path() + QStringLiteral("/run"), info));
        const std::vector<RequestRecord> all = records(20);
        for (std::size_t i = 0; i < 10; ++i)
            QVERIFY(writer.append(all[i]));
        ChunkReader reader;
        QString error;
        QVERIFY(reader.read(writer.directory(), 3, &error));
        QVERIFY(!reader.read(writer.directory(), 15, &error)); // not written yet
        // A line still being written (no newline yet) is not taken for a whole one.
        QFile chunks(QDir(writer.directory()).filePath(QLatin1String(runfiles::kChunksJsonl)));
        for (std::size_t i = 10; i < 20; ++i)
            QVERIFY(writer.append(all[i]));
        QVERIFY(chunks.open(QIODevice::Append));
        chunks.write("{\"id\":999,\"t_us\":[1,2");
        chunks.close();
        const auto later = reader.read(writer.directory(), 15, &error);
        QVERIFY2(later, qPrintable(error));
        QCOMPARE(later->size(), all[14].tokenChunks.size());
        QVERIFY(!reader.read(writer.directory(), 999, &error));

        // And off the GUI thread, answering on it.
        QSignalSpy loaded(&reader, &ChunkReader::loaded);
        QSignalSpy failed(&reader, &ChunkReader::failed);
        reader.request(writer.directory(), 18);
        reader.request(writer.directory(), 14);
        QTRY_COMPARE_WITH_TIMEOUT(loaded.size() + failed.size(), 2, 10000);
        QCOMPARE(failed.size(), 1); // 14 = 2 · 7 failed with 503
        QCOMPARE(loaded.constFirst().constFirst().toULongLong(), 18u);
    }

    void requestsViewShowsOneRequest()
    {
        QTemporaryDir dir;
        const QString run = dir.filePath(QStringLiteral("run"));
        writeRun(run, records(40));
        QString error;
        std::optional<RunData> data = RunReader::load(run, &error);
        QVERIFY2(data, qPrintable(error));
        RunDocument document;
        document.load(std::move(*data));
        RequestsView view(&document);
        view.resize(1000, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(view.table()->model()->rowCount(), 40);
        RequestDetailView *detail = view.detail();
        QVERIFY(!detail->hasRecord());

        // A failed request: its error text, no chunks to read.
        QVERIFY(view.showRequest(7));
        QCOMPARE(detail->recordId(), 7u);
        QCOMPARE(detail->errorText(), QStringLiteral("HTTP 503: overloaded"));
        QCOMPARE(detail->chunkStatus(), QStringLiteral("none"));
        QCOMPARE(detail->timeline()->events().back().name, QStringLiteral("failed"));

        // A streamed one: its chunks arrive from chunks.jsonl.
        QSignalSpy ready(detail, &RequestDetailView::timelineReady);
        QVERIFY(view.showRequest(3));
        QTRY_COMPARE_WITH_TIMEOUT(ready.size(), 1, 10000);
        QCOMPARE(detail->chunkStatus(), QStringLiteral("loaded"));
        QVERIFY(detail->errorText().isEmpty());
        int chunks = 0;
        for (const TimelineModel::Event &e : detail->timeline()->events())
            chunks += e.chars >= 0;
        QCOMPARE(chunks, 4);
        view.grab().save(QDir::temp().filePath(QStringLiteral("tokenbench-request-detail.png")));

        // Errors only: a hidden request is brought back by showRequest().
        view.findChild<QCheckBox *>(QStringLiteral("errorsOnly"))->setChecked(true);
        QCOMPARE(view.table()->model()->rowCount(), 8);
        QVERIFY(view.findChild<QLabel *>(QStringLiteral("requestCount"))->text().startsWith(QStringLiteral("8 of 40")));
        QVERIFY(view.showRequest(5));
        QCOMPARE(view.table()->model()->rowCount(), 40);
        QVERIFY(!view.showRequest(4711));
    }

    void runHistoryShowsChangeAgainstTheBaseline()
    {
        QTemporaryDir folder;
        const QDir runs(folder.path());
        const QString base = runs.filePath(QStringLiteral("a-base"));
        const QString later = runs.filePath(QStringLiteral("b-later"));
        const RunSummary baseSummary = writeRun(base, records(20));
        const RunSummary laterSummary = writeRun(later, records(60)); // later requests have longer TTFTs
        Baseline::setDirectory(base);
        RunHistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy refreshed(&model, &RunHistoryModel::refreshed);
        model.setFolder(folder.path());
        QTRY_COMPARE_WITH_TIMEOUT(refreshed.size(), 1, 20000);
        const int baseRow = model.rowOf(base);
        const int laterRow = model.rowOf(later);
        QCOMPARE(model.index(baseRow, RunHistoryModel::BaselineColumn).data().toString(), QStringLiteral("baseline"));
        const QString change = model.index(laterRow, RunHistoryModel::BaselineColumn).data().toString();
        QCOMPARE(change, Baseline::change(laterSummary, baseSummary).text());
        QVERIFY2(change.contains(QStringLiteral("TTFT p50 +")), qPrintable(change));

        // Another mark: the rows follow.
        Baseline::setDirectory(later);
        model.refresh();
        QTRY_COMPARE_WITH_TIMEOUT(refreshed.size(), 2, 20000);
        QCOMPARE(model.index(model.rowOf(later), RunHistoryModel::BaselineColumn).data().toString(),
                 QStringLiteral("baseline"));
        QVERIFY(model.index(model.rowOf(base), RunHistoryModel::BaselineColumn)
                    .data()
                    .toString()
                    .contains(QStringLiteral("TTFT p50 −")));
        Baseline::setDirectory({});
    }

    void runHistoryListsRuns()
    {
        QTemporaryDir folder;
        const QDir runs(folder.path());
        RunInfo older = runInfo(QStringLiteral("older-model"));
        older.startedAt = QDateTime::currentDateTime().addDays(-1);
        writeRun(runs.filePath(QStringLiteral("a-older")), records(30), older);
        const RunSummary newest = writeRun(runs.filePath(QStringLiteral("b-newer")), records(40));
        QVERIFY(runs.mkpath(QStringLiteral("not-a-run")));
        QVERIFY(runs.mkpath(QStringLiteral("damaged")));
        QVERIFY(tb::test::writeFile(runs.filePath(QStringLiteral("damaged/summary.json")), "{ not json"));

        RunHistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy refreshed(&model, &RunHistoryModel::refreshed);
        model.setFolder(folder.path());
        QTRY_COMPARE_WITH_TIMEOUT(refreshed.size(), 1, 20000);
        QCOMPARE(model.rowCount(), 3); // the damaged run is listed (greyed, with its problem)
        const int b = model.rowOf(runs.filePath(QStringLiteral("b-newer")));
        const int a = model.rowOf(runs.filePath(QStringLiteral("a-older")));
        QVERIFY(b >= 0 && a >= 0);
        QVERIFY(b < a); // newest first
        QCOMPARE(model.index(b, RunHistoryModel::NameColumn).data().toString(), QStringLiteral("b-newer"));
        QCOMPARE(model.index(a, RunHistoryModel::ModelColumn).data().toString(), QStringLiteral("older-model"));
        QCOMPARE(model.entry(b).requestsPerS, newest.total.throughput.requestsPerS);
        QCOMPARE(model.entry(b).ttftP50Ms, newest.total.stat(Metric::Ttft).p50);
        QCOMPARE(model.entry(b).failed, newest.total.requests.failed);
        QVERIFY(model.index(b, RunHistoryModel::ErrorsColumn).data().toString().contains(QLatin1Char('%')));
        const int bad = model.rowOf(runs.filePath(QStringLiteral("damaged")));
        QVERIFY(bad >= 0);
        QVERIFY(!model.entry(bad).problem.isEmpty());
        QVERIFY(model.index(bad, 0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("summary.json")));

        // The run being written is left out; a run elsewhere can be added.
        QTemporaryDir elsewhere;
        writeRun(elsewhere.filePath(QStringLiteral("opened")), records(10));
        model.setExcluded(runs.filePath(QStringLiteral("b-newer")));
        model.addDirectory(elsewhere.filePath(QStringLiteral("opened")));
        QTRY_COMPARE_WITH_TIMEOUT(refreshed.size(), 2, 20000);
        QCOMPARE(model.rowOf(runs.filePath(QStringLiteral("b-newer"))), -1);
        QVERIFY(model.rowOf(elsewhere.filePath(QStringLiteral("opened"))) >= 0);
    }

    void runHistoryIsALibrary()
    {
        QStandardPaths::setTestModeEnabled(true); // the window's settings and the trash stay out of the user's
        QTemporaryDir folder;
        const QDir runs(folder.path());
        writeRun(runs.filePath(QStringLiteral("20261201-101500-002-a-model-with-a-long-name")), records(20));
        std::vector<RequestRecord> stopped = records(10);
        stopped.back().status = RequestStatus::Cancelled;
        stopped.back().errorMessage = QStringLiteral("cancelled");
        writeRun(runs.filePath(QStringLiteral("stopped")), stopped);
        std::vector<RequestRecord> refused = records(4);
        for (RequestRecord &r : refused) {
            r.status = RequestStatus::Connect;
            r.errorMessage = QStringLiteral("connection refused");
            r.doneNs = r.sentNs;
        }
        writeRun(runs.filePath(QStringLiteral("refused")), refused);

        RunHistoryModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy refreshed(&model, &RunHistoryModel::refreshed);
        model.setFolder(folder.path());
        QTRY_COMPARE_WITH_TIMEOUT(refreshed.size(), 1, 20000);
        const auto cell = [&model, &runs](const char *run, int column) {
            return model.index(model.rowOf(runs.filePath(QString::fromLatin1(run))), column);
        };
        QCOMPARE(cell("stopped", RunHistoryModel::StatusColumn).data().toString(), QStringLiteral("stopped"));
        QCOMPARE(cell("refused", RunHistoryModel::StatusColumn).data().toString(), QStringLiteral("failed"));
        QCOMPARE(cell("20261201-101500-002-a-model-with-a-long-name", RunHistoryModel::StatusColumn).data().toString(),
                 QStringLiteral("ok"));
        QCOMPARE(cell("stopped", RunHistoryModel::TargetColumn).data().toString(),
                 QStringLiteral("http://127.0.0.1:9/v1"));
        QCOMPARE(cell("stopped", RunHistoryModel::LoadColumn).data().toString(), runInfo().loadText());
        QCOMPARE(cell("stopped", RunHistoryModel::NameColumn).data(RunHistoryModel::StagesRole).toInt(), 2);

        // Sortable by status: failed, ok, stopped.
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(RunHistoryModel::SortRole);
        proxy.sort(RunHistoryModel::StatusColumn);
        QCOMPARE(proxy.index(0, RunHistoryModel::NameColumn).data().toString(), QStringLiteral("refused"));

        // Notes and a new name persist: a fresh scan reads them back.
        QString error;
        QVERIFY(model.setData(cell("stopped", RunHistoryModel::NotesColumn),
                              QStringLiteral("after the driver update\nGPU 2")));
        QVERIFY(model.setData(cell("stopped", RunHistoryModel::NameColumn), QStringLiteral("driver-555")));
        QVERIFY(!QFileInfo::exists(runs.filePath(QStringLiteral("stopped"))));
        QSignalSpy failed(&model, &RunHistoryModel::editFailed);
        QVERIFY(!model.setData(cell("refused", RunHistoryModel::NameColumn), QStringLiteral("driver-555"))); // taken
        QVERIFY(!model.setData(cell("refused", RunHistoryModel::NameColumn), QStringLiteral("../elsewhere")));
        QCOMPARE(failed.size(), 2);
        RunHistoryModel fresh;
        QSignalSpy freshRefreshed(&fresh, &RunHistoryModel::refreshed);
        fresh.setFolder(folder.path());
        QTRY_COMPARE_WITH_TIMEOUT(freshRefreshed.size(), 1, 20000);
        const int renamed = fresh.rowOf(runs.filePath(QStringLiteral("driver-555")));
        QVERIFY(renamed >= 0);
        QCOMPARE(fresh.index(renamed, RunHistoryModel::NotesColumn).data().toString(),
                 QStringLiteral("after the driver update"));
        QCOMPARE(fresh.index(renamed, RunHistoryModel::NotesColumn).data(Qt::EditRole).toString(),
                 QStringLiteral("after the driver update\nGPU 2"));
        QCOMPARE(fresh.entry(renamed).attempted, 9); // the measurements came along

        // Run This Configuration Again: the run's configuration in the forms.
        {
            MainWindow w;
            QVERIFY(w.loadRunConfiguration(runs.filePath(QStringLiteral("driver-555"))));
            QCOMPARE(w.configEditor()->config().target.url, QStringLiteral("http://127.0.0.1:9/v1"));
            QCOMPARE(w.configEditor()->config().load.stages.size(), 2);
            QVERIFY(w.configEditor()->config().outDir.isEmpty());
        }

        // Delete goes to the trash.
        const int doomed = fresh.rowOf(runs.filePath(QStringLiteral("refused")));
        QVERIFY2(fresh.moveToTrash(doomed, &error), qPrintable(error));
        QVERIFY(!QFileInfo::exists(runs.filePath(QStringLiteral("refused"))));
        QCOMPARE(fresh.rowCount(), 2);
    }

    // Runs grouped by session: a comparison session is one collapsible row over its runs, sorted
    // as a whole, its runs editable through it.
    void runHistoryGroupsSessions()
    {
        QStandardPaths::setTestModeEnabled(true);
        QTemporaryDir folder;
        const QDir runs(folder.path());
        const QDir session(runs.filePath(QStringLiteral("20261201-120000-session-models")));
        QVERIFY(session.mkpath(QStringLiteral(".")));
        SessionInfo info;
        info.name = QStringLiteral("models");
        info.createdAt = QDateTime::currentDateTime();
        info.workload = runInfo().config;
        for (const QString &name : {QStringLiteral("1-small"), QStringLiteral("2-large")}) {
            writeRun(session.filePath(name), records(6));
            SessionInfo::Run run;
            run.directory = name;
            run.target = runInfo().config.target;
            run.status = SessionRunStatus::Ok;
            info.runs << run;
        }
        QString error;
        QVERIFY2(info.save(session.path(), &error), qPrintable(error));
        writeRun(runs.filePath(QStringLiteral("alone")), records(6));

        RunHistoryModel model;
        RunGroupModel groups(&model);
        QAbstractItemModelTester tester(&groups, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&groups);
        proxy.setSortRole(RunHistoryModel::SortRole);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy refreshed(&model, &RunHistoryModel::refreshed);
        model.setFolder(folder.path());
        QTRY_COMPARE_WITH_TIMEOUT(refreshed.size(), 1, 20000);
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(groups.rowCount(), 2);

        // Sorted by name: the run of its own, then the session with its runs in order under it.
        proxy.sort(RunHistoryModel::NameColumn, Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("alone"));
        QCOMPARE(proxy.rowCount(proxy.index(0, 0)), 0);
        const QModelIndex group = proxy.index(1, 0);
        QVERIFY(groups.isSession(proxy.mapToSource(group)));
        QCOMPARE(group.data().toString(), QStringLiteral("models — session, 2 runs"));
        QCOMPARE(group.siblingAtColumn(RunHistoryModel::SessionColumn).data().toString(), QStringLiteral("models"));
        QVERIFY(group.data(RunHistoryModel::DirectoryRole).toString().isEmpty());
        QCOMPARE(proxy.rowCount(group), 2);
        QCOMPARE(proxy.index(0, 0, group).data().toString(), QStringLiteral("1-small"));
        QCOMPARE(proxy.index(1, 0, group).data().toString(), QStringLiteral("2-large"));
        proxy.sort(RunHistoryModel::NameColumn, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("models — session, 2 runs"));
        QCOMPARE(proxy.index(0, 0, proxy.index(0, 0)).data().toString(), QStringLiteral("2-large"));
        // A run's row is the library's row: the same data, and notes written through it persist.
        const QModelIndex large = proxy.index(0, RunHistoryModel::NotesColumn, proxy.index(0, 0));
        QVERIFY(proxy.setData(large, QStringLiteral("the bigger GPU")));
        QFile notes(session.filePath(QStringLiteral("2-large/notes.txt")));
        QVERIFY(notes.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(notes.readAll()), QStringLiteral("the bigger GPU"));
        QCOMPARE(large.data().toString(), QStringLiteral("the bigger GPU"));

        // On the Runs tab the session opens, collapses, and stands for its runs when selected.
        RunHistoryView view(&model);
        view.resize(900, 400);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTreeView *tree = view.table();
        QModelIndex row;
        for (int i = 0; i < tree->model()->rowCount(); ++i) {
            if (tree->model()->rowCount(tree->model()->index(i, 0)) > 0)
                row = tree->model()->index(i, 0);
        }
        QVERIFY(row.isValid());
        QVERIFY(tree->isExpanded(row));
        tree->collapse(row);
        QVERIFY(!tree->isExpanded(row));
        tree->selectionModel()->select(row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        QStringList selected = view.selectedDirectories();
        selected.sort();
        QCOMPARE(selected.size(), 2);
        QVERIFY(selected.constFirst().endsWith(QStringLiteral("/1-small")));
        view.selectDirectory(model.entry(model.rowOf(selected.constLast())).directory);
        QVERIFY(tree->isExpanded(row));
        QCOMPARE(view.selectedDirectory(), selected.constLast());

        // A run moved to the trash leaves its session's row with one run.
        QVERIFY2(model.moveToTrash(model.rowOf(selected.constLast()), &error), qPrintable(error));
        QCOMPARE(groups.rowCount(), 2);
        int left = -1;
        for (int i = 0; i < groups.rowCount(); ++i) {
            if (groups.isSession(groups.index(i, 0)))
                left = groups.rowCount(groups.index(i, 0));
        }
        QCOMPARE(left, 1);
    }
};

QTEST_MAIN(TestUiRunModels)
#include "tst_ui_runmodels.moc"
