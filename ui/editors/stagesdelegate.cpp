#include "editors/stagesdelegate.h"

#include "models/stagesmodel.h"
#include "widgets/durationedit.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSpinBox>

namespace tb {

QWidget *StagesDelegate::createEditor(QWidget *parent, const QStyleOptionViewItem &option,
                                      const QModelIndex &index) const
{
    switch (index.column()) {
    case StagesModel::ModeColumn: {
        auto *combo = new QComboBox(parent);
        combo->addItem(tr("Concurrency"), loadModeName(LoadMode::Concurrency));
        combo->addItem(tr("Rate"), loadModeName(LoadMode::Rate));
        return combo;
    }
    case StagesModel::LevelColumn: {
        auto *spin = new QDoubleSpinBox(parent);
        const bool rate =
            index.siblingAtColumn(StagesModel::ModeColumn).data(Qt::EditRole) == loadModeName(LoadMode::Rate);
        spin->setDecimals(rate ? 2 : 0);
        spin->setRange(0, 1e6);
        spin->setSuffix(rate ? tr(" req/s") : tr(" users"));
        return spin;
    }
    case StagesModel::DurationColumn: {
        auto *edit = new DurationEdit(parent);
        edit->setPlaceholderText(tr("not set"));
        return edit;
    }
    case StagesModel::RequestsColumn: {
        auto *spin = new QSpinBox(parent);
        spin->setRange(0, std::numeric_limits<int>::max());
        spin->setSpecialValueText(tr("not set"));
        return spin;
    }
    default:
        return QStyledItemDelegate::createEditor(parent, option, index);
    }
}

void StagesDelegate::setEditorData(QWidget *editor, const QModelIndex &index) const
{
    const QVariant value = index.data(Qt::EditRole);
    if (auto *combo = qobject_cast<QComboBox *>(editor))
        combo->setCurrentIndex(combo->findData(value));
    else if (auto *dspin = qobject_cast<QDoubleSpinBox *>(editor))
        dspin->setValue(value.toDouble());
    else if (auto *spin = qobject_cast<QSpinBox *>(editor))
        spin->setValue(int(qMin<qint64>(value.toLongLong(), std::numeric_limits<int>::max())));
    else
        QStyledItemDelegate::setEditorData(editor, index);
}

void StagesDelegate::setModelData(QWidget *editor, QAbstractItemModel *model, const QModelIndex &index) const
{
    if (auto *combo = qobject_cast<QComboBox *>(editor))
        model->setData(index, combo->currentData());
    else if (auto *dspin = qobject_cast<QDoubleSpinBox *>(editor))
        model->setData(index, dspin->value());
    else if (auto *spin = qobject_cast<QSpinBox *>(editor))
        model->setData(index, qint64(spin->value()));
    else
        QStyledItemDelegate::setModelData(editor, model, index);
}

} // namespace tb
