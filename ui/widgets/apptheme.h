#pragma once

#include <QIcon>
#include <QPalette>
#include <QString>

#include <optional>

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
    /// and the charts and cards restyle themselves. Back to System restores the palette the
    /// application started with.
    static void apply(Setting setting);
    static QPalette darkPalette();
    static QPalette lightPalette();
    /// A one-colour icon (the style's play and stop triangles are black) drawn in the button text
    /// colour of the palette at the time it is drawn: visible in either theme.
    static QIcon tinted(const QIcon &icon);
};

} // namespace tb
