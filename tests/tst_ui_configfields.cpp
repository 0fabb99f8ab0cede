// The form rows made from the configuration table (ConfigFieldWidgets): each widget has the
// table's range (or the override its form documents), and a value goes setConfig → applyTo (a
// target's: setTarget → target()) through it unchanged, for every row the factory can make and for
// the rows of the forms.
#include "config/configfield.h"
#include "editors/configfieldwidgets.h"
#include "editors/fieldvalidator.h"
#include "editors/loadeditor.h"
#include "editors/targeteditor.h"
#include "editors/workloadeditor.h"

#include <QApplication>
#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QTest>
#include <QWidget>

#include <cmath>
#include <memory>

using namespace tb;

Q_DECLARE_METATYPE(tb::ConfigFieldId)

namespace {

/// A value inside the row's range that is not its default, so that a form that did not show it
/// would apply something else.
nlohmann::json probeValue(const ConfigField &field)
{
    if (field.type == ConfigType::Bool)
        return !field.defaultValue.get<bool>();
    if (field.type == ConfigType::String)
        return "probe " + std::string(field.key);
    const double middle = std::round((field.minimum + field.maximum) / 2 * 100) / 100;
    if (field.type == ConfigType::Int)
        return int(middle) == field.defaultValue.get<int>() ? int(middle) + 1 : int(middle);
    return middle == field.defaultValue.get<double>() ? middle + 0.25 : middle;
}

void setField(RunConfig &c, const ConfigField &field, const nlohmann::json &value)
{
    if (field.type == ConfigType::Bool)
        std::get<FieldRef<bool>>(field.access)(c) = value.get<bool>();
    else if (field.type == ConfigType::String)
        std::get<FieldRef<QString>>(field.access)(c) = QString::fromStdString(value.get<std::string>());
    else if (field.type == ConfigType::Int)
        std::get<FieldRef<int>>(field.access)(c) = value.get<int>();
    else
        std::get<FieldRef<double>>(field.access)(c) = value.get<double>();
}

/// The widget the factory makes for a row.
QWidget *make(ConfigFieldWidgets &fields, const ConfigField &field, QWidget *parent)
{
    switch (field.type) {
    case ConfigType::Bool:
        return fields.checkBox(field.id, {}, parent);
    case ConfigType::Int:
        return fields.spinBox(field.id, parent);
    case ConfigType::String:
        return fields.lineEdit(field.id, parent);
    default:
        return fields.doubleSpinBox(field.id, 2, parent);
    }
}

bool isTargetRow(const ConfigField &field)
{
    return QByteArray(field.section).startsWith("target");
}

/// The range the widget shows, or nothing for a check box or a line edit.
std::optional<std::pair<double, double>> rangeOf(const QWidget *widget)
{
    if (const auto *spin = qobject_cast<const QSpinBox *>(widget))
        return std::pair<double, double>(spin->minimum(), spin->maximum());
    if (const auto *spin = qobject_cast<const QDoubleSpinBox *>(widget))
        return std::pair(spin->minimum(), spin->maximum());
    return std::nullopt;
}

} // namespace

class TestUiConfigFields : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void factory_data()
    {
        QTest::addColumn<ConfigFieldId>("id");
        int rows = 0;
        for (const ConfigField &field : configFields()) {
            const bool ranged = field.maximum > field.minimum;
            if (field.type == ConfigType::Bool || field.type == ConfigType::String ||
                (ranged && (field.type == ConfigType::Int || field.type == ConfigType::Real))) {
                QTest::newRow(qPrintable(field.path())) << field.id;
                ++rows;
            }
        }
        QVERIFY(rows >= 20);
    }

    /// Without overrides a widget has the table's range and round-trips a value, a target's row
    /// through a TargetConfig too.
    void factory()
    {
        QFETCH(ConfigFieldId, id);
        const ConfigField &field = configField(id);
        QWidget parent;
        ConfigFieldWidgets fields;
        QWidget *widget = make(fields, field, &parent);
        QCOMPARE(fields.ids(), QList<ConfigFieldId>{id});
        QCOMPARE(fields.widget(id), widget);
        if (const auto range = rangeOf(widget)) {
            // A double spin box rounds its range to its decimals.
            QCOMPARE(range->first,
                     field.type == ConfigType::Int ? field.minimum : std::round(field.minimum * 100) / 100);
            QCOMPARE(range->second, field.maximum);
        }
        RunConfig in;
        const nlohmann::json value = probeValue(field);
        setField(in, field, value);
        fields.setConfig(in);
        RunConfig out;
        fields.applyTo(out);
        QCOMPARE(QString::fromStdString(field.get(out).dump()), QString::fromStdString(value.dump()));
        if (isTargetRow(field)) {
            fields.setConfig(RunConfig());
            fields.setTarget(in.target);
            RunConfig target;
            fields.applyTo(target.target);
            QCOMPARE(QString::fromStdString(field.get(target).dump()), QString::fromStdString(value.dump()));
        }
    }

    /// A line edit applies what is typed without the spaces around it, as the forms always did.
    void lineEditTrims()
    {
        QWidget parent;
        ConfigFieldWidgets fields;
        QLineEdit *edit = fields.lineEdit(ConfigFieldId::TargetUrl, &parent);
        edit->setText(QStringLiteral("  http://10.0.0.2:8000/v1 \t"));
        TargetConfig t;
        fields.applyTo(t);
        QCOMPARE(t.url, QStringLiteral("http://10.0.0.2:8000/v1"));
    }

    void forms_data()
    {
        QTest::addColumn<QString>("form");
        QTest::addColumn<QString>("objectName");
        QTest::addColumn<ConfigFieldId>("id");
        QTest::addColumn<double>("minimum");
        QTest::addColumn<double>("maximum");
        QTest::addColumn<double>("scale");
        QString form;
        const auto row = [&form](const char *name, ConfigFieldId id, std::optional<double> minimum = {},
                                 std::optional<double> maximum = {}, double scale = 1) {
            const ConfigField &field = configField(id);
            QTest::addRow("%s %s", qPrintable(form), name)
                << form << QString::fromLatin1(name) << id << minimum.value_or(field.minimum * scale)
                << maximum.value_or(field.maximum * scale) << scale;
        };
        // The overrides are those documented in the editors' constructors.
        form = QStringLiteral("load");
        row("concurrency", ConfigFieldId::Concurrency, 0);
        row("rate", ConfigFieldId::Rate, 0);
        row("maxInFlight", ConfigFieldId::MaxInFlight);
        row("sloTarget", ConfigFieldId::SloTarget, {}, {}, 100);
        row("failOnSlo", ConfigFieldId::FailOnSlo);
        row("cancelRate", ConfigFieldId::CancelRate, {}, {}, 100);
        row("cancelAfter", ConfigFieldId::CancelAfter);
        form = QStringLiteral("workload");
        row("promptTokens", ConfigFieldId::PromptTokens);
        row("systemTokens", ConfigFieldId::SystemTokens);
        row("sharedPrefixTokens", ConfigFieldId::SharedPrefixTokens);
        row("repeatPrompts", ConfigFieldId::Repeat);
        row("maxTokensFromDataset", ConfigFieldId::MaxTokensFromDataset);
        row("skipBadLines", ConfigFieldId::SkipBadLines);
        row("timeScale", ConfigFieldId::TimeScale, 0.001);
        row("maxTokens", ConfigFieldId::MaxTokens, 0);
        row("stream", ConfigFieldId::Stream);
        row("calibrate", ConfigFieldId::Calibrate);
        row("batchSize", ConfigFieldId::BatchSize);
        row("images", ConfigFieldId::Images);
        row("imageSize", ConfigFieldId::ImageSize);
        row("tools", ConfigFieldId::Tools);
        form = QStringLiteral("target");
        row("targetName", ConfigFieldId::TargetName);
        row("targetUrl", ConfigFieldId::TargetUrl);
        row("apiKeyEnv", ConfigFieldId::TargetApiKeyEnv);
        row("tlsVerify", ConfigFieldId::TargetTlsVerify);
        row("caCert", ConfigFieldId::TargetCaCert);
        row("followRedirects", ConfigFieldId::TargetFollowRedirects);
    }

    /// The forms' rows from the table: their range, and a value through setConfig → applyTo.
    void forms()
    {
        QFETCH(QString, form);
        QFETCH(QString, objectName);
        QFETCH(ConfigFieldId, id);
        QFETCH(double, minimum);
        QFETCH(double, maximum);
        QFETCH(double, scale);
        FieldValidator validator;
        std::unique_ptr<QWidget> editor;
        if (form == QLatin1String("load"))
            editor = std::make_unique<LoadEditor>(&validator);
        else if (form == QLatin1String("workload"))
            editor = std::make_unique<WorkloadEditor>(&validator);
        else
            editor = std::make_unique<TargetEditor>(&validator);
        auto *widget = editor->findChild<QWidget *>(objectName);
        QVERIFY(widget);
        if (const auto range = rangeOf(widget)) {
            QCOMPARE(range->first, minimum);
            QCOMPARE(range->second, maximum);
        } else {
            QVERIFY(qobject_cast<QCheckBox *>(widget) || qobject_cast<QLineEdit *>(widget));
        }
        const ConfigField &field = configField(id);
        RunConfig in;
        const nlohmann::json value = probeValue(field);
        setField(in, field, value);
        RunConfig out;
        if (auto *target = qobject_cast<TargetEditor *>(editor.get())) {
            target->setTarget(in.target, false);
            out.target = target->target();
        } else {
            auto *config = static_cast<ConfigForm *>(editor.get());
            config->setConfig(in);
            if (auto *spin = qobject_cast<QDoubleSpinBox *>(widget))
                QCOMPARE(spin->value(), value.get<double>() * scale);
            config->applyTo(out);
        }
        QCOMPARE(QString::fromStdString(field.get(out).dump()), QString::fromStdString(value.dump()));
    }
};

QTEST_MAIN(TestUiConfigFields)
#include "tst_ui_configfields.moc"
