#pragma once

#include "config/configfield.h"

#include <QHash>
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
/// invalid=true, styled by ConfigEditor) and the reason in a line under it. configProblems() name
/// their field by id; the forms' own checks are strings in the "json.path: reason" form, whose
/// path picks the field.
class FieldValidator
{
public:
    /// Adds "label: field" to the form, with a hidden message line under the field, and registers
    /// the field under `key` (a JSON path such as "target.url"). The tool tip goes on label and field.
    /// Returns the message label, so further keys can share it (addField).
    QLabel *addRow(QFormLayout *form, const QString &label, QWidget *field, const QString &key, const QString &toolTip);
    /// The same for a field of the configuration table, under its JSON path.
    QLabel *addRow(QFormLayout *form, const QString &label, QWidget *field, ConfigFieldId id, const QString &toolTip)
    {
        return addRow(form, label, field, configField(id).path(), toolTip);
    }
    /// Registers another field (or another key for the same field) with its message label.
    void addField(const QString &key, QWidget *field, QLabel *message);
    void addField(ConfigFieldId id, QWidget *field, QLabel *message)
    {
        addField(configField(id).path(), field, message);
    }
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
    /// Returns the field, or nullptr when no field is registered for the problem's path.
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

    QHash<QString, Field> m_fields;
    QMap<ConfigFieldId, Field> m_byId; ///< the fields registered under a table path
    QList<QLabel *> m_messages;
    QList<QLineEdit *> m_numberEdits;
};

} // namespace tb
