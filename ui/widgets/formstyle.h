#pragma once

#include <QAbstractItemModel>
#include <QString>

class QFormLayout;
class QGroupBox;
class QLabel;
class QPlainTextEdit;
class QWidget;

namespace tb {

/// A titled group with a form inside, laid out the same way in every editor.
QGroupBox *createFormGroup(const QString &title, QWidget *parent, QFormLayout **form);
/// Sizes a text box to show about `lines` lines (enough to see what is there, not to fill the form).
void setVisibleLines(QPlainTextEdit *edit, int lines);
/// Numbers and durations read better in a short box at the left than stretched across the form.
/// FieldValidator::addRow() keeps fields with a maximum width at the left of their row.
void setCompact(QWidget *field);
/// Disables a form row the configuration does not use — its label and its field, with the box
/// FieldValidator::addRow() put the field in — and says why in their tool tips; an empty reason
/// enables the row again with its own tool tips. A disabled field keeps its value.
void setRowUnused(QWidget *field, const QString &reason);
/// Gives every form label under `root` the same width, so fields line up across groups and tabs.
void alignFormLabels(QWidget *root);

/// Calls `edited` after any change to the model's rows or data (a table in a form is one field).
template<typename Slot> void connectModelEdits(QAbstractItemModel *model, QObject *context, Slot edited)
{
    QObject::connect(model, &QAbstractItemModel::dataChanged, context, edited);
    QObject::connect(model, &QAbstractItemModel::rowsInserted, context, edited);
    QObject::connect(model, &QAbstractItemModel::rowsRemoved, context, edited);
    QObject::connect(model, &QAbstractItemModel::rowsMoved, context, edited);
    QObject::connect(model, &QAbstractItemModel::modelReset, context, edited);
}

/// The style sheet for invalid fields (see FieldValidator).
QString validationStyleSheet();

/// How a status line reads: a quiet hint, a success, a problem.
enum class Tone { Hint, Good, Bad };
void setTone(QLabel *label, Tone tone);

} // namespace tb
