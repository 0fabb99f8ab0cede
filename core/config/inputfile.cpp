#include "config/inputfile.h"

#include "platform/fileaccess.h"

#include <QFile>

#include <algorithm>

namespace tb {

namespace {

QString notRegular(FileKind kind)
{
    const char *name = kind == FileKind::Fifo              ? "a FIFO (named pipe)"
                       : kind == FileKind::CharacterDevice ? "a character device"
                       : kind == FileKind::BlockDevice     ? "a block device"
                       : kind == FileKind::Socket          ? "a socket"
                       : kind == FileKind::Directory       ? "a directory"
                                                           : "not a file";
    return QStringLiteral("%1, not a regular file").arg(QLatin1String(name));
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
    FileError error;
    FileHandle handle = openForReading(path, &error);
    if (!handle.isOpen())
        return fail(error.text);
    FileKind kind = FileKind::Other;
    qint64 size = 0;
    QString problem;
    if (!handle.status(&kind, &size, &error))
        problem = error.text;
    else if (kind != FileKind::Regular)
        problem = notRegular(kind);
    else if (size > maxBytes)
        problem = tooLarge(size, maxBytes);
    // QFile owns the file from here.
    if (problem.isEmpty() && handle.handTo(file, QIODevice::ReadOnly, &problem))
        return true;
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
