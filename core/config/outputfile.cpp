#include "config/outputfile.h"

#include <QFile>
#include <QRandomGenerator>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tb {

namespace {

const QString kLinkRefused = QStringLiteral("it is a symbolic link, and TokenBench does not write through links "
                                            "(remove it, or choose another directory)");

QString systemReason(int error)
{
    // open(O_NOFOLLOW) says ELOOP ("Too many levels of symbolic links") for a link at the end.
    return error == ELOOP ? kLinkRefused : QString::fromLocal8Bit(std::strerror(error));
}

bool fail(QString *why, const QString &text)
{
    if (why)
        *why = text;
    return false;
}

bool writeFully(int fd, std::string_view data)
{
    while (!data.empty()) {
        const ssize_t written = ::write(fd, data.data(), data.size());
        if (written < 0 && errno == EINTR)
            continue;
        if (written <= 0)
            return false;
        data.remove_prefix(std::size_t(written));
    }
    return true;
}

} // namespace

bool openOutputFile(QFile &file, const QString &path, QString *why)
{
    const int fd =
        ::open(QFile::encodeName(path).constData(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd < 0)
        return fail(why, systemReason(errno));
    struct stat st {
    };
    QString problem;
    // Two system calls fail alike, each with its own errno.
    if (::fstat(fd, &st) != 0)
        problem = systemReason(errno); // NOLINT(bugprone-branch-clone)
    else if (!S_ISREG(st.st_mode))
        problem = QStringLiteral("not a regular file");
    // Emptied only once it is known to be a regular file of our own (not a device's).
    else if (::ftruncate(fd, 0) != 0)
        problem = systemReason(errno);
    if (problem.isEmpty()) {
        if (file.open(fd, QIODevice::WriteOnly | QIODevice::Unbuffered, QFileDevice::AutoCloseHandle))
            return true;
        problem = file.errorString();
    }
    ::close(fd);
    return fail(why, problem);
}

bool writeFileAtomically(const QString &path, std::string_view content, QString *why)
{
    const QByteArray target = QFile::encodeName(path);
    struct stat st {
    };
    if (::lstat(target.constData(), &st) == 0 && S_ISLNK(st.st_mode))
        return fail(why, kLinkRefused);
    // O_EXCL: a fresh file of our own, never one that someone placed (or linked) under that name.
    QByteArray temporary;
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 16; ++attempt) {
        temporary = target + ".tmp-" + QByteArray::number(QRandomGenerator::global()->generate(), 36);
        fd = ::open(temporary.constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            return fail(why, systemReason(errno));
    }
    if (fd < 0)
        return fail(why, systemReason(EEXIST));
    // Synced before the rename: a crash then leaves the old file or the whole new one.
    errno = 0;
    int error = 0;
    if (!writeFully(fd, content) || ::fsync(fd) != 0)
        error = errno != 0 ? errno : -1; // -1: a short write the system gave no reason for
    if (::close(fd) != 0 && error == 0)
        error = errno;
    if (error == 0 && ::rename(temporary.constData(), target.constData()) != 0)
        error = errno;
    if (error != 0) {
        ::unlink(temporary.constData());
        return fail(why, error < 0 ? QStringLiteral("short write") : systemReason(error));
    }
    return true;
}

} // namespace tb
