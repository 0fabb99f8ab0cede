#pragma once

// Files TokenBench writes into a directory that may hold what someone else put there (a run
// directory replaced with --force, a session directory): never written through a symbolic link,
// so that a link `requests.csv -> ~/.bashrc` is refused instead of overwriting its target.

#include <QString>

#include <string_view>

class QFile;

namespace tb {

/// Opens `path` write-only into `file`, created or emptied, unbuffered (each write() is one
/// write(2)): refused when `path` is a symbolic link (O_NOFOLLOW) or not a regular file (a FIFO
/// there cannot hang the open: O_NONBLOCK). False with *why saying what is wrong; the caller names
/// the file before it. `file` is opened on the descriptor, so its fileName() is empty.
bool openOutputFile(QFile &file, const QString &path, QString *why);
/// Replaces `path` with `content` whole, or leaves it as it was: written to a new temporary file
/// beside it (O_CREAT|O_EXCL|O_NOFOLLOW, so no link or earlier file is written through), synced,
/// and renamed over `path`. A `path` that is a symbolic link is refused like openOutputFile().
/// After a crash or on a full disk the file is whole or absent, never empty or cut short.
bool writeFileAtomically(const QString &path, std::string_view content, QString *why);

} // namespace tb
