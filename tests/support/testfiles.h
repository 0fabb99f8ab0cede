#pragma once

#include <QByteArray>
#include <QString>

class QTemporaryDir;

namespace tb::test {

/// The path of a file in tests/data.
QString testFile(const char *name);

/// The whole file, or nothing when it cannot be read (the assertion on its content then fails).
QByteArray readFile(const QString &path);
/// Replaces the file with `bytes`; false when it could not be written whole.
bool writeFile(const QString &path, const QByteArray &bytes);
/// Writes `bytes` to the file `name` in `dir`: its path, or an empty one when it could not be
/// written whole.
QString writeFile(const QTemporaryDir &dir, const QString &name, const QByteArray &bytes);
/// Puts at `path` (which must not exist) what a hostile directory holds in place of a file:
/// kind "dev-zero" a link to /dev/zero, "fifo" a FIFO with no writer, "sparse" a file of `bytes`
/// that takes no disk. False when it could not be made.
bool makeUnreadableFile(const QString &path, const QString &kind, qint64 bytes = 0);

} // namespace tb::test
