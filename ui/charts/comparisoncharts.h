#pragma once

#include "analysis/comparison.h"

#include <QChart>
#include <QColor>
#include <QList>

#include <vector>

class QValueAxis;

namespace tb {

/// Throughput–latency curves of staged runs: x the request rate each stage achieved, y its latency;
/// per run a solid p50 line and a dashed p99 line with a dot per stage, in the run's colour. A line
/// that turns steeply upwards marks a target past saturation.
class ThroughputLatencyChart : public QChart
{
    Q_OBJECT

public:
    struct Curve {
        QString name;
        QColor color;
        std::vector<CurvePoint> points;
    };

    explicit ThroughputLatencyChart(QGraphicsItem *parent = nullptr);

    /// What the y axis shows: "TTFT", "E2E".
    void setMetricLabel(const QString &label);
    void setCurves(const QList<Curve> &curves);
    bool hasData() const;

    QValueAxis *axisX() const { return m_x; }

private:
    void rebuild();

    QString m_label;
    QList<Curve> m_curves;
    QValueAxis *m_x;
    QValueAxis *m_y;
};

} // namespace tb
