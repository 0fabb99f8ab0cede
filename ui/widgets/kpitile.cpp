#include "widgets/kpitile.h"

#include <QLabel>
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
    setToolTip(QStringLiteral("<b>%1</b> — %2").arg(caption.toHtmlEscaped(), description.toHtmlEscaped()));
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
    setMinimumWidth(110);
}

void KpiTile::setValue(const QString &value, const QString &detail)
{
    m_value->setText(value);
    m_detail->setText(detail);
}

QString KpiTile::value() const
{
    return m_value->text();
}

QString KpiTile::detail() const
{
    return m_detail->text();
}

} // namespace tb
