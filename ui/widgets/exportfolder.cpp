#include "widgets/exportfolder.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>

namespace tb {

namespace {

const QString kKey = QStringLiteral("files/exportFolder");

} // namespace

QString ExportFolder::path()
{
    QString stored = QSettings().value(kKey).toString();
    if (!stored.isEmpty())
        return stored;
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    return documents.isEmpty() ? QDir::homePath() : documents;
}

QString ExportFolder::filePath(const QString &name)
{
    return QDir(path()).filePath(name);
}

void ExportFolder::remember(const QString &folder)
{
    if (!folder.isEmpty())
        QSettings().setValue(kKey, QDir::cleanPath(QDir(folder).absolutePath()));
}

void ExportFolder::rememberFileFolder(const QString &file)
{
    if (!file.isEmpty())
        remember(QFileInfo(file).absolutePath());
}

} // namespace tb
