#pragma once

#include <QStyledItemDelegate>

namespace tb {

/// Editors for StagesModel's cells: a mode combo, a level spin box with the mode's unit, a duration
/// line that accepts the CLI's syntax, a request count that may be left unset.
class StagesDelegate : public QStyledItemDelegate
{
    Q_OBJECT

public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QWidget *createEditor(QWidget *parent, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    void setEditorData(QWidget *editor, const QModelIndex &index) const override;
    void setModelData(QWidget *editor, QAbstractItemModel *model, const QModelIndex &index) const override;
};

} // namespace tb
