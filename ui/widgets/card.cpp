#include "widgets/card.h"

#include <QPainter>

namespace tb {

namespace {

constexpr int kAccentWidth = 4;
const QColor kBorder(0xe5, 0xe7, 0xeb);

} // namespace

Card::Card(QWidget *parent)
    : QWidget(parent)
{
    setAttribute(Qt::WA_OpaquePaintEvent);
}

void Card::setAccent(const QColor &color)
{
    m_accent = color;
    update();
}

void Card::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    const QRect r = rect();
    painter.fillRect(r, Qt::white);
    painter.setPen(kBorder);
    painter.drawRect(r.adjusted(0, 0, -1, -1));
    if (m_accent.isValid())
        painter.fillRect(QRect(r.left(), r.top(), kAccentWidth, r.height()), m_accent);
}

void setTextColor(QWidget *widget, const QColor &color)
{
    QPalette palette = widget->palette();
    palette.setColor(QPalette::WindowText, color);
    widget->setPalette(palette);
}

} // namespace tb
