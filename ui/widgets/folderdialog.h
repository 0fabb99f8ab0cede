#pragma once

#include <QFileDialog>

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

} // namespace tb
