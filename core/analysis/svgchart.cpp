#include "analysis/svgchart.h"

#include <QStringList>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace tb {

namespace {

// The report theme: the GUI's light chart theme (ui/charts/chartstyle.cpp) in SVG.
constexpr char kText[] = "#1f2937";
constexpr char kMuted[] = "#4b5563";
constexpr char kGrid[] = "#e5e7eb";
constexpr char kAxis[] = "#9ca3af";
constexpr char kFont[] = "'DejaVu Sans', 'Segoe UI', 'Helvetica Neue', Helvetica, Arial, sans-serif";
constexpr double kCharWidth = 0.6; ///< estimated average glyph width, in em

constexpr std::array<const char *, 8> kRunColors{
    "#1f6fd1", // blue
    "#e8710a", // orange
    "#1a9e5a", // green
    "#c2185b", // magenta
    "#6a3fb5", // purple
    "#0f8b8d", // teal
    "#8d6e00", // ochre
    "#5f6b7a", // slate
};

QString num(double v)
{
    // One decimal is a tenth of a pixel: finer adds bytes, not precision.
    QString text = QString::number(std::round(v * 10) / 10, 'f', 1);
    if (text.endsWith(QLatin1String(".0")))
        text.chop(2);
    return text == QLatin1String("-0") ? QStringLiteral("0") : text;
}

double textWidth(const QString &text, double fontSize)
{
    return double(text.size()) * fontSize * kCharWidth;
}

QString textElement(double x, double y, const QString &text, const QString &attributes)
{
    return QStringLiteral("<text x=\"%1\" y=\"%2\" %3>%4</text>\n").arg(num(x), num(y), attributes, xmlEscaped(text));
}

QString lineElement(double x1, double y1, double x2, double y2)
{
    return QStringLiteral("<line x1=\"%1\" y1=\"%2\" x2=\"%3\" y2=\"%4\"/>\n").arg(num(x1), num(y1), num(x2), num(y2));
}

QString strokeStyle(const SvgChart::Series &s)
{
    return QStringLiteral("stroke=\"%1\" stroke-width=\"2\" fill=\"none\" stroke-linejoin=\"round\" "
                          "stroke-linecap=\"round\"%2")
        .arg(xmlEscaped(s.color), s.dashed ? QStringLiteral(" stroke-dasharray=\"7 5\"") : QString());
}

struct Range {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -std::numeric_limits<double>::infinity();
    void add(double v)
    {
        if (std::isfinite(v)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    }
    bool valid() const { return lo <= hi; }
};

} // namespace

QString runColor(int index)
{
    return QLatin1String(kRunColors[std::size_t(std::max(0, index)) % kRunColors.size()]);
}

NiceAxis NiceAxis::from(double lo, double hi, int maxTicks)
{
    if (!std::isfinite(lo) || !std::isfinite(hi) || !(hi > lo)) {
        lo = std::isfinite(lo) ? lo : 0;
        hi = lo + (lo == 0 ? 1 : std::abs(lo) * 0.1);
    }
    const double raw = (hi - lo) / std::max(1, maxTicks);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double norm = raw / magnitude;
    const double step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * magnitude;
    NiceAxis axis;
    axis.step = step;
    // A small tolerance keeps a bound that is already round from growing a whole step.
    axis.min = std::floor(lo / step + 1e-9) * step;
    axis.max = std::ceil(hi / step - 1e-9) * step;
    if (!(axis.max > axis.min))
        axis.max = axis.min + step;
    return axis;
}

int NiceAxis::decimals() const
{
    // Bounded before the conversion: a step of inf, 0 or NaN (from numbers out of a file) would
    // make it undefined.
    const double digits = -std::floor(std::log10(step) + 1e-9);
    return digits > 0 ? int(std::min(digits, 20.0)) : 0;
}

QString NiceAxis::label(double value) const
{
    return QString::number(std::abs(value) < step * 1e-6 ? 0.0 : value, 'f', decimals());
}

QString xmlEscaped(const QString &text)
{
    QString out;
    out.reserve(text.size());
    for (const QChar c : text) {
        switch (c.unicode()) {
        case '&':
            out += QLatin1String("&amp;");
            break;
        case '<':
            out += QLatin1String("&lt;");
            break;
        case '>':
            out += QLatin1String("&gt;");
            break;
        case '"':
            out += QLatin1String("&quot;");
            break;
        case '\'':
            out += QLatin1String("&#39;");
            break;
        default:
            // Control characters are not allowed in XML 1.0.
            if (c.unicode() >= 0x20 || c == QLatin1Char('\n') || c == QLatin1Char('\t'))
                out += c;
        }
    }
    return out;
}

SvgChart::SvgChart(const QString &id, const QString &title, const QString &xTitle, const QString &yTitle)
    : m_id(id)
    , m_title(title)
    , m_xTitle(xTitle)
    , m_yTitle(yTitle)
{}

void SvgChart::setSize(int width, int height)
{
    m_width = std::max(320, width);
    m_height = std::max(200, height);
}

bool SvgChart::hasData() const
{
    return std::any_of(m_series.begin(), m_series.end(), [](const Series &s) {
        return std::any_of(s.points.begin(), s.points.end(),
                           [](const QPointF &p) { return std::isfinite(p.x()) && std::isfinite(p.y()); });
    });
}

QString SvgChart::toSvg() const
{
    const double w = m_width;
    const double h = m_height;
    const QString id = xmlEscaped(m_id);
    QString svg;
    svg += QStringLiteral("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%1\" height=\"%2\" viewBox=\"0 0 %1 %2\" "
                          "role=\"img\" aria-labelledby=\"%3-title\" font-family=\"%4\" class=\"chart\">\n")
               .arg(num(w), num(h), id, QLatin1String(kFont));
    svg += QStringLiteral("<title id=\"%1-title\">%2</title>\n").arg(id, xmlEscaped(m_title));
    svg += QStringLiteral("<rect width=\"%1\" height=\"%2\" fill=\"#ffffff\"/>\n").arg(num(w), num(h));

    // Title.
    const double y = 26;
    svg += textElement(16, y, m_title,
                       QStringLiteral("font-size=\"16\" font-weight=\"bold\" fill=\"%1\"").arg(QLatin1String(kText)));

    // Legend: swatch and name, wrapped into rows.
    constexpr double kLegendFont = 12;
    constexpr double kSwatch = 24;
    QString legend;
    double lx = 16;
    double ly = y + 22;
    bool anyLegend = false;
    for (const Series &s : m_series) {
        if (!s.inLegend)
            continue;
        const double itemWidth = kSwatch + 6 + textWidth(s.name, kLegendFont) + 18;
        if (anyLegend && lx + itemWidth > w - 16) {
            lx = 16;
            ly += 18;
        }
        anyLegend = true;
        legend += QStringLiteral("<line x1=\"%1\" y1=\"%2\" x2=\"%3\" y2=\"%2\" %4/>\n")
                      .arg(num(lx), num(ly - 4), num(lx + kSwatch), strokeStyle(s));
        if (s.markers)
            legend += QStringLiteral("<circle cx=\"%1\" cy=\"%2\" r=\"3.5\" fill=\"%3\"/>\n")
                          .arg(num(lx + kSwatch / 2), num(ly - 4), xmlEscaped(s.color));
        legend += textElement(lx + kSwatch + 6, ly, s.name,
                              QStringLiteral("font-size=\"12\" fill=\"%1\"").arg(QLatin1String(kText)));
        lx += itemWidth;
    }
    svg += legend;

    // Axes from the data (or the fixed ranges).
    Range xs;
    Range ys;
    for (const Series &s : m_series) {
        for (const QPointF &p : s.points) {
            if (std::isfinite(p.x()) && std::isfinite(p.y())) {
                xs.add(p.x());
                ys.add(p.y());
            }
        }
    }
    if (m_xRange) {
        xs.lo = m_xRange->x();
        xs.hi = m_xRange->y();
    }
    if (m_yRange) {
        ys.lo = m_yRange->x();
        ys.hi = m_yRange->y();
    } else if (ys.valid()) {
        ys.lo = std::min(0.0, ys.lo); // amounts start at zero, or their differences mislead
    }
    const NiceAxis ax = xs.valid() ? NiceAxis::from(xs.lo, xs.hi) : NiceAxis::from(0, 1);
    const NiceAxis ay = ys.valid() ? NiceAxis::from(ys.lo, ys.hi, 5) : NiceAxis::from(0, 1, 5);

    // The plot area: room for the y tick labels and title on the left, the x ticks, title and
    // footnote below.
    std::size_t longestY = 0;
    for (double v = ay.min; v <= ay.max + ay.step / 2; v += ay.step)
        longestY = std::max(longestY, std::size_t(ay.label(v).size()));
    const double left = 16 + 18 + double(longestY) * 11 * kCharWidth + 10;
    const double right = w - 24;
    const double top = (anyLegend ? ly : y) + 18;
    const double bottom = h - 50 - (m_footnote.isEmpty() ? 0 : 18);
    const auto px = [&](double v) { return left + (v - ax.min) / (ax.max - ax.min) * (right - left); };
    const auto py = [&](double v) { return bottom - (v - ay.min) / (ay.max - ay.min) * (bottom - top); };

    svg += QStringLiteral("<defs><clipPath id=\"%1-plot\"><rect x=\"%2\" y=\"%3\" width=\"%4\" height=\"%5\"/>"
                          "</clipPath></defs>\n")
               .arg(id, num(left), num(top - 2), num(right - left), num(bottom - top + 4));

    // Grid, axes, ticks.
    QString grid = QStringLiteral("<g stroke=\"%1\" stroke-width=\"1\">\n").arg(QLatin1String(kGrid));
    QString labels = QStringLiteral("<g font-size=\"11\" fill=\"%1\">\n").arg(QLatin1String(kMuted));
    for (double v = ax.min; v <= ax.max + ax.step / 2; v += ax.step) {
        grid += lineElement(px(v), top, px(v), bottom);
        labels += textElement(px(v), bottom + 16, ax.label(v), QStringLiteral("text-anchor=\"middle\""));
    }
    for (double v = ay.min; v <= ay.max + ay.step / 2; v += ay.step) {
        grid += lineElement(left, py(v), right, py(v));
        labels += textElement(left - 6, py(v) + 4, ay.label(v), QStringLiteral("text-anchor=\"end\""));
    }
    svg += grid + QStringLiteral("</g>\n") + labels + QStringLiteral("</g>\n");
    svg += QStringLiteral("<g stroke=\"%1\" stroke-width=\"1\">\n").arg(QLatin1String(kAxis)) +
           lineElement(left, bottom, right, bottom) + lineElement(left, top, left, bottom) + QStringLiteral("</g>\n");
    svg += textElement((left + right) / 2, bottom + 36, m_xTitle,
                       QStringLiteral("font-size=\"12\" text-anchor=\"middle\" fill=\"%1\"").arg(QLatin1String(kText)));
    svg += QStringLiteral("<text transform=\"translate(%1 %2) rotate(-90)\" font-size=\"12\" text-anchor=\"middle\" "
                          "fill=\"%3\">%4</text>\n")
               .arg(num(22), num((top + bottom) / 2), QLatin1String(kText), xmlEscaped(m_yTitle));
    if (!m_footnote.isEmpty())
        svg += textElement(16, h - 12, m_footnote,
                           QStringLiteral("font-size=\"11\" fill=\"%1\"").arg(QLatin1String(kMuted)));

    // The data, clipped to the plot area.
    svg += QStringLiteral("<g clip-path=\"url(#%1-plot)\">\n").arg(id);
    for (const Series &s : m_series) {
        QStringList run;
        QString markers;
        const auto flush = [&] {
            if (run.size() >= 2)
                svg += QStringLiteral("<polyline points=\"%1\" %2/>\n").arg(run.join(QLatin1Char(' ')), strokeStyle(s));
            run.clear();
        };
        for (const QPointF &p : s.points) {
            if (!std::isfinite(p.x()) || !std::isfinite(p.y())) {
                flush();
                continue;
            }
            run << num(px(p.x())) + QLatin1Char(',') + num(py(p.y()));
            if (s.markers)
                markers +=
                    QStringLiteral("<circle cx=\"%1\" cy=\"%2\" r=\"3.5\"/>").arg(num(px(p.x())), num(py(p.y())));
        }
        flush();
        if (!markers.isEmpty())
            svg += QStringLiteral("<g fill=\"%1\">%2</g>\n").arg(xmlEscaped(s.color), markers);
    }
    svg += QStringLiteral("</g>\n");
    if (!hasData())
        svg += textElement(
            (left + right) / 2, (top + bottom) / 2, QStringLiteral("No data"),
            QStringLiteral("font-size=\"13\" text-anchor=\"middle\" fill=\"%1\"").arg(QLatin1String(kMuted)));
    svg += QStringLiteral("</svg>\n");
    return svg;
}

} // namespace tb
