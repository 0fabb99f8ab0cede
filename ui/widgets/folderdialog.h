#pragma once

#include "widgets/exportfolder.h"

#include <QFileDialog>
#include <QFileInfo>

namespace tb {

/// Asks for a folder (directories only) without a nested event loop: open(), not exec(). The folder
/// chosen goes to `chosen` (a slot of `parent`, or a functor run in its context); the dialog deletes
/// itself when closed. `objectName` names the dialog for tests (empty: unnamed).
template<typename Parent, typename Slot>
void askForFolder(Parent *parent, const QString &title, const QString &folder, const QString &objectName, Slot chosen)
{
    auto *dialog = new QFileDialog(parent, title, folder);
    if (!objectName.isEmpty())
        dialog->setObjectName(objectName);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::Directory);
    dialog->setOption(QFileDialog::ShowDirsOnly);
    QObject::connect(dialog, &QFileDialog::fileSelected, parent, chosen);
    dialog->open();
}

/// Asks where to save a file, proposing `name` in the one remembered export folder (ExportFolder),
/// without a nested event loop. The folder of the file picked becomes the remembered one, and the
/// file goes to `chosen` (a functor run in `parent`'s context). The dialog deletes itself when closed.
template<typename Slot>
QFileDialog *askForSaveFile(QWidget *parent, const QString &title, const QString &name, const QString &filter,
                            Slot chosen)
{
    auto *dialog = new QFileDialog(parent, title, ExportFolder::filePath(name), filter);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setDefaultSuffix(QFileInfo(name).suffix());
    QObject::connect(dialog, &QFileDialog::fileSelected, parent, [chosen](const QString &path) {
        ExportFolder::rememberFileFolder(path);
        chosen(path);
    });
    dialog->open();
    return dialog;
}

} // namespace tb
