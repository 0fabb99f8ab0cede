#include "widgets/card.h"

#include "models/quantitystyle.h"

#include <QEvent>
#include <QPainter>

namespace tb {

namespace {

constexpr int kAccentWidth = 4;

/// Keeps a colour chosen for the light look right in the other: re-applies its themed()
/// counterpart whenever the palette around the widget changes.
class ThemedColor : public QObject
{
public:
    ThemedColor(QWidget *widget, QPalette::ColorRole role)
        : QObject(widget)
        , m_widget(widget)
        , m_role(role)
    {
        setObjectName(nameFor(role));
        widget->installEventFilter(this);
    }

    static QString nameFor(QPalette::ColorRole role) { return QStringLiteral("tbThemedColor%1").arg(int(role)); }

    void setLight(const QColor &color)
    {
        m_light = color;
        apply();
    }

    bool eventFilter(QObject *, QEvent *event) override
    {
        if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange)
            apply();
        return false;
    }

private:
    void apply()
    {
        const QColor color = chartstyle::themed(m_light, chartstyle::screenTheme());
        QPalette palette = m_widget->palette();
        // Setting an unchanged colour would send another PaletteChange, and so on.
        if (palette.color(m_role) == color && palette.isBrushSet(palette.currentColorGroup(), m_role))
            return;
        palette.setColor(m_role, color);
        m_widget->setPalette(palette);
    }

    QWidget *m_widget;
    QPalette::ColorRole m_role;
    QColor m_light;
};

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
    painter.fillRect(r, chartstyle::surface());
    painter.setPen(chartstyle::gridLine());
    painter.drawRect(r.adjusted(0, 0, -1, -1));
    if (m_accent.isValid())
        painter.fillRect(QRect(r.left(), r.top(), kAccentWidth, r.height()), m_accent);
}

void setThemedColor(QWidget *widget, QPalette::ColorRole role, const QColor &light)
{
    auto *themed = static_cast<ThemedColor *>(
        widget->findChild<QObject *>(ThemedColor::nameFor(role), Qt::FindDirectChildrenOnly));
    if (!themed)
        themed = new ThemedColor(widget, role);
    themed->setLight(light);
}

void setTextColor(QWidget *widget, const QColor &color)
{
    setThemedColor(widget, QPalette::WindowText, color);
}

} // namespace tb
