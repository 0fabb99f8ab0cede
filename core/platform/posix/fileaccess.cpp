#include "platform/fileaccess.h"

#include <QFile>

#include <cerrno>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tb {

namespace {

FileError::Cause causeOf(int error)
{
    // open(O_NOFOLLOW) says ELOOP ("Too many levels of symbolic links") for a link at the end.
    if (error == ELOOP)
        return FileError::Cause::SymbolicLink;
    return error == EEXIST ? FileError::Cause::Exists : FileError::Cause::Other;
}

bool failed(FileError *error, int code)
{
    if (error)
        *error = {causeOf(code), QString::fromLocal8Bit(std::strerror(code))};
    return false;
}

FileKind kindOf(mode_t mode)
{
    return S_ISREG(mode)    ? FileKind::Regular
           : S_ISFIFO(mode) ? FileKind::Fifo
           : S_ISCHR(mode)  ? FileKind::CharacterDevice
           : S_ISBLK(mode)  ? FileKind::BlockDevice
           : S_ISSOCK(mode) ? FileKind::Socket
           : S_ISDIR(mode)  ? FileKind::Directory
                            : FileKind::Other;
}

} // namespace

FileHandle::~FileHandle()
{
    if (m_native != kNone)
        ::close(int(m_native));
}

FileHandle::FileHandle(FileHandle &&other) noexcept
    : m_native(std::exchange(other.m_native, kNone))
{}

FileHandle &FileHandle::operator=(FileHandle &&other) noexcept
{
    if (this != &other) {
        if (m_native != kNone)
            ::close(int(m_native));
        m_native = std::exchange(other.m_native, kNone);
    }
    return *this;
}

bool FileHandle::status(FileKind *kind, qint64 *size, FileError *error) const
{
    struct stat st {
    };
    if (::fstat(int(m_native), &st) != 0)
        return failed(error, errno);
    *kind = kindOf(st.st_mode);
    *size = qint64(st.st_size);
    return true;
}

bool FileHandle::truncate(FileError *error)
{
    return ::ftruncate(int(m_native), 0) == 0 || failed(error, errno);
}

bool FileHandle::writeAll(std::string_view data, FileError *error)
{
    while (!data.empty()) {
        const ssize_t written = ::write(int(m_native), data.data(), data.size());
        if (written < 0 && errno == EINTR)
            continue;
        if (written < 0)
            return failed(error, errno);
        if (written == 0) {
            if (error)
                *error = {FileError::Cause::Other, QStringLiteral("short write")};
            return false;
        }
        data.remove_prefix(std::size_t(written));
    }
    return true;
}

bool FileHandle::sync(FileError *error)
{
    return ::fsync(int(m_native)) == 0 || failed(error, errno);
}

bool FileHandle::close(FileError *error)
{
    const int fd = int(std::exchange(m_native, kNone));
    return ::close(fd) == 0 || failed(error, errno);
}

bool FileHandle::handTo(QFile &file, QIODevice::OpenMode mode, QString *error)
{
    if (!file.open(int(m_native), mode, QFileDevice::AutoCloseHandle)) {
        if (error)
            *error = file.errorString();
        return false;
    }
    m_native = kNone;
    return true;
}

FileHandle openForReading(const QString &path, FileError *error)
{
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        failed(error, errno);
    return FileHandle(fd);
}

FileHandle openForWriting(const QString &path, FileError *error)
{
    const int fd =
        ::open(QFile::encodeName(path).constData(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd < 0)
        failed(error, errno);
    return FileHandle(fd);
}

FileHandle createNewFile(const QString &path, FileError *error)
{
    const int fd =
        ::open(QFile::encodeName(path).constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0)
        failed(error, errno);
    return FileHandle(fd);
}

bool isSymbolicLink(const QString &path)
{
    struct stat st {
    };
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 && S_ISLNK(st.st_mode);
}

bool replaceFile(const QString &from, const QString &to, FileError *error)
{
    return ::rename(QFile::encodeName(from).constData(), QFile::encodeName(to).constData()) == 0 ||
           failed(error, errno);
}

} // namespace tb
