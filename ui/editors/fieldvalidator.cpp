#include "editors/fieldvalidator.h"

#include "widgets/formstyle.h"

#include <QFormLayout>
#include <QLabel>
#include <QRegularExpression>
#include <QStyle>
#include <QVBoxLayout>

namespace tb {

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

QLabel *FieldValidator::addRow(QFormLayout *form, const QString &label, QWidget *field, const QString &key,
                               const QString &toolTip)
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
    addField(key, field, message);
    return message;
}

void FieldValidator::addField(const QString &key, QWidget *field, QLabel *message)
{
    m_fields.insert(key, {field, message});
    if (!m_messages.contains(message))
        m_messages << message;
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
    const auto it = m_fields.constFind(fieldOf(problem));
    if (it == m_fields.constEnd())
        return nullptr;
    setInvalid(it->widget, true);
    const QString reason = reasonOf(problem);
    QString text = it->message->text();
    if (!text.split(QLatin1Char('\n')).contains(reason))
        text += (text.isEmpty() ? QString() : QStringLiteral("\n")) + reason;
    it->message->setText(text);
    it->message->show();
    return it->widget;
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
