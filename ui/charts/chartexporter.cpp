#include "charts/chartexporter.h"

#include "config/enumnames.h"

#include "charts/chartstyle.h"

#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QDateTimeAxis>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QHash>
#include <QHorizontalBarSeries>
#include <QHorizontalPercentBarSeries>
#include <QHorizontalStackedBarSeries>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QPdfWriter>
#include <QPercentBarSeries>
#include <QRegularExpression>
#include <QSaveFile>
#include <QScatterSeries>
#include <QSplineSeries>
#include <QStackedBarSeries>
#include <QSvgGenerator>
#include <QValueAxis>

#include "tokenbench/version.h"

#include <QBuffer>

#include <memory>

namespace tb {

namespace {

/// Reports are read from further away than a dashboard tile: larger type.
qreal fontScale(ChartExporter::Page page)
{
    return page == ChartExporter::Page::Slide ? 1.6 : 1.7;
}

QAbstractAxis *copyAxis(QAbstractAxis *from)
{
    QAbstractAxis *to = nullptr;
    switch (from->type()) {
    case QAbstractAxis::AxisTypeValue: {
        auto *a = static_cast<QValueAxis *>(from);
        auto *b = new QValueAxis;
        b->setTickType(a->tickType());
        b->setTickAnchor(a->tickAnchor());
        b->setTickInterval(a->tickInterval());
        b->setTickCount(a->tickCount());
        b->setMinorTickCount(a->minorTickCount());
        b->setLabelFormat(a->labelFormat());
        b->setRange(a->min(), a->max());
        to = b;
        break;
    }
    case QAbstractAxis::AxisTypeLogValue: {
        auto *a = static_cast<QLogValueAxis *>(from);
        auto *b = new QLogValueAxis;
        b->setBase(a->base());
        b->setMinorTickCount(a->minorTickCount());
        b->setLabelFormat(a->labelFormat());
        b->setRange(a->min(), a->max());
        to = b;
        break;
    }
    case QAbstractAxis::AxisTypeCategory: {
        auto *a = static_cast<QCategoryAxis *>(from);
        auto *b = new QCategoryAxis;
        b->setStartValue(a->startValue());
        b->setLabelsPosition(a->labelsPosition());
        for (const QString &label : a->categoriesLabels())
            b->append(label, a->endValue(label));
        b->setRange(a->min(), a->max());
        to = b;
        break;
    }
    case QAbstractAxis::AxisTypeBarCategory: {
        auto *a = static_cast<QBarCategoryAxis *>(from);
        auto *b = new QBarCategoryAxis;
        b->append(a->categories());
        to = b;
        break;
    }
    case QAbstractAxis::AxisTypeDateTime: {
        auto *a = static_cast<QDateTimeAxis *>(from);
        auto *b = new QDateTimeAxis;
        b->setFormat(a->format());
        b->setTickCount(a->tickCount());
        b->setRange(a->min(), a->max());
        to = b;
        break;
    }
    default:
        return nullptr;
    }
    to->setTitleText(from->titleText());
    to->setVisible(from->isVisible());
    to->setLabelsVisible(from->labelsVisible());
    to->setLabelsAngle(from->labelsAngle());
    return to;
}

/// After the theme: the source's own pens (e.g. dashed stage boundaries) and visibility.
void copyAxisLook(QAbstractAxis *from, QAbstractAxis *to)
{
    to->setLineVisible(from->isLineVisible());
    to->setLinePen(from->linePen());
    to->setGridLineVisible(from->isGridLineVisible());
    to->setGridLinePen(from->gridLinePen());
}

void copyXyLook(QXYSeries *from, QXYSeries *to, qreal scale)
{
    to->replace(from->points());
    to->setPen(from->pen());
    to->setBrush(from->brush());
    to->setPointsVisible(from->pointsVisible());
    to->setMarkerSize(from->markerSize());
    to->setPointLabelsVisible(from->pointLabelsVisible());
    to->setPointLabelsFormat(from->pointLabelsFormat());
    to->setPointLabelsColor(from->pointLabelsColor());
    QFont font = from->pointLabelsFont();
    font.setPointSizeF(font.pointSizeF() * scale);
    to->setPointLabelsFont(font);
}

QAbstractBarSeries *newBarSeries(QAbstractSeries::SeriesType type)
{
    switch (type) {
    case QAbstractSeries::SeriesTypeBar:
        return new QBarSeries;
    case QAbstractSeries::SeriesTypeStackedBar:
        return new QStackedBarSeries;
    case QAbstractSeries::SeriesTypePercentBar:
        return new QPercentBarSeries;
    case QAbstractSeries::SeriesTypeHorizontalBar:
        return new QHorizontalBarSeries;
    case QAbstractSeries::SeriesTypeHorizontalStackedBar:
        return new QHorizontalStackedBarSeries;
    case QAbstractSeries::SeriesTypeHorizontalPercentBar:
        return new QHorizontalPercentBarSeries;
    default:
        return nullptr;
    }
}

/// A copy of one series with its data and look; null for kinds the exporter does not copy.
QAbstractSeries *copySeries(QAbstractSeries *from, qreal scale)
{
    QAbstractSeries *to = nullptr;
    switch (from->type()) {
    case QAbstractSeries::SeriesTypeLine:
    case QAbstractSeries::SeriesTypeSpline:
    case QAbstractSeries::SeriesTypeScatter: {
        QXYSeries *xy = nullptr;
        if (from->type() == QAbstractSeries::SeriesTypeLine)
            xy = new QLineSeries;
        else if (from->type() == QAbstractSeries::SeriesTypeSpline)
            xy = new QSplineSeries;
        else
            xy = new QScatterSeries;
        copyXyLook(static_cast<QXYSeries *>(from), xy, scale);
        if (const auto *scatter = qobject_cast<QScatterSeries *>(from))
            static_cast<QScatterSeries *>(xy)->setMarkerShape(scatter->markerShape());
        to = xy;
        break;
    }
    case QAbstractSeries::SeriesTypeArea: {
        auto *a = static_cast<QAreaSeries *>(from);
        auto *upper = new QLineSeries;
        upper->replace(a->upperSeries()->points());
        QLineSeries *lower = nullptr;
        if (a->lowerSeries()) {
            lower = new QLineSeries;
            lower->replace(a->lowerSeries()->points());
        }
        auto *b = new QAreaSeries(upper, lower);
        upper->setParent(b);
        if (lower)
            lower->setParent(b);
        b->setPen(a->pen());
        b->setBrush(a->brush());
        b->setPointsVisible(a->pointsVisible());
        to = b;
        break;
    }
    default: {
        auto *a = qobject_cast<QAbstractBarSeries *>(from);
        QAbstractBarSeries *b = a ? newBarSeries(from->type()) : nullptr;
        if (!b)
            return nullptr;
        b->setBarWidth(a->barWidth());
        b->setLabelsVisible(a->isLabelsVisible());
        b->setLabelsFormat(a->labelsFormat());
        b->setLabelsPosition(a->labelsPosition());
        b->setLabelsPrecision(a->labelsPrecision());
        for (QBarSet *set : a->barSets()) {
            auto *copy = new QBarSet(set->label());
            for (int i = 0; i < set->count(); ++i)
                copy->append(set->at(i));
            copy->setPen(set->pen());
            copy->setBrush(set->brush());
            copy->setLabelColor(set->labelColor());
            b->append(copy);
        }
        to = b;
        break;
    }
    }
    to->setName(from->name());
    to->setVisible(from->isVisible());
    to->setOpacity(from->opacity());
    return to;
}

QString titleHtml(const QString &title, const QString &subtitle, qreal scale)
{
    if (subtitle.isEmpty())
        return title;
    return QStringLiteral("%1<br><span style='font-size:%2pt; font-weight:normal; color:#6b7280'>%3</span>")
        .arg(title.toHtmlEscaped())
        .arg(8 * scale, 0, 'f', 1)
        .arg(subtitle.toHtmlEscaped());
}

/// A chart ready to draw: the report copy in a scene of its own, or (for charts the exporter
/// cannot copy) the chart itself where it is.
struct Prepared {
    std::unique_ptr<QGraphicsScene> ownScene;
    QGraphicsScene *scene = nullptr;
    QRectF source;
    QString title;
};

Prepared prepare(const QChart *chart, const ChartExporter::Options &options)
{
    Prepared p;
    p.title = options.title.isEmpty() ? chart->title() : options.title;
    if (QChart *copy = ChartExporter::reportCopy(chart, options)) {
        p.ownScene = std::make_unique<QGraphicsScene>();
        p.ownScene->addItem(copy); // the scene owns and deletes it
        p.scene = p.ownScene.get();
        p.source = copy->sceneBoundingRect();
    } else {
        p.scene = chart->scene();
        p.source = chart->sceneBoundingRect();
    }
    return p;
}

void draw(const Prepared &p, QPainter *painter, const QRectF &target)
{
    painter->fillRect(target, Qt::white);
    if (p.scene)
        p.scene->render(painter, target, p.source, Qt::KeepAspectRatio);
}

QByteArray withSansFallback(const QByteArray &svg)
{
    static const QRegularExpression family(QStringLiteral("font-family=\"([^\"]*)\""));
    QString text = QString::fromUtf8(svg);
    text.replace(family, QStringLiteral("font-family=\"\\1, DejaVu Sans, Helvetica, Arial, sans-serif\""));
    return text.toUtf8();
}

bool fail(QString *error, const QString &text)
{
    if (error)
        *error = text;
    return false;
}

constexpr EnumName<ChartExporter::Format> kSuffixes[] = {
    {ChartExporter::Format::Png, "png"},
    {ChartExporter::Format::Svg, "svg"},
    {ChartExporter::Format::Pdf, "pdf"},
};

} // namespace

QString ChartExporter::fileFilter()
{
    return QObject::tr("PNG image (*.png);;SVG drawing (*.svg);;PDF document (*.pdf)");
}

std::optional<ChartExporter::Format> ChartExporter::formatOf(const QString &path)
{
    return enumFromName<Format>(kSuffixes, QFileInfo(path).suffix().toLower());
}

QString ChartExporter::suffix(Format format)
{
    return enumName(kSuffixes, format);
}

QSizeF ChartExporter::logicalSize(Page page)
{
    // A4 landscape inside 5 mm margins (287 × 200 mm) at 96 px per inch.
    return page == Page::Slide ? QSizeF(1280, 720) : QSizeF(1085, 756);
}

qreal ChartExporter::pixelRatio(Page page)
{
    return page == Page::Slide ? 1.5 : 2.0;
}

QChart *ChartExporter::reportCopy(const QChart *chart, const Options &options)
{
    const qreal scale = fontScale(options.page);
    auto copy = std::make_unique<QChart>();
    chartstyle::applyTheme(copy.get(), scale, chartstyle::Theme::Light);
    copy->setMargins(QMargins(16, 12, 20, 12));
    copy->setTitle(titleHtml(options.title.isEmpty() ? chart->title() : options.title, options.subtitle, scale));
    copy->legend()->setVisible(chart->legend()->isVisible());
    copy->legend()->setAlignment(chart->legend()->alignment());

    QHash<const QAbstractAxis *, QAbstractAxis *> axes;
    for (QAbstractAxis *from : chart->axes()) {
        QAbstractAxis *to = copyAxis(from);
        if (!to)
            return nullptr;
        copy->addAxis(to, from->alignment());
        chartstyle::styleAxis(to, scale, chartstyle::Theme::Light);
        copyAxisLook(from, to);
        axes.insert(from, to);
    }
    for (QAbstractSeries *from : chart->series()) {
        QAbstractSeries *to = copySeries(from, scale);
        if (!to)
            return nullptr;
        copy->addSeries(to);
        for (QAbstractAxis *axis : from->attachedAxes())
            to->attachAxis(axes.value(axis));
        if (!chartstyle::isInLegend(from))
            chartstyle::setInLegend(copy.get(), to, false);
    }
    // A chart on a dark screen copies its dark axis pens and point labels: back to the report's.
    chartstyle::applyColors(copy.get(), chartstyle::Theme::Light);
    // The on-screen legend may draw some entries its own way (bar sets as filled squares: "from
    // series" draws them as empty boxes): the same entries, the same shapes.
    const QList<QLegendMarker *> shown = chart->legend()->markers();
    const QList<QLegendMarker *> copied = copy->legend()->markers();
    for (qsizetype i = 0; i < std::min(shown.size(), copied.size()); ++i)
        copied[i]->setShape(shown[i]->shape());
    const QSizeF page = logicalSize(options.page);
    if (!options.emptyText.isEmpty()) {
        // An empty chart says why, as on screen, instead of showing bare axes.
        for (QAbstractAxis *axis : copy->axes())
            axis->setVisible(false);
        copy->legend()->setVisible(false);
        auto *text = new QGraphicsSimpleTextItem(options.emptyText, copy.get());
        text->setFont(chartstyle::reportFont(11, scale));
        text->setBrush(QColor(0x4b, 0x55, 0x63));
        text->setPos((page.width() - text->boundingRect().width()) / 2,
                     (page.height() - text->boundingRect().height()) / 2);
    }
    if (!options.caption.isEmpty()) {
        // Under the plot, left-aligned like a figure caption; the chart leaves it room.
        auto *caption = new QGraphicsSimpleTextItem(options.caption, copy.get());
        caption->setFont(chartstyle::reportFont(7, scale));
        caption->setBrush(QColor(0x4b, 0x55, 0x63));
        const qreal height = caption->boundingRect().height();
        QMargins margins = copy->margins();
        margins.setBottom(margins.bottom() + int(height) + 6);
        copy->setMargins(margins);
        caption->setPos(16, page.height() - height - 8);
    }
    // Laid out last: a margin set after the resize waits for an event loop the exporter does not
    // run, and the axis title would be drawn over the caption.
    copy->resize(page);
    return copy.release();
}

QImage ChartExporter::toImage(const QChart *chart, const Options &options)
{
    const Prepared p = prepare(chart, options);
    const QSizeF logical = logicalSize(options.page);
    const qreal ratio = pixelRatio(options.page);
    QImage image((logical * ratio).toSize(), QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    draw(p, &painter, QRectF(QPointF(), QSizeF(image.size())));
    return image;
}

bool ChartExporter::save(const QChart *chart, const QString &path, const Options &options, QString *error)
{
    const std::optional<Format> format = formatOf(path);
    if (!format)
        return fail(error, QObject::tr("%1: unknown format (use .png, .svg or .pdf)").arg(path));
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return fail(error, QObject::tr("%1: %2").arg(path, file.errorString()));

    const QSizeF logical = logicalSize(options.page);
    switch (*format) {
    case Format::Png:
        if (!toImage(chart, options).save(&file, "PNG"))
            return fail(error, QObject::tr("%1: cannot encode the image").arg(path));
        break;
    case Format::Svg: {
        const Prepared p = prepare(chart, options);
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        if (options.page == Page::A4) {
            // The PDF's page: A4 landscape, 297 × 210 mm (whole at 254 dpi), the drawing centred
            // in its 5 mm margins. (The default 72 dpi declared 382.8 × 266.7 mm.)
            constexpr qreal kPxPerMm = 96 / 25.4;
            const QSizeF a4(297 * kPxPerMm, 210 * kPxPerMm);
            svg.setResolution(254);
            svg.setSize(QSize(2970, 2100));
            svg.setViewBox(
                QRectF(QPointF((logical.width() - a4.width()) / 2, (logical.height() - a4.height()) / 2), a4));
        } else {
            // CSS pixels (96 per inch): a browser shows the slide 1280 px wide, as the PNG.
            svg.setResolution(96);
            svg.setSize(logical.toSize());
            svg.setViewBox(QRectF(QPointF(), logical));
        }
        svg.setTitle(p.title);
        svg.setDescription(options.subtitle.isEmpty() ? QStringLiteral("TokenBench %1").arg(version())
                                                      : options.subtitle);
        QPainter painter;
        if (!painter.begin(&svg))
            return fail(error, QObject::tr("%1: cannot write SVG").arg(path));
        draw(p, &painter, QRectF(QPointF(), logical));
        painter.end();
        // QSvgGenerator names one family (Qt's "Sans Serif" alias, which no browser knows, so it
        // falls back to a serif): name a list that ends in the generic family.
        file.write(withSansFallback(buffer.data()));
        break;
    }
    case Format::Pdf: {
        const Prepared p = prepare(chart, options);
        QPdfWriter pdf(&file);
        pdf.setTitle(p.title);
        pdf.setCreator(QStringLiteral("TokenBench %1").arg(version()));
        pdf.setResolution(300);
        const QPageSize size = options.page == Page::A4 ? QPageSize(QPageSize::A4)
                                                        : QPageSize(QSizeF(254, 142.875), QPageSize::Millimeter,
                                                                    QStringLiteral("Slide 16:9"));
        pdf.setPageLayout(QPageLayout(size, options.page == Page::A4 ? QPageLayout::Landscape : QPageLayout::Portrait,
                                      QMarginsF(5, 5, 5, 5), QPageLayout::Millimeter));
        QPainter painter;
        if (!painter.begin(&pdf))
            return fail(error, QObject::tr("%1: cannot write PDF").arg(path));
        draw(p, &painter, QRectF(QPointF(), QSizeF(pdf.pageLayout().paintRectPixels(pdf.resolution()).size())));
        painter.end();
        break;
    }
    }
    if (!file.commit())
        return fail(error, QObject::tr("%1: %2").arg(path, file.errorString()));
    return true;
}

} // namespace tb
