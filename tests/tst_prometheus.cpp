// The Prometheus text / OpenMetrics parser, the mapping of vLLM's, SGLang's, TGI's and llama.cpp's
// names to the common server series, histogram quantiles and a run's server window.

#include "formats/prometheustext.h"
#include "metrics/servermetrics.h"

#include <QFile>
#include <QtTest>

#include <cmath>

using namespace Qt::Literals::StringLiterals;

using namespace tb;

namespace {

QByteArray fixture(const QString &name)
{
    QFile f(QStringLiteral(TOKENBENCH_TESTDATA "/prometheus/") + name);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", qPrintable(name));
    return f.readAll();
}

double orMinusOne(const std::optional<double> &v)
{
    return v ? *v : -1;
}

CumulativeHistogram histogram(std::vector<double> bounds, std::vector<double> counts, double sum = 0)
{
    return {std::move(bounds), std::move(counts), sum};
}

} // namespace

class TestPrometheus : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void servers_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("samples");
        QTest::addColumn<bool>("openMetrics");
        QTest::addColumn<QString>("engine");
        QTest::addColumn<double>("running");
        QTest::addColumn<double>("waiting");
        QTest::addColumn<double>("kv");
        QTest::addColumn<double>("promptTokens");
        QTest::addColumn<double>("generationTokens");
        QTest::addColumn<double>("prefixQueries");
        QTest::addColumn<double>("prefixHits");
        QTest::addColumn<double>("hitRate");
        QTest::addColumn<double>("ttftCount");
        QTest::addColumn<double>("itlCount");
        QTest::addColumn<double>("e2eCount");
        // vLLM's v1 exposes both ITL names: inter_token_latency wins over the deprecated one.
        QTest::newRow("vllm") << "vllm.txt" << 39 << false << "vllm" << 24.0 << 3.0 << 0.4125 << 200000.0 << 51200.0
                              << 200000.0 << 50000.0 << -1.0 << 200.0 << 51000.0 << 200.0;
        QTest::newRow("vllm v0") << "vllm-v0.txt" << 12 << false << "vllm" << 8.0 << 0.0 << 0.9 << 4096.0 << 1024.0
                                 << -1.0 << -1.0 << 0.25 << 0.0 << 1016.0 << 0.0;
        // SGLang counts cached tokens against its prompt tokens.
        QTest::newRow("sglang") << "sglang.txt" << 24 << false << "sglang" << 28.0 << 12.0 << 0.28 << 8128902.0
                                << 7557572.0 << 8128902.0 << 2032226.0 << 0.007507552643049313 << 20000.0 << 7500.0
                                << 20000.0;
        QTest::newRow("tgi") << "tgi.txt" << 28 << false << "tgi" << 32.0 << 5.0 << -1.0 << 604160.0 << 151040.0 << -1.0
                             << -1.0 << -1.0 << 0.0 << 1180.0 << 1180.0;
        QTest::newRow("llama.cpp") << "llamacpp.txt" << 10 << false << "llamacpp" << 2.0 << 1.0 << 0.5 << 33065.0
                                   << 7801.0 << -1.0 << -1.0 << -1.0 << 0.0 << 0.0 << 0.0;
        QTest::newRow("openmetrics") << "openmetrics.txt" << 4 << true << "vllm" << 4.0 << -1.0 << -1.0 << 100.0 << -1.0
                                     << -1.0 << -1.0 << -1.0 << 0.0 << 0.0 << 0.0;
    }

    void servers()
    {
        QFETCH(QString, file);
        QFETCH(int, samples);
        QFETCH(bool, openMetrics);
        QFETCH(QString, engine);
        QString error;
        const auto e = parsePrometheusText(fixture(file), &error);
        QVERIFY2(e, qPrintable(error));
        QCOMPARE(int(e->samples.size()), samples);
        QCOMPARE(e->openMetrics, openMetrics);
        QCOMPARE(detectServerEngine(*e), engine);
        const ServerPoint p = mapServerMetrics(*e, 1.5);
        QCOMPARE(p.tS, 1.5);
        QTEST(orMinusOne(p.running), "running");
        QTEST(orMinusOne(p.waiting), "waiting");
        QTEST(orMinusOne(p.kvCacheFraction), "kv");
        QTEST(orMinusOne(p.promptTokens), "promptTokens");
        QTEST(orMinusOne(p.generationTokens), "generationTokens");
        QTEST(orMinusOne(p.prefixQueries), "prefixQueries");
        QTEST(orMinusOne(p.prefixHits), "prefixHits");
        QTEST(orMinusOne(p.prefixHitRate), "hitRate");
        QTEST(p.ttft.count(), "ttftCount");
        QTEST(p.itl.count(), "itlCount");
        QTEST(p.e2e.count(), "e2eCount");
    }

    void families()
    {
        QString error;
        const auto e = parsePrometheusText(fixture(QStringLiteral("openmetrics.txt")), &error);
        QVERIFY2(e, qPrintable(error));
        const PromFamily *running = e->familyOf("vllm:num_requests_running");
        QVERIFY(running);
        QCOMPARE(running->type, PromType::Gauge);
        QCOMPARE(running->unit, std::string("requests"));
        QCOMPARE(running->help, std::string("Running requests."));
        const PromFamily *prompt = e->familyOf("vllm:prompt_tokens_total");
        QVERIFY(prompt);
        QCOMPARE(prompt->type, PromType::Counter);
        QCOMPARE(e->familyOf("vllm:prompt_tokens_created"), prompt);
        QCOMPARE(e->familyOf("build_info")->type, PromType::Info);
        QVERIFY(!e->familyOf("nothing_total"));
        // OpenMetrics timestamps are seconds; the exemplar after '#' is not a series.
        QCOMPARE(*e->samples[0].timestampS, 1700000000.5);
        QCOMPARE(e->samples[1].value, 100.0);
        QVERIFY(!e->samples[1].timestampS);
    }

    void sampleSyntax_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("labels"); // key=value pairs, unescaped
        QTest::addColumn<double>("value");
        QTest::addColumn<double>("timestampS"); // -1: none
        QTest::newRow("bare") << QByteArray("up 1\n") << "up" << QStringList{} << 1.0 << -1.0;
        QTest::newRow("escapes") << QByteArray("a{x=\"q\\\"b\\\\c\\nd\"} 2\n") << u"a"_s
                                 << QStringList{u"x=q\"b\\c\nd"_s} << 2.0 << -1.0;
        QTest::newRow("spaces and trailing comma")
            << QByteArray("a { x = \"1\" , y=\"2\", } 3") << u"a"_s << QStringList{u"x=1"_s, u"y=2"_s} << 3.0 << -1.0;
        QTest::newRow("ms timestamp") << QByteArray("a 1 1700000000123\n") << "a" << QStringList{} << 1.0
                                      << 1700000000.123;
        QTest::newRow("exponent") << QByteArray("a 8.128902e+06") << "a" << QStringList{} << 8128902.0 << -1.0;
        QTest::newRow("+Inf") << QByteArray("a +Inf") << "a" << QStringList{} << qInf() << -1.0;
        QTest::newRow("CRLF and tabs") << QByteArray("\t a\t-2\r\n") << "a" << QStringList{} << -2.0 << -1.0;
        QTest::newRow("colons") << QByteArray("vllm:x_total{model_name=\"a/b:c\"} 5") << u"vllm:x_total"_s
                                << QStringList{u"model_name=a/b:c"_s} << 5.0 << -1.0;
        QTest::newRow("quoted UTF-8 name")
            << QByteArray("{\"my.metric\", le=\"0.5\"} 7") << u"my.metric"_s << QStringList{u"le=0.5"_s} << 7.0 << -1.0;
    }

    void sampleSyntax()
    {
        QFETCH(QByteArray, text);
        QFETCH(QStringList, labels);
        QFETCH(double, timestampS);
        QString error;
        const auto e = parsePrometheusText(text, &error);
        QVERIFY2(e, qPrintable(error));
        QCOMPARE(e->samples.size(), std::size_t(1));
        const PromSample &s = e->samples[0];
        QTEST(QString::fromStdString(s.name), "name");
        QStringList got;
        for (const auto &[k, v] : s.labels)
            got << QString::fromStdString(k) + QLatin1Char('=') + QString::fromStdString(v);
        QCOMPARE(got, labels);
        QTEST(s.value, "value");
        QCOMPARE(s.timestampS.value_or(-1), timestampS);
        // What formatPromLabels writes reads back the same.
        // (Appended piece by piece: GCC 12's -Wrestrict misfires at -O3 on chains of string operator+.)
        std::string again = "b";
        again += formatPromLabels(s.labels);
        again += " 1\n";
        const auto back = parsePrometheusText(QByteArray::fromStdString(again), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->samples[0].labels, s.labels);
    }

    void nan()
    {
        const auto e = parsePrometheusText("a NaN\n", nullptr);
        QVERIFY(e);
        QVERIFY(std::isnan(e->samples[0].value));
    }

    void malformed_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("error");
        QTest::newRow("html") << QByteArray("<!DOCTYPE html>\n<html>") << "line 1: not a Prometheus sample";
        QTest::newRow("json") << QByteArray("{\"status\": \"ok\"}") << "line 1: expected '=' after label 'status'";
        QTest::newRow("no value") << QByteArray("# TYPE a gauge\na\n") << "line 2: no value for 'a'";
        QTest::newRow("no space") << QByteArray("a-1") << "line 1: expected a space before the value of 'a'";
        QTest::newRow("bad value") << QByteArray("a 1x") << "line 1: '1x' is not a number";
        QTest::newRow("bad timestamp") << QByteArray("a 1 soon") << "line 1: 'soon' is not a timestamp";
        QTest::newRow("junk after") << QByteArray("a 1 2 3") << "line 1: unexpected text";
        QTest::newRow("unquoted label") << QByteArray("a{x=1} 1") << "label 'x' needs a quoted value";
        QTest::newRow("bad escape") << QByteArray("a{x=\"\\t\"} 1") << "label 'x' needs a quoted value";
        QTest::newRow("unterminated") << QByteArray("a{x=\"1} 1") << "label 'x' needs a quoted value";
        QTest::newRow("unknown type") << QByteArray("# TYPE a thing\n") << "line 1: unknown type 'thing'";
        QTest::newRow("after EOF") << QByteArray("a 1\n# EOF\nb 2\n") << "line 3: content after '# EOF'";
        QTest::newRow("cut line") << QByteArray("a{x=\"") << "line 1:";
    }

    void malformed()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, error);
        QString why;
        QVERIFY(!parsePrometheusText(text, &why));
        QVERIFY2(why.startsWith(error) || why.contains(error), qPrintable(why));
    }

    void limits_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("which"); // 0 bytes, 1 lines, 2 series, 3 line length, 4 labels
        QTest::addColumn<QString>("error");
        QByteArray many;
        for (int i = 0; i < 11; ++i)
            many += "a_" + QByteArray::number(i) + " 1\n";
        QTest::newRow("size") << many << 0 << "larger than 20 bytes";
        QTest::newRow("lines") << many << 1 << "line 11: more than 10 lines";
        QTest::newRow("series") << many << 2 << "line 11: more than 10 series";
        QTest::newRow("line length") << QByteArray("a{x=\"" + QByteArray(100, 'y') + "\"} 1") << 3
                                     << "line 1: longer than 50 bytes";
        QTest::newRow("labels") << QByteArray("a{a=\"1\",b=\"2\",c=\"3\"} 1") << 4 << "line 1: more than 2 labels";
    }

    void limits()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, which);
        QFETCH(QString, error);
        PromLimits limits;
        QVERIFY(parsePrometheusText(text, nullptr, limits)); // within the defaults
        switch (which) {
        case 0:
            limits.maxBytes = 20;
            break;
        case 1:
            limits.maxLines = 10;
            break;
        case 2:
            limits.maxSeries = 10;
            break;
        case 3:
            limits.maxLineBytes = 50;
            break;
        default:
            limits.maxLabels = 2;
            break;
        }
        QString why;
        QVERIFY(!parsePrometheusText(text, &why, limits));
        QCOMPARE(why, error);
    }

    void writerReadsBack()
    {
        PromWriter w;
        const PromLabels labels{{"model_name", "m\"1"}};
        w.family("x:requests", PromType::Gauge, "Help with a \\ backslash\nand a line");
        w.sample("x:requests", labels, 3);
        PromHistogram h({0.1, 1.0});
        h.observe(0.05);
        h.observe(0.1); // on a bound: in that bound's bucket
        h.observe(5, 2);
        w.family("x:ttft_seconds", PromType::Histogram, "TTFT");
        w.histogram("x:ttft_seconds", labels, h.bounds(), h.cumulative(), h.sum());
        QString error;
        const auto e = parsePrometheusText(QByteArray::fromStdString(w.text()), &error);
        QVERIFY2(e, qPrintable(error));
        QCOMPARE(e->familyOf("x:requests")->help, std::string("Help with a \\ backslash\nand a line"));
        QCOMPARE(e->familyOf("x:ttft_seconds_bucket")->type, PromType::Histogram);
        QCOMPARE(e->samples.size(), std::size_t(1 + 3 + 2));
        QCOMPARE(*e->samples[0].label("model_name"), std::string("m\"1"));
        QCOMPARE(e->samples[1].value, 2.0); // le=0.1
        QCOMPARE(e->samples[2].value, 2.0); // le=1
        QCOMPARE(e->samples[3].value, 4.0); // +Inf
        QCOMPARE(*e->samples[3].label("le"), std::string("+Inf"));
        QCOMPARE(e->samples[4].value, 10.15);
        QCOMPARE(e->samples[5].value, 4.0);
    }

    void quantile_data()
    {
        QTest::addColumn<double>("q");
        QTest::addColumn<double>("expected");
        // Deltas between the scrapes: 10 in (0, 0.1], 20 in (0.1, 0.5], 10 in (0.5, 1], 0 above.
        QTest::newRow("p25") << 0.25 << 0.1;
        QTest::newRow("p50") << 0.5 << 0.1 + 0.4 * 0.5;
        QTest::newRow("p10") << 0.1 << 0.04;
        QTest::newRow("p100") << 1.0 << 1.0;
    }

    void quantile()
    {
        QFETCH(double, q);
        const auto earlier = histogram({0.1, 0.5, 1.0}, {5, 5, 100, 100});
        const auto later = histogram({0.1, 0.5, 1.0}, {15, 35, 140, 140});
        const auto v = histogramQuantile(later, &earlier, q);
        QVERIFY(v);
        QFETCH(double, expected);
        QVERIFY2(std::abs(*v - expected) < 1e-9, qPrintable(QString::number(*v)));
    }

    void quantileEdges()
    {
        const auto h = histogram({0.1, 1.0}, {0, 0, 4});
        QCOMPARE(*histogramQuantile(h, nullptr, 0.5), 1.0); // in +Inf: the largest finite bound
        QVERIFY(!histogramQuantile(h, &h, 0.5));            // no observations in between
        QVERIFY(!histogramQuantile(CumulativeHistogram{}, nullptr, 0.5));
        // A counter reset (the server restarted): the later scrape alone.
        const auto before = histogram({0.1, 1.0}, {100, 100, 100});
        const auto after = histogram({0.1, 1.0}, {0, 2, 2});
        QVERIFY(std::abs(*histogramQuantile(after, &before, 0.5) - 0.55) < 1e-9);
    }

    void serverWindow()
    {
        // Warm-up scrapes are left out: the window starts at the last scrape before the mark.
        ServerSeries series;
        const int source = series.addSource(QStringLiteral("http://127.0.0.1:1/metrics"));
        QVERIFY(!series.summary());
        series.add(source, point(0.0, 50, 0.9, 0, {0, 0, 0}), QStringLiteral("vllm"));
        series.add(source, point(1.0, 50, 0.9, 1000, {0, 10, 10}), QStringLiteral("vllm")); // warm-up: slow
        series.markMeasurementStart(1.2);
        series.add(source, point(2.0, 4, 0.2, 1500, {10, 20, 20}), QStringLiteral("vllm"));
        series.addFailure(source, 2.5, QStringLiteral("answered HTTP 500"));
        series.add(source, point(3.0, 6, 0.4, 2000, {20, 30, 30}), QStringLiteral("vllm"));
        QVERIFY2(series.warnings().isEmpty(), "a failure it recovered from is no warning");
        series.addFailure(source, 3.5, QStringLiteral("no answer within 2000 ms"));
        const auto s = series.summary();
        QVERIFY(s);
        QCOMPARE(s->scrapes, 4);
        QCOMPARE(s->failures, 2);
        QCOMPARE(s->problem, QStringLiteral("answered HTTP 500"));
        QCOMPARE(s->windowS, 2.0);
        QCOMPARE(s->ttft.count, 20.0); // from the scrape at 1 s: the warm-up's 10 slow ones excluded
        QVERIFY(*s->ttft.p99 <= 100.0);
        QCOMPARE(*s->runningMean, 5.0);
        QCOMPARE(*s->runningMax, 6.0);
        QVERIFY(std::abs(*s->kvCachePctPeak - 40.0) < 1e-9);
        QCOMPARE(*s->promptTokensPerS, 500.0);
        QCOMPARE(series.rows().size(), std::size_t(4));
        QCOMPARE(series.rows()[3].promptTokensPerS, 500.0);
        QVERIFY(std::abs(series.rows()[3].kvCachePct - 40.0) < 1e-9);

        QCOMPARE(series.warnings(),
                 QStringList{QStringLiteral(
                     "server metrics from http://127.0.0.1:1/metrics stopped after 3.0 s: no answer within 2000 ms (1 "
                     "failed scrapes to 3.5 s); the server figures cover the run up to 3.0 s")});

        // summary.json round trip.
        QString error;
        const auto back = ServerSummary::fromJson(s->toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->toJson(), s->toJson());
    }

    /// Regression: with several instances only the first one's /metrics was scraped. Each
    /// instance's series now keeps its own block, and the run's block combines them: gauges and
    /// rates summed, percentiles over the summed histograms.
    void everyInstanceHasItsBlockAndTheRunTheirSum()
    {
        ServerSeries series;
        const QString a = QStringLiteral("http://127.0.0.1:1/v1"), b = QStringLiteral("http://127.0.0.1:2/v1");
        const int first = series.addSource(QStringLiteral("http://127.0.0.1:1/metrics"), a);
        const int second = series.addSource(QStringLiteral("http://127.0.0.1:2/metrics"), b);
        series.add(first, point(0.0, 0, 0.1, 0, {0, 0, 0}), QStringLiteral("vllm"));
        series.add(second, point(0.1, 0, 0.2, 0, {0, 0, 0}), QStringLiteral("vllm"));
        series.markMeasurementStart(0.5);
        series.add(first, point(1.0, 3, 0.3, 300, {10, 10, 10}), QStringLiteral("vllm")); // all ≤ 100 ms
        series.add(second, point(1.1, 5, 0.6, 500, {0, 30, 30}), QStringLiteral("vllm")); // all > 100 ms
        const auto s = series.summary();
        QVERIFY(s);
        QCOMPARE(int(s->instances.size()), 2);
        QCOMPARE(s->instances[0].instance, a);
        QCOMPARE(s->instances[1].instance, b);
        QCOMPARE(s->instances[1].ttft.count, 30.0);
        QCOMPARE(s->url, QStringLiteral("http://127.0.0.1:1/metrics, http://127.0.0.1:2/metrics"));
        QCOMPARE(s->scrapes, 4);
        QCOMPARE(s->ttft.count, 40.0);
        QVERIFY(*s->ttft.p50 > 100.0); // 30 of the 40 were slower than 100 ms
        QCOMPARE(*s->promptTokensPerS, 300.0 + 500.0);
        QCOMPARE(*s->runningMax, 8.0); // both instances' latest at 1.1 s
        QCOMPARE(series.rows().back().running, 8.0);
        QVERIFY(std::abs(series.rows().back().kvCachePct - 60.0) < 1e-9);
        QString error;
        const auto back = ServerSummary::fromJson(s->toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->toJson(), s->toJson());
        QCOMPARE(back->instances[0].instance, a);

        // One instance's metrics never came: said, with the reason and when.
        ServerSeries silent;
        silent.add(silent.addSource(QStringLiteral("http://127.0.0.1:1/metrics"), a), point(0, 0, 0, 0, {0, 0, 0}),
                   QStringLiteral("vllm"));
        const int never = silent.addSource(QStringLiteral("http://127.0.0.1:2/metrics"), b);
        silent.addFailure(never, 0.0, QStringLiteral("no answer within 2000 ms"));
        silent.addFailure(never, 2.0, QStringLiteral("no answer within 2000 ms"));
        QCOMPARE(silent.warnings(), QStringList{QStringLiteral(
                                        "server metrics from http://127.0.0.1:2/metrics never came: no answer within "
                                        "2000 ms (2 failed scrapes, 0.0 s to 2.0 s)")});
    }

    void cacheHitsFromTheServersCounters_data()
    {
        QTest::addColumn<QString>("engine");
        QTest::addColumn<double>("promptTokens");   ///< the counter's increase over the window; < 0: none
        QTest::addColumn<double>("prefixHitRatio"); ///< < 0: none
        QTest::addColumn<qint64>("sent");
        QTest::addColumn<double>("responses"); ///< the responses' cached / prompt
        QTest::addColumn<double>("ratio");     ///< < 0: none
        QTest::addColumn<bool>("warned");
        // The replay: llama.cpp evaluated 1 of 522 prompt tokens, the responses said 0%.
        QTest::newRow("llama.cpp replay, responses silent")
            << "llamacpp" << 1.0 << -1.0 << qint64(522) << 0.0 << 1.0 - 1.0 / 522 << true;
        QTest::newRow("llama.cpp agrees with timings")
            << "llamacpp" << 1.0 << -1.0 << qint64(522) << 0.99 << 1.0 - 1.0 / 522 << false;
        QTest::newRow("llama.cpp, nothing cached") << "llamacpp" << 600.0 << -1.0 << qint64(600) << 0.0 << 0.0 << false;
        QTest::newRow("llama.cpp, another client's too")
            << "llamacpp" << 900.0 << -1.0 << qint64(600) << 0.0 << 0.0 << false;
        QTest::newRow("vLLM counts every prompt token: its prefix counters")
            << "vllm" << 600.0 << 0.5 << qint64(600) << 0.5 << 0.5 << false;
        QTest::newRow("vLLM's counters against silent responses")
            << "vllm" << 600.0 << 0.5 << qint64(600) << 0.0 << 0.5 << true;
        QTest::newRow("no counters") << "tgi" << 600.0 << -1.0 << qint64(600) << 0.0 << -1.0 << false;
    }

    /// Regression: a replay llama.cpp served from its cache (1 of 522 prompt tokens evaluated)
    /// showed "Cache hits 0%", though its counter said so. The server block now carries the
    /// counters' share with its source, and a strong disagreement with the responses is a warning.
    void cacheHitsFromTheServersCounters()
    {
        QFETCH(QString, engine);
        QFETCH(double, promptTokens);
        QFETCH(double, prefixHitRatio);
        QFETCH(qint64, sent);
        QFETCH(double, responses);
        QFETCH(double, ratio);
        QFETCH(bool, warned);
        ServerSummary s;
        s.engine = engine;
        if (promptTokens >= 0)
            s.promptTokens = promptTokens;
        if (prefixHitRatio >= 0)
            s.prefixHitRatio = prefixHitRatio;
        const QString warning = s.compareCacheHits(sent, responses);
        QCOMPARE(bool(s.cacheHitRatio), ratio >= 0);
        if (ratio >= 0) {
            QVERIFY2(std::abs(*s.cacheHitRatio - ratio) < 1e-9, qPrintable(QString::number(*s.cacheHitRatio)));
            QVERIFY(!s.cacheHitSource.isEmpty());
        }
        QVERIFY2(warning.isEmpty() != warned, qPrintable(warning));
        if (warned)
            QVERIFY2(warning.startsWith(QStringLiteral("cache hits: the server's counters say ")), qPrintable(warning));
        QString error;
        const auto back = ServerSummary::fromJson(s.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->toJson(), s.toJson());
    }

    /// server_metrics.csv read back: the instance column keeps each instance's scrapes apart, and a
    /// file from before it (four columns) still reads.
    void serverRowsKeepTheirInstance_data()
    {
        QTest::addColumn<QByteArray>("csv");
        QTest::addColumn<std::vector<double>>("running");
        QTest::newRow("two instances: their sum") << QByteArray("t_s,name,labels,value,instance\r\n"
                                                                "1.000,vllm:num_requests_running,{},3,http://a/v1\r\n"
                                                                "1.010,vllm:num_requests_running,{},5,http://b/v1\r\n")
                                                  << std::vector<double>{3, 8};
        QTest::newRow("before instances") << QByteArray("t_s,name,labels,value\r\n"
                                                        "1.000,vllm:num_requests_running,{},3\r\n"
                                                        "2.000,vllm:num_requests_running,{},5\r\n")
                                          << std::vector<double>{3, 5};
    }

    void serverRowsKeepTheirInstance()
    {
        QFETCH(QByteArray, csv);
        QFETCH(std::vector<double>, running);
        QString error;
        const auto rows = serverRowsFromCsv(csv, &error);
        QVERIFY2(rows, qPrintable(error));
        QCOMPARE(rows->size(), running.size());
        for (std::size_t i = 0; i < running.size(); ++i)
            QCOMPARE((*rows)[i].running, running[i]);
    }

private:
    static ServerPoint point(double t, double running, double kv, double prompt, std::vector<double> ttft)
    {
        ServerPoint p;
        p.tS = t;
        p.running = running;
        p.waiting = 0;
        p.kvCacheFraction = kv;
        p.promptTokens = prompt;
        p.ttft = histogram({0.1, 1.0}, std::move(ttft));
        return p;
    }
};

QTEST_GUILESS_MAIN(TestPrometheus)
#include "tst_prometheus.moc"
