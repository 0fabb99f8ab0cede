// The steady-state window (docs/metrics.md "Steady state") on synthetic per-second series: a level
// run is steady throughout, a start burst and a drain are cut off, a ramp is never steady.
#include "metrics/steadywindow.h"

#include <QTest>

#include <cmath>
#include <random>

using namespace tb;

namespace {

enum class Shape {
    Flat,        ///< 20 in flight, 10 completions/s, TTFT 200 ms throughout
    StartBurst,  ///< closed loop: TTFT 5× for the first 13 s (everyone's prefill at once)
    ColdStart,   ///< completions at half the rate and TTFT 3× for the first 14 s, easing
    Drain,       ///< the last 8 s empty: in flight falls to 0
    LatencyRamp, ///< TTFT 100 → 1000 ms across the run (queueing without bound)
    InFlightRamp ///< in flight 2 → 80 across the run
};

/// `seconds` rows of `shape`, with Poisson completions and ±5% TTFT noise (fixed seed).
std::vector<TimeSeriesRow> rowsOf(Shape shape, int seconds)
{
    std::mt19937 random(29);
    std::vector<TimeSeriesRow> rows;
    for (int s = 0; s < seconds; ++s) {
        const double t = double(s) / seconds;
        double inFlight = 20;
        double rate = 10;
        double ttft = 200;
        switch (shape) {
        case Shape::Flat:
            break;
        case Shape::StartBurst:
            ttft *= s < 13 ? 5 : 1;
            break;
        case Shape::ColdStart:
            rate *= s < 14 ? 0.5 + 0.5 * s / 14.0 : 1;
            ttft *= s < 14 ? 3 - 2.0 * s / 14.0 : 1;
            break;
        case Shape::Drain:
            inFlight = s >= seconds - 8 ? 20.0 * (seconds - s) / 9.0 : 20;
            break;
        case Shape::LatencyRamp:
            ttft = 100 + 900 * t;
            break;
        case Shape::InFlightRamp:
            inFlight = 2 + 78 * t;
            rate = inFlight / 2;
            break;
        }
        TimeSeriesRow row;
        row.second = s;
        row.inFlight = int(std::lround(inFlight));
        row.completed = std::poisson_distribution<std::int64_t>(rate)(random);
        row.ttftP50Ms = ttft * std::uniform_real_distribution<double>(0.95, 1.05)(random);
        rows.push_back(row);
    }
    return rows;
}

} // namespace

class TestSteadyWindow : public QObject
{
    Q_OBJECT

private slots:
    void findsTheWindow_data();
    void findsTheWindow();
    void latencyFallsBackToE2e();
    void methodNamesItsParameters();
};

void TestSteadyWindow::findsTheWindow_data()
{
    QTest::addColumn<Shape>("shape");
    QTest::addColumn<int>("seconds");
    QTest::addColumn<bool>("found");
    QTest::addColumn<int>("startS");
    QTest::addColumn<int>("endS");
    QTest::addColumn<QString>("reason"); ///< part of it, when none is found

    QTest::newRow("flat: the whole run") << Shape::Flat << 60 << true << 0 << 60 << QString();
    QTest::newRow("flat, partial last window left out") << Shape::Flat << 63 << true << 0 << 60 << QString();
    // The burst's seconds 10–12 are most of window [10, 15): the window after it starts at 15.
    QTest::newRow("start burst cut off") << Shape::StartBurst << 60 << true << 15 << 60 << QString();
    QTest::newRow("cold start cut off") << Shape::ColdStart << 60 << true << 15 << 60 << QString();
    // Seconds 52–59 drain; window [50, 55) still averages above the band (20, 20, 20, 17.8, 15.6).
    QTest::newRow("drain trimmed") << Shape::Drain << 60 << true << 0 << 55 << QString();
    QTest::newRow("latency ramp: none") << Shape::LatencyRamp << 60 << false << 0 << 0
                                        << QStringLiteral("under the minimum of 20 s");
    QTest::newRow("in-flight ramp: none")
        << Shape::InFlightRamp << 60 << false << 0 << 0 << QStringLiteral("under the minimum of 20 s");
    QTest::newRow("too short") << Shape::Flat << 9 << false << 0 << 0 << QStringLiteral("too short");
    // A burst over most of a short run leaves one level window: no stretch to judge.
    QTest::newRow("burst leaves too little")
        << Shape::StartBurst << 20 << false << 0 << 0 << QStringLiteral("is still moving");
}

void TestSteadyWindow::findsTheWindow()
{
    QFETCH(Shape, shape);
    QFETCH(int, seconds);
    QFETCH(bool, found);
    QFETCH(int, startS);
    QFETCH(int, endS);
    QFETCH(QString, reason);

    const SteadyWindow w = SteadyWindow::find(rowsOf(shape, seconds));
    QCOMPARE(w.runS, seconds);
    QVERIFY2(w.found == found, qPrintable(w.reason));
    QCOMPARE(w.startS, startS);
    QCOMPARE(w.endS, endS);
    QCOMPARE(w.reason.isEmpty(), found);
    QVERIFY2(w.reason.contains(reason), qPrintable(w.reason));
    QVERIFY(!w.e2e);
}

void TestSteadyWindow::latencyFallsBackToE2e()
{
    // No request had a first token (non-streaming): E2E p50 is the latency, and its burst counts.
    std::vector<TimeSeriesRow> rows = rowsOf(Shape::Flat, 40);
    for (TimeSeriesRow &row : rows) {
        row.e2eP50Ms = row.second < 10 ? 4 * row.ttftP50Ms : row.ttftP50Ms;
        row.ttftP50Ms = TimeSeriesRow::kNone;
    }
    const SteadyWindow w = SteadyWindow::find(rows);
    QVERIFY2(w.found, qPrintable(w.reason));
    QVERIFY(w.e2e);
    QCOMPARE(w.startS, 10);
    QCOMPARE(w.endS, 40);
}

void TestSteadyWindow::methodNamesItsParameters()
{
    SteadyWindow::Params p;
    p.windowS = 4;
    p.band = 0.2;
    const QString method = SteadyWindow::method(p);
    QVERIFY2(method.startsWith(QStringLiteral("4-s windows")), qPrintable(method));
    QVERIFY2(method.contains(QStringLiteral("±20%")), qPrintable(method));
    QVERIFY2(method.contains(QStringLiteral("max(10 s, 30% of the run)")), qPrintable(method));
}

QTEST_GUILESS_MAIN(TestSteadyWindow)
#include "tst_steadywindow.moc"
