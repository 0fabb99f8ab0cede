// The power-law fit y = a·x^b + c (context sweeps): recovers known curves, bounded by noise, and
// refuses what cannot determine one.
#include "metrics/contextsweep.h"
#include "metrics/powerlawfit.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <random>

using namespace tb;

namespace {

using Values = std::vector<double>;

/// The context sweep's shape: geometric prompt sizes 256 … 16384.
Values promptSizes(int perSize)
{
    Values x;
    for (int i = 0; i < 6; ++i)
        for (int k = 0; k < perSize; ++k)
            x.push_back(256 * std::pow(2.0, i * 6.0 / 5.0));
    return x;
}

} // namespace

class TestPowerLawFit : public QObject
{
    Q_OBJECT

private slots:
    void recoversExactCurves_data();
    void recoversExactCurves();
    void noisyDataStaysClose_data();
    void noisyDataStaysClose();
    void negativeInterceptIsHeldAtZero_data();
    void negativeInterceptIsHeldAtZero();
    void degenerateInputHasNoFit_data();
    void degenerateInputHasNoFit();
    void summaryBlockRoundTrips();
};

void TestPowerLawFit::recoversExactCurves_data()
{
    QTest::addColumn<double>("a");
    QTest::addColumn<double>("b");
    QTest::addColumn<double>("c");
    QTest::newRow("linear prefill") << 0.02 << 1.0 << 150.0;
    QTest::newRow("super-linear") << 0.0005 << 1.6 << 40.0;
    QTest::newRow("quadratic, no offset") << 1e-6 << 2.0 << 0.0;
    QTest::newRow("sub-linear") << 3.0 << 0.5 << 10.0;
}

void TestPowerLawFit::recoversExactCurves()
{
    QFETCH(double, a);
    QFETCH(double, b);
    QFETCH(double, c);
    const Values x = promptSizes(1);
    Values y;
    for (double v : x)
        y.push_back(a * std::pow(v, b) + c);
    const PowerLawFit fit = fitPowerLaw(x, y);
    QVERIFY2(fit.ok, qPrintable(fit.reason));
    QCOMPARE(fit.points, 6);
    QVERIFY2(std::abs(fit.b - b) < 1e-4, qPrintable(QString::number(fit.b)));
    QVERIFY2(std::abs(fit.a - a) / a < 1e-3, qPrintable(QString::number(fit.a)));
    // c against the curve's span, as c = 0 has no relative error.
    const double span = y.back() - y.front();
    QVERIFY2(std::abs(fit.c - c) < 1e-4 * span, qPrintable(QString::number(fit.c)));
    QVERIFY(fit.r2 > 0.999999);
    QVERIFY(std::abs(fit.at(4096) - (a * std::pow(4096, b) + c)) < 1e-4 * span);
    QVERIFY(std::abs(fit.slopeAt(4096) - a * b * std::pow(4096, b - 1)) < 1e-3 * a * b * std::pow(4096, b - 1));
}

void TestPowerLawFit::noisyDataStaysClose_data()
{
    QTest::addColumn<double>("noise"); // relative sd of each TTFT
    QTest::addColumn<double>("bTolerance");
    QTest::addColumn<double>("minR2");
    QTest::newRow("1%") << 0.01 << 0.03 << 0.99;
    QTest::newRow("5%") << 0.05 << 0.12 << 0.9;
}

void TestPowerLawFit::noisyDataStaysClose()
{
    QFETCH(double, noise);
    QFETCH(double, bTolerance);
    QFETCH(double, minR2);
    constexpr double a = 0.0008, b = 1.5, c = 100;
    const Values x = promptSizes(40);
    std::mt19937_64 rng(7);
    std::normal_distribution<double> jitter(1, noise);
    Values y;
    for (double v : x)
        y.push_back((a * std::pow(v, b) + c) * jitter(rng));
    const PowerLawFit fit = fitPowerLaw(x, y);
    QVERIFY2(fit.ok, qPrintable(fit.reason));
    QVERIFY2(std::abs(fit.b - b) < bTolerance, qPrintable(QString::number(fit.b)));
    QVERIFY2(fit.r2 > minR2, qPrintable(QString::number(fit.r2)));
    // The curve passes near the truth where the data are.
    for (double at : {256.0, 2048.0, 16384.0}) {
        const double truth = a * std::pow(at, b) + c;
        QVERIFY2(std::abs(fit.at(at) - truth) < 3 * noise * truth + 5,
                 qPrintable(QStringLiteral("at %1: %2 vs %3").arg(at).arg(fit.at(at)).arg(truth)));
    }
}

void TestPowerLawFit::negativeInterceptIsHeldAtZero_data()
{
    QTest::addColumn<double>("a");
    QTest::addColumn<double>("b");
    QTest::addColumn<double>("c");
    QTest::addColumn<double>("smallest"); ///< prompt tokens of the first stage
    // The sweep's printed fit: at 256 tokens its TTFT is 48 ms, and below about 140 tokens under 0.
    QTest::newRow("TTFT = 0.813·x^1.083 − 281.5 ms") << 0.813 << 1.083 << -281.5 << 512.0;
    QTest::newRow("a few ms below zero") << 0.01 << 1.2 << -5.0 << 256.0;
}

/// Regression: a context sweep printed "TTFT = 0.813·x^1.083 − 281.5 ms" without comment, a TTFT
/// below zero for small prompts. The fit now holds c at 0 when the free fit's is below zero, and
/// its text says so with the refused value.
void TestPowerLawFit::negativeInterceptIsHeldAtZero()
{
    QFETCH(double, a);
    QFETCH(double, b);
    QFETCH(double, c);
    QFETCH(double, smallest);
    Values x, y;
    for (double v = smallest; v <= 16384; v *= 2) {
        x.push_back(v);
        y.push_back(a * std::pow(v, b) + c);
    }
    const PowerLawFit fit = fitPowerLaw(x, y);
    QVERIFY2(fit.ok, qPrintable(fit.reason));
    QVERIFY(fit.interceptHeld);
    QCOMPARE(fit.c, 0.0);
    QVERIFY2(std::abs(fit.freeC - c) < 1e-3 * std::abs(c), qPrintable(QString::number(fit.freeC)));
    QVERIFY(fit.a > 0);
    for (double v : {1.0, 16.0, smallest})
        QVERIFY2(fit.at(v) >= 0, qPrintable(QStringLiteral("at %1: %2").arg(v).arg(fit.at(v))));
    QVERIFY2(fit.r2 > 0.99, qPrintable(QString::number(fit.r2))); // still close where the data are

    ContextSweepSummary sweep;
    sweep.fit = fit;
    const QString text = sweep.fitText();
    QVERIFY2(text.contains(QStringLiteral("+ 0.0 ms (intercept held at 0), R² ")), qPrintable(text));
    QVERIFY2(text.endsWith(QStringLiteral("; a free fit gave −%1 ms, a TTFT below zero for small prompts")
                               .arg(std::abs(c), 0, 'f', 1)),
             qPrintable(text));
    QString error;
    const auto back = ContextSweepSummary::fromJson(sweep.toJson(), &error);
    QVERIFY2(back, qPrintable(error));
    QVERIFY(back->fit.interceptHeld);
    QCOMPARE(back->fit.freeC, fit.freeC);
    QCOMPARE(back->fitText(), text);
}

void TestPowerLawFit::degenerateInputHasNoFit_data()
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QTest::addColumn<Values>("x");
    QTest::addColumn<Values>("y");
    QTest::addColumn<QString>("reason");
    QTest::newRow("empty") << Values{} << Values{} << QStringLiteral("0 distinct prompt sizes");
    QTest::newRow("two distinct x") << Values{256, 256, 1024, 1024} << Values{10, 11, 20, 21}
                                    << QStringLiteral("2 distinct prompt sizes");
    QTest::newRow("zero x") << Values{0, 256, 1024} << Values{1, 2, 3} << QStringLiteral("above 0");
    QTest::newRow("negative x") << Values{-1, 256, 1024} << Values{1, 2, 3} << QStringLiteral("above 0");
    QTest::newRow("NaN y") << Values{128, 256, 1024} << Values{1, nan, 3} << QStringLiteral("finite");
    QTest::newRow("infinite x") << Values{128, std::numeric_limits<double>::infinity(), 1024} << Values{1, 2, 3}
                                << QStringLiteral("finite");
    QTest::newRow("all y equal") << Values{256, 1024, 4096} << Values{50, 50, 50} << QStringLiteral("same");
    QTest::newRow("unequal lengths") << Values{256, 1024, 4096} << Values{50, 60} << QStringLiteral("as many");
}

void TestPowerLawFit::degenerateInputHasNoFit()
{
    QFETCH(Values, x);
    QFETCH(Values, y);
    QFETCH(QString, reason);
    const PowerLawFit fit = fitPowerLaw(x, y);
    QVERIFY(!fit.ok);
    QVERIFY2(fit.reason.contains(reason), qPrintable(fit.reason));
}

void TestPowerLawFit::summaryBlockRoundTrips()
{
    ContextSweepSummary s;
    s.stages.push_back({0, QStringLiteral("p=256"), 10, 256, 160, 1600, 50000});
    s.stages.push_back({1, QStringLiteral("p=1024"), 10, 1024, 180, 5688.9, std::nullopt});
    s.points = {{256, 160}, {1024, 180}, {4096, 400}};
    s.fit = fitPowerLaw({256, 1024, 4096}, {160, 180, 400});
    QVERIFY(s.fit.ok);
    QString error;
    const auto back = ContextSweepSummary::fromJson(s.toJson(), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->stages.size(), std::size_t(2));
    QCOMPARE(back->stages[1].name, QStringLiteral("p=1024"));
    QCOMPARE(back->stages[0].fitPrefillTokensPerS, std::optional<double>(50000));
    QCOMPARE(back->stages[1].fitPrefillTokensPerS, std::nullopt);
    QCOMPARE(back->points.size(), std::size_t(3));
    QCOMPARE(back->fit.b, s.fit.b);
    QCOMPARE(back->fit.r2, s.fit.r2);

    ContextSweepSummary none;
    none.fit = fitPowerLaw({256, 256}, {1, 2});
    const auto noFit = ContextSweepSummary::fromJson(none.toJson(), &error);
    QVERIFY(noFit && !noFit->fit.ok);
    QCOMPARE(noFit->fit.reason, none.fit.reason);
    QVERIFY(!ContextSweepSummary::fromJson(nlohmann::json{{"fit", {{"a", "x"}}}, {"stages", nlohmann::json::array()}},
                                           &error));
    QVERIFY2(error.startsWith(QStringLiteral("fit:")), qPrintable(error));
}

QTEST_GUILESS_MAIN(TestPowerLawFit)
#include "tst_powerlawfit.moc"
