#include "editors/fieldvalidator.h"

#include "widgets/formstyle.h"

#include <QAbstractSpinBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStyle>
#include <QVBoxLayout>
#include <QValidator>

namespace tb {

namespace {

/// A spin box drops every key press it cannot use ("-5abc" becomes "5") and puts its last value
/// back when it loses the focus: either way a number the user did not type is applied silently.
/// This keeps what was typed (the spin box's own validator still accepts, fixes up and completes a
/// number) so that the form can mark it, and leaves the value as it was until the text reads.
class TypedTextKeeper : public QValidator
{
public:
    TypedTextKeeper(QAbstractSpinBox *spin, QLineEdit *edit)
        : QValidator(spin)
        , m_spin(spin)
        , m_edit(edit)
        , m_own(edit->validator())
    {
        edit->setValidator(this);
        spin->installEventFilter(this);
    }

    State validate(QString &input, int &pos) const override
    {
        const State state = m_own ? m_own->validate(input, pos) : Acceptable;
        return state == Invalid ? Intermediate : state;
    }
    void fixup(QString &input) const override
    {
        if (m_own)
            m_own->fixup(input);
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        // Focus out with an unreadable text: the line edit loses its cursor, the spin box does not
        // revert the text.
        if (watched == m_spin && event->type() == QEvent::FocusOut && !m_spin->hasAcceptableInput()) {
            QCoreApplication::sendEvent(m_edit, event);
            return true;
        }
        return QValidator::eventFilter(watched, event);
    }

private:
    QAbstractSpinBox *m_spin;
    QLineEdit *m_edit;
    QPointer<const QValidator> m_own;
};

QAbstractSpinBox *spinBoxOf(QWidget *field)
{
    auto *spin = qobject_cast<QAbstractSpinBox *>(field);
    return spin ? spin : field->findChild<QAbstractSpinBox *>();
}

} // namespace

QLabel *FieldValidator::createMessageLabel(QWidget *parent)
{
    auto *message = new QLabel(parent);
    message->setObjectName(QStringLiteral("fieldMessage"));
    setTone(message, Tone::Bad);
    message->setWordWrap(true);
    message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    message->hide();
    return message;
}

QLabel *FieldValidator::addRow(QFormLayout *form, const QString &label, QWidget *field, ConfigFieldId id,
                               const QString &toolTip)
{
    QLabel *message = addRow(form, label, field, toolTip);
    addField(id, field, message);
    return message;
}

QLabel *FieldValidator::addRow(QFormLayout *form, const QString &label, QWidget *field, const QString &toolTip)
{
    auto *box = new QWidget(form->parentWidget());
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    field->setParent(box);
    // A field with a width limit (see setCompact()) sits at the left, not centred in the row.
    layout->addWidget(field, 0, field->maximumWidth() < QWIDGETSIZE_MAX ? Qt::AlignLeft : Qt::Alignment());
    QLabel *message = createMessageLabel(box);
    layout->addWidget(message);
    form->addRow(label, box);
    field->setToolTip(toolTip);
    if (auto *rowLabel = qobject_cast<QLabel *>(form->labelForField(box))) {
        rowLabel->setToolTip(toolTip);
        rowLabel->setBuddy(field);
    }
    return message;
}

void FieldValidator::addField(ConfigFieldId id, QWidget *field, QLabel *message)
{
    m_fields.insert(id, {field, message});
    if (!m_messages.contains(message))
        m_messages << message;
    QAbstractSpinBox *spin = spinBoxOf(field);
    auto *edit = spin ? spin->findChild<QLineEdit *>() : nullptr;
    if (edit && !m_numberEdits.contains(edit)) {
        new TypedTextKeeper(spin, edit);
        m_numberEdits << edit;
    }
}

QStringList FieldValidator::unreadableNumbers() const
{
    QStringList problems;
    QList<const QAbstractSpinBox *> seen;
    for (auto it = m_fields.constBegin(); it != m_fields.constEnd(); ++it) {
        const QAbstractSpinBox *spin = spinBoxOf(it->widget);
        if (!spin || !spin->isEnabled() || spin->hasAcceptableInput() || seen.contains(spin))
            continue;
        seen << spin;
        QString range;
        if (const auto *i = qobject_cast<const QSpinBox *>(spin))
            range = QStringLiteral(" from %1 to %2").arg(i->minimum()).arg(i->maximum());
        else if (const auto *d = qobject_cast<const QDoubleSpinBox *>(spin))
            range = QStringLiteral(" from %1 to %2").arg(d->minimum()).arg(d->maximum());
        problems << QStringLiteral("%1: '%2' is not a number%3").arg(configField(it.key()).path(), spin->text(), range);
    }
    problems.sort(); // in the order of their paths, whatever the order of registration
    return problems;
}

void FieldValidator::clear()
{
    for (const Field &f : std::as_const(m_fields))
        setInvalid(f.widget, false);
    for (QLabel *message : std::as_const(m_messages)) {
        message->clear();
        message->hide();
    }
}

QWidget *FieldValidator::mark(const QString &problem)
{
    const ConfigField *row = configFieldAt(fieldOf(problem));
    const auto it = row ? m_fields.constFind(row->id) : m_fields.constEnd();
    return it == m_fields.constEnd() ? nullptr : mark(*it, problem);
}

QWidget *FieldValidator::mark(const ConfigProblem &problem)
{
    const auto it = m_fields.constFind(problem.field);
    return it == m_fields.constEnd() ? nullptr : mark(*it, problem.message);
}

QWidget *FieldValidator::mark(const Field &field, const QString &problem)
{
    setInvalid(field.widget, true);
    const QString reason = reasonOf(problem);
    QString text = field.message->text();
    if (!text.split(QLatin1Char('\n')).contains(reason))
        text += (text.isEmpty() ? QString() : QStringLiteral("\n")) + reason;
    field.message->setText(text);
    field.message->show();
    return field.widget;
}

QString FieldValidator::fieldOf(const QString &problem)
{
    static const QRegularExpression path(QStringLiteral("^([A-Za-z_][A-Za-z0-9_.\\[\\]]*)"));
    static const QRegularExpression index(QStringLiteral("\\[\\d+\\]"));
    return path.match(problem).captured(1).remove(index);
}

QString FieldValidator::reasonOf(const QString &problem)
{
    const int colon = problem.indexOf(QStringLiteral(": "));
    QString reason = colon < 0 ? problem : problem.mid(colon + 2);
    if (!reason.isEmpty())
        reason[0] = reason.at(0).toUpper();
    // Problems about one element of a list ("load.stages[2]") are shown at the table: name the row.
    static const QRegularExpression index(QStringLiteral("^[^\\s:]*\\[(\\d+)\\]"));
    if (const auto m = index.match(problem); m.hasMatch())
        reason = QStringLiteral("Row %1: %2").arg(m.captured(1).toInt() + 1).arg(reason);
    return reason;
}

void FieldValidator::setInvalid(QWidget *widget, bool invalid)
{
    if (widget->property("invalid").toBool() == invalid)
        return;
    widget->setProperty("invalid", invalid);
    widget->style()->unpolish(widget);
    widget->style()->polish(widget);
    // The border changes the frame, hence the size hint, which layouts cache until told.
    widget->updateGeometry();
    widget->update();
}

} // namespace tb
