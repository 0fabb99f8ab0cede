#pragma once

#include "threads/backgroundjobs.h"

#include "models/rowtablemodel.h"

#include <QDateTime>

#include <optional>

namespace tb {
struct RunSummary;
}

namespace tb {

/// How a saved run ended (RunHistoryModel's status column).
enum class RunHistoryStatus { Ok, Stopped, Failed };

/// One saved run: a row of RunHistoryModel.
struct RunHistoryEntry {
    QString directory;
    QString name;
    QString model;
    QString target; ///< the target's name, else its URL
    QString load;   ///< RunInfo::loadText()
    RunHistoryStatus status = RunHistoryStatus::Ok;
    QString session; ///< the session's name; empty: a run of its own
    QString notes;
    int stages = 1;
    QDateTime started;
    double requestsPerS = 0;
    double ttftP50Ms = 0; ///< NaN: no successful request
    qint64 attempted = 0;
    qint64 failed = 0;
    int instances = 1;     ///< load-balanced over replicas when more than 1
    int models = 1;        ///< a --model mix when more than 1
    QString problem;       ///< why the run could not be read (the row still lists it)
    bool baseline = false; ///< the marked baseline itself
    QString change;        ///< Baseline::Change::text() against the baseline; empty: none
    int changeDirection = 0;
};

/// The saved runs in the runs folder (with the runs of its sessions and limit searches, and any
/// opened from elsewhere), one row each: name, target, model, load, status (ok, stopped, failed),
/// session, date, requests/s, TTFT p50, errors, notes.
/// The name renames the run's directory and the notes live beside its files in notes.txt (written
/// whole or not at all); measurement files are never touched. Scanning reads each run's summary (a run that stopped
/// before writing summary.json has it recomputed from requests.csv, which can take a while) on a
/// worker thread; the list is replaced in one reset when the scan is done.
class RunHistoryModel : public RowTableModel<QList<RunHistoryEntry>>
{
    Q_OBJECT

public:
    enum Column {
        NameColumn,
        TargetColumn,
        ModelColumn,
        LoadColumn,
        StatusColumn,
        SessionColumn, ///< the comparison session the run belongs to: sorting by it groups them
        DateColumn,
        RequestsPerSColumn,
        TtftP50Column,
        ErrorsColumn,
        BaselineColumn, ///< the run's change against the marked baseline (tb::Baseline)
        NotesColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole, ///< numbers and dates that sort naturally
        DirectoryRole,           ///< the run directory's path
        InstancesRole,           ///< how many instances served the run (int; > 1: load-balanced)
        ModelsRole,              ///< how many models the run asked for (int; > 1: a model mix)
        StagesRole,              ///< how many load stages the run had (int; > 1: a sweep)
    };
    using Status = RunHistoryStatus;
    using Entry = RunHistoryEntry;
    /// The file in a run directory that holds its notes.
    static constexpr const char *kNotesFile = "notes.txt";
    static constexpr qsizetype kMaxNotes = 64 * 1024;

    explicit RunHistoryModel(QObject *parent = nullptr);
    /// Waits for a scan in progress.
    ~RunHistoryModel() override;

    void setFolder(const QString &folder);
    QString folder() const { return m_folder; }
    /// Runs outside the folder to list as well (e.g. opened from the command line).
    void addDirectory(const QString &directory);
    /// A directory to leave out (the run being written now).
    void setExcluded(const QString &directory);

    /// Rescans the folder on a worker thread; refreshed() follows.
    void refresh();
    /// Reads one run's row (what the scan does for each directory), with its change against
    /// `baseline` (the summary of the run in `baselineDirectory`) when one is given.
    static Entry readEntry(const QString &directory, const RunSummary *baseline = nullptr,
                           const QString &baselineDirectory = {});

    const Entry &entry(int row) const { return m_rows.at(row); }
    int rowOf(const QString &directory) const;

    /// Renames a run's directory within its folder (the name column; also setData). False with
    /// the reason when the name is empty, has a path separator, or is taken.
    bool rename(int row, const QString &name, QString *error);
    /// Writes a run's notes (the notes column; also setData) to its notes.txt.
    bool setNotes(int row, const QString &notes, QString *error);
    /// Moves a run's directory to the trash and drops its row.
    bool moveToTrash(int row, QString *error);
    static QString statusName(Status status); ///< "ok", "stopped", "failed"
    /// How a saved run ended, read off its summary: failed when no request succeeded, stopped when
    /// Stop cancelled requests.
    static Status statusOf(const RunSummary &summary);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;

Q_SIGNALS:
    void refreshed();
    /// A run's directory `from` (canonical) is now `to`: whoever shows that run follows it.
    void renamed(const QString &from, const QString &to);
    /// Renaming, writing notes or moving to the trash failed: why, to show the user.
    void editFailed(const QString &error);

private:
    void setEntries(QList<Entry> entries);

    QString m_folder;
    QStringList m_extra;
    QString m_excluded;
    BackgroundJobs m_jobs{this};
    bool m_scanning = false;
    bool m_rescan = false;
};

} // namespace tb
