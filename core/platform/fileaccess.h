#pragma once

// The file calls config/inputfile and config/outputfile need beyond QFile: opening without waiting
// on a FIFO, without following a final symbolic link, creating a file that must not exist yet, the
// type and size of what was opened (not of a name looked up again), a sync to the disk and a rename
// over an existing file. POSIX: open(2) flags, fstat, fsync, rename; Windows: CreateFileW,
// FlushFileBuffers, MoveFileExW.

#include <QIODevice>
#include <QString>

#include <string_view>

class QFile;

namespace tb {

/// Why a file call failed: the OS's words for it, and what the caller may need to tell apart.
struct FileError {
    enum class Cause {
        Other,
        SymbolicLink, ///< a link where none is followed (POSIX: ELOOP; Windows: a symlink or junction)
        Exists,       ///< createNewFile() found the name taken
    };
    Cause cause = Cause::Other;
    QString text;
};

/// What an open file is, as the OS says of the file itself.
enum class FileKind { Regular, Fifo, CharacterDevice, BlockDevice, Socket, Directory, Other };

/// An open file of the OS's (a descriptor, a HANDLE), closed when the handle goes unless QFile took it.
class FileHandle
{
public:
    FileHandle() = default;
    ~FileHandle();
    FileHandle(FileHandle &&other) noexcept;
    FileHandle &operator=(FileHandle &&other) noexcept;
    FileHandle(const FileHandle &) = delete;
    FileHandle &operator=(const FileHandle &) = delete;

    bool isOpen() const { return m_native != kNone; }

    /// The kind and size of the file this handle holds.
    bool status(FileKind *kind, qint64 *size, FileError *error) const;
    /// Empties the file.
    bool truncate(FileError *error);
    /// Writes all of `data`, retrying an interrupted call; a write the OS ends short without a
    /// reason fails with the text "short write".
    bool writeAll(std::string_view data, FileError *error);
    /// Waits until what was written is on the disk.
    bool sync(FileError *error);
    /// Closes now, to learn whether the close failed (a handle closed by its destructor says nothing).
    bool close(FileError *error);
    /// Opens `file` on this handle with `mode`, QFile then owning (and closing) it; `file`'s
    /// fileName() is empty. False with QFile's errorString() in *error.
    bool handTo(QFile &file, QIODevice::OpenMode mode, QString *error);

private:
    friend FileHandle openForReading(const QString &, FileError *);
    friend FileHandle openForWriting(const QString &, FileError *);
    friend FileHandle createNewFile(const QString &, FileError *);

    static constexpr qintptr kNone = -1; // no descriptor (-1), INVALID_HANDLE_VALUE
    explicit FileHandle(qintptr native)
        : m_native(native)
    {}
    qintptr m_native = kNone;
};

/// Opens `path` read-only, following links, not inherited by child processes; a FIFO does not make
/// it wait for a writer (O_NONBLOCK, which means nothing to a regular file's reads).
FileHandle openForReading(const QString &path, FileError *error);
/// Opens `path` write-only, created if absent and not emptied yet (truncate() does that once the
/// caller knows what it is), never through a symbolic link at its end (Cause::SymbolicLink), never
/// waiting on a FIFO, not inherited.
FileHandle openForWriting(const QString &path, FileError *error);
/// Creates `path` write-only, new: a name that exists already (even as a link) fails with
/// Cause::Exists, and a link there is never followed.
FileHandle createNewFile(const QString &path, FileError *error);

/// Whether `path` itself is a symbolic link (Windows: also a junction), not what it points to.
bool isSymbolicLink(const QString &path);
/// Renames `from` to `to`, replacing a file there: in one step on POSIX (a reader sees the old or the
/// new one), through to the disk on Windows (MOVEFILE_WRITE_THROUGH).
bool replaceFile(const QString &from, const QString &to, FileError *error);

} // namespace tb
