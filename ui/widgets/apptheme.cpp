#include "widgets/apptheme.h"

#include "config/enumnames.h"

#include "models/quantitystyle.h"

#include <QApplication>
#include <QIconEngine>
#include <QPainter>
#include <QStyle>
#include <QStyleFactory>

#include <memory>
#include <utility>

namespace tb {

namespace {

struct Startup {
    QPalette palette;
    QString style;
};

/// What the application had before the first apply(): the desktop's palette and style.
const Startup &startup()
{
    static const Startup s{QApplication::palette(), QApplication::style()->name()};
    return s;
}

void setStyle(const QString &name)
{
    if (QApplication::style()->name().compare(name, Qt::CaseInsensitive) != 0)
        QApplication::setStyle(QStyleFactory::create(name));
}

class TintedIconEngine : public QIconEngine
{
public:
    explicit TintedIconEngine(QIcon icon)
        : m_icon(std::move(icon))
    {}

    QIconEngine *clone() const override { return new TintedIconEngine(m_icon); }

    void paint(QPainter *painter, const QRect &rect, QIcon::Mode mode, QIcon::State state) override
    {
        painter->drawPixmap(rect, pixmap(rect.size() * painter->device()->devicePixelRatioF(), mode, state));
    }

    QPixmap pixmap(const QSize &size, QIcon::Mode mode, QIcon::State state) override
    {
        QPixmap shape = m_icon.pixmap(size, QIcon::Normal, state);
        QPainter painter(&shape);
        painter.setCompositionMode(QPainter::CompositionMode_SourceIn);
        const QPalette::ColorGroup group = mode == QIcon::Disabled ? QPalette::Disabled : QPalette::Active;
        painter.fillRect(shape.rect(), QApplication::palette().color(group, QPalette::ButtonText));
        return shape;
    }

private:
    QIcon m_icon;
};

constexpr EnumName<AppTheme::Setting> kSettingNames[] = {
    {AppTheme::Setting::System, "system"},
    {AppTheme::Setting::Light, "light"},
    {AppTheme::Setting::Dark, "dark"},
};

} // namespace

QString AppTheme::name(Setting setting)
{
    return enumName(kSettingNames, setting);
}

std::optional<AppTheme::Setting> AppTheme::fromName(const QString &name)
{
    return enumFromName<Setting>(kSettingNames, name.toLower());
}

void AppTheme::apply(Setting setting)
{
    startup();
    switch (setting) {
    case Setting::System:
        setStyle(startup().style);
        QApplication::setPalette(startup().palette);
        break;
    case Setting::Light:
        setStyle(QStringLiteral("Fusion"));
        QApplication::setPalette(lightPalette());
        break;
    case Setting::Dark:
        setStyle(QStringLiteral("Fusion"));
        QApplication::setPalette(darkPalette());
        break;
    }
}

QPalette AppTheme::lightPalette()
{
    std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
    return fusion ? fusion->standardPalette() : QPalette(Qt::white);
}

QPalette AppTheme::darkPalette()
{
    using chartstyle::Theme;
    const QColor text = chartstyle::primaryText(Theme::Dark);
    const QColor window(0x1e, 0x21, 0x26);
    const QColor base = chartstyle::surface(Theme::Dark);
    const QColor button(0x2b, 0x2f, 0x36);
    const QColor disabled(0x6b, 0x72, 0x80);
    QPalette p;
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x2a, 0x2e, 0x35));
    p.setColor(QPalette::ToolTipBase, button);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x8b, 0x93, 0xa0));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, button);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Light, QColor(0x3a, 0x3f, 0x47));
    p.setColor(QPalette::Midlight, QColor(0x33, 0x38, 0x3f));
    p.setColor(QPalette::Mid, QColor(0x25, 0x28, 0x2e));
    p.setColor(QPalette::Dark, QColor(0x14, 0x16, 0x19));
    p.setColor(QPalette::Shadow, QColor(0x0a, 0x0b, 0x0d));
    p.setColor(QPalette::Highlight, QColor(0x2f, 0x6f, 0xd0));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x6e, 0xa8, 0xfe));
    p.setColor(QPalette::LinkVisited, QColor(0xb3, 0x9d, 0xdb));
    for (const QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabled);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x3a, 0x3f, 0x47));
    return p;
}

QIcon AppTheme::tinted(const QIcon &icon)
{
    return QIcon(new TintedIconEngine(icon));
}

} // namespace tb
