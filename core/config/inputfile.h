#pragma once

// Files TokenBench reads from outside — run directories, --config, workload, tokenizer and
// certificate files — opened as regular files and read up to a size cap of their kind (docs/user-guide.md
// "Limits"), so that a link to /dev/zero, a FIFO or a huge sparse file is refused with a message
// instead of exhausting memory or hanging.

#include <QByteArray>
#include <QString>

#include <optional>

class QFile;

namespace tb {

/// Configuration files a person writes: --config (run and sim), session.json, --ca-cert.
inline constexpr qint64 kMaxConfigFileBytes = qint64(16) << 20;

/// Opens `path` read-only into `file`, as a regular file of at most `maxBytes`: never a FIFO, a
/// device, a socket or a directory. The open does not wait for a FIFO's writer (O_NONBLOCK), and
/// the type and size are those of what was opened (fstat), not of a name that may change between
/// a check and the open. False with *why saying what is wrong ("a FIFO, not a regular file",
/// "1 GiB, more than the 512 MiB TokenBench reads of it"); the caller names the file before it.
/// `file` is opened on the descriptor, so its fileName() is empty.
bool openInputFile(QFile &file, const QString &path, qint64 maxBytes, QString *why);
/// The whole of a file opened as openInputFile() does; one that grew past `maxBytes` while it
/// was read is refused as well.
std::optional<QByteArray> readInputFile(const QString &path, qint64 maxBytes, QString *why);
/// A size as the caps are given: "16 MiB", "2 GiB", "1.5 GiB", "300 bytes".
QString byteSizeText(qint64 bytes);

} // namespace tb
