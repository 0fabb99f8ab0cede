#include "views/exportdialog.h"

#include "charts/chartview.h"
#include "models/summarymodel.h"
#include "views/rundocument.h"
#include "widgets/apptheme.h"
#include "widgets/exportfolder.h"
#include "widgets/folderdialog.h"

#include "config/inputfile.h"
#include "results/runfiles.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QVBoxLayout>

namespace tb {

namespace {

bool writeFile(const QString &path, const QByteArray &content, QString *error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(content) != content.size() || !file.commit()) {
        *error = QStringLiteral("%1: %2").arg(QDir::toNativeSeparators(path), file.errorString());
        return false;
    }
    return true;
}

} // namespace

ExportDialog::ExportDialog(RunDocument *document, const QList<DashboardView::ChartEntry> &charts,
                           SummaryTableModel *summary, QWidget *parent)
    : QDialog(parent)
    , m_document(document)
    , m_charts(charts)
    , m_summary(summary)
    , m_folder(new QLineEdit(this))
    , m_requests(new QCheckBox(tr("Requests (requests.csv)"), this))
    , m_timeSeries(new QCheckBox(tr("Time series (timeseries.csv)"), this))
    , m_summaryBox(new QCheckBox(tr("Summary table (summary.csv)"), this))
    , m_format(new QComboBox(this))
    , m_page(new QComboBox(this))
    , m_status(new QLabel(this))
{
    setObjectName(QStringLiteral("exportDialog"));
    setWindowTitle(tr("Export %1").arg(document->name()));
    m_folder->setObjectName(QStringLiteral("exportFolder"));
    // A folder of its own in the one remembered export folder: exporting another run there later
    // does not overwrite this one's files.
    const QString runName = QFileInfo(document->directory()).fileName();
    m_folder->setText(ExportFolder::filePath(runName.isEmpty() ? QStringLiteral("export") : runName));
    auto *browse = new QPushButton(tr("Browse…"), this);
    browse->setObjectName(QStringLiteral("exportBrowse"));
    auto *folderRow = new QHBoxLayout;
    folderRow->addWidget(m_folder, 1);
    folderRow->addWidget(browse);

    auto *data = new QGroupBox(tr("Data (CSV)"), this);
    auto *dataLayout = new QVBoxLayout(data);
    for (QCheckBox *box : {m_requests, m_timeSeries, m_summaryBox}) {
        box->setChecked(true);
        dataLayout->addWidget(box);
    }
    m_requests->setObjectName(QStringLiteral("exportRequests"));
    m_timeSeries->setObjectName(QStringLiteral("exportTimeSeries"));
    m_summaryBox->setObjectName(QStringLiteral("exportSummary"));

    auto *chartGroup = new QGroupBox(tr("Charts"), this);
    auto *chartLayout = new QGridLayout(chartGroup);
    for (qsizetype i = 0; i < charts.size(); ++i) {
        auto *box = new QCheckBox(charts[i].view->chart()->title(), chartGroup);
        box->setObjectName(QStringLiteral("exportChart-%1").arg(charts[i].key));
        box->setChecked(true);
        m_chartBoxes << box;
        chartLayout->addWidget(box, int(i) / 2, int(i) % 2);
    }
    m_format->setObjectName(QStringLiteral("exportFormat"));
    m_format->addItem(tr("PNG image"), int(ChartExporter::Format::Png));
    m_format->addItem(tr("SVG drawing"), int(ChartExporter::Format::Svg));
    m_format->addItem(tr("PDF document"), int(ChartExporter::Format::Pdf));
    m_page->setObjectName(QStringLiteral("exportPage"));
    m_page->addItem(tr("Slide (16:9)"), int(ChartExporter::Page::Slide));
    m_page->addItem(tr("A4 page (landscape)"), int(ChartExporter::Page::A4));
    auto *formatRow = new QHBoxLayout;
    formatRow->addWidget(new QLabel(tr("Format:"), chartGroup));
    formatRow->addWidget(m_format);
    formatRow->addSpacing(12);
    formatRow->addWidget(new QLabel(tr("Size:"), chartGroup));
    formatRow->addWidget(m_page);
    formatRow->addStretch();
    chartLayout->addLayout(formatRow, int(charts.size() + 1) / 2, 0, 1, 2);

    m_status->setObjectName(QStringLiteral("exportStatus"));
    m_status->setWordWrap(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton *exportButton = buttons->addButton(tr("&Export"), QDialogButtonBox::AcceptRole);
    exportButton->setObjectName(QStringLiteral("exportButton"));
    exportButton->setDefault(true);

    auto *form = new QFormLayout;
    form->addRow(tr("Folder:"), folderRow);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(data);
    layout->addWidget(chartGroup);
    layout->addWidget(m_status);
    layout->addWidget(buttons);

    connect(browse, &QPushButton::clicked, this, &ExportDialog::chooseFolder);
    connect(exportButton, &QPushButton::clicked, this, &ExportDialog::run);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

void ExportDialog::setFolder(const QString &folder)
{
    m_folder->setText(folder);
}

QString ExportDialog::folder() const
{
    return m_folder->text().trimmed();
}

void ExportDialog::setFormat(ChartExporter::Format format)
{
    m_format->setCurrentIndex(m_format->findData(int(format)));
}

void ExportDialog::chooseFolder()
{
    askForFolder(this, tr("Export Folder"), ExportFolder::path(), QStringLiteral("exportFolderDialog"),
                 [this](const QString &folder) {
                     ExportFolder::remember(folder);
                     setFolder(folder);
                 });
}

bool ExportDialog::exportRequests(const RunDocument &document, const QString &path, QString *error)
{
    const QString source = QDir(document.directory()).filePath(QLatin1String(runfiles::kRequestsCsv));
    QString why;
    const auto bytes = readInputFile(source, runfiles::kMaxRequestsCsvBytes, &why);
    if (!bytes) {
        *error = tr("%1: %2").arg(QDir::toNativeSeparators(source), why);
        return false;
    }
    return writeFile(path, *bytes, error);
}

bool ExportDialog::exportTimeSeries(const RunDocument &document, const QString &path, QString *error)
{
    return writeFile(path, QByteArray::fromStdString(runfiles::timeSeriesCsv(document.timeSeries(), document.stages())),
                     error);
}

bool ExportDialog::exportSummary(const SummaryTableModel &summary, const QString &path, QString *error)
{
    return writeFile(path, summary.toCsv(), error);
}

QStringList ExportDialog::exportSelected(QString *error)
{
    QStringList written;
    const QDir dir(folder());
    if (folder().isEmpty() || !QDir().mkpath(dir.path())) {
        *error = tr("Cannot create the folder %1").arg(QDir::toNativeSeparators(folder()));
        return written;
    }
    const auto step = [&](bool enabled, const QString &name, const auto &write) {
        if (!enabled || !error->isEmpty())
            return;
        const QString path = dir.filePath(name);
        if (write(path))
            written << path;
    };
    error->clear();
    step(m_requests->isChecked(), QLatin1String(runfiles::kRequestsCsv),
         [&](const QString &path) { return exportRequests(*m_document, path, error); });
    step(m_timeSeries->isChecked(), QLatin1String(runfiles::kTimeSeriesCsv),
         [&](const QString &path) { return exportTimeSeries(*m_document, path, error); });
    step(m_summaryBox->isChecked(), QStringLiteral("summary.csv"),
         [&](const QString &path) { return exportSummary(*m_summary, path, error); });
    const auto format = ChartExporter::Format(m_format->currentData().toInt());
    const auto page = ChartExporter::Page(m_page->currentData().toInt());
    for (qsizetype i = 0; i < m_charts.size(); ++i) {
        step(m_chartBoxes[i]->isChecked(), m_charts[i].key + QLatin1Char('.') + ChartExporter::suffix(format),
             [&](const QString &path) {
                 return ChartExporter::save(m_charts[i].view->chart(), path, m_charts[i].view->exportOptions(page),
                                            error);
             });
    }
    return written;
}

void ExportDialog::run()
{
    QString error;
    const QStringList written = exportSelected(&error);
    if (!error.isEmpty()) {
        AppTheme::setStyleSheet(m_status, QStringLiteral("color: #c62828;"));
        m_status->setText(error);
        return;
    }
    AppTheme::setStyleSheet(m_status, QStringLiteral("color: #2e7d32;"));
    m_status->setText(
        tr("Wrote %n file(s) to %1", nullptr, int(written.size())).arg(QDir::toNativeSeparators(folder())));
    Q_EMIT exported(written);
}

} // namespace tb
