#include "models/runhistorymodel.h"

#include "analysis/baseline.h"

#include "models/quantitystyle.h"
#include "results/rundirectory.h"

#include <QColor>
#include <QDir>
#include <QFileInfo>
#include <QFont>

#include <cmath>

namespace tb {

namespace {

QString canonical(const QString &directory)
{
    const QString c = QFileInfo(directory).canonicalFilePath();
    return c.isEmpty() ? QDir::cleanPath(QFileInfo(directory).absoluteFilePath()) : c;
}

} // namespace

RunHistoryModel::RunHistoryModel(QObject *parent)
    : QAbstractTableModel(parent)
{
    m_pool.setMaxThreadCount(1);
}

RunHistoryModel::~RunHistoryModel()
{
    m_pool.clear();
    m_pool.waitForDone();
}

void RunHistoryModel::setFolder(const QString &folder)
{
    if (folder == m_folder)
        return;
    m_folder = folder;
    refresh();
}

void RunHistoryModel::addDirectory(const QString &directory)
{
    const QString dir = canonical(directory);
    if (!m_extra.contains(dir))
        m_extra << dir;
    refresh();
}

void RunHistoryModel::setExcluded(const QString &directory)
{
    m_excluded = directory.isEmpty() ? QString() : canonical(directory);
}

RunHistoryModel::Entry RunHistoryModel::readEntry(const QString &directory, const RunSummary *baseline,
                                                  const QString &baselineDirectory)
{
    Entry e;
    e.directory = canonical(directory);
    e.name = QDir(directory).dirName();
    e.ttftP50Ms = std::nan("");
    QString error;
    const std::optional<RunData> run = RunReader::load(directory, &error, RunReader::SummaryOnly);
    if (!run) {
        e.problem = error;
        e.started = QFileInfo(directory).lastModified();
        return e;
    }
    const RunSummary &s = run->summary;
    e.model = s.model.isEmpty() ? run->info.config.target.model : s.model;
    e.started = QDateTime::fromString(s.startedAt, Qt::ISODateWithMs);
    if (!e.started.isValid())
        e.started = run->hasInfo ? run->info.startedAt : QFileInfo(directory).lastModified();
    e.requestsPerS = s.total.throughput.requestsPerS;
    if (s.total.stat(Metric::Ttft).count > 0)
        e.ttftP50Ms = s.total.stat(Metric::Ttft).p50;
    e.attempted = s.total.requests.attempted;
    e.failed = s.total.requests.failed;
    e.instances = std::max(1, int(s.instances.size()));
    e.baseline = !baselineDirectory.isEmpty() && e.directory == canonical(baselineDirectory);
    if (baseline && !e.baseline) {
        const Baseline::Change change = Baseline::change(s, *baseline);
        e.change = change.text();
        e.changeDirection = change.direction();
    }
    return e;
}

void RunHistoryModel::refresh()
{
    if (m_scanning) {
        m_rescan = true; // the folder may have changed while it was read: once more after this
        return;
    }
    m_scanning = true;
    const QString folder = m_folder;
    QStringList extra = m_extra;
    const QString excluded = m_excluded;
    const QString baselineDirectory = Baseline::directory();
    m_pool.start([this, folder, extra, excluded, baselineDirectory] {
        // The baseline's summary once per scan; each run's change is computed against it.
        std::optional<RunData> baseline;
        if (!baselineDirectory.isEmpty()) {
            QString ignored;
            baseline = RunReader::load(baselineDirectory, &ignored, RunReader::SummaryOnly);
        }
        QStringList directories;
        if (!folder.isEmpty()) {
            const QFileInfoList dirs = QDir(folder).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
            for (const QFileInfo &info : dirs) {
                if (RunReader::isRunDirectory(info.filePath()))
                    directories << canonical(info.filePath());
            }
        }
        for (const QString &dir : extra) {
            if (!directories.contains(dir))
                directories << dir;
        }
        QList<Entry> entries;
        for (const QString &dir : std::as_const(directories)) {
            if (dir != excluded)
                entries << readEntry(dir, baseline ? &baseline->summary : nullptr, baselineDirectory);
        }
        // Newest first: the run just made is at the top.
        std::stable_sort(entries.begin(), entries.end(),
                         [](const Entry &a, const Entry &b) { return a.started > b.started; });
        QMetaObject::invokeMethod(
            this,
            [this, entries] {
                m_scanning = false;
                setEntries(entries);
                Q_EMIT refreshed();
                if (std::exchange(m_rescan, false))
                    refresh();
            },
            Qt::QueuedConnection);
    });
}

void RunHistoryModel::setEntries(QList<Entry> entries)
{
    beginResetModel();
    m_entries = std::move(entries);
    endResetModel();
}

int RunHistoryModel::rowOf(const QString &directory) const
{
    const QString dir = canonical(directory);
    for (qsizetype i = 0; i < m_entries.size(); ++i) {
        if (m_entries[i].directory == dir)
            return int(i);
    }
    return -1;
}

int RunHistoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

int RunHistoryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunHistoryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Entry &e = m_entries.at(index.row());
    if (role == DirectoryRole)
        return e.directory;
    if (role == InstancesRole)
        return e.instances;
    if (role == Qt::FontRole && e.baseline && index.column() == NameColumn) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    if (role == Qt::ToolTipRole) {
        if (!e.problem.isEmpty())
            return e.problem;
        if (index.column() == BaselineColumn && !e.change.isEmpty())
            return tr("Against the baseline run: %1").arg(e.change);
        return QStringLiteral("%1\n%2").arg(QDir::toNativeSeparators(e.directory),
                                            e.started.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")));
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() >= RequestsPerSColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                                                    : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole) {
        if (!e.problem.isEmpty())
            return QColor(0x9c, 0xa3, 0xaf);
        if (index.column() == BaselineColumn && e.changeDirection != 0)
            return e.changeDirection > 0 ? QColor(0x2e, 0x7d, 0x32) : QColor(0xc6, 0x28, 0x28);
        if (index.column() == ErrorsColumn && e.failed > 0)
            return QColor(0xc6, 0x28, 0x28);
        return {};
    }
    const bool sort = role == SortRole;
    if (role != Qt::DisplayRole && !sort)
        return {};
    const bool readable = e.problem.isEmpty();
    switch (Column(index.column())) {
    case NameColumn:
        return e.name;
    case ModelColumn:
        return readable ? e.model : tr("(unreadable)");
    case DateColumn: {
        if (sort)
            return e.started;
        // The year only when it is not this one: the list is narrow, and the name matters more.
        const QDateTime local = e.started.toLocalTime();
        return local.toString(local.date().year() == QDate::currentDate().year() ? QStringLiteral("MM-dd HH:mm")
                                                                                 : QStringLiteral("yyyy-MM-dd HH:mm"));
    }
    case RequestsPerSColumn:
        return sort       ? QVariant(e.requestsPerS)
               : readable ? QVariant(chartstyle::formatNumber(e.requestsPerS))
                          : QVariant();
    case TtftP50Column:
        return sort       ? QVariant(std::isnan(e.ttftP50Ms) ? -1.0 : e.ttftP50Ms)
               : readable ? QVariant(chartstyle::formatMs(e.ttftP50Ms))
                          : QVariant();
    case ErrorsColumn:
        if (sort)
            return e.failed;
        if (!readable)
            return {};
        return e.attempted > 0 && e.failed > 0 ? QStringLiteral("%1 (%2)").arg(e.failed).arg(
                                                     chartstyle::formatPercent(double(e.failed) / double(e.attempted)))
                                               : QString::number(e.failed);
    case BaselineColumn:
        if (e.baseline)
            return tr("baseline");
        return sort ? QVariant(e.changeDirection) : QVariant(e.change);
    case ColumnCount:
        break;
    }
    return {};
}

QVariant RunHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole) {
        static const char *const titles[ColumnCount] = {
            QT_TR_NOOP("Run"),      QT_TR_NOOP("Model"),  QT_TR_NOOP("Date"),       QT_TR_NOOP("req/s"),
            QT_TR_NOOP("TTFT p50"), QT_TR_NOOP("Errors"), QT_TR_NOOP("vs baseline")};
        return tr(titles[section]);
    }
    if (role == Qt::ToolTipRole) {
        switch (Column(section)) {
        case RequestsPerSColumn:
            return chartstyle::describe(Quantity::Requests);
        case TtftP50Column:
            return chartstyle::describe(Metric::Ttft);
        case ErrorsColumn:
            return tr("Failed requests (and their share of those attempted)");
        case BaselineColumn:
            return tr("Each run's change against the run marked as baseline (right-click a run to mark it)");
        default:
            break;
        }
    }
    return {};
}

} // namespace tb
