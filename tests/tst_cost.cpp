// What a run cost (issue 16): prices per target in the configuration and the presets, the cost
// block of summary.json from a real run on the simulator, and the comparison's cheapest mark.
#include "analysis/comparison.h"
#include "analysis/htmlreport.h"
#include "config/pricepresets.h"
#include "results/rundirectory.h"
#include "run/benchmarkrunner.h"
#include "sim/simulatorhost.h"
#include "support/comparisonrows.h"
#include "support/testsimulator.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace tb;
using tb::sim::SimConfig;
using tb::sim::SimulatorHost;
using tb::test::findRow;

Q_DECLARE_METATYPE(std::optional<double>)

namespace {

constexpr int kRequests = 12;
constexpr int kOutputTokens = 21;

RunData runAt(const Pricing &prices, std::int64_t input, std::int64_t output, QString name)
{
    RunData run;
    run.name = std::move(name);
    run.summary.total.requests.ok = run.summary.total.requests.attempted = 10;
    run.summary.total.throughput.good = 10;
    run.summary.total.tokens.input = input;
    run.summary.total.tokens.output = output;
    run.summary.total.cost = CostSummary::of(prices, run.summary.total.tokens, 10, 10);
    return run;
}

} // namespace

class TestCost : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<RunOutcome>(); }

    void costOnTheSimulator_data()
    {
        QTest::addColumn<double>("input");
        QTest::addColumn<std::optional<double>>("cached");
        QTest::addColumn<double>("output");
        QTest::newRow("cached price") << 2.5 << std::optional<double>(1.25) << 10.0;
        QTest::newRow("cached at the input price") << 3.0 << std::optional<double>() << 15.0;
        QTest::newRow("output only") << 0.0 << std::optional<double>(0.0) << 0.6;
    }

    void costOnTheSimulator()
    {
        QFETCH(double, input);
        QFETCH(std::optional<double>, cached);
        QFETCH(double, output);
        SimConfig sc = *SimConfig::preset(QStringLiteral("fast"));
        sc.outputDist = sim::OutputDistribution::Fixed;
        sc.outputTokens = kOutputTokens;
        sc.outputMin = kOutputTokens;
        SimulatorHost host(sc);
        QVERIFY(host.start());
        QTemporaryDir dir;
        RunConfig c;
        c.target = tb::test::targetOf(host);
        c.target.pricing = {input, cached, output, QStringLiteral("test")};
        c.load.concurrency = 1; // one at a time: every request after the first finds the shared prefix cached
        c.load.requests = kRequests;
        c.request.maxTokens = 64;
        c.prompt.promptTokens = 300;
        c.prompt.sharedPrefixTokens = 200;
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
        QVERIFY2(t.tokens.cached > 0 && t.tokens.cached < t.tokens.input, qPrintable(QString::number(t.tokens.cached)));

        QVERIFY(t.cost);
        const double cachedPrice = cached.value_or(input);
        const double uncached = double(t.tokens.input - t.tokens.cached);
        QCOMPARE(t.cost->input, uncached * input / 1e6);
        QCOMPARE(t.cost->cachedInput, double(t.tokens.cached) * cachedPrice / 1e6);
        QCOMPARE(t.cost->output, double(kRequests * kOutputTokens) * output / 1e6);
        const double total = uncached * input / 1e6 + double(t.tokens.cached) * cachedPrice / 1e6 +
                             double(kRequests * kOutputTokens) * output / 1e6;
        QCOMPARE(t.cost->total, total);
        QCOMPARE(*t.cost->perRequest, total / kRequests);
        QCOMPARE(*t.cost->perGoodRequest, total / kRequests); // no SLO: every successful request is good
        QCOMPARE(*t.cost->perMOutputTokens, total / double(kRequests * kOutputTokens) * 1e6);
        QCOMPARE(outcome.summary.stages.at(0).cost->total, total);

        // summary.json carries the same figures, and reads back.
        QFile file(outcome.directory + QStringLiteral("/summary.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto json = nlohmann::json::parse(file.readAll().toStdString());
        QCOMPARE(json["cost"]["total"].get<double>(), total);
        QCOMPARE(json["cost"]["currency"].get<std::string>(), std::string("USD"));
        QCOMPARE(json["cost"]["prices_per_1m"]["source"].get<std::string>(), std::string("test"));
        QString why;
        const auto back = RunSummary::fromJson(json, &why);
        QVERIFY2(back, qPrintable(why));
        QCOMPARE(back->total.cost->perMOutputTokens, t.cost->perMOutputTokens);
        QCOMPARE(back->total.cost->prices, c.target.pricing);
    }

    void noPricesNoCost()
    {
        TokenSummary tokens;
        tokens.input = 100;
        tokens.output = 50;
        QVERIFY(!CostSummary::of(Pricing{}, tokens, 1, 1));
        const ComparisonTable table({runAt(Pricing{}, 100, 50, QStringLiteral("a"))});
        QVERIFY(!findRow(table, QStringLiteral("cost_per_request")));
    }

    void comparisonMarksTheCheapest()
    {
        // b asks more per token but its answers are shorter per request: cheaper per request, dearer
        // per output token. Each row marks its own cheapest.
        const Pricing cheap{1.0, std::nullopt, 4.0, {}};
        const Pricing dear{2.0, std::nullopt, 8.0, {}};
        const ComparisonTable table(
            {runAt(cheap, 1000, 2000, QStringLiteral("a")), runAt(dear, 1000, 500, QStringLiteral("b"))});
        const auto *perToken = findRow(table, QStringLiteral("cost_per_1m_output_tokens"));
        const auto *perRequest = findRow(table, QStringLiteral("cost_per_request"));
        QVERIFY(perToken && perRequest);
        // a: 1000·1 + 2000·4 = 9000 µUSD; b: 1000·2 + 500·8 = 6000 µUSD.
        QCOMPARE(*perRequest->values[0], 9000e-6 / 10);
        QCOMPARE(*perRequest->values[1], 6000e-6 / 10);
        QCOMPARE(perRequest->best, (std::vector<bool>{false, true}));
        QCOMPARE(*perToken->values[0], 9000e-6 / 2000 * 1e6);
        QCOMPARE(*perToken->values[1], 6000e-6 / 500 * 1e6);
        QCOMPARE(perToken->best, (std::vector<bool>{true, false}));
        QVERIFY(table.toText().contains(QStringLiteral("Cost/1M output tokens")));
    }

    // The report shows the cost rows with the cheapest run starred in each, as the comparison does.
    void reportMarksTheCheapest_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<int>("cheapest");
        QTest::newRow("per request") << QStringLiteral("cost_per_request") << 1;
        QTest::newRow("per 1M output tokens") << QStringLiteral("cost_per_1m_output_tokens") << 0;
    }

    void reportMarksTheCheapest()
    {
        QFETCH(QString, key);
        QFETCH(int, cheapest);
        const Pricing cheap{1.0, std::nullopt, 4.0, {}};
        const Pricing dear{2.0, std::nullopt, 8.0, {}};
        const std::vector<RunData> runs{runAt(cheap, 1000, 2000, QStringLiteral("a")),
                                        runAt(dear, 1000, 500, QStringLiteral("b"))};
        const HtmlReport report(runs, {}); // (it keeps a reference to the runs)
        const QString html = report.toHtml();
        const qsizetype at = html.indexOf(QStringLiteral("<tr data-key=\"%1\">").arg(key));
        QVERIFY2(at >= 0, qPrintable(key));
        const QString tableRow = html.mid(at, html.indexOf(QStringLiteral("</tr>"), at) - at);
        const QStringList cells = tableRow.split(QStringLiteral("<td class=\"num"));
        QCOMPARE(cells.size(), 3); // label and unit, then a and b
        const auto *r = findRow(report.table(), key);
        QVERIFY(r);
        for (int i = 0; i < 2; ++i) {
            QVERIFY2(cells[i + 1].contains(ComparisonTable::formatValue(*r->values[std::size_t(i)])),
                     qPrintable(cells[i + 1]));
            QCOMPARE(cells[i + 1].contains(QStringLiteral("★")), i == cheapest);
        }
    }

    void pricingInTheConfiguration_data()
    {
        QTest::addColumn<QByteArray>("pricing");
        QTest::addColumn<QString>("problem"); ///< empty: valid
        QTest::newRow("all")
            << QByteArray(R"({"input_per_1m": 2.5, "cached_input_per_1m": 1.25, "output_per_1m": 10, "source": "x"})")
            << QString();
        QTest::newRow("output only") << QByteArray(R"({"output_per_1m": 0.6})") << QString();
        QTest::newRow("negative") << QByteArray(R"({"input_per_1m": -1})")
                                  << QStringLiteral("target.pricing.input_per_1m (--price-input)");
        QTest::newRow("absurd") << QByteArray(R"({"output_per_1m": 1e9})")
                                << QStringLiteral("target.pricing.output_per_1m (--price-output)");
        QTest::newRow("typo") << QByteArray(R"({"inptu_per_1m": 1})")
                              << QStringLiteral("target.pricing.inptu_per_1m: unknown key");
        QTest::newRow("text") << QByteArray(R"({"input_per_1m": "2.5"})")
                              << QStringLiteral("target.pricing.input_per_1m: must be a finite number");
    }

    void pricingInTheConfiguration()
    {
        QFETCH(QByteArray, pricing);
        QFETCH(QString, problem);
        const QByteArray text =
            R"({"target": {"url": "http://127.0.0.1:1/v1", "model": "m", "pricing": )" + pricing + "}}";
        QString error;
        const auto config = runConfigFromJson(nlohmann::json::parse(text.toStdString()), &error);
        QStringList problems = config ? validate(*config) : QStringList{error};
        if (problem.isEmpty()) {
            QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
            QVERIFY(config->target.pricing.isSet());
            // What is saved reads back the same.
            const auto again = runConfigFromJson(toJson(*config), &error);
            QVERIFY2(again, qPrintable(error));
            QCOMPARE(again->target.pricing, config->target.pricing);
        } else {
            QVERIFY2(problems.size() == 1 && problems.first().startsWith(problem),
                     qPrintable(problems.join(QLatin1Char('\n'))));
        }
    }

    void presetsAreCompiledIn()
    {
        QVERIFY(pricePresets().size() >= 3);
        for (const PricePreset &p : pricePresets()) {
            QVERIFY2(QDate::fromString(p.asOf, Qt::ISODate).isValid(), qPrintable(p.name));
            QVERIFY2(p.pricing.inputPerM && p.pricing.outputPerM, qPrintable(p.name));
            QVERIFY(p.pricing.source.contains(p.asOf));
        }
        const auto preset = findPricePreset(QStringLiteral("GPT-4O"));
        QVERIFY(preset);
        QCOMPARE(preset->pricing.outputPerM, std::optional<double>(10.0));
        QVERIFY(!findPricePreset(QStringLiteral("no-such-model")));
    }
};

QTEST_GUILESS_MAIN(TestCost)
#include "tst_cost.moc"
