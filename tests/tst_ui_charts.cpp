// The dashboard's charts and their export: round axis ranges, bounded series (decimation), stage
// marks, distributions from histograms, and report exports in PNG, SVG and PDF that carry the
// chart's title, units and data — while the chart on screen stays as it was.
#include "charts/chartexporter.h"
#include "charts/chartstyle.h"
#include "charts/chartview.h"
#include "charts/contextsweepchart.h"
#include "charts/distributionchart.h"
#include "charts/timechart.h"
#include "charts/tokenchart.h"
#include "charts/turnchart.h"
#include "formats/numberformat.h"
#include "widgets/apptheme.h"

#include <QApplication>
#include <QBarSet>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGraphicsLineItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QPainter>
#include <QRegularExpression>
#include <QScatterSeries>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>

#include <cmath>
#include <memory>

using namespace tb;

namespace {

TimeSeriesRow row(int second, int stage, double ttftP50 = TimeSeriesRow::kNone)
{
    TimeSeriesRow r;
    r.second = second;
    r.stage = stage;
    r.ttftP50Ms = ttftP50;
    r.completed = second;
    return r;
}

/// Pixels that differ clearly from white: what was drawn.
int inkPixels(const QImage &image)
{
    int n = 0;
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < rgb.height(); ++y) {
        const auto *line = reinterpret_cast<const QRgb *>(rgb.constScanLine(y));
        for (int x = 0; x < rgb.width(); ++x)
            n += qGray(line[x]) < 200;
    }
    return n;
}

/// Pixels close to `color` (a series' pen).
int pixelsOf(const QImage &image, const QColor &color)
{
    int n = 0;
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < rgb.height(); ++y) {
        const auto *line = reinterpret_cast<const QRgb *>(rgb.constScanLine(y));
        for (int x = 0; x < rgb.width(); ++x) {
            n += std::abs(qRed(line[x]) - color.red()) < 30 && std::abs(qGreen(line[x]) - color.green()) < 30 &&
                 std::abs(qBlue(line[x]) - color.blue()) < 30;
        }
    }
    return n;
}

TimeChart *latencyChart()
{
    auto *chart = new TimeChart(QStringLiteral("Latency over time"), QStringLiteral("TTFT (ms)"));
    QLineSeries *line =
        chart->addLine(QStringLiteral("TTFT p50"), chartstyle::color(Quantity::Ttft), false, QStringLiteral("median"));
    for (int s = 0; s < 30; ++s)
        line->append(s + 0.5, 100 + 10 * s);
    chart->setStageMarks({{0, QStringLiteral("c=4")}, {10, QStringLiteral("c=16")}, {20, QStringLiteral("c=32")}});
    chart->rescale(30);
    return chart;
}

} // namespace

class TestUiCharts : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void niceRange_data()
    {
        QTest::addColumn<double>("min");
        QTest::addColumn<double>("max");
        QTest::addColumn<double>("lo");
        QTest::addColumn<double>("hi");
        QTest::addColumn<double>("step");
        QTest::addColumn<QString>("format");
        QTest::newRow("latency") << 0.0 << 2740.0 << 0.0 << 3000.0 << 1000.0 << "%.0f";
        QTest::newRow("seconds") << 0.0 << 17.3 << 0.0 << 20.0 << 5.0 << "%.0f";
        QTest::newRow("ratio") << 0.0 << 0.27 << 0.0 << 0.3 << 0.1 << "%.1f";
        QTest::newRow("offset") << 141.0 << 279.0 << 100.0 << 300.0 << 50.0 << "%.0f";
        QTest::newRow("exact ends stay") << 0.0 << 100.0 << 0.0 << 100.0 << 20.0 << "%.0f";
        QTest::newRow("empty becomes 0..1") << 0.0 << 0.0 << 0.0 << 1.0 << 0.2 << "%.1f";
    }

    void niceRange()
    {
        QFETCH(double, min);
        QFETCH(double, max);
        QFETCH(double, lo);
        QFETCH(double, hi);
        QFETCH(double, step);
        QFETCH(QString, format);
        QValueAxis axis;
        chartstyle::setNiceRange(&axis, min, max);
        QCOMPARE(axis.min(), lo);
        QCOMPARE(axis.max(), hi);
        QCOMPARE(axis.tickInterval(), step);
        QCOMPARE(axis.labelFormat(), format);
        QCOMPARE(axis.tickType(), QValueAxis::TicksDynamic);
    }

    void formats_data()
    {
        QTest::addColumn<double>("ms");
        QTest::addColumn<QString>("text");
        QTest::newRow("sub-ms") << 0.4213 << "0.421 ms";
        QTest::newRow("ms") << 157.6 << "158 ms";
        QTest::newRow("s") << 2550.0 << "2.55 s";
        QTest::newRow("none") << std::nan("") << "—";
    }

    void formats()
    {
        QFETCH(double, ms);
        QFETCH(QString, text);
        QCOMPARE(formatMs(ms), text);
    }

    void decimateBoundsAndKeepsShape_data()
    {
        QTest::addColumn<int>("points");
        QTest::addColumn<int>("maxPoints");
        QTest::newRow("short run: untouched") << 100 << 600;
        QTest::newRow("one hour") << 3600 << 600;
        QTest::newRow("a day") << 86400 << 600;
    }

    void decimateBoundsAndKeepsShape()
    {
        QFETCH(int, points);
        QFETCH(int, maxPoints);
        QList<QPointF> in;
        double total = 0;
        for (int i = 0; i < points; ++i) {
            const double y = i == points / 2 ? 1000.0 : double(i % 7); // one spike
            in.append({i + 0.5, y});
            total += y;
        }
        in.append({points + 0.5, std::nan("")}); // no value this second: skipped
        const QList<QPointF> max = decimate(in, maxPoints, Reduce::Max);
        const QList<QPointF> mean = decimate(in, maxPoints, Reduce::Mean);
        QVERIFY(max.size() <= maxPoints);
        QCOMPARE(max.size(), mean.size());
        if (points <= maxPoints)
            QCOMPARE(max.size(), points);
        double peak = 0;
        for (const QPointF &p : max)
            peak = std::max(peak, p.y());
        QCOMPARE(peak, 1000.0); // a merged tail must not hide a spike
        // Means keep the area: Σ y · bucket width is the same total.
        const qsizetype bucket = (points + maxPoints - 1) / maxPoints;
        double area = 0;
        for (qsizetype i = 0; i < mean.size(); ++i)
            area += mean[i].y() * double(std::min<qsizetype>(bucket, points - i * bucket));
        QVERIFY2(std::abs(area - total) < 1e-6 * total, qPrintable(QStringLiteral("%1 vs %2").arg(area).arg(total)));
        for (qsizetype i = 1; i < mean.size(); ++i)
            QVERIFY(mean[i].x() > mean[i - 1].x());
    }

    void stageMarksFromTimeSeries()
    {
        // Stage 1 starts in second 5; stage 2 is skipped within second 9 straight into stage 3.
        std::vector<TimeSeriesRow> rows;
        for (int s = 0; s < 12; ++s)
            rows.push_back(row(s, s < 5 ? 0 : s < 9 ? 1 : 3));
        const QList<StageMark> marks = stageMarks(rows, {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"),
                                                         QStringLiteral("d"), QStringLiteral("never")});
        QCOMPARE(marks.size(), 4);
        QCOMPARE(marks[0].startS, 0.0);
        QCOMPARE(marks[1].startS, 5.0);
        QCOMPARE(marks[1].name, QStringLiteral("b"));
        QCOMPARE(marks[2].startS, 9.0);
        QCOMPARE(marks[3].startS, 9.0);
        QCOMPARE(marks[3].name, QStringLiteral("d"));
    }

    // A stray hollow marker at t≈0 on the Concurrency chart: a warm-up's empty first second (no
    // stage, no measured request sent) was charted — alone in the live chart's first second, as a
    // marker; in the saved run, as a line from 0.
    void warmUpSecondDrawsNoStrayMarker()
    {
        const auto inFlight = [](const TimeSeriesRow &r) { return double(r.inFlight); };
        std::vector<TimeSeriesRow> rows{row(0, -1)};
        TimeChart chart(QStringLiteral("Concurrency"), QStringLiteral("requests in flight"));
        QLineSeries *line = chart.addLine(QStringLiteral("in flight"), Qt::black, false, {});
        line->replace(timePoints(rows, inFlight, Reduce::Max, TimeChart::kMaxPoints));
        chart.rescale(1);
        QCOMPARE(line->pointsVisible() ? line->count() : 0, 0);

        TimeSeriesRow measured = row(1, 0);
        measured.sent = 4;
        measured.inFlight = 4;
        rows.push_back(measured);
        rows.push_back(row(2, 0));
        const QList<QPointF> points = timePoints(rows, inFlight, Reduce::Max, TimeChart::kMaxPoints);
        QCOMPARE(points.size(), 2);
        QCOMPARE(points.first(), QPointF(1.5, 4));
        // Rows without a stage (a file without the column) that sent requests are kept.
        std::vector<TimeSeriesRow> unstaged{row(0, -1), row(1, -1)};
        unstaged[0].sent = 3;
        QCOMPARE(timePoints(unstaged, inFlight, Reduce::Max, TimeChart::kMaxPoints).size(), 2);
    }

    void timeChartDrawsStageBoundaries()
    {
        std::unique_ptr<TimeChart> chart(latencyChart());
        // Two boundaries (at 10 s and 20 s) as dashed lines spanning the value axis, and each
        // stage's name over the middle of its span; none of them in the legend.
        QList<QLineSeries *> boundaries;
        QStringList names;
        for (QAbstractSeries *s : chart->series()) {
            if (auto *scatter = qobject_cast<QScatterSeries *>(s)) {
                names << scatter->pointLabelsFormat() + QLatin1Char('@') + QString::number(scatter->at(0).x());
                QVERIFY(scatter->pointLabelsVisible());
                QVERIFY(!chartstyle::isInLegend(s));
            } else if (!chart->lines().contains(static_cast<QLineSeries *>(s))) {
                boundaries << static_cast<QLineSeries *>(s);
                QVERIFY(!chartstyle::isInLegend(s));
            }
        }
        QCOMPARE(names, (QStringList{QStringLiteral("c=4@5"), QStringLiteral("c=16@15"), QStringLiteral("c=32@25")}));
        QCOMPARE(boundaries.size(), 2);
        QCOMPARE(boundaries[0]->at(0).x(), 10.0);
        QCOMPARE(boundaries[0]->at(1).y(), chart->leftAxis()->max());
        QCOMPARE(chart->axisX()->max(), 30.0);
        QCOMPARE(chart->leftAxis()->max(), 500.0); // 390 ms and room for the stage names, rounded
        chart->setStageMarks({{0, QStringLiteral("only")}});
        QCOMPARE(chart->series().size(), 1);
    }

    void stageNameStaysInsideANarrowChart_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("stopped last stage") << QStringLiteral("c=8 (stopped after 5.0 s of 30 s)");
        QTest::newRow("short name") << QStringLiteral("c=8");
    }

    // On a narrow time chart "c=8 (stopped after 5.0 s of 30 s)", centred over its stage's last
    // seconds, ran past the plot's right edge and was cut off there.
    void stageNameStaysInsideANarrowChart()
    {
        QFETCH(QString, name);
        auto *chart = new TimeChart(QStringLiteral("Throughput"), QStringLiteral("requests/s"));
        QLineSeries *line = chart->addLine(QStringLiteral("requests/s"), Qt::blue, false, QString());
        for (int s = 0; s < 30; ++s)
            line->append(s + 0.5, 10);
        ChartView view(chart);
        view.resize(360, 220);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        chart->setStageMarks({{0, QStringLiteral("c=1")}, {26, name}});
        chart->rescale(30);
        QCoreApplication::processEvents();
        const QRectF plot = chart->plotArea();
        QVERIFY(plot.width() > 0);
        int checked = 0;
        for (QAbstractSeries *s : chart->series()) {
            auto *scatter = qobject_cast<QScatterSeries *>(s);
            if (!scatter)
                continue;
            const qreal half =
                QFontMetricsF(scatter->pointLabelsFont()).horizontalAdvance(scatter->pointLabelsFormat()) / 2;
            const qreal x = chart->mapToPosition(scatter->at(0), scatter).x();
            QVERIFY2(x - half >= plot.left() - 0.5 && x + half <= plot.right() + 0.5,
                     qPrintable(QStringLiteral("\"%1\" spans %2..%3 in a plot of %4..%5")
                                    .arg(scatter->pointLabelsFormat())
                                    .arg(x - half)
                                    .arg(x + half)
                                    .arg(plot.left())
                                    .arg(plot.right())));
            ++checked;
        }
        QCOMPARE(checked, 2);
    }

    void histogramOutlineAndCdf()
    {
        LogHistogram h;
        for (int i = 1; i <= 1000; ++i)
            h.record(100 + i % 100); // 100..199 ms, uniform
        const QList<QPointF> outline = DistributionChart::histogramOutline(h, 100, 200, 10);
        QCOMPARE(outline.size(), 2 * 10 + 2);
        QCOMPARE(outline.front(), QPointF(100, 0));
        QCOMPARE(outline.back(), QPointF(200, 0));
        double sum = 0;
        for (int b = 0; b < 10; ++b) {
            const double pct = outline[1 + 2 * b].y();
            QCOMPARE(outline[2 + 2 * b].y(), pct); // a flat top per bin
            QVERIFY2(std::abs(pct - 10) < 1.5, qPrintable(QString::number(pct)));
            sum += pct;
        }
        QVERIFY(std::abs(sum - 100) < 1e-9);

        const QList<QPointF> cdf = DistributionChart::cdfPoints(h);
        QCOMPARE(cdf.front().y(), 0.0);
        QCOMPARE(cdf.back().y(), 100.0);
        for (qsizetype i = 1; i < cdf.size(); ++i) {
            QVERIFY(cdf[i].x() >= cdf[i - 1].x());
            QVERIFY(cdf[i].y() >= cdf[i - 1].y());
        }
        QVERIFY(DistributionChart::cdfPoints(LogHistogram()).isEmpty());
    }

    void distributionChartMarksPercentiles_data()
    {
        QTest::addColumn<int>("mode");
        QTest::newRow("cdf") << int(DistributionChart::Mode::Cdf);
        QTest::newRow("histogram") << int(DistributionChart::Mode::Histogram);
    }

    void distributionChartMarksPercentiles()
    {
        QFETCH(int, mode);
        LogHistogram h;
        for (int i = 0; i < 1000; ++i)
            h.record(i < 990 ? 150.0 + i % 10 : 400.0);
        DistributionChart chart;
        chart.setMode(DistributionChart::Mode(mode));
        chart.setQuantity(QStringLiteral("TTFT"), QStringLiteral("ms"), QStringLiteral("first token"));
        QVERIFY(!chart.hasData());
        chart.setDistributions({{QStringLiteral("TTFT"), h, chartstyle::color(Metric::Ttft)}});
        QVERIFY(chart.hasData());
        QStringList names;
        for (QAbstractSeries *s : chart.series())
            names << s->name();
        QCOMPARE(names.size(), 3);
        QCOMPARE(names[0], QStringLiteral("TTFT"));
        QVERIFY2(names[1].startsWith(QStringLiteral("p50 15")), qPrintable(names[1]));
        QVERIFY2(names[2].startsWith(QStringLiteral("p99 ")), qPrintable(names[2]));
        QCOMPARE(chart.axisX()->titleText(), QStringLiteral("TTFT (ms)"));
        QVERIFY(chart.legend()->isVisible());
        QCOMPARE(chart.legend()->markers().size(), 3);
        QCOMPARE(chart.legend()->markers().constFirst()->label(), QStringLiteral("TTFT"));
        // Switching the mode keeps the legend whole (the distribution's entry named, in its colour).
        chart.setMode(mode == int(DistributionChart::Mode::Cdf) ? DistributionChart::Mode::Histogram
                                                                : DistributionChart::Mode::Cdf);
        QCOMPARE(chart.legend()->markers().size(), 3);
        QCOMPARE(chart.legend()->markers().constFirst()->label(), QStringLiteral("TTFT"));
        QCOMPARE(chart.legend()->markers().constFirst()->brush().color().rgb(), chartstyle::color(Metric::Ttft).rgb());
        // Several series (a comparison) overlay without percentile marks.
        chart.setDistributions({{QStringLiteral("run a"), h, Qt::blue}, {QStringLiteral("run b"), h, Qt::red, true}});
        QCOMPARE(chart.series().size(), 2);
    }

    void shortDistributionChartKeepsItsYTitleWhole_data()
    {
        QTest::addColumn<int>("height");
        QTest::newRow("short: the comparison's under a banner") << 140;
        QTest::newRow("tall: the dashboard's") << 400;
    }

    // The comparison's CDF at 1280×800 under a workload-differences banner has a plot ~50 px high:
    // QtCharts elided its y title "% of requests ≤ x" to "% of r…". It takes a form that fits.
    void shortDistributionChartKeepsItsYTitleWhole()
    {
        QFETCH(int, height);
        LogHistogram h;
        for (int i = 0; i < 100; ++i)
            h.record(100.0 + i);
        auto *chart = new DistributionChart;
        chart->setQuantity(QStringLiteral("TTFT"), QStringLiteral("ms"), QStringLiteral("first token"));
        chart->setDistributions({{QStringLiteral("run a"), h, Qt::blue}, {QStringLiteral("run b"), h, Qt::red, true}});
        ChartView view(chart);
        view.resize(900, height);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCoreApplication::processEvents();
        const QString title = chart->axes(Qt::Vertical).constFirst()->titleText();
        const qreal width = QFontMetricsF(chart->axes(Qt::Vertical).constFirst()->titleFont()).horizontalAdvance(title);
        QVERIFY2(width <= chart->plotArea().height(), qPrintable(QStringLiteral("\"%1\" is %2 px in a plot %3 px high")
                                                                     .arg(title)
                                                                     .arg(width)
                                                                     .arg(chart->plotArea().height())));
        if (height >= 400)
            QCOMPARE(title, QStringLiteral("% of requests ≤ x")); // whole where it fits
    }

    void tokenChartPerRequest()
    {
        RunSummary summary;
        SummaryBlock stage;
        stage.name = QStringLiteral("c=4");
        stage.requests.ok = 10;
        stage.tokens.input = 5000;
        stage.tokens.cached = 1000;
        stage.tokens.output = 2560;
        stage.tokens.outInRatio = 0.512;
        stage.tokens.cacheHitRatio = 0.2;
        SummaryBlock second = stage;
        second.name = QStringLiteral("c=8");
        second.requests.ok = 20;
        summary.stages = {stage, second};
        TokenChart chart;
        QVERIFY(!chart.hasData());
        chart.setSummary(summary);
        QVERIFY(chart.hasData());
        QCOMPARE(chart.inputSet()->count(), 2);
        QCOMPARE(chart.inputSet()->at(0), 500.0);
        QCOMPARE(chart.inputSet()->at(1), 250.0);
        QCOMPARE(chart.outputSet()->at(0), 256.0);
        QCOMPARE(chart.cachedSet()->at(0), 100.0);
        QCOMPARE(chart.outInLine()->at(1), QPointF(1, 0.512));
        QCOMPARE(chart.cacheHitLine()->at(0), QPointF(0, 0.2));
        // Themed bars keep the metric colours.
        QCOMPARE(chart.outputSet()->color(), chartstyle::color(Quantity::OutputTokens));
    }

    void turnChartShowsTokenGrowth()
    {
        RunSummary summary;
        for (int turn = 1; turn <= 3; ++turn) {
            TurnSummary t;
            t.turn = turn;
            t.requests = 4;
            LogHistogram prompt, cached, ttft;
            prompt.record(100.0 * turn, 4);
            cached.record(100.0 * (turn - 1), 4);
            ttft.record(150.0 + turn, 4);
            t.promptTokens = LatencyStats::fromHistogram(prompt);
            t.cachedTokens = LatencyStats::fromHistogram(cached);
            t.ttftMs = LatencyStats::fromHistogram(ttft);
            summary.turns.push_back(t);
        }
        TurnChart chart;
        QVERIFY(!chart.hasData());
        chart.setSummary(summary);
        QVERIFY(chart.hasData());
        QCOMPARE(chart.promptLine()->count(), 3);
        QCOMPARE(chart.promptLine()->at(2), QPointF(3, 300));
        QCOMPARE(chart.cachedLine()->at(0), QPointF(1, 0));
        QCOMPARE(chart.ttftLine()->at(1).x(), 2.0);
        QVERIFY(qAbs(chart.ttftLine()->at(1).y() - 152) < 1); // a p50: within the histogram's 0.5%
        chart.setSummary({});
        QVERIFY(!chart.hasData());
    }

    /// Regression: a context sweep's requests the server had truncated were drawn, and fitted, as
    /// any other. They are rings of their own now, named in the legend as left out of the fit.
    void contextChartShowsTruncatedRequestsApart()
    {
        ContextSweepSummary sweep;
        sweep.points = {{512, 100}, {1024, 150}, {2048, 250}};
        sweep.excluded = {{2058, 260}, {2060, 262}};
        sweep.stages.push_back({0, QStringLiteral("p=4096"), 2, 2059, 261, 7900, std::nullopt, 4106, 2});
        sweep.fit = fitPowerLaw({512, 1024, 2048}, {100, 150, 250});
        ContextSweepChart chart;
        chart.setCurves({{QStringLiteral("run"), Qt::blue, sweep}});
        QCOMPARE(chart.excludedDots().size(), 1);
        QScatterSeries *rings = chart.excludedDots().first();
        QCOMPARE(rings->points(), (QList<QPointF>{{2058, 260}, {2060, 262}}));
        QCOMPARE(rings->color().alpha(), 0); // hollow
        QVERIFY2(rings->name().contains(QStringLiteral("2 requests the server truncated (left out of the fit)")),
                 qPrintable(rings->name()));
        QVERIFY(chartstyle::isInLegend(rings));
        QCOMPARE(chart.fitLines().size(), 1);
        QVERIFY2(chart.fitLines().first()->name().endsWith(QStringLiteral("2 requests the server truncated left out")),
                 qPrintable(chart.fitLines().first()->name()));
        sweep.excluded.clear();
        chart.setCurves({{QStringLiteral("run"), Qt::blue, sweep}});
        QVERIFY(chart.excludedDots().isEmpty());
    }

    void exportFormats_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("page");
        QTest::newRow("png slide") << "chart.png" << int(ChartExporter::Page::Slide);
        QTest::newRow("png a4") << "chart.png" << int(ChartExporter::Page::A4);
        QTest::newRow("svg slide") << "chart.svg" << int(ChartExporter::Page::Slide);
        QTest::newRow("pdf a4") << "chart.pdf" << int(ChartExporter::Page::A4);
        QTest::newRow("pdf slide") << "chart.pdf" << int(ChartExporter::Page::Slide);
    }

    void exportFormats()
    {
        QFETCH(QString, file);
        QFETCH(int, page);
        std::unique_ptr<TimeChart> chart(latencyChart());
        const QList<QPointF> before = chart->lines().constFirst()->points();
        const QString titleBefore = chart->title();
        QTemporaryDir dir;
        const QString path = dir.filePath(file);
        ChartExporter::Options options;
        options.page = ChartExporter::Page(page);
        options.subtitle = QStringLiteral("20240501-100000-default");
        options.caption = QStringLiteral("fast at http://127.0.0.1:8000/v1 · c=4 · prompt ~512 tokens");
        QString error;
        QVERIFY2(ChartExporter::save(chart.get(), path, options, &error), qPrintable(error));
        // For a person to look at: what a report gets.
        const QString keep = QDir::temp().filePath(
            QStringLiteral("tokenbench-export-%1.%2")
                .arg(QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-')),
                     QFileInfo(path).suffix()));
        QFile::remove(keep);
        QFile::copy(path, keep);
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        const QSizeF logical = ChartExporter::logicalSize(options.page);
        switch (*ChartExporter::formatOf(path)) {
        case ChartExporter::Format::Png: {
            QImage image;
            QVERIFY(image.loadFromData(bytes, "PNG"));
            QCOMPARE(image.size(), (logical * ChartExporter::pixelRatio(options.page)).toSize());
            QVERIFY(inkPixels(image) > image.width() * image.height() / 200);
            QVERIFY(pixelsOf(image, chartstyle::color(Quantity::Ttft)) > 500); // the line is there
            break;
        }
        case ChartExporter::Format::Svg: {
            QSvgRenderer svg(bytes);
            QVERIFY(svg.isValid());
            QCOMPARE(svg.viewBoxF().size(), logical);
            for (const char *text :
                 {"Latency over time", "TTFT (ms)", "s since start", "TTFT p50", "c=16", "20240501-100000-default"})
                QVERIFY2(bytes.contains(text), text);
            break;
        }
        case ChartExporter::Format::Pdf:
            QVERIFY(bytes.startsWith("%PDF-"));
            QVERIFY(bytes.size() > 2000);
            break;
        }
        // The chart on screen is as it was.
        QCOMPARE(chart->lines().constFirst()->points(), before);
        QCOMPARE(chart->title(), titleBefore);
    }

    void exportDrawsAxisTitleOverCaption_data()
    {
        QTest::addColumn<int>("page");
        QTest::addColumn<QString>("caption");
        const QString one = QStringLiteral("fast at http://127.0.0.1:8000/v1 · c=4 · prompt ~512 tokens");
        const QString three = QStringLiteral("#1 %1\n#2 %1\nand 3 more runs").arg(one);
        QTest::newRow("slide, one line") << int(ChartExporter::Page::Slide) << one;
        QTest::newRow("a4, one line") << int(ChartExporter::Page::A4) << one;
        QTest::newRow("slide, three lines (comparison)") << int(ChartExporter::Page::Slide) << three;
        QTest::newRow("a4, three lines (comparison)") << int(ChartExporter::Page::A4) << three;
    }

    // Every export drew the x-axis title ("s since start") over the caption lines.
    void exportDrawsAxisTitleOverCaption()
    {
        QFETCH(int, page);
        QFETCH(QString, caption);
        std::unique_ptr<TimeChart> chart(latencyChart());
        ChartExporter::Options options;
        options.page = ChartExporter::Page(page);
        options.caption = caption;
        QGraphicsScene scene; // as the exporter draws it: the copy in a scene of its own
        QChart *copy = ChartExporter::reportCopy(chart.get(), options);
        QVERIFY(copy);
        scene.addItem(copy);
        QImage image(ChartExporter::logicalSize(options.page).toSize(), QImage::Format_ARGB32_Premultiplied);
        QPainter painter(&image);
        scene.render(&painter); // lays the chart out
        painter.end();
        QRectF captionRect;
        QRectF axisTitleRect;
        for (const QGraphicsItem *item : scene.items()) {
            if (const auto *simple = dynamic_cast<const QGraphicsSimpleTextItem *>(item);
                simple && simple->text() == caption)
                captionRect = simple->sceneBoundingRect();
            if (const auto *text = dynamic_cast<const QGraphicsTextItem *>(item);
                text && text->toPlainText() == QStringLiteral("s since start"))
                axisTitleRect = text->sceneBoundingRect();
        }
        QVERIFY(!captionRect.isEmpty());
        QVERIFY(!axisTitleRect.isEmpty());
        // The caption below the axis title, and on the page.
        QVERIFY2(captionRect.top() >= axisTitleRect.bottom(),
                 qPrintable(QStringLiteral("caption from y=%1, axis title down to y=%2")
                                .arg(captionRect.top())
                                .arg(axisTitleRect.bottom())));
        QVERIFY(captionRect.bottom() <= ChartExporter::logicalSize(options.page).height());
    }

    void svgExportDeclaresA72DpiSize_data()
    {
        QTest::addColumn<int>("page");
        QTest::addColumn<double>("widthMm");
        QTest::addColumn<double>("heightMm");
        QTest::newRow("a4 landscape") << int(ChartExporter::Page::A4) << 297.0 << 210.0;
        QTest::newRow("slide, 1280 × 720 css px")
            << int(ChartExporter::Page::Slide) << 1280 * 25.4 / 96 << 720 * 25.4 / 96;
    }

    // The A4 SVG declared 382.8 × 266.7 mm: its pixels converted at 72 dpi.
    void svgExportDeclaresA72DpiSize()
    {
        QFETCH(int, page);
        QFETCH(double, widthMm);
        QFETCH(double, heightMm);
        std::unique_ptr<TimeChart> chart(latencyChart());
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("chart.svg"));
        ChartExporter::Options options;
        options.page = ChartExporter::Page(page);
        QString error;
        QVERIFY2(ChartExporter::save(chart.get(), path, options, &error), qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString svg = QString::fromUtf8(f.readAll());
        static const QRegularExpression size(QStringLiteral("<svg[^>]* width=\"([0-9.]+)mm\" height=\"([0-9.]+)mm\""));
        const QRegularExpressionMatch match = size.match(svg);
        QVERIFY2(match.hasMatch(), qPrintable(svg.left(400)));
        QVERIFY2(std::abs(match.captured(1).toDouble() - widthMm) < 0.05, qPrintable(match.captured(0)));
        QVERIFY2(std::abs(match.captured(2).toDouble() - heightMm) < 0.05, qPrintable(match.captured(0)));
        // Everything drawn is still inside the declared page.
        QSvgRenderer renderer(svg.toUtf8());
        QVERIFY(renderer.isValid());
        const QRectF drawn(QPointF(), ChartExporter::logicalSize(options.page));
        QVERIFY(renderer.viewBoxF().contains(drawn));
    }

    void reportCopyKeepsData()
    {
        std::unique_ptr<TimeChart> chart(latencyChart());
        std::unique_ptr<QChart> copy(ChartExporter::reportCopy(chart.get(), {}));
        QVERIFY(copy);
        QCOMPARE(copy->series().size(), chart->series().size());
        QCOMPARE(copy->axes().size(), chart->axes().size());
        for (qsizetype i = 0; i < chart->series().size(); ++i) {
            QCOMPARE(copy->series()[i]->name(), chart->series()[i]->name());
            QCOMPARE(copy->series()[i]->type(), chart->series()[i]->type());
            // Lines and the scatter series that labels stage marks: all XY series.
            const auto *copied = qobject_cast<const QXYSeries *>(copy->series()[i]);
            const auto *original = qobject_cast<const QXYSeries *>(chart->series()[i]);
            QVERIFY(copied && original);
            QCOMPARE(copied->points(), original->points());
            QCOMPARE(copied->pen(), original->pen());
        }
        // Bars too.
        TokenChart tokens;
        RunSummary summary;
        summary.total.requests.ok = 1;
        summary.total.tokens.input = 10;
        tokens.setSummary(summary);
        std::unique_ptr<QChart> barCopy(ChartExporter::reportCopy(&tokens, {}));
        QVERIFY(barCopy);
        QCOMPARE(barCopy->series().size(), tokens.series().size());
    }

    void exportErrors()
    {
        std::unique_ptr<TimeChart> chart(latencyChart());
        QTemporaryDir dir;
        QString error;
        QVERIFY(!ChartExporter::save(chart.get(), dir.filePath(QStringLiteral("chart.bmp")), {}, &error));
        QVERIFY2(error.contains(QStringLiteral("unknown format")), qPrintable(error));
        error.clear();
        QVERIFY(!ChartExporter::save(chart.get(), dir.filePath(QStringLiteral("missing/dir/chart.png")), {}, &error));
        QVERIFY2(error.contains(QStringLiteral("chart.png")), qPrintable(error));
    }

    // The token-efficiency legend exported as "pro… cac… out…" with blank swatches.
    void exportedLegendKeepsSwatchesAndNames()
    {
        TokenChart tokens;
        RunSummary summary;
        summary.total.requests.ok = 10;
        summary.total.tokens.input = 5000;
        summary.total.tokens.cached = 1000;
        summary.total.tokens.output = 2000;
        tokens.setSummary(summary);
        ChartExporter::Options options;
        options.caption =
            QStringLiteral("fast at http://127.0.0.1:8000/v1 · c=4 · prompt ~512 tokens · max 256 tokens");
        std::unique_ptr<QChart> copy(ChartExporter::reportCopy(&tokens, options));
        QVERIFY(copy);
        const QList<QLegendMarker *> shown = tokens.legend()->markers();
        const QList<QLegendMarker *> copied = copy->legend()->markers();
        QCOMPARE(copied.size(), shown.size());
        for (qsizetype i = 0; i < shown.size(); ++i)
            QCOMPARE(copied[i]->shape(), shown[i]->shape()); // bar sets: filled squares, not empty boxes

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("tokens.svg"));
        QString error;
        QVERIFY2(ChartExporter::save(&tokens, path, options, &error), qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString svg = QString::fromUtf8(f.readAll());
        for (const QString &name : {QStringLiteral(">prompt<"), QStringLiteral(">cached<"), QStringLiteral(">output<"),
                                    QStringLiteral(">out/in<"), QStringLiteral(">cache hit<")})
            QVERIFY2(svg.contains(name), qPrintable(name));
        QVERIFY(!svg.contains(QStringLiteral("…")));
        QVERIFY(svg.contains(QStringLiteral("c=4 · prompt ~512 tokens"))); // the caption
        // A family every browser resolves to a sans serif.
        QVERIFY(svg.contains(QStringLiteral("sans-serif\"")));
        QVERIFY(!svg.contains(QStringLiteral("font-family=\"Sans Serif\"")));
    }

    // An errors chart with no errors exported as bare axes.
    void exportedEmptyChartSaysWhy()
    {
        auto *chart = new TimeChart(QStringLiteral("Errors by status"), QStringLiteral("errors/s"));
        ChartView view(chart);
        view.setEmptyText(QStringLiteral("✓ No errors in this run."));
        view.setEmpty(true);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("errors.svg"));
        QString error;
        QVERIFY2(ChartExporter::save(chart, path, view.exportOptions(), &error), qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(QString::fromUtf8(f.readAll()).contains(QStringLiteral("No errors in this run.")));
        view.setEmpty(false);
        QVERIFY(view.exportOptions().emptyText.isEmpty());
    }

    // Dark mode: charts on screen follow the palette (also a chart made while dark), and an export
    // made in dark mode is in the light report look all the same.
    void chartsFollowTheThemeAndExportsStayLight()
    {
        using chartstyle::Theme;
        ChartView view(latencyChart());
        auto *chart = static_cast<TimeChart *>(view.chart());
        view.resize(500, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCOMPARE(chartstyle::screenTheme(), Theme::Light);
        QCOMPARE(chart->backgroundBrush().color(), QColor(Qt::white));
        QCOMPARE(chart->leftAxis()->labelsColor(), chartstyle::mutedText(Theme::Light));

        AppTheme::apply(AppTheme::Setting::Dark);
        QCOMPARE(chartstyle::screenTheme(), Theme::Dark);
        QTRY_COMPARE(chart->backgroundBrush().color(), chartstyle::surface(Theme::Dark));
        QCOMPARE(view.backgroundBrush().color(), chartstyle::surface(Theme::Dark));
        QCOMPARE(chart->titleBrush().color(), chartstyle::primaryText(Theme::Dark));
        QCOMPARE(chart->legend()->labelColor(), chartstyle::mutedText(Theme::Dark));
        for (QAbstractAxis *axis : chart->axes()) {
            QCOMPARE(axis->labelsColor(), chartstyle::mutedText(Theme::Dark));
            QCOMPARE(axis->gridLinePen().color(), chartstyle::gridLine(Theme::Dark));
        }
        QVERIFY(chartstyle::primaryText(Theme::Dark).lightness() > chartstyle::surface(Theme::Dark).lightness() + 100);
        // Navy is lost on a dark surface: a chart made now draws in flight lighter.
        QLineSeries *inFlight = chart->addLine(QStringLiteral("in flight"), chartstyle::color(Quantity::InFlight),
                                               false, QStringLiteral("requests in flight"));
        inFlight->append(1, 100);
        inFlight->append(20, 200);
        QVERIFY(inFlight->pen().color().lightness() > QColor(0x34, 0x49, 0x5e).lightness() + 60);
        std::unique_ptr<TimeChart> madeDark(latencyChart());
        QCOMPARE(madeDark->backgroundBrush().color(), chartstyle::surface(Theme::Dark));

        // Exported while dark: white, the light theme's text, the light in-flight navy.
        const std::unique_ptr<QChart> copy(ChartExporter::reportCopy(chart, {}));
        QCOMPARE(copy->backgroundBrush().color(), QColor(Qt::white));
        for (QAbstractAxis *axis : copy->axes())
            QCOMPARE(axis->labelsColor(), chartstyle::mutedText(Theme::Light));
        QTemporaryDir dir;
        QString error;
        const QString svgPath = dir.filePath(QStringLiteral("dark.svg"));
        QVERIFY2(ChartExporter::save(chart, svgPath, {}, &error), qPrintable(error));
        QFile f(svgPath);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString svg = QString::fromUtf8(f.readAll()).toLower();
        QVERIFY(svg.contains(QStringLiteral("fill=\"#ffffff\"")));
        QVERIFY(svg.contains(chartstyle::mutedText(Theme::Light).name()));
        QVERIFY(svg.contains(QStringLiteral("#34495e")));
        for (const QColor &dark : {chartstyle::surface(Theme::Dark), chartstyle::mutedText(Theme::Dark),
                                   chartstyle::gridLine(Theme::Dark), chartstyle::primaryText(Theme::Dark)})
            QVERIFY2(!svg.contains(dark.name()), qPrintable(dark.name()));
        const QString pngPath = dir.filePath(QStringLiteral("dark.png"));
        QVERIFY2(ChartExporter::save(chart, pngPath, {}, &error), qPrintable(error));
        const QImage png(pngPath);
        QCOMPARE(png.pixelColor(4, 4), QColor(Qt::white));
        QCOMPARE(png.pixelColor(png.width() / 2, png.height() - 4), QColor(Qt::white));

        // And back: the chart on screen is light again.
        AppTheme::apply(AppTheme::Setting::System);
        QCOMPARE(chartstyle::screenTheme(), Theme::Light);
        QTRY_COMPARE(chart->backgroundBrush().color(), QColor(Qt::white));
        QCOMPARE(chart->leftAxis()->labelsColor(), chartstyle::mutedText(Theme::Light));
        QCOMPARE(inFlight->pen().color(), QColor(0x34, 0x49, 0x5e));
    }

    // The on-screen legend drew p50 and p99 with the same swatch, where the export draws p99 dashed.
    void legendDrawsP50AndP99Alike()
    {
        auto *chart = new TimeChart(QStringLiteral("Latency over time"), QStringLiteral("TTFT (ms)"));
        const QColor color = chartstyle::color(Quantity::Ttft);
        QLineSeries *p50 = chart->addLine(QStringLiteral("TTFT p50"), color, false, QStringLiteral("median"));
        QLineSeries *p99 = chart->addLine(QStringLiteral("TTFT p99"), color, true, QStringLiteral("tail"));
        for (int s = 0; s < 30; ++s) {
            p50->append(s + 0.5, 100 + 10 * s);
            p99->append(s + 0.5, 300 + 10 * s);
        }
        chart->rescale(30);
        ChartView view(chart);
        view.resize(640, 360);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QImage shot = view.grab().toImage().convertToFormat(QImage::Format_RGB32);
        shot.save(QDir::temp().filePath(QStringLiteral("tokenbench-legend.png"))); // for a person to look at
        // The runs of the series' colour along the middle of each legend swatch: one for a solid
        // line, more for a dashed one.
        const auto dashesOf = [&](const QLineSeries *series) {
            QList<QGraphicsItem *> items = chart->legend()->childItems();
            for (qsizetype i = 0; i < items.size(); ++i) {
                items += items[i]->childItems();
                const auto *swatch = qgraphicsitem_cast<QGraphicsLineItem *>(items[i]);
                if (!swatch || swatch->pen().style() != series->pen().style() || !swatch->isVisible())
                    continue;
                const QRect box = view.mapFromScene(swatch->sceneBoundingRect()).boundingRect();
                const int y = box.center().y();
                int runs = 0;
                bool inRun = false;
                for (int x = box.left(); x <= box.right(); ++x) {
                    const QColor pixel = shot.pixelColor(x, y);
                    const bool ink = std::abs(pixel.red() - color.red()) + std::abs(pixel.green() - color.green()) +
                                         std::abs(pixel.blue() - color.blue()) <
                                     150;
                    runs += ink && !inRun;
                    inRun = ink;
                }
                return runs;
            }
            return -1;
        };
        QCOMPARE(dashesOf(p50), 1);
        QVERIFY2(dashesOf(p99) >= 2, qPrintable(QString::number(dashesOf(p99))));
    }

    void chartViewEmptyState()
    {
        auto *chart = new TimeChart(QStringLiteral("Errors by status"), QStringLiteral("errors/s"));
        ChartView view(chart);
        view.resize(400, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setEmptyText(QStringLiteral("No errors so far."));
        view.setEmpty(true);
        auto *label = view.findChild<QLabel *>(QStringLiteral("chartEmptyText"));
        QVERIFY(label && label->isVisible());
        QVERIFY(label->text().contains(QStringLiteral("No errors so far.")));
        QVERIFY(label->text().contains(QStringLiteral("Errors by status")));
        view.setEmpty(false);
        QVERIFY(!label->isVisible());
    }
};

QTEST_MAIN(TestUiCharts)
#include "tst_ui_charts.moc"
