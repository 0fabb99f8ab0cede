#include "widgets/apptheme.h"

#include "config/enumnames.h"

#include "models/quantitystyle.h"

#include <QApplication>
#include <QIconEngine>
#include <QPainter>
#include <QRegularExpression>
#include <QStyle>
#include <QStyleFactory>
#include <QWidget>

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

namespace {

const char kLightStyleSheet[] = "tbLightStyleSheet";

/// `sheet` with each #rrggbb colour replaced by its counterpart in `theme`.
QString themedStyleSheet(QString sheet, chartstyle::Theme theme)
{
    static const QRegularExpression hex(QStringLiteral("#[0-9a-fA-F]{6}\\b"));
    qsizetype from = 0;
    for (QRegularExpressionMatch m = hex.match(sheet); m.hasMatch(); m = hex.match(sheet, from)) {
        const QString color = chartstyle::themed(QColor(m.captured()), theme).name();
        sheet.replace(m.capturedStart(), m.capturedLength(), color);
        from = m.capturedStart() + color.size();
    }
    return sheet;
}

/// Polishes again every widget with a style sheet, in the new palette and with its colours themed.
void restyle()
{
    const chartstyle::Theme theme = chartstyle::screenTheme();
    const QWidgetList widgets = QApplication::allWidgets();
    for (QWidget *widget : widgets) {
        const QVariant light = widget->property(kLightStyleSheet);
        if (light.isValid())
            widget->setStyleSheet(themedStyleSheet(light.toString(), theme));
        else if (!widget->styleSheet().isEmpty())
            widget->setStyleSheet(widget->styleSheet());
    }
}

} // namespace

void AppTheme::setStyleSheet(QWidget *widget, const QString &lightSheet)
{
    widget->setProperty(kLightStyleSheet, lightSheet);
    // Only when it changes: a style sheet is re-applied (and the widget re-polished) on every set.
    const QString sheet = themedStyleSheet(lightSheet, chartstyle::screenTheme());
    if (widget->styleSheet() != sheet)
        widget->setStyleSheet(sheet);
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
    restyle();
}

QPalette AppTheme::lightPalette()
{
    using chartstyle::Theme;
    std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
    QPalette p = fusion ? fusion->standardPalette() : QPalette(Qt::white);
    const QColor window = chartstyle::themed(QColor(0xf4, 0xf5, 0xf7), Theme::Light); // the dashboard's page
    const QColor selection = chartstyle::themed(QColor(0x1f, 0x5f, 0xae), Theme::Light);
    const QColor hint = chartstyle::themed(QColor(0x5f, 0x66, 0x72), Theme::Light);
    for (const QPalette::ColorGroup group : {QPalette::Active, QPalette::Inactive}) {
        p.setColor(group, QPalette::Window, window);
        p.setColor(group, QPalette::Highlight, selection);
        p.setColor(group, QPalette::HighlightedText, Qt::white);
        p.setColor(group, QPalette::PlaceholderText, hint);
    }
    return p;
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
    p.setColor(QPalette::PlaceholderText, chartstyle::themed(QColor(0x5f, 0x66, 0x72), Theme::Dark));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, button);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Light, QColor(0x3a, 0x3f, 0x47));
    p.setColor(QPalette::Midlight, QColor(0x33, 0x38, 0x3f));
    p.setColor(QPalette::Mid, QColor(0x25, 0x28, 0x2e));
    p.setColor(QPalette::Dark, QColor(0x14, 0x16, 0x19));
    p.setColor(QPalette::Shadow, QColor(0x0a, 0x0b, 0x0d));
    p.setColor(QPalette::Highlight, chartstyle::themed(QColor(0x1f, 0x5f, 0xae), Theme::Dark));
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
