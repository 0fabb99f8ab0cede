#pragma once

#include "charts/chartexporter.h"

#include <QChartView>
#include <QPointer>

class QLabel;

namespace tb {

/// A chart on screen: antialiased, with a message in place of empty axes until there is data,
/// tooltips that name the series under the pointer, say in one line what it measures and give the
/// value, and a context menu to export the chart (PNG, SVG, PDF) or copy it as an image.
class ChartView : public QChartView
{
    Q_OBJECT

public:
    explicit ChartView(QChart *chart, QWidget *parent = nullptr);

    /// Shown over the chart while `empty`.
    void setEmptyText(const QString &text);
    QString emptyText() const;
    void setEmpty(bool empty);
    bool isEmpty() const { return m_empty; }

    /// Takes the chart's title off the screen, where its tab and selector already name it, and
    /// keeps it for exports (and the export's file name); call after each update that sets it.
    void moveTitleToExports();
    /// The chart's title, on screen or kept for exports.
    QString title() const;

    /// The run name under an exported chart's title.
    void setExportSubtitle(const QString &subtitle) { m_subtitle = subtitle; }
    /// What was measured (RunInfo::workloadCaption), as an exported figure's caption.
    void setExportCaption(const QString &caption) { m_caption = caption; }
    /// What every export of this chart draws: subtitle and caption, and the empty text in place of
    /// bare axes while the chart is empty.
    ChartExporter::Options exportOptions(ChartExporter::Page page = ChartExporter::Page::Slide) const;

    /// Hooks tooltips to series, bar sets and legend markers added since the last call (charts
    /// change their series as data arrives; call after updating the chart).
    void updateTooltips();

public Q_SLOTS:
    /// Asks for a file (PNG, SVG or PDF by its suffix) without a nested event loop, then exports.
    void exportChart();
    void copyImage();

Q_SIGNALS:
    /// An export wrote `path`, or failed with `error` (then path is empty).
    void exported(const QString &path, const QString &error);

protected:
    void contextMenuEvent(QContextMenuEvent *event) override;
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void applyScreenTheme();
    void showTip(const QString &name, const QString &description, const QString &value);

    QLabel *m_emptyLabel;
    QString m_title; ///< the title moved off the screen
    QString m_subtitle;
    QString m_caption;
    bool m_empty = false;
};

} // namespace tb
