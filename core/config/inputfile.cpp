#include "config/inputfile.h"

#include <QFile>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tb {

namespace {

QString notRegular(mode_t mode)
{
    const char *kind = S_ISFIFO(mode)   ? "a FIFO (named pipe)"
                       : S_ISCHR(mode)  ? "a character device"
                       : S_ISBLK(mode)  ? "a block device"
                       : S_ISSOCK(mode) ? "a socket"
                       : S_ISDIR(mode)  ? "a directory"
                                        : "not a file";
    return QStringLiteral("%1, not a regular file").arg(QLatin1String(kind));
}

QString tooLarge(qint64 size, qint64 maxBytes)
{
    return QStringLiteral("%1, more than the %2 TokenBench reads of it (README \"Limits\")")
        .arg(byteSizeText(size), byteSizeText(maxBytes));
}

} // namespace

QString byteSizeText(qint64 bytes)
{
    constexpr const char *kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024)
        return QStringLiteral("%1 bytes").arg(bytes);
    double value = double(bytes);
    int unit = -1;
    while (value >= 1024 && unit + 1 < int(std::size(kUnits))) {
        value /= 1024;
        ++unit;
    }
    // Whole numbers as they are ("16 MiB"), others with one decimal ("1.5 GiB").
    const bool whole = value == double(qint64(value));
    return QStringLiteral("%1 %2").arg(QString::number(value, 'f', whole ? 0 : 1), QLatin1String(kUnits[unit]));
}

bool openInputFile(QFile &file, const QString &path, qint64 maxBytes, QString *why)
{
    const auto fail = [why](const QString &text) {
        if (why)
            *why = text;
        return false;
    };
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return fail(QString::fromLocal8Bit(std::strerror(errno)));
    struct stat st {
    };
    QString problem;
    if (::fstat(fd, &st) != 0)
        problem = QString::fromLocal8Bit(std::strerror(errno));
    else if (!S_ISREG(st.st_mode))
        problem = notRegular(st.st_mode);
    else if (st.st_size > maxBytes)
        problem = tooLarge(st.st_size, maxBytes);
    // O_NONBLOCK means nothing to a regular file's reads; QFile owns the descriptor from here.
    if (problem.isEmpty()) {
        if (file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle))
            return true;
        problem = file.errorString();
    }
    ::close(fd);
    return fail(problem);
}

std::optional<QByteArray> readInputFile(const QString &path, qint64 maxBytes, QString *why)
{
    QFile file;
    if (!openInputFile(file, path, maxBytes, why))
        return std::nullopt;
    // Read to one byte past the cap: a file that grew after the fstat is caught here.
    constexpr qint64 kBlock = qint64(1) << 20;
    QByteArray bytes;
    bytes.reserve(qsizetype(file.size()));
    for (;;) {
        const qint64 room = maxBytes - qint64(bytes.size()); // never negative here
        const qint64 want = room >= kBlock ? kBlock : room + 1;
        const qsizetype at = bytes.size();
        bytes.resize(at + qsizetype(want));
        const qint64 got = file.read(bytes.data() + at, want);
        bytes.resize(at + qsizetype(std::max<qint64>(got, 0)));
        if (got < 0) {
            if (why)
                *why = file.errorString();
            return std::nullopt;
        }
        if (qint64(bytes.size()) > maxBytes) {
            if (why)
                *why = QStringLiteral("grew past the %1 TokenBench reads of it while it was read (README \"Limits\")")
                           .arg(byteSizeText(maxBytes));
            return std::nullopt;
        }
        if (got == 0)
            return bytes;
    }
}

} // namespace tb
