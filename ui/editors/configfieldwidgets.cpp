#include "editors/configfieldwidgets.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>

#include <algorithm>

namespace tb {

namespace {

QString suffixOf(const ConfigField &field, const ConfigFieldWidgets::Override &override)
{
    if (!override.suffix.isEmpty())
        return override.suffix;
    return *field.unit ? QLatin1Char(' ') + QString::fromUtf8(field.unit) : QString();
}

bool isTargetRow(ConfigFieldId id)
{
    return QByteArray(configField(id).section).startsWith("target");
}

} // namespace

QSpinBox *ConfigFieldWidgets::spinBox(ConfigFieldId id, QWidget *parent, const Override &override)
{
    const ConfigField &field = configField(id);
    Q_ASSERT(field.type == ConfigType::Int);
    auto *spin = new QSpinBox(parent);
    spin->setRange(int(override.minimum.value_or(field.minimum)), int(override.maximum.value_or(field.maximum)));
    spin->setSuffix(suffixOf(field, override));
    if (*field.zeroMeans && spin->minimum() == 0)
        spin->setSpecialValueText(QString::fromUtf8(field.zeroMeans));
    m_rows.append({id, spin, 1});
    return spin;
}

QDoubleSpinBox *ConfigFieldWidgets::doubleSpinBox(ConfigFieldId id, int decimals, QWidget *parent,
                                                  const Override &override)
{
    const ConfigField &field = configField(id);
    Q_ASSERT(field.type == ConfigType::Real);
    auto *spin = new QDoubleSpinBox(parent);
    spin->setDecimals(decimals);
    spin->setRange(override.minimum.value_or(field.minimum * override.scale),
                   override.maximum.value_or(field.maximum * override.scale));
    spin->setSuffix(suffixOf(field, override));
    m_rows.append({id, spin, override.scale});
    return spin;
}

QCheckBox *ConfigFieldWidgets::checkBox(ConfigFieldId id, const QString &text, QWidget *parent)
{
    Q_ASSERT(configField(id).type == ConfigType::Bool);
    auto *box = new QCheckBox(text, parent);
    m_rows.append({id, box, 1});
    return box;
}

QLineEdit *ConfigFieldWidgets::lineEdit(ConfigFieldId id, QWidget *parent)
{
    Q_ASSERT(configField(id).type == ConfigType::String);
    auto *edit = new QLineEdit(parent);
    m_rows.append({id, edit, 1});
    return edit;
}

QString ConfigFieldWidgets::toolTip(ConfigFieldId id)
{
    const ConfigField &field = configField(id);
    QString help = QString::fromUtf8(field.help);
    if (!*field.flag)
        return help;
    // "… is measured (--max-in-flight).", as the forms' own tool tips name their flag.
    if (help.endsWith(QLatin1Char('.')))
        help.chop(1);
    return QStringLiteral("%1 (--%2).").arg(help, QString::fromUtf8(field.flag));
}

void ConfigFieldWidgets::setConfig(const RunConfig &config) const
{
    for (const Row &row : m_rows) {
        const nlohmann::json value = configField(row.id).get(config);
        if (auto *spin = qobject_cast<QSpinBox *>(row.widget))
            spin->setValue(value.get<int>());
        else if (auto *real = qobject_cast<QDoubleSpinBox *>(row.widget))
            real->setValue(value.get<double>() * row.scale);
        else if (auto *box = qobject_cast<QCheckBox *>(row.widget))
            box->setChecked(value.get<bool>());
        else if (auto *edit = qobject_cast<QLineEdit *>(row.widget))
            edit->setText(QString::fromStdString(value.get<std::string>()));
    }
}

void ConfigFieldWidgets::applyTo(RunConfig &config) const
{
    for (const Row &row : m_rows) {
        const FieldAccess &access = configField(row.id).access;
        if (auto *spin = qobject_cast<QSpinBox *>(row.widget))
            std::get<FieldRef<int>>(access)(config) = spin->value();
        else if (auto *real = qobject_cast<QDoubleSpinBox *>(row.widget))
            std::get<FieldRef<double>>(access)(config) = real->value() / row.scale;
        else if (auto *box = qobject_cast<QCheckBox *>(row.widget))
            std::get<FieldRef<bool>>(access)(config) = box->isChecked();
        else if (auto *edit = qobject_cast<QLineEdit *>(row.widget))
            std::get<FieldRef<QString>>(access)(config) = edit->text().trimmed();
    }
}

void ConfigFieldWidgets::setTarget(const TargetConfig &target) const
{
    Q_ASSERT(std::all_of(m_rows.cbegin(), m_rows.cend(), [](const Row &row) { return isTargetRow(row.id); }));
    // The table reaches a field through a RunConfig: the target's rows reach it in its target.
    RunConfig config;
    config.target = target;
    setConfig(config);
}

void ConfigFieldWidgets::applyTo(TargetConfig &target) const
{
    Q_ASSERT(std::all_of(m_rows.cbegin(), m_rows.cend(), [](const Row &row) { return isTargetRow(row.id); }));
    RunConfig config;
    config.target = target;
    applyTo(config);
    target = config.target;
}

void ConfigFieldWidgets::onEdited(QObject *context, const std::function<void()> &edited) const
{
    for (const Row &row : m_rows) {
        if (auto *spin = qobject_cast<QSpinBox *>(row.widget))
            QObject::connect(spin, &QSpinBox::valueChanged, context, edited);
        else if (auto *real = qobject_cast<QDoubleSpinBox *>(row.widget))
            QObject::connect(real, &QDoubleSpinBox::valueChanged, context, edited);
        else if (auto *box = qobject_cast<QCheckBox *>(row.widget))
            QObject::connect(box, &QCheckBox::toggled, context, edited);
        else if (auto *edit = qobject_cast<QLineEdit *>(row.widget))
            QObject::connect(edit, &QLineEdit::textEdited, context, edited);
    }
}

QList<ConfigFieldId> ConfigFieldWidgets::ids() const
{
    QList<ConfigFieldId> ids;
    ids.reserve(m_rows.size());
    for (const Row &row : m_rows)
        ids << row.id;
    return ids;
}

QWidget *ConfigFieldWidgets::widget(ConfigFieldId id) const
{
    for (const Row &row : m_rows)
        if (row.id == id)
            return row.widget;
    return nullptr;
}

} // namespace tb
