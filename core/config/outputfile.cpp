#include "config/outputfile.h"

#include "platform/fileaccess.h"

#include <QFile>
#include <QRandomGenerator>

namespace tb {

namespace {

const QString kLinkRefused = QStringLiteral("it is a symbolic link, and TokenBench does not write through links "
                                            "(remove it, or choose another directory)");

QString systemReason(const FileError &error)
{
    return error.cause == FileError::Cause::SymbolicLink ? kLinkRefused : error.text;
}

bool fail(QString *why, const QString &text)
{
    if (why)
        *why = text;
    return false;
}

} // namespace

bool openOutputFile(QFile &file, const QString &path, QString *why)
{
    FileError error;
    FileHandle handle = openForWriting(path, &error);
    if (!handle.isOpen())
        return fail(why, systemReason(error));
    FileKind kind = FileKind::Other;
    qint64 size = 0;
    QString problem;
    // Two calls fail alike, each with its own error.
    if (!handle.status(&kind, &size, &error))
        problem = systemReason(error); // NOLINT(bugprone-branch-clone)
    else if (kind != FileKind::Regular)
        problem = QStringLiteral("not a regular file");
    // Emptied only once it is known to be a regular file of our own (not a device's).
    else if (!handle.truncate(&error))
        problem = systemReason(error);
    if (problem.isEmpty() && handle.handTo(file, QIODevice::WriteOnly | QIODevice::Unbuffered, &problem))
        return true;
    return fail(why, problem);
}

bool writeFileAtomically(const QString &path, std::string_view content, QString *why)
{
    if (isSymbolicLink(path))
        return fail(why, kLinkRefused);
    // A new file (Cause::Exists otherwise): our own, never one that someone placed (or linked) under
    // that name.
    QString temporary;
    FileHandle handle;
    FileError error;
    for (int attempt = 0; !handle.isOpen() && attempt < 16; ++attempt) {
        temporary = path + QStringLiteral(".tmp-") + QString::number(QRandomGenerator::global()->generate(), 36);
        handle = createNewFile(temporary, &error);
        if (!handle.isOpen() && error.cause != FileError::Cause::Exists)
            return fail(why, systemReason(error));
    }
    if (!handle.isOpen())
        return fail(why, systemReason(error));
    // Synced before the rename: a crash then leaves the old file or the whole new one.
    bool ok = handle.writeAll(content, &error) && handle.sync(&error);
    FileError closeError;
    if (!handle.close(&closeError) && ok) {
        ok = false;
        error = closeError;
    }
    if (!ok || !replaceFile(temporary, path, &error)) {
        QFile::remove(temporary);
        return fail(why, systemReason(error));
    }
    return true;
}

} // namespace tb
