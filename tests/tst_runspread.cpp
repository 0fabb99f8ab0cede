// The statistics of repeated runs (`run --repeat`): Student's t quantiles, the mean's confidence
// interval, Welch's test, and the headline metrics read from summaries. Expected values are
// published t tables (3 decimals) and sums done by hand, stated beside each row.
#include "analysis/runspread.h"
#include "metrics/loghistogram.h"

#include <QTest>

#include <cmath>

using namespace tb;

class TestRunSpread : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void tQuantile_data()
    {
        QTest::addColumn<double>("q");
        QTest::addColumn<double>("df");
        QTest::addColumn<double>("expected");
        // Two-sided 95% critical values of the usual t table.
        QTest::newRow("df 1") << 0.975 << 1.0 << 12.706;
        QTest::newRow("df 2") << 0.975 << 2.0 << 4.303;
        QTest::newRow("df 4") << 0.975 << 4.0 << 2.776;
        QTest::newRow("df 8") << 0.975 << 8.0 << 2.306;
        QTest::newRow("df 30") << 0.975 << 30.0 << 2.042;
        QTest::newRow("df 100") << 0.975 << 100.0 << 1.984;
        // One-sided 95% of df 10, and the lower tail (the distribution is symmetric).
        QTest::newRow("q 0.95 df 10") << 0.95 << 10.0 << 1.812;
        QTest::newRow("q 0.025 df 4") << 0.025 << 4.0 << -2.776;
        QTest::newRow("median") << 0.5 << 7.0 << 0.0;
    }
    void tQuantile()
    {
        QFETCH(double, q);
        QFETCH(double, df);
        QFETCH(double, expected);
        const double t = studentTQuantile(q, df);
        QVERIFY2(std::fabs(t - expected) < 0.0005, qPrintable(QString::number(t, 'f', 6)));
    }

    void tQuantileRefusesNonsense()
    {
        QVERIFY(std::isnan(studentTQuantile(1.0, 4)));
        QVERIFY(std::isnan(studentTQuantile(0.975, 0)));
    }

    void spread_data()
    {
        QTest::addColumn<std::vector<double>>("values");
        QTest::addColumn<int>("n");
        QTest::addColumn<double>("mean");
        QTest::addColumn<double>("sd");
        QTest::addColumn<double>("halfWidth");
        QTest::addColumn<double>("cv");
        // Squares about 11: 1+1+0+4+4 = 10, sd = √(10/4) = 1.5811; half-width 2.776·1.5811/√5 = 1.9632.
        QTest::newRow("five runs") << std::vector<double>{10, 12, 11, 13, 9} << 5 << 11.0 << 1.5811388 << 1.9632
                                   << 1.5811388 / 11;
        // sd = √((1+1)/1) = 1.4142; half-width 12.706·1.4142/√2 = 12.706.
        QTest::newRow("two runs") << std::vector<double>{1, 3} << 2 << 2.0 << 1.4142136 << 12.706 << 1.4142136 / 2;
        // A NaN (a run without the figure) is left out: the first row's values again.
        QTest::newRow("not measured left out")
            << std::vector<double>{10, 12, NAN, 11, 13, 9} << 5 << 11.0 << 1.5811388 << 1.9632 << 1.5811388 / 11;
        // No spread: a zero-width interval.
        QTest::newRow("identical") << std::vector<double>{4, 4, 4} << 3 << 4.0 << 0.0 << 0.0 << 0.0;
    }
    void spread()
    {
        QFETCH(std::vector<double>, values);
        QFETCH(int, n);
        QFETCH(double, mean);
        QFETCH(double, sd);
        QFETCH(double, halfWidth);
        QFETCH(double, cv);
        const auto s = SpreadStats::of(values);
        QVERIFY(s);
        QCOMPARE(s->n, n);
        QVERIFY(std::fabs(s->mean - mean) < 1e-9);
        QVERIFY2(std::fabs(s->sd - sd) < 1e-6, qPrintable(QString::number(s->sd)));
        QVERIFY2(std::fabs(s->halfWidth - halfWidth) < 0.0005, qPrintable(QString::number(s->halfWidth)));
        QVERIFY(std::fabs(s->low() - (mean - s->halfWidth)) < 1e-12);
        QVERIFY(s->cv);
        QVERIFY(std::fabs(*s->cv - cv) < 1e-6);
    }

    void spreadNeedsTwo()
    {
        QVERIFY(!SpreadStats::of({}));
        QVERIFY(!SpreadStats::of({5}));
        QVERIFY(!SpreadStats::of({5, NAN}));
        const auto zero = SpreadStats::of({-1, 1});
        QVERIFY(zero && !zero->cv); // CV of a zero mean is no number
    }

    void welch_data()
    {
        QTest::addColumn<std::vector<double>>("a");
        QTest::addColumn<std::vector<double>>("b");
        QTest::addColumn<double>("diff");
        QTest::addColumn<double>("se");
        QTest::addColumn<double>("df");
        QTest::addColumn<double>("resolution");
        QTest::addColumn<bool>("significant");
        // Both sd 1.5811: se = √(0.5 + 0.5) = 1, df = 1 / (0.25/4 + 0.25/4) = 8; t = 3 > 2.306.
        QTest::newRow("clear shift") << std::vector<double>{10, 12, 11, 13, 9}
                                     << std::vector<double>{14, 15, 13, 16, 12} << 3.0 << 1.0 << 8.0 << 0.0 << true;
        // The same spread, shifted by 1: t = 1 < 2.306.
        QTest::newRow("within noise") << std::vector<double>{10, 12, 11, 13, 9}
                                      << std::vector<double>{11, 13, 12, 14, 10} << 1.0 << 1.0 << 8.0 << 0.0 << false;
        // Unequal spreads: va = 1/3, vb = (20/3)/4 = 5/3, se = √2, df = 4 / ((1/9)/2 + (25/9)/3) = 4.0755;
        // t = 3/√2 = 2.121 < t(0.975, 4.08) ≈ 2.77.
        QTest::newRow("unequal variances") << std::vector<double>{1, 2, 3} << std::vector<double>{2, 4, 6, 8} << 3.0
                                           << std::sqrt(2.0) << 4.0754717 << 0.0 << false;
        // No spread on either side: different means are a difference.
        QTest::newRow("exact, different")
            << std::vector<double>{4, 4} << std::vector<double>{5, 5} << 1.0 << 0.0 << 0.0 << 0.0 << true;
        QTest::newRow("exact, equal") << std::vector<double>{4, 4} << std::vector<double>{4, 4} << 0.0 << 0.0 << 0.0
                                      << 0.0 << false;
        // Percentiles: a set whose runs all land in one histogram bucket against a set in the next
        // bucket (61.25 vs 60.64 ms, what tst_repeat's one configuration printed) is within the
        // buckets' error; two buckets apart is beyond it.
        const double r = LogHistogram::kRepresentativeError;
        const double gamma = (1 + LogHistogram::kRelativeError) / (1 - LogHistogram::kRelativeError);
        QTest::newRow("percentile, adjacent buckets")
            << std::vector<double>{61.25, 61.25, 61.25} << std::vector<double>{61.25 * gamma, 61.25 * gamma}
            << 61.25 * (gamma - 1) << 0.0 << 0.0 << r << false;
        QTest::newRow("percentile, two buckets apart")
            << std::vector<double>{61.25, 61.25, 61.25}
            << std::vector<double>{61.25 * gamma * gamma, 61.25 * gamma * gamma} << 61.25 * (gamma * gamma - 1) << 0.0
            << 0.0 << r << true;
        // With spread, the bucket error widens the t interval: t·se = 2.776 · 0.408 = 1.133 alone
        // would exclude 0 from 2 ± 1.133; with 0.005025 · (100.5 + 102.5) = 1.020 more it does not.
        QTest::newRow("percentile, spread and bucket error")
            << std::vector<double>{100, 100.5, 101} << std::vector<double>{102, 102.5, 103} << 2.0 << std::sqrt(1.0 / 6)
            << 4.0 << r << false;
        QTest::newRow("exact, spread") << std::vector<double>{100, 100.5, 101} << std::vector<double>{102, 102.5, 103}
                                       << 2.0 << std::sqrt(1.0 / 6) << 4.0 << 0.0 << true;
    }
    void welch()
    {
        QFETCH(std::vector<double>, a);
        QFETCH(std::vector<double>, b);
        QFETCH(double, diff);
        QFETCH(double, se);
        QFETCH(double, df);
        QFETCH(double, resolution);
        QFETCH(bool, significant);
        const auto w = WelchTest::of(*SpreadStats::of(a), *SpreadStats::of(b), resolution);
        QVERIFY(w);
        QVERIFY(std::fabs(w->diff - diff) < 1e-9);
        QVERIFY(std::fabs(w->se - se) < 1e-6);
        QVERIFY2(std::fabs(w->df - df) < 1e-6, qPrintable(QString::number(w->df)));
        QCOMPARE(w->significant, significant);
    }

    void headlineMetricsFromSummaries()
    {
        // Requests/s {10, 12, 11, 13, 9}: 11 ± 1.963; TTFT p50 only in the first three runs
        // {20, 22, 24}: 22 ± 4.303·2/√3 = 4.968.
        std::vector<RunSummary> runs(5);
        const double rates[] = {10, 12, 11, 13, 9};
        for (int i = 0; i < 5; ++i) {
            runs[std::size_t(i)].total.throughput.requestsPerS = rates[i];
            if (i < 3) {
                LatencyStats &ttft = runs[std::size_t(i)].total.stats[std::size_t(Metric::Ttft)];
                ttft.count = 10;
                ttft.p50 = 20 + 2 * i;
            }
        }
        const RunSpread spread(runs);
        QCOMPARE(spread.runs(), 5);
        QStringList keys;
        for (const RunSpread::Row &row : spread.rows())
            keys << row.key;
        QCOMPARE(keys, RunSpread::headlineKeys());
        const auto row = [&spread](const char *key) {
            for (const RunSpread::Row &r : spread.rows()) {
                if (r.key == QLatin1String(key))
                    return r;
            }
            return RunSpread::Row{};
        };
        const RunSpread::Row rate = row("requests_per_s");
        QCOMPARE(rate.values.size(), std::size_t(5));
        QVERIFY(rate.stats && std::fabs(rate.stats->halfWidth - 1.9632) < 0.0005);
        const RunSpread::Row ttft = row("ttft_p50");
        QVERIFY(!ttft.values[3] && ttft.values[2] == 24.0);
        QVERIFY(ttft.stats && ttft.stats->n == 3 && ttft.stats->mean == 22.0);
        QVERIFY2(std::fabs(ttft.stats->halfWidth - 4.968) < 0.0005, qPrintable(QString::number(ttft.stats->halfWidth)));
        QVERIFY(!row("itl_p99").stats); // measured by no run

        const nlohmann::json json = spread.toJson();
        QCOMPARE(json["ttft_p50"]["n"].get<int>(), 3);
        QVERIFY(json["ttft_p50"]["values"][4].is_null());
        QVERIFY(std::fabs(json["requests_per_s"]["ci95_low"].get<double>() - (11 - 1.9632)) < 0.0005);
        QVERIFY(json["itl_p99"]["mean"].is_null());
        QVERIFY(spread.toText().contains(QStringLiteral("11.00 ± 1.963")));
    }

    /// tst_repeat's one configuration split in two sets read "TTFT p50 better": each set's three
    /// runs had their p50 in one histogram bucket (61.25 ± 0 against 60.64 ± 0 ms), and two sets
    /// without spread differed "exactly". A percentile is only known to its bucket; the rates are exact.
    void runsOneHistogramBucketApartShowNoDifference()
    {
        const double gamma = (1 + LogHistogram::kRelativeError) / (1 - LogHistogram::kRelativeError);
        std::vector<RunSummary> a(3);
        std::vector<RunSummary> b(3);
        for (std::size_t i = 0; i < 3; ++i) {
            for (auto *runs : {&a, &b}) {
                const double scale = runs == &b ? gamma : 1;
                (*runs)[i].total.throughput.requestsPerS = 25 * scale;
                LatencyStats &ttft = (*runs)[i].total.stats[std::size_t(Metric::Ttft)];
                ttft.count = 100;
                ttft.p50 = 60.64 * scale;
            }
        }
        const RunSpread sa(a);
        const RunSpread sb(b);
        const RepeatComparison comparison(sa, sb, {QStringLiteral("odd"), QStringLiteral("even")});
        QCOMPARE(comparison.find(QStringLiteral("ttft_p50"))->verdict, RepeatComparison::Verdict::NoDifference);
        QCOMPARE(comparison.find(QStringLiteral("requests_per_s"))->verdict, RepeatComparison::Verdict::Better);
        QVERIFY(comparison.toText().contains(QStringLiteral("0.5% bucket error")));
    }

    void verdictFollowsDirection()
    {
        // TTFT higher in b (lower is better): worse; requests/s higher in b: better.
        std::vector<RunSummary> a(5);
        std::vector<RunSummary> b(5);
        const double base[] = {10, 12, 11, 13, 9};
        for (std::size_t i = 0; i < 5; ++i) {
            for (auto *runs : {&a, &b}) {
                const double shift = runs == &b ? 3 : 0;
                (*runs)[i].total.throughput.requestsPerS = base[i] + shift;
                LatencyStats &ttft = (*runs)[i].total.stats[std::size_t(Metric::Ttft)];
                ttft.count = 1;
                ttft.p50 = base[i] + shift;
            }
        }
        const RunSpread sa(a);
        const RunSpread sb(b);
        const RepeatComparison comparison(sa, sb, {QStringLiteral("a"), QStringLiteral("b")});
        QCOMPARE(comparison.find(QStringLiteral("ttft_p50"))->verdict, RepeatComparison::Verdict::Worse);
        QCOMPARE(comparison.find(QStringLiteral("requests_per_s"))->verdict, RepeatComparison::Verdict::Better);
        QCOMPARE(comparison.find(QStringLiteral("itl_p50"))->verdict, RepeatComparison::Verdict::NotTested);
        const RepeatComparison same(sa, sa, {QStringLiteral("a"), QStringLiteral("a")});
        QCOMPARE(same.find(QStringLiteral("ttft_p50"))->verdict, RepeatComparison::Verdict::NoDifference);
    }
};

QTEST_GUILESS_MAIN(TestRunSpread)
#include "tst_runspread.moc"
