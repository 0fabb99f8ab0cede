#pragma once

#include "metrics/loghistogram.h"

#include <QChart>
#include <QColor>
#include <QList>
#include <QPointF>

#include <utility>

class QAbstractSeries;
class QLineSeries;
class QValueAxis;

namespace tb {

/// One distribution to draw: a run's (or a stage's) histogram of one metric.
struct DistributionSeries {
    QString name;
    LogHistogram histogram;
    QColor color;
    bool dashed = false;
};

/// A latency distribution as a histogram or a CDF, from LogHistograms (summary.json carries them
/// whole, so saved runs draw exactly like live ones). Several series overlay — the comparison view
/// puts runs side by side this way; a single series also gets its p50 and p99 marked.
///
/// The x axis spans the lowest p0.1 to the highest p99.9 of the series, widened to round numbers:
/// a few outliers must not squeeze the body of the distribution into one bar. In the histogram
/// the rarer values beyond fall into the first and last bins.
class DistributionChart : public QChart
{
    Q_OBJECT

public:
    enum class Mode { Histogram, Cdf };
    static constexpr int kBins = 40;

    explicit DistributionChart(QGraphicsItem *parent = nullptr);

    void setMode(Mode mode);
    Mode mode() const { return m_mode; }
    /// What is plotted: "TTFT", its unit ("ms"), its one-line description, and what one value is
    /// ("requests"; "tokens" for ITL) for the y axis.
    void setQuantity(const QString &label, const QString &unit, const QString &description,
                     const QString &perWhat = tr("requests"));
    void setDistributions(const QList<DistributionSeries> &series);
    const QList<DistributionSeries> &distributions() const { return m_series; }
    bool hasData() const;

    QValueAxis *axisX() const { return m_x; }

    /// [lowest p0.1, highest p99.9] of the non-empty series; {NaN, NaN} when all are empty.
    static std::pair<double, double> displayRange(const QList<DistributionSeries> &series);
    /// The outline of a histogram over [lo, hi] in `bins` equal bins, y in % of the values (the
    /// values outside fall into the first and last bin), as a step line starting and ending at 0.
    static QList<QPointF> histogramOutline(const LogHistogram &histogram, double lo, double hi, int bins);
    /// (value, % of values ≤ value), one point per non-empty bucket, starting at (min, 0).
    static QList<QPointF> cdfPoints(const LogHistogram &histogram);

private:
    void rebuild();
    /// The y title whole where the plot is tall enough for it, else its short form.
    void fitYTitle();
    /// Creates the series for the current mode and distributions (only when these change, so a
    /// live update does not recreate legend entries five times a second).
    void createSeries();

    Mode m_mode = Mode::Cdf;
    QString m_label;
    QString m_unit;
    QString m_description;
    QString m_perWhat;
    QList<DistributionSeries> m_series;
    QValueAxis *m_x;
    QValueAxis *m_y;
    QStringList m_shape;              ///< mode and series names the current series were made for
    QList<QAbstractSeries *> m_drawn; ///< one per non-empty distribution
    QLineSeries *m_median = nullptr;  ///< p50 and p99 marks of a single distribution
    QLineSeries *m_tail = nullptr;
};

} // namespace tb
