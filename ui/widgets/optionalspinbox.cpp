#include "widgets/optionalspinbox.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>

namespace tb {

OptionalSpinBox::OptionalSpinBox(const QString &unsetText, QWidget *parent)
    : QWidget(parent)
    , m_check(new QCheckBox(this))
    , m_spin(new QDoubleSpinBox(this))
    , m_unsetText(unsetText)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_check);
    layout->addWidget(m_spin, 1);
    setFocusProxy(m_spin);
    connect(m_check, &QCheckBox::toggled, this, [this](bool on) {
        if (!on)
            m_kept = m_spin->value();
        updateSpin();
        if (on)
            m_spin->setValue(m_kept);
        Q_EMIT valueChanged();
    });
    connect(m_spin, &QDoubleSpinBox::valueChanged, this, [this] {
        if (m_check->isChecked())
            Q_EMIT valueChanged();
    });
    updateSpin();
}

std::optional<double> OptionalSpinBox::value() const
{
    if (!m_check->isChecked())
        return std::nullopt;
    return m_spin->value();
}

void OptionalSpinBox::setValue(std::optional<double> value)
{
    const QSignalBlocker blockCheck(m_check);
    const QSignalBlocker blockSpin(m_spin);
    if (value)
        m_kept = *value;
    m_check->setChecked(value.has_value());
    updateSpin();
    if (value)
        m_spin->setValue(*value);
    Q_EMIT valueChanged();
}

void OptionalSpinBox::updateSpin()
{
    // The special text shows only at the minimum, so while unset the spin box sits there; while set,
    // the minimum is an ordinary value and must read as a number.
    const bool on = m_check->isChecked();
    m_spin->setEnabled(on);
    m_spin->setSpecialValueText(on ? QString() : m_unsetText);
    if (!on) {
        const QSignalBlocker block(m_spin);
        m_spin->setValue(m_spin->minimum());
    }
}

} // namespace tb
