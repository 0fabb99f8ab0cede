#include "charts/twoscalechart.h"

#include "charts/chartstyle.h"

#include <QAbstractSeries>
#include <QValueAxis>

namespace tb {

TwoScaleChart::TwoScaleChart(QAbstractAxis *bottom, const QString &title, const QString &leftTitle,
                             const QString &rightTitle, QGraphicsItem *parent)
    : QChart(parent)
    , m_bottom(bottom)
    , m_left(new QValueAxis(this))
    , m_right(new QValueAxis(this))
{
    chartstyle::applyTheme(this);
    setTitle(title);
    m_left->setTitleText(leftTitle);
    m_right->setTitleText(rightTitle);
    addAxis(m_bottom, Qt::AlignBottom);
    addAxis(m_left, Qt::AlignLeft);
    addAxis(m_right, Qt::AlignRight);
    for (QAbstractAxis *axis : axes())
        chartstyle::styleAxis(axis);
    m_right->setGridLineVisible(false);
}

void TwoScaleChart::addScaledSeries(QAbstractSeries *series, QValueAxis *scale)
{
    addSeries(series);
    series->attachAxis(m_bottom);
    series->attachAxis(scale);
}

void TwoScaleChart::fitScales(double leftMax, double rightMax)
{
    chartstyle::setNiceRange(m_left, 0, leftMax > 0 ? leftMax * 1.1 : 1, 4);
    chartstyle::setNiceRange(m_right, 0, rightMax > 0 ? rightMax * 1.1 : 1, 4);
}

} // namespace tb
