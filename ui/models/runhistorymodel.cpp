#include "models/runhistorymodel.h"

#include "analysis/baseline.h"
#include "config/enumnames.h"
#include "config/inputfile.h"
#include "results/sessioninfo.h"

#include "formats/numberformat.h"
#include "models/quantitystyle.h"
#include "results/rundirectory.h"
#include "run/limitsearch.h"

#include <QColor>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFont>
#include <QSaveFile>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tb {

namespace {

QString canonical(const QString &directory)
{
    const QString c = QFileInfo(directory).canonicalFilePath();
    return c.isEmpty() ? QDir::cleanPath(QFileInfo(directory).absoluteFilePath()) : c;
}

QString readNotes(const QString &directory)
{
    // Only the first kMaxNotes bytes are read, of a regular file: a FIFO there would hang the open.
    QFile file;
    if (!openInputFile(file, QDir(directory).filePath(QLatin1String(RunHistoryModel::kNotesFile)),
                       std::numeric_limits<qint64>::max(), nullptr))
        return {};
    return QString::fromUtf8(file.read(RunHistoryModel::kMaxNotes));
}

constexpr EnumName<RunHistoryStatus> kStatusNames[] = {
    {RunHistoryStatus::Ok, "ok"},
    {RunHistoryStatus::Stopped, "stopped"},
    {RunHistoryStatus::Failed, "failed"},
};

} // namespace

RunHistoryModel::RunHistoryModel(QObject *parent)
    : RowTableModel(
          {tr("Run"), tr("Target"), tr("Model"), tr("Load"), tr("Status"), tr("Session"), tr("Date"), tr("req/s"),
           tr("TTFT p50"), tr("Errors"), tr("vs baseline"), tr("Notes")},
          {{RequestsPerSColumn, chartstyle::describe(Quantity::Requests)},
           {TtftP50Column, chartstyle::describe(Metric::Ttft)},
           {ErrorsColumn, tr("Failed requests (and their share of those attempted)")},
           {BaselineColumn, tr("Each run's change against the run marked as baseline (right-click a run to mark it)")},
           {NameColumn, tr("The run's folder name (F2 renames it)")},
           {NotesColumn, tr("Your notes on the run, kept in its folder (double-click to edit)")}},
          parent)
{}

RunHistoryModel::~RunHistoryModel()
{
    m_jobs.stop();
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
    e.notes = readNotes(directory);
    if (const auto session = SessionInfo::sessionOf(directory))
        e.session = session->second.name;
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
    e.status = statusOf(s);
    e.stages = std::max(1, int(s.stages.size()));
    const TargetConfig &target = run->info.config.target;
    e.target = !target.name.isEmpty() ? target.name : !s.targetUrl.isEmpty() ? s.targetUrl : target.url;
    if (run->hasInfo)
        e.load = run->info.loadText();
    e.instances = std::max(1, int(s.instances.size()));
    e.models = std::max(1, int(s.models.size()));
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
    m_jobs.run(
        [folder, extra, excluded, baselineDirectory] {
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
                    if (RunReader::isRunDirectory(info.filePath())) {
                        directories << canonical(info.filePath());
                    } else if (SessionInfo::isSessionDirectory(info.filePath())) {
                        // A session's runs are in its folder: listed with the session's name.
                        QStringList runs;
                        QString ignored;
                        if (expandRunDirectories({info.filePath()}, &runs, &ignored)) {
                            for (const QString &run : std::as_const(runs)) {
                                if (RunReader::isRunDirectory(run))
                                    directories << canonical(run);
                            }
                        }
                    } else if (LimitSearch::isSearchDirectory(info.filePath())) {
                        // A limit search's levels are runs of their own, in its folder.
                        for (const QFileInfo &level :
                             QDir(info.filePath()).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
                            if (RunReader::isRunDirectory(level.filePath()))
                                directories << canonical(level.filePath());
                        }
                    }
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
            return entries;
        },
        [this](const QList<Entry> &entries) {
            m_scanning = false;
            setEntries(entries);
            Q_EMIT refreshed();
            if (std::exchange(m_rescan, false))
                refresh();
        });
}

void RunHistoryModel::setEntries(QList<Entry> entries)
{
    beginResetModel();
    m_rows = std::move(entries);
    endResetModel();
}

int RunHistoryModel::rowOf(const QString &directory) const
{
    const QString dir = canonical(directory);
    for (qsizetype i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].directory == dir)
            return int(i);
    }
    return -1;
}

QVariant RunHistoryModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const Entry &e = m_rows.at(index.row());
    if (role == DirectoryRole)
        return e.directory;
    if (role == InstancesRole)
        return e.instances;
    if (role == ModelsRole)
        return e.models;
    if (role == StagesRole)
        return e.stages;
    if (role == Qt::EditRole && (index.column() == NameColumn || index.column() == NotesColumn))
        return index.column() == NameColumn ? e.name : e.notes;
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
        if (index.column() == NotesColumn && !e.notes.isEmpty())
            return e.notes;
        if (index.column() == StatusColumn)
            return e.status == Status::Failed    ? tr("Every request failed")
                   : e.status == Status::Stopped ? tr("Stopped before the end (requests were cancelled)")
                                                 : tr("Ran to the end");
        return QStringLiteral("%1\n%2").arg(QDir::toNativeSeparators(e.directory),
                                            e.started.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")));
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() >= RequestsPerSColumn && index.column() <= ErrorsColumn
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole) {
        const auto shade = [](const QColor &light) { return chartstyle::themed(light, chartstyle::screenTheme()); };
        if (!e.problem.isEmpty())
            return shade(QColor(0x6b, 0x72, 0x80));
        if (index.column() == BaselineColumn && e.changeDirection != 0)
            return shade(e.changeDirection > 0 ? QColor(0x2e, 0x7d, 0x32) : QColor(0xc6, 0x28, 0x28));
        if ((index.column() == ErrorsColumn && e.failed > 0) ||
            (index.column() == StatusColumn && e.status == Status::Failed))
            return shade(QColor(0xc6, 0x28, 0x28));
        return {};
    }
    const bool sort = role == SortRole;
    if (role != Qt::DisplayRole && !sort)
        return {};
    const bool readable = e.problem.isEmpty();
    switch (Column(index.column())) {
    case NameColumn:
        return e.name;
    case TargetColumn:
        return e.target;
    case ModelColumn:
        return readable ? e.model : tr("(unreadable)");
    case LoadColumn:
        return e.load;
    case StatusColumn:
        return readable ? statusName(e.status) : QString();
    case SessionColumn:
        return e.session;
    case NotesColumn:
        return sort ? e.notes : e.notes.section(QLatin1Char('\n'), 0, 0); // the first line; the tooltip has all
    case DateColumn: {
        if (sort)
            return e.started;
        // The year only when it is not this one: the list is narrow, and the name matters more.
        const QDateTime local = e.started.toLocalTime();
        return local.toString(local.date().year() == QDate::currentDate().year() ? QStringLiteral("MM-dd HH:mm")
                                                                                 : QStringLiteral("yyyy-MM-dd HH:mm"));
    }
    case RequestsPerSColumn:
        return sort ? QVariant(e.requestsPerS) : readable ? QVariant(formatNumber(e.requestsPerS)) : QVariant();
    case TtftP50Column:
        return sort       ? QVariant(std::isnan(e.ttftP50Ms) ? -1.0 : e.ttftP50Ms)
               : readable ? QVariant(formatMs(e.ttftP50Ms))
                          : QVariant();
    case ErrorsColumn:
        if (sort)
            return e.failed;
        if (!readable)
            return {};
        return e.attempted > 0 && e.failed > 0
                   ? QStringLiteral("%1 (%2)").arg(e.failed).arg(formatPercent(double(e.failed) / double(e.attempted)))
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

Qt::ItemFlags RunHistoryModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && (index.column() == NameColumn || index.column() == NotesColumn))
        f |= Qt::ItemIsEditable;
    return f;
}

bool RunHistoryModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::EditRole || !isCell(index))
        return false;
    QString error;
    bool ok = false;
    if (index.column() == NameColumn)
        ok = value.toString() == m_rows.at(index.row()).name || rename(index.row(), value.toString(), &error);
    else if (index.column() == NotesColumn)
        ok = setNotes(index.row(), value.toString(), &error);
    if (!ok && !error.isEmpty())
        Q_EMIT editFailed(error);
    return ok;
}

bool RunHistoryModel::rename(int row, const QString &name, QString *error)
{
    if (row < 0 || row >= m_rows.size())
        return false;
    Entry &e = m_rows[row];
    const QString clean = name.trimmed();
    if (clean.isEmpty() || clean == QLatin1String(".") || clean == QLatin1String("..") ||
        clean.contains(QLatin1Char('/')) || clean.contains(QLatin1Char('\\'))) {
        *error = tr("“%1” is not a folder name").arg(name);
        return false;
    }
    if (!e.session.isEmpty()) {
        *error = tr("%1 keeps its name: session “%2” lists its runs by name").arg(e.name, e.session);
        return false;
    }
    const QString to = QDir(QFileInfo(e.directory).absolutePath()).filePath(clean);
    if (QFileInfo::exists(to)) {
        *error = tr("cannot rename %1: %2 exists").arg(e.name, QDir::toNativeSeparators(to));
        return false;
    }
    if (!QDir().rename(e.directory, to)) {
        *error = tr("cannot rename %1 to %2").arg(QDir::toNativeSeparators(e.directory), clean);
        return false;
    }
    const QString from = e.directory;
    e.directory = canonical(to);
    e.name = clean;
    if (Baseline::isBaseline(from))
        Baseline::setDirectory(e.directory);
    std::replace(m_extra.begin(), m_extra.end(), from, e.directory);
    Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
    Q_EMIT renamed(from, e.directory);
    return true;
}

bool RunHistoryModel::setNotes(int row, const QString &notes, QString *error)
{
    if (row < 0 || row >= m_rows.size())
        return false;
    Entry &e = m_rows[row];
    const QByteArray bytes = notes.toUtf8();
    if (bytes.size() > kMaxNotes) {
        *error = tr("notes are limited to %1 KiB").arg(kMaxNotes / 1024);
        return false;
    }
    const QString path = QDir(e.directory).filePath(QLatin1String(kNotesFile));
    if (notes.isEmpty()) {
        if (QFile::exists(path) && !QFile::remove(path)) {
            *error = tr("cannot remove %1").arg(QDir::toNativeSeparators(path));
            return false;
        }
    } else {
        // Whole or not at all: the old notes stay if writing the new ones fails.
        QSaveFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
            *error = tr("cannot write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString());
            return false;
        }
    }
    e.notes = notes;
    Q_EMIT dataChanged(index(row, NotesColumn), index(row, NotesColumn));
    return true;
}

bool RunHistoryModel::moveToTrash(int row, QString *error)
{
    if (row < 0 || row >= m_rows.size())
        return false;
    const QString directory = m_rows.at(row).directory;
    if (!QFile::moveToTrash(directory)) {
        *error = tr("cannot move %1 to the trash").arg(QDir::toNativeSeparators(directory));
        return false;
    }
    if (Baseline::isBaseline(directory))
        Baseline::setDirectory({});
    m_extra.removeAll(directory);
    beginRemoveRows({}, row, row);
    m_rows.removeAt(row);
    endRemoveRows();
    return true;
}

QString RunHistoryModel::statusName(Status status)
{
    return enumName(kStatusNames, status);
}

RunHistoryModel::Status RunHistoryModel::statusOf(const RunSummary &summary)
{
    const RequestCounts &requests = summary.total.requests;
    return requests.allFailed() ? Status::Failed : requests.cancelled > 0 ? Status::Stopped : Status::Ok;
}

} // namespace tb
