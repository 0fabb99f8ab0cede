// The configuration table (config/configfield.h) row by row: each row's default is RunConfig{}'s
// value, its value survives JSON and its flag, and a value out of its range is a problem carrying
// the row's id.

#include "config/configfield.h"

#include <QTest>

#include <limits>

using namespace tb;

Q_DECLARE_METATYPE(tb::ConfigFieldId)

namespace {

/// The value at a dotted path ("target.pricing.input_per_1m"); nullptr when absent.
const nlohmann::json *jsonAt(const nlohmann::json &json, const QString &path)
{
    const nlohmann::json *node = &json;
    for (const QString &key : path.split(QLatin1Char('.'))) {
        if (!node->is_object() || !node->contains(toStd(key)))
            return nullptr;
        node = &(*node)[toStd(key)];
    }
    return node;
}

/// Sets the row to a value other than its default, within its range; returns that value as JSON
/// writes it. The hand-read types get a value of their own.
nlohmann::json setSample(const ConfigField &f, RunConfig &c)
{
    switch (f.type) {
    case ConfigType::Bool:
        std::get<FieldRef<bool>>(f.access)(c) = !f.defaultValue.get<bool>();
        break;
    case ConfigType::Int:
        std::get<FieldRef<int>>(f.access)(c) = int(f.maximum) - 1;
        break;
    case ConfigType::Int64:
        std::get<FieldRef<qint64>>(f.access)(c) = qint64(f.maximum) - 1;
        break;
    case ConfigType::UInt64:
        std::get<FieldRef<quint64>>(f.access)(c) = std::numeric_limits<quint64>::max() - 5;
        break;
    case ConfigType::Real:
        std::get<FieldRef<double>>(f.access)(c) = f.maximum / 2;
        break;
    case ConfigType::OptionalReal:
        std::get<FieldRef<std::optional<double>>>(f.access)(c) = f.maximum > 1000 ? 12.5 : f.maximum / 2;
        break;
    case ConfigType::Duration:
        std::get<FieldRef<qint64>>(f.access)(c) = 90000;
        break;
    case ConfigType::String:
    case ConfigType::OptionalString:
        std::get<FieldRef<QString>>(f.access)(c) = f.id == ConfigFieldId::TargetApiKeyEnv
                                                       ? QStringLiteral("SAMPLE_KEY")
                                                       : QStringLiteral("http://sample.test:1/x");
        break;
    case ConfigType::Enum: {
        const EnumAccess &e = std::get<EnumAccess>(f.access);
        for (const QString &name : e.names().split(QLatin1Char('|'))) {
            if (toStd(name) != f.defaultValue.get<std::string>()) {
                e.set(c, *e.fromName(name));
                break;
            }
        }
        break;
    }
    case ConfigType::StringList:
        c.target.replicas = {QStringLiteral("http://b.test:1/v1")};
        break;
    case ConfigType::Headers:
        c.target.headers = {{QStringLiteral("X-Sample"), QStringLiteral("1")}};
        break;
    case ConfigType::JsonObject:
        c.target.extraBody = {{"ignore_eos", true}};
        break;
    case ConfigType::StringMap:
        c.prompt.variables.insert(QStringLiteral("topic"), QStringLiteral("tea"));
        break;
    case ConfigType::Stages:
        c.load.stages = *parseStages(QStringLiteral("c=2:10s,c=4:20"), nullptr);
        break;
    case ConfigType::LengthRange:
        (f.id == ConfigFieldId::DatasetPromptLen ? c.prompt.promptLenMin : c.prompt.outputLenMin) = 4;
        break;
    case ConfigType::ThinkTime:
        c.load.thinkTimeMs = 2000;
        c.load.thinkTimeExponential = true;
        break;
    case ConfigType::Secret:
        c.target.apiKey = QStringLiteral("sk-sample");
        break;
    }
    const nlohmann::json json = toJson(c);
    const nlohmann::json *value = jsonAt(json, f.path());
    return value ? *value : nlohmann::json();
}

/// What the row's flag is given on a command line for setSample()'s value ("" for a flag
/// without a value).
QString flagText(const ConfigField &f, const nlohmann::json &sample)
{
    if (!*f.valueName)
        return {};
    switch (f.type) {
    case ConfigType::Headers:
        return QStringLiteral("X-Sample: 1");
    case ConfigType::JsonObject:
        return QStringLiteral("{\"ignore_eos\": true}");
    case ConfigType::StringMap:
        return {};
    case ConfigType::Stages:
        return QStringLiteral("c=2:10s,c=4:20");
    case ConfigType::OptionalReal:
        if (f.id == ConfigFieldId::SloTtft)
            return QStringLiteral("ttft_ms=12.5");
        break;
    default:
        break;
    }
    if (sample.is_string())
        return fromStd(sample.get<std::string>());
    return fromStd(sample.dump());
}

} // namespace

class TestConfigField : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ids()
    {
        // The id is the row's index, and every path is one row's.
        QSet<QString> paths;
        for (int i = 0; i < configFields().size(); ++i) {
            QCOMPARE(int(configFields().at(i).id), i);
            paths.insert(configFields().at(i).path());
        }
        QCOMPARE(paths.size(), configFields().size());
        QCOMPARE(configFieldAt(QStringLiteral("load.concurrency"))->id, ConfigFieldId::Concurrency);
        QVERIFY(!configFieldAt(QStringLiteral("load.nothing")));
    }

    void rows_data()
    {
        QTest::addColumn<ConfigFieldId>("id");
        for (const ConfigField &f : configFields())
            QTest::newRow(qPrintable(f.path())) << f.id;
    }

    void defaults_data() { rows_data(); }
    void defaults()
    {
        QFETCH(ConfigFieldId, id);
        const ConfigField &f = configField(id);
        const RunConfig defaults;
        const nlohmann::json json = toJson(defaults);
        const nlohmann::json *written = jsonAt(json, f.path());
        if (f.type == ConfigType::Secret) {
            QVERIFY2(!written, "a secret is never written");
            return;
        }
        QVERIFY2(written, qPrintable(f.path() + QStringLiteral(" is not written")));
        QCOMPARE(fromStd(written->dump()), fromStd(f.defaultValue.dump()));
        if (f.isTabular())
            QCOMPARE(fromStd(f.get(defaults).dump()), fromStd(f.defaultValue.dump()));
    }

    void jsonRoundTrip_data() { rows_data(); }
    void jsonRoundTrip()
    {
        QFETCH(ConfigFieldId, id);
        const ConfigField &f = configField(id);
        RunConfig c;
        const nlohmann::json sample = setSample(f, c);
        QString error;
        const auto read = runConfigFromJson(toJson(c), &error);
        QVERIFY2(read, qPrintable(error));
        if (f.type == ConfigType::Secret) {
            QVERIFY(read->target.apiKey.isEmpty());
            return;
        }
        QVERIFY2(sample != f.defaultValue, "the sample must differ from the default");
        QCOMPARE(*read, c);
        if (f.isTabular())
            QCOMPARE(fromStd(f.get(*read).dump()), fromStd(sample.dump()));
    }

    // Of two bad keys the one read first is reported, in the order fields were always read: the
    // hand-read keys take their turn among the table's.
    void firstBadKeyReported_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("error");
        QTest::newRow("headers before tls_verify")
            << QByteArray(R"({"target": {"tls_verify": 1, "headers": 1}})") << QStringLiteral("target.headers: ");
        QTest::newRow("api before headers")
            << QByteArray(R"({"target": {"headers": 1, "api": "x"}})") << QStringLiteral("target.api: ");
        QTest::newRow("a stage before timeout")
            << QByteArray(R"({"load": {"timeout": "x", "stages": [{"level": "x"}]}})")
            << QStringLiteral("load.stages[0].level: ");
        QTest::newRow("stages before requests")
            << QByteArray(R"({"load": {"requests": -1, "stages": 1}})") << QStringLiteral("load.stages: ");
        QTest::newRow("dataset_prompt_len before repeat")
            << QByteArray(R"({"prompt": {"repeat": 1, "dataset_prompt_len": "x"}})")
            << QStringLiteral("prompt.dataset_prompt_len: ");
    }
    void firstBadKeyReported()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, error);
        QString why;
        QVERIFY(!runConfigFromJson(nlohmann::json::parse(json.toStdString()), &why));
        QVERIFY2(why.startsWith(error), qPrintable(why));
    }

    void flagRoundTrip_data()
    {
        QTest::addColumn<ConfigFieldId>("id");
        for (const ConfigField &f : configFields()) {
            if (*f.flag)
                QTest::newRow(qPrintable(QStringLiteral("--") + QLatin1String(f.flag))) << f.id;
        }
    }
    void flagRoundTrip()
    {
        QFETCH(ConfigFieldId, id);
        const ConfigField &f = configField(id);
        RunConfig expected;
        const nlohmann::json sample = setSample(f, expected);
        QStringList args{QStringLiteral("run"), QStringLiteral("--") + QLatin1String(f.flag)};
        if (const QString text = flagText(f, sample); *f.valueName)
            args << text;
        if (id == ConfigFieldId::MaxInFlight) // it caps an open loop only
            args << QStringLiteral("--rate") << QStringLiteral("5");
        QCommandLineParser parser;
        parser.addOptions(configOptions());
        QVERIFY2(parser.parse(args), qPrintable(parser.errorText()));
        RunConfig c;
        QString error;
        QVERIFY2(applyConfigFlags(parser, c, &error), qPrintable(error));
        const nlohmann::json json = toJson(c);
        const nlohmann::json *written = jsonAt(json, f.path());
        QVERIFY(written);
        if (*f.valueName)
            QCOMPARE(fromStd(written->dump()), fromStd(sample.dump()));
        else if (f.type == ConfigType::Bool) // --insecure, --stream, --no-server-metrics
            QCOMPARE(written->get<bool>(), f.flagSets);
        else // --http2
            QVERIFY2(*written != f.defaultValue, written->dump().c_str());
    }

    void outOfRange_data()
    {
        QTest::addColumn<ConfigFieldId>("id");
        QTest::addColumn<bool>("above"); // above the maximum, else below the minimum
        for (const ConfigField &f : configFields()) {
            const bool real = f.type == ConfigType::Real || f.type == ConfigType::OptionalReal;
            if (f.type != ConfigType::Int && f.type != ConfigType::Int64 && f.type != ConfigType::Duration && !real)
                continue;
            QTest::newRow(qPrintable(f.path() + QStringLiteral(" below"))) << f.id << false;
            if (f.checkRange || (real && f.maximum < std::numeric_limits<double>::max()))
                QTest::newRow(qPrintable(f.path() + QStringLiteral(" above"))) << f.id << true;
        }
    }
    void outOfRange()
    {
        QFETCH(ConfigFieldId, id);
        QFETCH(bool, above);
        const ConfigField &f = configField(id);
        RunConfig c;
        c.target.url = QStringLiteral("http://127.0.0.1:8000/v1");
        c.target.model = QStringLiteral("m");
        QVERIFY(configProblems(c).isEmpty());
        if (id == ConfigFieldId::Rate) // checked in an open loop only
            c.load.mode = LoadMode::Rate;
        const double value = above ? f.maximum + 1 : f.minimum - 1;
        switch (f.type) {
        case ConfigType::Int:
            std::get<FieldRef<int>>(f.access)(c) = int(value);
            break;
        case ConfigType::Int64:
        case ConfigType::Duration:
            std::get<FieldRef<qint64>>(f.access)(c) = qint64(value);
            break;
        case ConfigType::Real:
            std::get<FieldRef<double>>(f.access)(c) = value;
            break;
        default:
            std::get<FieldRef<std::optional<double>>>(f.access)(c) = value;
            break;
        }
        const QList<ConfigProblem> problems = configProblems(c);
        QStringList messages;
        bool found = false;
        for (const ConfigProblem &p : problems) {
            messages << p.message;
            found = found || p.field == id;
        }
        QVERIFY2(found, qPrintable(messages.join(QLatin1Char('\n'))));
        // The users' text is the same problems.
        QCOMPARE(validate(c), messages);
    }

    void generatedMessages_data()
    {
        QTest::addColumn<ConfigFieldId>("id");
        QTest::addColumn<qint64>("value");
        QTest::addColumn<QString>("message");
        QTest::newRow("max_tokens") << ConfigFieldId::MaxTokens << qint64(0)
                                    << QStringLiteral(
                                           "request.max_tokens (--max-tokens): must be from 1 to 10000000 (got 0)");
        QTest::newRow("dataset_sample")
            << ConfigFieldId::DatasetSample << qint64(-1)
            << QStringLiteral(
                   "prompt.dataset_sample (--dataset-sample): must be from 0 (all) to 1000000000000 (got -1)");
        QTest::newRow("max_in_flight")
            << ConfigFieldId::MaxInFlight << qint64(100001)
            << QStringLiteral("load.max_in_flight (--max-in-flight): must be from 0 (no cap) to 100000 (got 100001)");
    }
    void generatedMessages()
    {
        QFETCH(ConfigFieldId, id);
        QFETCH(qint64, value);
        QFETCH(QString, message);
        RunConfig c;
        c.target.url = QStringLiteral("http://127.0.0.1:8000/v1");
        c.target.model = QStringLiteral("m");
        const ConfigField &f = configField(id);
        if (f.type == ConfigType::Int)
            std::get<FieldRef<int>>(f.access)(c) = int(value);
        else
            std::get<FieldRef<qint64>>(f.access)(c) = value;
        QCOMPARE(configProblems(c), (QList<ConfigProblem>{{id, message}}));
    }
};

QTEST_GUILESS_MAIN(TestConfigField)
#include "tst_configfield.moc"
