#pragma once

#include "config/configfield.h"

#include <QList>
#include <QString>

#include <functional>
#include <optional>

class QCheckBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;
class QWidget;

namespace tb {

/// Where a form's widget must differ from the table; each use says why, next to its row.
struct FieldWidgetOverride {
    std::optional<double> minimum = std::nullopt;
    std::optional<double> maximum = std::nullopt;
    QString suffix = {}; ///< instead of " " + the table's unit
    double scale = 1;    ///< the widget shows the value times this (a fraction as a percent)
};

/// The plain rows of a form made from the configuration table (configfield.h): a spin box, double
/// spin box, check box or line edit per field, with the table's range, unit and what 0 means,
/// showing and applying the field's value through the table's accessor, so that a form's
/// setConfig() and applyTo() of those rows are loops over them. Composite rows ("or" rows, stages,
/// lists, combo boxes with their own items, line edits with a validator) stay hand-made.
class ConfigFieldWidgets
{
public:
    using Override = FieldWidgetOverride;

    /// A spin box for an Int row: the table's range, " unit" as suffix, zeroMeans as the text of 0.
    QSpinBox *spinBox(ConfigFieldId id, QWidget *parent, const Override &override = {});
    /// A double spin box for a Real row, the same way, with `decimals` places.
    QDoubleSpinBox *doubleSpinBox(ConfigFieldId id, int decimals, QWidget *parent, const Override &override = {});
    /// A check box for a Bool row, labelled `text`.
    QCheckBox *checkBox(ConfigFieldId id, const QString &text, QWidget *parent);
    /// A line edit for a String row; the value applied is the text without the spaces around it.
    QLineEdit *lineEdit(ConfigFieldId id, QWidget *parent);

    /// The row's tool tip from the table: its help line and flag ("… (--max-in-flight)").
    static QString toolTip(ConfigFieldId id);

    /// Shows each made field's value in config.
    void setConfig(const RunConfig &config) const;
    /// Writes each made field's value into config.
    void applyTo(RunConfig &config) const;
    /// The same for a form of one target (TargetEditor edits a TargetConfig, not a RunConfig): every
    /// made field must be one of the target's.
    void setTarget(const TargetConfig &target) const;
    void applyTo(TargetConfig &target) const;
    /// Calls `edited` on each change of a made field's value by the user or the program; a line
    /// edit's on each edit by the user only (textEdited), as a form's setConfig() sets its text.
    void onEdited(QObject *context, const std::function<void()> &edited) const;

    /// The made fields, in the order made.
    QList<ConfigFieldId> ids() const;
    QWidget *widget(ConfigFieldId id) const;

private:
    struct Row {
        ConfigFieldId id;
        QWidget *widget;
        double scale;
    };
    QList<Row> m_rows;
};

} // namespace tb
