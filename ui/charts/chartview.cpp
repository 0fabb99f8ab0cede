#include "charts/chartview.h"

#include "charts/chartexporter.h"
#include "charts/chartstyle.h"
#include "widgets/folderdialog.h"

#include "formats/numberformat.h"

#include <QAbstractAxis>
#include <QAbstractBarSeries>
#include <QApplication>
#include <QAreaSeries>
#include <QBarCategoryAxis>
#include <QBarLegendMarker>
#include <QBarSet>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QMenu>
#include <QRegularExpression>
#include <QToolTip>
#include <QXYSeries>

namespace tb {

namespace {

const char kHooked[] = "tbTooltipHooked";

/// "TTFT (ms)" → "ms"; "req/s" → "req/s".
QString unitOf(const QAbstractAxis *axis)
{
    if (!axis)
        return {};
    const QString title = axis->titleText();
    static const QRegularExpression inParens(QStringLiteral("\\(([^)]*)\\)\\s*$"));
    const QRegularExpressionMatch m = inParens.match(title);
    return m.hasMatch() ? m.captured(1) : title;
}

QAbstractAxis *attached(QAbstractSeries *series, Qt::Orientation orientation)
{
    for (QAbstractAxis *axis : series->attachedAxes()) {
        if (axis->orientation() == orientation && axis->type() != QAbstractAxis::AxisTypeCategory)
            return axis;
    }
    return nullptr;
}

bool claim(QObject *object)
{
    if (object->property(kHooked).toBool())
        return false;
    object->setProperty(kHooked, true);
    return true;
}

QString fileSlug(const QString &title)
{
    QString slug = title.toLower();
    slug.replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")), QStringLiteral("-"));
    slug.remove(QRegularExpression(QStringLiteral("^-+|-+$")));
    return slug.isEmpty() ? QStringLiteral("chart") : slug;
}

} // namespace

ChartView::ChartView(QChart *chart, QWidget *parent)
    : QChartView(chart, parent)
    , m_emptyLabel(new QLabel(this))
{
    setRenderHint(QPainter::Antialiasing);
    setMinimumSize(280, 200);
    m_emptyLabel->setObjectName(QStringLiteral("chartEmptyText"));
    m_emptyLabel->setAlignment(Qt::AlignCenter);
    m_emptyLabel->setWordWrap(true);
    m_emptyLabel->setAutoFillBackground(true);
    applyScreenTheme();
    m_emptyLabel->setMargin(12);
    m_emptyLabel->hide();
    updateTooltips();
}

void ChartView::setEmptyText(const QString &text)
{
    m_emptyLabel->setText(QStringLiteral("<p style='color:%1; font-weight:600'>%2</p><p>%3</p>")
                              .arg(chartstyle::primaryText().name(), title().toHtmlEscaped(), text.toHtmlEscaped()));
    m_emptyLabel->setProperty("plainText", text);
}

void ChartView::applyScreenTheme()
{
    const chartstyle::Theme theme = chartstyle::screenTheme();
    chartstyle::applyColors(chart(), theme);
    setBackgroundBrush(chartstyle::surface(theme));
    QPalette palette = m_emptyLabel->palette();
    palette.setColor(QPalette::Window, chartstyle::surface(theme));
    palette.setColor(QPalette::WindowText, chartstyle::themed(QColor(0x6b, 0x72, 0x80), theme));
    m_emptyLabel->setPalette(palette);
    if (!emptyText().isEmpty())
        setEmptyText(emptyText());
}

void ChartView::changeEvent(QEvent *event)
{
    QChartView::changeEvent(event);
    // The system's palette changed (or View ▸ Theme did): the chart follows the window around it.
    if (event->type() == QEvent::PaletteChange)
        applyScreenTheme();
}

QString ChartView::emptyText() const
{
    return m_emptyLabel->property("plainText").toString();
}

void ChartView::setEmpty(bool empty)
{
    if (empty == m_empty && m_emptyLabel->isVisible() == empty)
        return;
    m_empty = empty;
    // The label covers the chart rather than the chart being hidden: a hidden QChart lays its
    // axes and legend out at zero size and shows "..." labels when it comes back.
    m_emptyLabel->setVisible(empty);
    if (empty)
        m_emptyLabel->raise();
}

void ChartView::resizeEvent(QResizeEvent *event)
{
    QChartView::resizeEvent(event);
    m_emptyLabel->setGeometry(rect());
}

void ChartView::updateTooltips()
{
    QChart *c = chart();
    for (QAbstractSeries *series : c->series()) {
        if (!claim(series))
            continue;
        if (auto *xy = qobject_cast<QXYSeries *>(series)) {
            connect(xy, &QXYSeries::hovered, this, [this, xy](const QPointF &p, bool on) {
                if (!on)
                    return;
                const QString value = QStringLiteral("%1 %2 at %3 %4")
                                          .arg(formatNumber(p.y()), unitOf(attached(xy, Qt::Vertical)),
                                               formatNumber(p.x()), unitOf(attached(xy, Qt::Horizontal)));
                showTip(xy->name(), chartstyle::description(xy), value);
            });
        } else if (auto *area = qobject_cast<QAreaSeries *>(series)) {
            connect(area, &QAreaSeries::hovered, this, [this, area](const QPointF &p, bool on) {
                if (on)
                    showTip(
                        area->name(), chartstyle::description(area),
                        QStringLiteral("at %1 %2").arg(formatNumber(p.x()), unitOf(attached(area, Qt::Horizontal))));
            });
        } else if (auto *bars = qobject_cast<QAbstractBarSeries *>(series)) {
            for (QBarSet *set : bars->barSets()) {
                connect(set, &QBarSet::hovered, this, [this, bars, set](bool on, int index) {
                    if (!on)
                        return;
                    QString category;
                    for (QAbstractAxis *axis : bars->attachedAxes()) {
                        if (auto *categories = qobject_cast<QBarCategoryAxis *>(axis))
                            category = categories->at(index);
                    }
                    showTip(set->label(), chartstyle::description(set),
                            QStringLiteral("%1: %2").arg(category, formatNumber(set->at(index))));
                });
            }
        }
    }
    for (QLegendMarker *marker : c->legend()->markers()) {
        if (!claim(marker))
            continue;
        connect(marker, &QLegendMarker::hovered, this, [this, marker](bool on) {
            if (!on)
                return;
            QString description = chartstyle::description(marker->series());
            if (auto *bar = qobject_cast<QBarLegendMarker *>(marker))
                description = chartstyle::description(bar->barset());
            showTip(marker->label(), description, {});
        });
    }
}

void ChartView::showTip(const QString &name, const QString &description, const QString &value)
{
    QString html = QStringLiteral("<b>%1</b>").arg(name.toHtmlEscaped());
    if (!description.isEmpty())
        html += QStringLiteral(" — %1").arg(description.toHtmlEscaped());
    if (!value.isEmpty())
        html += QStringLiteral("<br>%1").arg(value.toHtmlEscaped());
    QToolTip::showText(QCursor::pos(), html, this);
}

void ChartView::contextMenuEvent(QContextMenuEvent *event)
{
    auto *menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    menu->addAction(tr("Export Chart…"), this, &ChartView::exportChart);
    menu->addAction(tr("Copy Chart Image"), this, &ChartView::copyImage);
    menu->popup(event->globalPos());
}

void ChartView::exportChart()
{
    askForSaveFile(this, tr("Export Chart"), fileSlug(title()) + QStringLiteral(".png"), ChartExporter::fileFilter(),
                   [this](const QString &path) {
                       QString error;
                       if (ChartExporter::save(chart(), path, exportOptions(), &error))
                           Q_EMIT exported(path, {});
                       else
                           Q_EMIT exported({}, error);
                   });
}

void ChartView::copyImage()
{
    QApplication::clipboard()->setImage(ChartExporter::toImage(chart(), exportOptions()));
}

void ChartView::moveTitleToExports()
{
    if (chart()->title().isEmpty())
        return;
    m_title = chart()->title();
    chart()->setTitle({});
}

QString ChartView::title() const
{
    return chart()->title().isEmpty() ? m_title : chart()->title();
}

ChartExporter::Options ChartView::exportOptions(ChartExporter::Page page) const
{
    ChartExporter::Options options;
    options.page = page;
    options.title = title();
    options.subtitle = m_subtitle;
    options.caption = m_caption;
    if (m_empty)
        options.emptyText = emptyText();
    return options;
}

} // namespace tb
