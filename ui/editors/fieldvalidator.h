#pragma once

#include "config/configfield.h"

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

class QFormLayout;
class QLabel;
class QLineEdit;
class QWidget;

namespace tb {

/// Shows configuration problems at the fields they are about: a red border on the field (property
/// invalid=true, styled by ConfigEditor) and the reason in a line under it. Fields are registered
/// by their row of the configuration table: configProblems() name their field by id; the forms' own
/// checks are strings in the "json.path: reason" form, whose path names the table row.
class FieldValidator
{
public:
    /// Adds "label: field" to the form, with a hidden message line under the field, and registers
    /// the field under its row of the configuration table. The tool tip goes on label and field.
    /// Returns the message label, so further fields can share it (addField).
    QLabel *addRow(QFormLayout *form, const QString &label, QWidget *field, ConfigFieldId id, const QString &toolTip);
    /// The same for a row no problem is about (a choice that is not a field of its own: the prompt
    /// source, a price preset): laid out alike, registered under nothing.
    QLabel *addRow(QFormLayout *form, const QString &label, QWidget *field, const QString &toolTip);
    /// Registers another field (or the same field under another id) with its message label.
    void addField(ConfigFieldId id, QWidget *field, QLabel *message);
    /// A message line for fields placed by hand.
    static QLabel *createMessageLabel(QWidget *parent);

    /// The registered number fields whose typed text is not a number they take: "key: '-5abc' is
    /// not a number from 0 to 100000". Such a field keeps its text (and its last value) until fixed.
    QStringList unreadableNumbers() const;
    /// The text of every registered number field, to re-validate as it is typed.
    QList<QLineEdit *> numberEdits() const { return m_numberEdits; }

    /// Removes every mark.
    void clear();
    /// Marks the field the problem is about and appends its reason to that field's message line.
    /// Returns the field, or nullptr when the problem's path is no table row or no field is
    /// registered for it.
    QWidget *mark(const QString &problem);
    /// The same for a problem of configProblems(): the field registered for its id.
    QWidget *mark(const ConfigProblem &problem);

    /// "load.stages" for "load.stages[2] (--stages): …": the JSON path without array indexes.
    static QString fieldOf(const QString &problem);
    /// The text after the path and the flag: what is wrong.
    static QString reasonOf(const QString &problem);
    /// Sets the invalid property and re-polishes so style sheets keyed on it apply at once.
    static void setInvalid(QWidget *widget, bool invalid);

private:
    struct Field {
        QWidget *widget;
        QLabel *message;
    };
    QWidget *mark(const Field &field, const QString &problem);

    QMap<ConfigFieldId, Field> m_fields;
    QList<QLabel *> m_messages;
    QList<QLineEdit *> m_numberEdits;
};

} // namespace tb
