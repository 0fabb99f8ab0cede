#include "widgets/kpitile.h"

#include <QLabel>
#include <QResizeEvent>
#include <QVBoxLayout>

namespace tb {

KpiTile::KpiTile(const QString &caption, const QString &unit, const QColor &accent, const QString &description,
                 QWidget *parent)
    : Card(parent)
    , m_caption(new QLabel(caption, this))
    , m_value(new QLabel(QStringLiteral("—"), this))
    , m_unit(new QLabel(unit, this))
    , m_detail(new QLabel(this))
{
    setObjectName(QStringLiteral("kpiTile"));
    m_description = QStringLiteral("<b>%1</b> — %2").arg(caption.toHtmlEscaped(), description.toHtmlEscaped());
    setToolTip(m_description);
    // The accent is a bar on the left, so the tile reads as belonging to its charts' series.
    setAccent(accent);
    m_caption->setObjectName(QStringLiteral("kpiCaption"));
    m_value->setObjectName(QStringLiteral("kpiValue"));
    m_detail->setObjectName(QStringLiteral("kpiDetail"));

    QFont captionFont = font();
    captionFont.setPointSizeF(captionFont.pointSizeF() * 0.85);
    m_caption->setFont(captionFont);
    const QColor muted(0x6b, 0x72, 0x80);
    setTextColor(m_caption, muted);
    QFont valueFont = font();
    valueFont.setPointSizeF(valueFont.pointSizeF() * 1.55);
    valueFont.setWeight(QFont::DemiBold);
    m_value->setFont(valueFont);
    setTextColor(m_value, QColor(0x11, 0x18, 0x27));
    m_unit->setFont(captionFont);
    setTextColor(m_unit, muted);
    m_detail->setFont(captionFont);
    setTextColor(m_detail, muted);
    // An empty detail keeps its line, so tiles in a row stay the same height.
    m_detail->setMinimumHeight(m_detail->fontMetrics().height());

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 6, 8, 6);
    layout->setSpacing(1);
    layout->addWidget(m_caption);
    auto *valueRow = new QHBoxLayout;
    valueRow->setSpacing(4);
    valueRow->addWidget(m_value, 0, Qt::AlignBaseline);
    valueRow->addWidget(m_unit, 1, Qt::AlignBaseline);
    layout->addLayout(valueRow);
    layout->addWidget(m_detail);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    // A row of tiles shares the window's width: a long value or detail (several runs' values, a
    // run's name) is elided to the tile, not allowed to widen the window past a laptop's screen.
    for (QLabel *label : {m_value, m_detail})
        label->setMinimumWidth(1);
    setMinimumWidth(110);
}

void KpiTile::setValue(const QString &value, const QString &detail)
{
    m_fullValue = value;
    m_fullDetail = detail;
    elide();
}

void KpiTile::appendToolTip(const QString &html)
{
    m_description += QStringLiteral("<br/>") + html;
    elide();
}

QString KpiTile::value() const
{
    return m_fullValue;
}

QString KpiTile::detail() const
{
    return m_fullDetail;
}

void KpiTile::resizeEvent(QResizeEvent *event)
{
    Card::resizeEvent(event);
    elide();
}

void KpiTile::elide()
{
    // The unit stays whole beside the value; names keep both ends (runs differ at either).
    const int valueRoom = contentsRect().width() - layout()->contentsMargins().left() -
                          layout()->contentsMargins().right() - m_unit->sizeHint().width() - 4;
    const int detailRoom =
        contentsRect().width() - layout()->contentsMargins().left() - layout()->contentsMargins().right();
    const QString value = m_value->fontMetrics().elidedText(m_fullValue, Qt::ElideRight, valueRoom);
    const QString detail = m_detail->fontMetrics().elidedText(m_fullDetail, Qt::ElideMiddle, detailRoom);
    m_value->setText(value);
    m_detail->setText(detail);
    const bool whole = value == m_fullValue && detail == m_fullDetail;
    setToolTip(whole ? m_description
                     : m_description + QStringLiteral("<br/>") +
                           QStringList{m_fullValue, m_fullDetail}.join(QStringLiteral("<br/>")).toHtmlEscaped());
}

} // namespace tb
