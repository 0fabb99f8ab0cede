#pragma once

#include <QColor>
#include <QWidget>

namespace tb {

/// A panel in the theme's surface colour (white in the light theme) with a quiet border, optionally with a coloured bar
/// along its left edge: what the dashboard's tiles and charts sit on. Painted directly — a style sheet would make every
/// repaint of a live dashboard go through the (slow) style-sheet engine.
class Card : public QWidget
{
    Q_OBJECT

public:
    explicit Card(QWidget *parent = nullptr);

    void setAccent(const QColor &color);
    QColor accent() const { return m_accent; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QColor m_accent;
};

/// Sets a colour of a widget's palette as the light look has it; in the dark look the widget gets
/// its chartstyle::themed() counterpart, and follows when the theme changes.
void setThemedColor(QWidget *widget, QPalette::ColorRole role, const QColor &light);
/// Sets a label's text colour through its palette (cheaper to paint than a style sheet), themed.
void setTextColor(QWidget *widget, const QColor &color);

} // namespace tb
