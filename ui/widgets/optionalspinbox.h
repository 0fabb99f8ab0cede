#pragma once

#include <QWidget>

#include <optional>

class QCheckBox;
class QDoubleSpinBox;

namespace tb {

/// A number that may be left unset (std::optional<double> in the config): a check box switches the
/// spin box on; while off, the spin box reads e.g. "server default" and the typed value is kept for
/// when the box is ticked again.
class OptionalSpinBox : public QWidget
{
    Q_OBJECT

public:
    explicit OptionalSpinBox(const QString &unsetText, QWidget *parent = nullptr);

    QDoubleSpinBox *spinBox() const { return m_spin; }

    std::optional<double> value() const;
    void setValue(std::optional<double> value);

Q_SIGNALS:
    void valueChanged();

private:
    void updateSpin();

    QCheckBox *m_check;
    QDoubleSpinBox *m_spin;
    QString m_unsetText;
    double m_kept = 0;
};

} // namespace tb
