#pragma once

#include "metrics/errortimeline.h"
#include "metrics/timeseriesrow.h"

#include <QChart>
#include <QList>
#include <QPointF>

#include <functional>
#include <optional>
#include <vector>

class QAreaSeries;
class QLineSeries;
class QScatterSeries;
class QXYSeries;
class QValueAxis;

namespace tb {

/// Where a stage began, for the labelled boundary lines of time charts.
struct StageMark {
    double startS = 0;
    QString name;
};

/// A span of run time, [startS, endS) in seconds since the start (the x of time charts).
struct TimeSpan {
    double startS = 0;
    double endS = 0;
};

/// How decimate() merges the points of one bucket: rates and medians by their mean, peaks and
/// tails by their maximum (a merged p99 must not hide a spike).
enum class Reduce { Mean, Max };

/// At most maxPoints points: when there are more, runs of consecutive points are merged into one
/// (x: their mean; y: reduced). Long runs thus draw as fast as short ones and charts do not grow
/// without bound. Points must be sorted by x; NaN y values are skipped.
QList<QPointF> decimate(const QList<QPointF> &points, int maxPoints, Reduce reduce);

/// Errors per second of one of `errors`' labels at x = second + 0.5 for every second up to
/// endSecond (seconds without errors are 0), decimated to maxPoints by their mean rate.
QList<QPointF> errorRatePoints(const ErrorTimeline &errors, const QString &label, int endSecond, int maxPoints);

/// One point per second of the time series at the middle of its second (x = t_s + 0.5), decimated;
/// the warm-up seconds before the first stage starts are left out.
QList<QPointF> timePoints(const std::vector<TimeSeriesRow> &rows,
                          const std::function<double(const TimeSeriesRow &)> &value, Reduce reduce, int maxPoints);

/// When each stage began, from the time series' stage column (the first second a stage's request
/// was sent in); stages that never started are left out.
QList<StageMark> stageMarks(const std::vector<TimeSeriesRow> &rows, const QStringList &stageNames);

/// A line chart over run time: x in seconds since the start, a value axis with its unit on the
/// left and optionally a second one on the right, stage boundaries as dashed lines with each
/// stage's name at the top of its span, the steady-state window as a shaded band. Ranges end on round numbers and
/// follow the data (rescale()). Boundaries and names are series (out of the legend), so exports copy them.
class TimeChart : public QChart
{
    Q_OBJECT

public:
    enum class Side { Left, Right };
    static constexpr int kMaxPoints = 600;
    /// The shortest x range of a live run: its first seconds should not stretch over the whole width.
    static constexpr double kMinSpanS = 10;

    TimeChart(const QString &title, const QString &leftAxisTitle, QGraphicsItem *parent = nullptr);

    /// Adds the right-hand value axis. With `color`, its labels take the colour of the lines on it.
    void setRightAxisTitle(const QString &title, const QColor &color = {});
    /// Colours the left axis' labels like the lines on it (when both axes carry the same unit).
    void setLeftAxisColor(const QColor &color);
    QValueAxis *axisX() const { return m_x; }
    QValueAxis *leftAxis() const { return m_left; }
    QValueAxis *rightAxis() const { return m_right; }

    /// A line with a legend entry and a one-line description for its tooltip.
    QLineSeries *addLine(const QString &name, const QColor &color, bool dashed, const QString &description,
                         Side side = Side::Left);
    /// Removes and deletes every line (for charts whose series come and go, e.g. error statuses).
    void removeLines();
    QList<QLineSeries *> lines() const { return m_lines; }

    /// Labelled dashed lines where stages begin; fewer than two stages show none.
    void setStageMarks(const QList<StageMark> &marks);
    /// Shades the run's steady-state window (RunSummary::steady) over the plot's height, under the
    /// lines, out of the legend, "steady state" in its tooltip; none removes the band.
    void setSteadyWindow(const std::optional<TimeSpan> &window);
    /// The band of setSteadyWindow(); null when there is none.
    QAreaSeries *steadyBand() const { return m_steady; }
    /// Sets x to [0, endS] (at least minSpanS) and each value axis to [0, its largest point].
    void rescale(double endS, double minSpanS = kMinSpanS);
    /// Whether any line has a point.
    bool hasData() const;

private:
    QValueAxis *m_x;
    QValueAxis *m_left;
    QValueAxis *m_right = nullptr;
    void placeStageMarks();
    QList<QXYSeries *> stageSeries() const;
    void placeSteadyBand();

    QList<QLineSeries *> m_lines;
    QList<QLineSeries *> m_boundaries;    ///< a vertical line where each stage after the first starts
    QList<QScatterSeries *> m_stageNames; ///< one invisible point per stage, labelled with its name
    QList<StageMark> m_marks;
    QAreaSeries *m_steady = nullptr; ///< the steady-state window, the chart's first series (drawn under the rest)
    std::optional<TimeSpan> m_steadyWindow;
    double m_endS = 0;
};

} // namespace tb
