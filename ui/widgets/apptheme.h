#pragma once

#include <QIcon>
#include <QPalette>
#include <QString>

#include <optional>

class QWidget;

namespace tb {

/// View ▸ Theme: the application's palette. System follows the desktop (a dark system palette
/// makes the charts and the dashboard dark too, chartstyle::screenTheme()); Light and Dark set a
/// palette of their own on the Fusion style, which draws every palette alike on every platform.
/// Whatever the screen shows, exports and reports stay in the light report look.
class AppTheme
{
public:
    enum class Setting { System, Light, Dark };

    static QString name(Setting setting); ///< "system" | "light" | "dark"
    static std::optional<Setting> fromName(const QString &name);

    /// Sets the application's style and palette for `setting`; every widget is told (PaletteChange)
    /// and the charts and cards restyle themselves, and every widget with a style sheet is polished
    /// again (Qt leaves it, and all under it, in the palette it had when first polished). Back to
    /// System restores the palette the application started with.
    static void apply(Setting setting);
    static QPalette darkPalette();
    /// Fusion's standard palette made readable: its selection, placeholders and the grey of its
    /// window left white text, hints and notes under 4.5:1 (WCAG AA).
    static QPalette lightPalette();
    /// Gives `widget` a style sheet written in the light look's colours; in the dark look each
    /// colour is its chartstyle::themed() counterpart, and apply() rewrites it on every change.
    static void setStyleSheet(QWidget *widget, const QString &lightSheet);
    /// A one-colour icon (the style's play and stop triangles are black) drawn in the button text
    /// colour of the palette at the time it is drawn: visible in either theme.
    static QIcon tinted(const QIcon &icon);
};

} // namespace tb
