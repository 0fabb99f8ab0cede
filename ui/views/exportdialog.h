#pragma once

#include "charts/chartexporter.h"
#include "views/dashboardview.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;

namespace tb {

class RunDocument;
class SummaryTableModel;

/// File → Export (Ctrl+E): the run's data as CSV (requests, time series, summary) and any of the
/// dashboard's charts as report-ready PNG, SVG or PDF, into one folder: by default one named after
/// the run in the remembered export folder (ExportFolder), which Browse starts in and changes.
/// Opened with open(): no nested event loop.
class ExportDialog : public QDialog
{
    Q_OBJECT

public:
    ExportDialog(RunDocument *document, const QList<DashboardView::ChartEntry> &charts, SummaryTableModel *summary,
                 QWidget *parent = nullptr);

    void setFolder(const QString &folder);
    QString folder() const;
    void setFormat(ChartExporter::Format format);
    void setPage(ChartExporter::Page page);

    /// Writes what is ticked into folder(); the paths written. Stops at the first failure with
    /// *error.
    QStringList exportSelected(QString *error);

    /// requests.csv exactly as the run wrote it.
    static bool exportRequests(const RunDocument &document, const QString &path, QString *error);
    /// timeseries.csv's format, from what the document holds (a live run: so far).
    static bool exportTimeSeries(const RunDocument &document, const QString &path, QString *error);
    static bool exportSummary(const SummaryTableModel &summary, const QString &path, QString *error);

Q_SIGNALS:
    void exported(const QStringList &paths);

private:
    void run();
    void chooseFolder();

    RunDocument *m_document;
    QList<DashboardView::ChartEntry> m_charts;
    SummaryTableModel *m_summary;
    QLineEdit *m_folder;
    QCheckBox *m_requests;
    QCheckBox *m_timeSeries;
    QCheckBox *m_summaryBox;
    QList<QCheckBox *> m_chartBoxes;
    QComboBox *m_format;
    QComboBox *m_page;
    QLabel *m_status;
};

} // namespace tb
