#include "support/testfiles.h"

#include <QFile>
#include <QTemporaryDir>

#include <sys/stat.h>

namespace tb::test {

QString testFile(const char *name)
{
    return QStringLiteral(TOKENBENCH_TESTDATA "/") + QLatin1String(name);
}

QByteArray readFile(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

QString writeFile(const QTemporaryDir &dir, const QString &name, const QByteArray &bytes)
{
    const QString path = dir.filePath(name);
    return writeFile(path, bytes) ? path : QString();
}

bool makeUnreadableFile(const QString &path, const QString &kind, qint64 bytes)
{
    if (kind == QLatin1String("dev-zero"))
        return QFile::link(QStringLiteral("/dev/zero"), path);
    if (kind == QLatin1String("fifo"))
        return ::mkfifo(QFile::encodeName(path).constData(), 0600) == 0;
    QFile file(path);
    return kind == QLatin1String("sparse") && file.open(QIODevice::WriteOnly) && file.resize(bytes);
}

} // namespace tb::test
