#include "platform/fileaccess.h"

#include "platform/windows/systemerror.h"

#include <QDir>
#include <QFile>

#include <algorithm>
#include <string>
#include <utility>

#include <fcntl.h>
#include <io.h>
#include <windows.h>

namespace tb {

namespace {

// As on POSIX, other processes may read, write, rename and delete a file TokenBench has open
// (Windows' default would lock it: a `tail` of requests.csv during a run must work).
constexpr DWORD kShareAll = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;

HANDLE handleOf(qintptr native)
{
    return reinterpret_cast<HANDLE>(native);
}

std::wstring nativePath(const QString &path)
{
    return QDir::toNativeSeparators(path).toStdWString();
}

bool failed(FileError *error, DWORD code)
{
    if (error) {
        const bool exists = code == ERROR_FILE_EXISTS || code == ERROR_ALREADY_EXISTS;
        *error = {exists ? FileError::Cause::Exists : FileError::Cause::Other, systemErrorText(code)};
    }
    return false;
}

/// Whether an open handle is a link the file system would have followed to another name — a
/// symbolic link or a junction (a name-surrogate reparse point). Other reparse points (a cloud or
/// deduplicated file's placeholder) are the file itself.
bool isLink(HANDLE handle)
{
    FILE_ATTRIBUTE_TAG_INFO info{};
    return GetFileInformationByHandleEx(handle, FileAttributeTagInfo, &info, sizeof info) &&
           (info.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0 && IsReparseTagNameSurrogate(info.ReparseTag);
}

/// CreateFileW for what writes: a link itself, never its target, is opened
/// (FILE_FLAG_OPEN_REPARSE_POINT), then refused; FILE_FLAG_BACKUP_SEMANTICS so that a link to a
/// directory opens too and is refused as a link, and a directory as not a regular file. No
/// security attributes: not inherited by child processes.
qintptr openNoFollow(const QString &path, DWORD disposition, FileError *error)
{
    const HANDLE handle =
        CreateFileW(nativePath(path).c_str(), GENERIC_WRITE, kShareAll, nullptr, disposition,
                    FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, nullptr);
    if (handle == INVALID_HANDLE_VALUE) {
        failed(error, GetLastError());
        return qintptr(-1);
    }
    if (isLink(handle)) {
        CloseHandle(handle);
        if (error)
            *error = {FileError::Cause::SymbolicLink, QStringLiteral("a symbolic link or junction")};
        return qintptr(-1);
    }
    return reinterpret_cast<qintptr>(handle);
}

} // namespace

FileHandle::~FileHandle()
{
    if (m_native != kNone)
        CloseHandle(handleOf(m_native));
}

FileHandle::FileHandle(FileHandle &&other) noexcept
    : m_native(std::exchange(other.m_native, kNone))
{}

FileHandle &FileHandle::operator=(FileHandle &&other) noexcept
{
    if (this != &other) {
        if (m_native != kNone)
            CloseHandle(handleOf(m_native));
        m_native = std::exchange(other.m_native, kNone);
    }
    return *this;
}

bool FileHandle::status(FileKind *kind, qint64 *size, FileError *error) const
{
    const HANDLE handle = handleOf(m_native);
    *size = 0;
    switch (GetFileType(handle)) {
    case FILE_TYPE_DISK:
        break;
    case FILE_TYPE_CHAR: // NUL, CON, a serial port
        *kind = FileKind::CharacterDevice;
        return true;
    case FILE_TYPE_PIPE: // a named pipe (\\.\pipe\…), the nearest to a FIFO
        *kind = FileKind::Fifo;
        return true;
    default: // FILE_TYPE_UNKNOWN: the call failed, or a kind Windows has no name for
        if (const DWORD code = GetLastError(); code != NO_ERROR)
            return failed(error, code);
        *kind = FileKind::Other;
        return true;
    }
    BY_HANDLE_FILE_INFORMATION info{};
    if (!GetFileInformationByHandle(handle, &info))
        return failed(error, GetLastError());
    *kind = (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0 ? FileKind::Directory : FileKind::Regular;
    *size = qint64((quint64(info.nFileSizeHigh) << 32) | info.nFileSizeLow);
    return true;
}

bool FileHandle::truncate(FileError *error)
{
    const HANDLE handle = handleOf(m_native);
    const LARGE_INTEGER start{};
    return (SetFilePointerEx(handle, start, nullptr, FILE_BEGIN) && SetEndOfFile(handle)) ||
           failed(error, GetLastError());
}

bool FileHandle::writeAll(std::string_view data, FileError *error)
{
    while (!data.empty()) {
        const DWORD chunk = DWORD(std::min<std::size_t>(data.size(), std::size_t(1) << 30));
        DWORD written = 0;
        if (!WriteFile(handleOf(m_native), data.data(), chunk, &written, nullptr))
            return failed(error, GetLastError());
        if (written == 0) {
            if (error)
                *error = {FileError::Cause::Other, QStringLiteral("short write")};
            return false;
        }
        data.remove_prefix(written);
    }
    return true;
}

bool FileHandle::sync(FileError *error)
{
    return FlushFileBuffers(handleOf(m_native)) || failed(error, GetLastError());
}

bool FileHandle::close(FileError *error)
{
    return CloseHandle(handleOf(std::exchange(m_native, kNone))) || failed(error, GetLastError());
}

bool FileHandle::handTo(QFile &file, QIODevice::OpenMode mode, QString *error)
{
    // QFile opens a C runtime descriptor; the runtime's descriptor then owns the HANDLE. No _O_TEXT:
    // binary, bytes as they are on the disk.
    const int fd = _open_osfhandle(m_native, (mode & QIODevice::WriteOnly) != 0 ? 0 : _O_RDONLY);
    if (fd < 0) {
        if (error)
            *error = QStringLiteral("no C runtime descriptor left for the file");
        return false;
    }
    m_native = kNone;
    if (!file.open(fd, mode, QFileDevice::AutoCloseHandle)) {
        if (error)
            *error = file.errorString();
        _close(fd);
        return false;
    }
    return true;
}

FileHandle openForReading(const QString &path, FileError *error)
{
    // FILE_FLAG_BACKUP_SEMANTICS lets a directory open too, so that it is refused as one (as on
    // POSIX) rather than with "Access is denied". A named pipe's open does not wait: with no
    // instance free it fails (ERROR_PIPE_BUSY).
    const HANDLE handle = CreateFileW(nativePath(path).c_str(), GENERIC_READ, kShareAll, nullptr, OPEN_EXISTING,
                                      FILE_ATTRIBUTE_NORMAL | FILE_FLAG_BACKUP_SEMANTICS, nullptr);
    if (handle == INVALID_HANDLE_VALUE) {
        failed(error, GetLastError());
        return {};
    }
    return FileHandle(reinterpret_cast<qintptr>(handle));
}

FileHandle openForWriting(const QString &path, FileError *error)
{
    return FileHandle(openNoFollow(path, OPEN_ALWAYS, error));
}

FileHandle createNewFile(const QString &path, FileError *error)
{
    return FileHandle(openNoFollow(path, CREATE_NEW, error));
}

bool isSymbolicLink(const QString &path)
{
    const HANDLE handle = CreateFileW(nativePath(path).c_str(), FILE_READ_ATTRIBUTES, kShareAll, nullptr, OPEN_EXISTING,
                                      FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, nullptr);
    if (handle == INVALID_HANDLE_VALUE)
        return false;
    const bool link = isLink(handle);
    CloseHandle(handle);
    return link;
}

bool replaceFile(const QString &from, const QString &to, FileError *error)
{
    return MoveFileExW(nativePath(from).c_str(), nativePath(to).c_str(),
                       MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH) ||
           failed(error, GetLastError());
}

} // namespace tb
