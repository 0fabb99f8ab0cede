// The over-saturation test (docs/metrics.md "Over-saturation") on synthetic per-second series:
// queueing that grows in both in flight and TTFT stops a run; noise, a level run, one series
// growing alone or too few seconds do not.
#include "metrics/saturationdetector.h"

#include <QTest>

#include <random>

using namespace tb;

namespace {

/// `seconds` rows: in flight from `inFlight0` growing by `inFlightPerS`, TTFT p50 from 300 ms
/// growing by `ttftPerS` ms, ±10% noise on both (fixed seed); every `ttftEvery`-th second has a TTFT.
std::vector<TimeSeriesRow> rowsOf(int seconds, double inFlight0, double inFlightPerS, double ttftPerS,
                                  int ttftEvery = 1)
{
    std::mt19937 random(29);
    std::uniform_real_distribution<double> noise(0.9, 1.1);
    std::vector<TimeSeriesRow> rows;
    for (int s = 0; s < seconds; ++s) {
        TimeSeriesRow row;
        row.second = s;
        row.inFlight = int(std::lround((inFlight0 + inFlightPerS * s) * noise(random)));
        row.ttftP50Ms = s % ttftEvery == 0 ? (300 + ttftPerS * s) * noise(random) : TimeSeriesRow::kNone;
        rows.push_back(row);
    }
    return rows;
}

} // namespace

class TestSaturationDetector : public QObject
{
    Q_OBJECT

private slots:
    void judgesTheTrend_data()
    {
        QTest::addColumn<int>("seconds");
        QTest::addColumn<double>("inFlight0");
        QTest::addColumn<double>("inFlightPerS");
        QTest::addColumn<double>("ttftPerS");
        QTest::addColumn<int>("ttftEvery");
        QTest::addColumn<QString>("verdict"); ///< its start; empty: not saturated

        // 30 → 100 over the last 15 s (rows 8–22), TTFT +200 ms a second: +3 s.
        QTest::newRow("queue grows") << 23 << 6.0 << 4.0 << 200.0 << 1
                                     << QStringLiteral("over-saturated at 23 s: in flight rose ");
        QTest::newRow("level") << 30 << 40.0 << 0.0 << 0.0 << 1 << QString();
        QTest::newRow("in flight alone") << 30 << 10.0 << 4.0 << 0.0 << 1 << QString();
        QTest::newRow("TTFT alone") << 30 << 40.0 << 0.0 << 200.0 << 1 << QString();
        // A slow rise (in flight 6 a second on ≈500, TTFT 8 ms a second on ≈500 ms) is significant
        // (t ≈ 4 and 5) but projects under 50% of the level in 15 s.
        QTest::newRow("slow rise") << 30 << 400.0 << 6.0 << 8.0 << 1 << QString();
        QTest::newRow("too short") << 14 << 6.0 << 8.0 << 400.0 << 1 << QString();
        QTest::newRow("too few TTFTs") << 30 << 6.0 << 4.0 << 200.0 << 3 << QString();
    }

    void judgesTheTrend()
    {
        QFETCH(int, seconds);
        QFETCH(double, inFlight0);
        QFETCH(double, inFlightPerS);
        QFETCH(double, ttftPerS);
        QFETCH(int, ttftEvery);
        QFETCH(QString, verdict);
        const QString reason = SaturationDetector::check(rowsOf(seconds, inFlight0, inFlightPerS, ttftPerS, ttftEvery));
        QVERIFY2(verdict.isEmpty() ? reason.isEmpty() : reason.startsWith(verdict), qPrintable(reason));
        if (!verdict.isEmpty())
            QVERIFY2(reason.contains(QStringLiteral(" in 15 s, TTFT p50 +")), qPrintable(reason));
    }

    void methodNamesItsParameters()
    {
        const QString method = SaturationDetector::method();
        QVERIFY2(method.contains(QStringLiteral("last 15 s")) && method.contains(QStringLiteral("t > 3")) &&
                     method.contains(QStringLiteral("50%")),
                 qPrintable(method));
    }
};

QTEST_GUILESS_MAIN(TestSaturationDetector)
#include "tst_saturationdetector.moc"
