#pragma once

#include <QChart>

class QAbstractAxis;
class QAbstractSeries;
class QValueAxis;

namespace tb {

/// A themed chart with one axis along the bottom and two value scales: the left one with grid
/// lines, the right one (for what is measured in another unit) without, both ranged to round
/// numbers from zero. What the token and turn charts share; a derived chart adds its series with
/// addScaledSeries() and says after each update whether it had something to draw.
class TwoScaleChart : public QChart
{
    Q_OBJECT

public:
    bool hasData() const { return m_hasData; }

protected:
    /// Applies the theme first (applied later it would repaint the series in its own colours),
    /// then adds and styles `bottom` (the chart takes it) and the two scales.
    TwoScaleChart(QAbstractAxis *bottom, const QString &title, const QString &leftTitle, const QString &rightTitle,
                  QGraphicsItem *parent);

    QAbstractAxis *bottomAxis() const { return m_bottom; }
    QValueAxis *leftScale() const { return m_left; }
    QValueAxis *rightScale() const { return m_right; }
    /// Adds a series drawn against the bottom axis and `scale` (leftScale() or rightScale()).
    void addScaledSeries(QAbstractSeries *series, QValueAxis *scale);
    /// Ranges each scale from zero to a tenth above its largest value ([0, 1] when there is none).
    void fitScales(double leftMax, double rightMax);

    bool m_hasData = false;

private:
    QAbstractAxis *m_bottom;
    QValueAxis *m_left;
    QValueAxis *m_right;
};

} // namespace tb
