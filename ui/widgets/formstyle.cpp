#include "widgets/formstyle.h"

#include "widgets/card.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPlainTextEdit>

namespace tb {

QGroupBox *createFormGroup(const QString &title, QWidget *parent, QFormLayout **form)
{
    auto *group = new QGroupBox(title, parent);
    auto *layout = new QFormLayout(group);
    layout->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    layout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    layout->setRowWrapPolicy(QFormLayout::DontWrapRows);
    layout->setVerticalSpacing(6);
    *form = layout;
    return group;
}

void setVisibleLines(QPlainTextEdit *edit, int lines)
{
    const QMargins m = edit->contentsMargins();
    edit->setFixedHeight(edit->fontMetrics().lineSpacing() * lines + int(2 * edit->document()->documentMargin()) +
                         m.top() + m.bottom() + 2 * edit->frameWidth());
}

void setCompact(QWidget *field)
{
    constexpr int kCompactWidth = 170;
    field->setFixedWidth(kCompactWidth);
}

void setRowUnused(QWidget *field, const QString &reason)
{
    // The row's field is the widget the form holds: the validator's box around the field.
    QWidget *row = field;
    QFormLayout *form = nullptr;
    while (row->parentWidget()) {
        form = qobject_cast<QFormLayout *>(row->parentWidget()->layout());
        if (form && form->indexOf(row) >= 0)
            break;
        form = nullptr;
        row = row->parentWidget();
    }
    QList<QWidget *> widgets{field};
    if (form) {
        widgets << row;
        if (QWidget *label = form->labelForField(row))
            widgets << label;
    }
    // The first call keeps each widget's own tool tip, to put back when the row is used again.
    static const char *const kOwnToolTip = "tbOwnToolTip";
    for (QWidget *widget : std::as_const(widgets)) {
        if (!widget->property(kOwnToolTip).isValid())
            widget->setProperty(kOwnToolTip, widget->toolTip());
        widget->setEnabled(reason.isEmpty());
        widget->setToolTip(reason.isEmpty() ? widget->property(kOwnToolTip).toString() : reason);
    }
}

void alignFormLabels(QWidget *root)
{
    const QList<QFormLayout *> forms = root->findChildren<QFormLayout *>();
    QList<QWidget *> labels;
    int width = 0;
    for (QFormLayout *form : forms) {
        for (int row = 0; row < form->rowCount(); ++row) {
            if (QLayoutItem *item = form->itemAt(row, QFormLayout::LabelRole); item && item->widget()) {
                labels << item->widget();
                width = qMax(width, item->widget()->sizeHint().width());
            }
        }
    }
    for (QWidget *label : std::as_const(labels)) {
        label->setMinimumWidth(width);
        // The label is now wider than its text: keep the text against the field.
        if (auto *text = qobject_cast<QLabel *>(label))
            text->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
}

QString validationStyleSheet()
{
    return QStringLiteral(
        "QLineEdit[invalid=\"true\"], QPlainTextEdit[invalid=\"true\"], QAbstractSpinBox[invalid=\"true\"],"
        " QComboBox[invalid=\"true\"], QTableView[invalid=\"true\"] { border: 1px solid #c62828; }");
}

void setTone(QLabel *label, Tone tone)
{
    // Light-look colours that setTextColor() keeps themed: a colour read from the palette now
    // would stay when the theme changes.
    switch (tone) {
    case Tone::Hint:
        setTextColor(label, QColor(0x5f, 0x66, 0x72)); // the palettes' placeholder grey
        break;
    case Tone::Good:
        setTextColor(label, QColor(0x2e, 0x7d, 0x32));
        break;
    case Tone::Bad:
        setTextColor(label, QColor(0xc6, 0x28, 0x28));
        break;
    }
}

} // namespace tb
