// The configuration forms as a user drives them: every configuration survives the trip through the
// forms, bad input is shown at its field (and blocks the run), and the estimates follow the edits.
#include "api/requestbuilder.h"
#include "charts/distributionchart.h"
#include "config/pricepresets.h"
#include "editors/configeditor.h"
#include "editors/fieldvalidator.h"
#include "editors/loadeditor.h"
#include "editors/targeteditor.h"
#include "editors/workloadeditor.h"
#include "models/stagesmodel.h"
#include "models/targetlistmodel.h"
#include "views/workloadlengthsview.h"
#include "widgets/durationedit.h"
#include "widgets/optionalspinbox.h"

#include "tokenize/tokenizer.h"

#include "support/testfiles.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace tb;

Q_DECLARE_METATYPE(tb::RunConfig)
Q_DECLARE_METATYPE(tb::ConfigFieldId)
Q_DECLARE_METATYPE(tb::WorkloadEditor::Source)

namespace {

RunConfig base()
{
    RunConfig c;
    c.target.name = QStringLiteral("local vLLM");
    c.target.url = QStringLiteral("http://127.0.0.1:8000/v1");
    c.target.model = QStringLiteral("qwen2.5-7b");
    c.prompt.promptTokens = 512;
    return c;
}

/// The message line under a field: the first fieldMessage label in the field's row container.
QLabel *messageFor(QWidget *field)
{
    for (QWidget *w = field->parentWidget(); w; w = w->parentWidget()) {
        if (auto *label = w->findChild<QLabel *>(QStringLiteral("fieldMessage"), Qt::FindDirectChildrenOnly))
            return label;
    }
    return nullptr;
}

/// A form of `Field` widgets registered with a FieldValidator under the given ids, each known by a
/// name, for the tests of which widget a problem marks.
template<typename Field> struct MarkingForm {
    QWidget form;
    FieldValidator validator;
    QHash<QString, QWidget *> widgets;

    explicit MarkingForm(std::initializer_list<std::pair<const char *, ConfigFieldId>> fields)
    {
        auto *layout = new QFormLayout(&form);
        for (const auto &[name, id] : fields) {
            auto *widget = new Field(&form);
            widgets.insert(QLatin1String(name), widget);
            validator.addRow(layout, QLatin1String(name), widget, id, QString());
        }
    }
    /// Whether exactly the widget named `marked` is marked invalid ("" for none).
    bool onlyMarked(const QString &marked) const
    {
        for (auto it = widgets.cbegin(); it != widgets.cend(); ++it) {
            if (it.value()->property("invalid").toBool() != (it.key() == marked))
                return false;
        }
        return true;
    }
};

/// Types into a field the way a user would.
void enter(QWidget *field, const QString &text)
{
    if (auto *edit = qobject_cast<QLineEdit *>(field)) {
        edit->setFocus();
        edit->selectAll();
        QTest::keyClick(edit, Qt::Key_Backspace);
        QTest::keyClicks(edit, text);
    } else if (auto *combo = qobject_cast<QComboBox *>(field)) {
        combo->setCurrentText(text);
    } else if (auto *plain = qobject_cast<QPlainTextEdit *>(field)) {
        plain->setPlainText(text);
    } else if (auto *spin = qobject_cast<QSpinBox *>(field)) {
        spin->setValue(text.toInt());
    } else if (auto *dspin = qobject_cast<QDoubleSpinBox *>(field)) {
        dspin->setValue(text.toDouble());
    } else if (auto *optional = qobject_cast<OptionalSpinBox *>(field)) {
        optional->setValue(text.toDouble());
    } else {
        QFAIL(qPrintable(
            QStringLiteral("cannot type into %1").arg(QString::fromLatin1(field->metaObject()->className()))));
    }
}

} // namespace

class TestUiConfigEditor : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_promptFile;
    QString m_toolsFile;  ///< two tools, get_weather and add
    QString m_schemaFile; ///< a JSON Schema for an object with a "city"

    /// Shows the editor on its Load tab with stages c=8:30s,c=16:30s.
    static bool showTwoStages(ConfigEditor &editor)
    {
        editor.show();
        if (!QTest::qWaitForWindowExposed(&editor))
            return false;
        RunConfig c = base();
        c.load.stages = *parseStages(QStringLiteral("c=8:30s,c=16:30s"), nullptr);
        editor.setConfig(c);
        editor.tabs()->setCurrentIndex(ConfigEditor::LoadTab);
        return true;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_promptFile = m_dir.filePath(QStringLiteral("prompts.jsonl"));
        QVERIFY(tb::test::writeFile(
            m_promptFile,
            R"({"prompt": "Explain the tides in one line."})"
            "\n"
            R"({"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Why is the sky blue?"}]})"
            "\n"
            R"({"prompt": "Name three prime numbers."})"
            "\n"));
        m_toolsFile = m_dir.filePath(QStringLiteral("tools.json"));
        QVERIFY(tb::test::writeFile(
            m_toolsFile,
            R"([{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", )"
            R"("properties": {"city": {"type": "string"}}, "required": ["city"]}}}, )"
            R"({"type": "function", "function": {"name": "add", "parameters": {"type": "object", "properties": )"
            R"({"a": {"type": "number"}, "b": {"type": "number"}}}}}])"));
        m_schemaFile = m_dir.filePath(QStringLiteral("city.schema.json"));
        QVERIFY(tb::test::writeFile(
            m_schemaFile, R"({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})"));
    }

    void roundTrip_data()
    {
        QTest::addColumn<RunConfig>("config");
        QTest::newRow("synthetic, closed loop") << base();
        {
            RunConfig c = base();
            c.target.api = ApiKind::AnthropicMessages;
            c.target.url = QStringLiteral("https://api.anthropic.com/v1");
            c.target.model = QStringLiteral("claude-x");
            c.target.apiKeyEnv = QStringLiteral("TEAM_ANTHROPIC_KEY");
            c.target.apiKey = QStringLiteral("sk-typed-in");
            c.target.headers = {{QStringLiteral("X-Team"), QStringLiteral("perf")},
                                {QStringLiteral("X-Trace"), QStringLiteral("on")}};
            c.target.extraBody = {{"top_k", 40}, {"metadata", {{"user_id", "bench"}}}, {"penalty", 1.05}};
            c.target.tlsVerify = false;
            c.target.caCertificate = QStringLiteral(TOKENBENCH_TESTDATA "/tls-test.crt");
            QTest::newRow("anthropic, key, headers, extra body, TLS options") << c;
        }
        {
            RunConfig c = base();
            c.target.replicas = {QStringLiteral("http://10.0.0.2:8000/v1"), QStringLiteral("http://10.0.0.3:8000/v1")};
            c.target.balance = Balance::LeastInFlight;
            QTest::newRow("replicas, least in flight") << c;
        }
        {
            RunConfig c = base();
            c.target.pricing = {2.5, 1.25, 10.0, QStringLiteral("gpt-4o list price as of 2024-10-01")};
            QTest::newRow("prices") << c;
            c.target.pricing = {std::nullopt, std::nullopt, 0.0, QStringLiteral("free output")};
            QTest::newRow("output price only, free") << c;
        }
        {
            RunConfig c = base();
            c.target.gpuMetricsUrl = QStringLiteral("http://gpu-node:9400/metrics");
            c.target.energyPricePerKwh = 0.1234;
            QTest::newRow("DCGM exporter, electricity price") << c;
            c.target.energyPricePerKwh = 0.0;
            QTest::newRow("DCGM exporter, free electricity") << c;
        }
        {
            RunConfig c = base();
            c.load.mode = LoadMode::Rate;
            c.load.rate = 12.5;
            c.load.arrival = Arrival::Constant;
            c.load.maxInFlight = 64;
            c.load.durationMs = 90000;
            c.load.warmupMs = 10000;
            c.load.timeoutMs = 120000;
            c.load.seed = 4294967297ULL; // beyond a QSpinBox's int
            QTest::newRow("open loop, constant, capped") << c;
        }
        {
            RunConfig c = base();
            StageConfig a;
            a.level = 50;
            a.durationMs = 30000;
            StageConfig b;
            b.name = QStringLiteral("peak");
            b.mode = LoadMode::Rate;
            b.level = 0.5;
            b.requests = 500;
            b.durationMs = 250;
            c.load.stages = {a, b};
            c.load.mode = LoadMode::Rate;
            c.load.warmupRequests = 20;
            c.load.requests = 1000;
            QTest::newRow("stages") << c;
        }
        {
            RunConfig c = base();
            c.prompt.promptTokens = 0;
            c.prompt.systemTemplate = QStringLiteral("You are {{persona}}.");
            c.prompt.userTemplate = QStringLiteral("Write {{n}} lines about {{topic}} (request {{index}}).");
            c.prompt.variables = {{QStringLiteral("persona"), QStringLiteral("a poet")},
                                  {QStringLiteral("n"), QStringLiteral("4")},
                                  {QStringLiteral("topic"), QStringLiteral("load tests")}};
            c.request.maxTokens = 1024;
            c.request.temperature = 0.7;
            c.request.topP = 0.95;
            c.request.stream = false;
            c.prompt.calibrate = false;
            QTest::newRow("templates, sampling, no stream") << c;
        }
        {
            RunConfig c = base();
            c.prompt.promptTokens = 2048;
            c.prompt.systemTokens = 300;
            c.prompt.sharedPrefixTokens = 1024;
            c.slo.ttftMs = 500;
            c.slo.tpotMs = 50;
            c.slo.e2eMs = 10000;
            c.slo.target = 0.995;
            c.slo.failOnSlo = true;
            c.outDir = QStringLiteral("/tmp/runs/x");
            QTest::newRow("shared prefix, SLO, out dir") << c;
        }
        {
            RunConfig c = base();
            c.prompt.promptFile = m_promptFile;
            c.prompt.promptTokens = 128; // lower precedence than the file: kept, not used
            c.request.temperature = 0;
            QTest::newRow("prompt file") << c;
        }
        {
            RunConfig c = base();
            c.prompt.dataset = QStringLiteral(TOKENBENCH_TESTDATA "/workload/sharegpt.json");
            c.prompt.datasetSample = 2;
            c.prompt.outputLenAsMaxTokens = true;
            c.prompt.skipBadLines = true;
            QTest::newRow("dataset, sampled, recorded lengths as max tokens") << c;
        }
        {
            RunConfig c = base();
            c.load.trace = QStringLiteral(TOKENBENCH_TESTDATA "/workload/mooncake.jsonl");
            c.load.timeScale = 0.25;
            QTest::newRow("trace, four times as fast") << c;
        }
        // Issue 30's kinds.
        {
            RunConfig c = base();
            c.target.api = ApiKind::OpenAIEmbeddings;
            c.request.batchSize = 8;
            QTest::newRow("embeddings, a batch of 8") << c;
            c.target.api = ApiKind::Score;
            c.request.batchSize = 16;
            QTest::newRow("score, 16 texts a request") << c;
        }
        {
            RunConfig c = base();
            c.request.tools = m_toolsFile;
            c.request.toolChoice = QStringLiteral("get_weather");
            c.request.responseFormat = QStringLiteral("json_schema:") + m_schemaFile;
            c.prompt.images = 2;
            c.prompt.imageSize = QStringLiteral("256x128");
            QTest::newRow("tools, a named choice, a schema, images") << c;
        }
        {
            RunConfig c = base();
            c.target.model = QStringLiteral("base:0.7,lora-1:0.3");
            c.request.responseFormat = QStringLiteral("json_object");
            c.request.tools = m_toolsFile;
            c.request.toolChoice = QStringLiteral("required");
            c.load.cancelRate = 0.25;
            c.load.cancelAfter = QStringLiteral("first-token+100ms");
            QTest::newRow("model mix, any JSON, required tools, cancels") << c;
        }
    }

    void roundTrip()
    {
        QFETCH(RunConfig, config);
        ConfigEditor editor;
        editor.setConfig(config);
        QCOMPARE(editor.config(), config);
        QVERIFY2(editor.isValid(), qPrintable(editor.problems().join(QLatin1Char('\n'))));

        // The same through the file format (which never holds the typed-in key).
        QString error;
        const auto fromFile = runConfigFromJson(toJson(editor.config()), &error);
        QVERIFY2(fromFile, qPrintable(error));
        RunConfig expected = config;
        expected.target.apiKey.clear();
        QCOMPARE(*fromFile, expected);

        // Showing another config and coming back selects the same list entry, adding none.
        editor.setConfig(base());
        const int count = editor.targets()->count();
        editor.setConfig(config);
        QCOMPARE(editor.targets()->count(), count);
        QCOMPARE(editor.config(), config);
    }

    void pricePresetFillsEditableFields()
    {
        ConfigEditor editor;
        editor.setConfig(base());
        auto *preset = editor.findChild<QComboBox *>(QStringLiteral("pricePreset"));
        auto *output = editor.findChild<OptionalSpinBox *>(QStringLiteral("priceOutput"));
        QVERIFY(preset && output);
        const int index = preset->findData(QStringLiteral("gpt-4o-mini"));
        QVERIFY(index > 0);
        preset->setCurrentIndex(index);
        Q_EMIT preset->activated(index);
        QCOMPARE(editor.config().target.pricing, findPricePreset(QStringLiteral("gpt-4o-mini"))->pricing);
        output->spinBox()->setValue(0.5); // typed in
        const Pricing edited = editor.config().target.pricing;
        QCOMPARE(edited.outputPerM, std::optional<double>(0.5));
        QCOMPARE(edited.inputPerM, std::optional<double>(0.15));
        QCOMPARE(edited.source, QStringLiteral("gpt-4o-mini list price as of 2024-10-01, edited"));
    }

    void invalidInputMarksField_data()
    {
        QTest::addColumn<QString>("field"); // objectName of the widget typed into
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("marked");  // objectName of the widget that gets the red border
        QTest::addColumn<QString>("message"); // part of the message shown under it
        QTest::addColumn<int>("tab");
        QTest::newRow("url scheme") << "targetUrl"
                                    << "ftp://127.0.0.1/v1"
                                    << "targetUrl"
                                    << "not an http:// or https:// URL" << 0;
        QTest::newRow("replica url") << "replicas"
                                     << "http://10.0.0.2:8000/v1\nftp://10.0.0.3/v1"
                                     << "replicas"
                                     << "'ftp://10.0.0.3/v1' is not an http:// or https:// URL" << 0;
        QTest::newRow("no model") << "targetModel"
                                  << ""
                                  << "targetModel"
                                  << "name the model" << 0;
        QTest::newRow("extra body not JSON") << "extraBody"
                                             << "{\"top_k\": }"
                                             << "extraBody"
                                             << "not valid JSON" << 0;
        QTest::newRow("extra body not object") << "extraBody"
                                               << "[1, 2]"
                                               << "extraBody"
                                               << "must be a JSON object" << 0;
        QTest::newRow("header name") << "headers"
                                     << "X-Ok: 1\nBad Header: x"
                                     << "headers"
                                     << "line 2: malformed header" << 0;
        // A pasted line break splits the text into two headers, as shown; other control characters stay.
        QTest::newRow("header control character")
            << "headers"
            << "X-Ok: 1\x01X-Injected: 1"
            << "headers"
            << "line 1: header 'X-Ok' has a value that contains a control character (U+0001)" << 0;
        QTest::newRow("header the engine owns") << "headers"
                                                << "X-Ok: 1\nContent-Length: 0"
                                                << "headers"
                                                << "line 2: header 'Content-Length' is one TokenBench sets itself" << 0;
        QTest::newRow("extra body nested too deep")
            << "extraBody" << QString(QStringLiteral("[").repeated(100) + QStringLiteral("]").repeated(100))
            << "extraBody"
            << "nests deeper than 64 levels" << 0;
        QTest::newRow("reserved name") << "targetName" << TargetListModel::builtinName() << "targetName"
                                       << "reserved" << 0;
        QTest::newRow("max tokens") << "maxTokens"
                                    << "0"
                                    << "maxTokens"
                                    << "from 1 to 10000000" << 1;
        QTest::newRow("synthetic size") << "promptTokens"
                                        << "0"
                                        << "promptTokens"
                                        << "at least 1 token" << 1;
        QTest::newRow("top_p") << "topP"
                               << "0"
                               << "qt_spinbox_lineedit"
                               << "(0, 1]" << 1;
        QTest::newRow("concurrency") << "concurrency"
                                     << "0"
                                     << "concurrency"
                                     << "from 1 to 100000" << 2;
        QTest::newRow("duration text") << "duration"
                                       << "soon"
                                       << "duration"
                                       << "'soon' is not a duration" << 2;
        QTest::newRow("timeout empty") << "timeout"
                                       << ""
                                       << "timeout"
                                       << "greater than 0" << 2;
        QTest::newRow("slo target") << "sloTarget"
                                    << "0"
                                    << "sloTarget"
                                    << "must be in (0, 1]" << 2;
        QTest::newRow("slo threshold") << "sloTtft"
                                       << "0"
                                       << "qt_spinbox_lineedit"
                                       << "greater than 0 ms" << 2;
    }

    void invalidInputMarksField()
    {
        QFETCH(QString, field);
        QFETCH(QString, value);
        QFETCH(QString, marked);
        QFETCH(QString, message);
        QFETCH(int, tab);
        ConfigEditor editor;
        editor.resize(520, 900);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        editor.setConfig(base());
        QVERIFY2(editor.isValid(), qPrintable(editor.problems().join(QLatin1Char('\n'))));
        editor.tabs()->setCurrentIndex(tab);
        QSignalSpy problemsChanged(&editor, &ConfigEditor::problemsChanged);

        auto *input = editor.findChild<QWidget *>(field);
        QVERIFY2(input, qPrintable(field));
        enter(input, value);

        QVERIFY(!editor.isValid());
        QVERIFY(!problemsChanged.isEmpty());
        QVERIFY(!problemsChanged.constLast().constFirst().toStringList().isEmpty());
        QWidget *border = marked == QLatin1String("qt_spinbox_lineedit") ? input->findChild<QAbstractSpinBox *>()
                                                                         : editor.findChild<QWidget *>(marked);
        QVERIFY2(border, qPrintable(marked));
        QVERIFY2(border->property("invalid").toBool(), qPrintable(editor.problems().join(QLatin1Char('\n'))));
        QLabel *line = messageFor(border);
        QVERIFY(line);
        QVERIFY(line->isVisible());
        QVERIFY2(line->text().contains(message, Qt::CaseInsensitive), qPrintable(line->text()));
        QVERIFY(!editor.tabs()->tabIcon(tab).isNull());
        for (int other = 0; other < editor.tabs()->count(); ++other) {
            if (other != tab)
                QVERIFY(editor.tabs()->tabIcon(other).isNull());
        }

        // Putting the value back clears the mark.
        editor.setConfig(base());
        QVERIFY(editor.isValid());
        QVERIFY(!border->property("invalid").toBool());
        QVERIFY(!line->isVisible());
        QVERIFY(editor.tabs()->tabIcon(tab).isNull());
    }

    // configProblems() name their field by id: the widget registered under the id is marked,
    // whatever the message's text says.
    void problemMarksWidgetById_data()
    {
        QTest::addColumn<ConfigFieldId>("id");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("marked");
        QTest::newRow("its own path") << ConfigFieldId::Concurrency
                                      << QStringLiteral("load.concurrency (--concurrency): must be from 1")
                                      << QStringLiteral("users");
        QTest::newRow("another path in the text")
            << ConfigFieldId::Concurrency << QStringLiteral("load.rate (--rate): must be from 0.00001")
            << QStringLiteral("users");
        QTest::newRow("no path in the text")
            << ConfigFieldId::Rate << QStringLiteral("too fast") << QStringLiteral("rate");
        QTest::newRow("element of a list")
            << ConfigFieldId::Stages << QStringLiteral("load.stages[2] (--stages): level must be greater than 0")
            << QStringLiteral("stages");
    }
    void problemMarksWidgetById()
    {
        QFETCH(ConfigFieldId, id);
        QFETCH(QString, message);
        QFETCH(QString, marked);
        MarkingForm<QSpinBox> f{
            {"users", ConfigFieldId::Concurrency}, {"rate", ConfigFieldId::Rate}, {"stages", ConfigFieldId::Stages}};
        auto &validator = f.validator;
        const auto &widgets = f.widgets;
        QCOMPARE(validator.mark(ConfigProblem{id, message}), widgets.value(marked));
        QVERIFY(f.onlyMarked(marked));
        QVERIFY2(messageFor(widgets.value(marked))->text().contains(FieldValidator::reasonOf(message)),
                 qPrintable(messageFor(widgets.value(marked))->text()));
        // An id no field is registered for marks nothing.
        QVERIFY(!validator.mark(ConfigProblem{ConfigFieldId::Seed, QStringLiteral("load.concurrency: x")}));
    }

    // The forms' own problems name their field by its JSON path: the widget registered under that
    // path's table row is marked; a path that is no table row's marks nothing.
    void problemTextMarksFieldOfItsPath_data()
    {
        QTest::addColumn<QString>("problem");
        QTest::addColumn<QString>("marked"); // "" for none
        QTest::newRow("path and flag") << QStringLiteral("load.concurrency (--concurrency): must be from 1")
                                       << QStringLiteral("users");
        QTest::newRow("path only") << QStringLiteral("load.rate: 'x' is not a number") << QStringLiteral("rate");
        QTest::newRow("element of a list")
            << QStringLiteral("load.stages[2] (--stages): add a level") << QStringLiteral("stages");
        QTest::newRow("a target field") << QStringLiteral("target.url: the built-in simulator is not running")
                                        << QStringLiteral("url");
        QTest::newRow("a section, no field") << QStringLiteral("target: add an endpoint profile") << QString();
        QTest::newRow("a table row not registered")
            << QStringLiteral("load.seed (--seed): enter a whole number") << QString();
        QTest::newRow("no table row") << QStringLiteral("load.warmup (--warmup): must not be negative") << QString();
    }
    void problemTextMarksFieldOfItsPath()
    {
        QFETCH(QString, problem);
        QFETCH(QString, marked);
        MarkingForm<QLineEdit> f{{"users", ConfigFieldId::Concurrency},
                                 {"rate", ConfigFieldId::Rate},
                                 {"stages", ConfigFieldId::Stages},
                                 {"url", ConfigFieldId::TargetUrl}};
        const auto &widgets = f.widgets;
        QCOMPARE(f.validator.mark(problem), widgets.value(marked));
        QVERIFY(f.onlyMarked(marked));
        if (!marked.isEmpty())
            QVERIFY(messageFor(widgets.value(marked))->text().contains(FieldValidator::reasonOf(problem)));
    }

    // A configuration with a value out of its table range: the editor marks the field of the
    // problem's id.
    void invalidValueMarksFieldOfItsId_data()
    {
        QTest::addColumn<ConfigFieldId>("id");
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("marked");
        QTest::newRow("max_tokens") << ConfigFieldId::MaxTokens << 0.0 << QStringLiteral("maxTokens");
        QTest::newRow("concurrency") << ConfigFieldId::Concurrency << 0.0 << QStringLiteral("concurrency");
        QTest::newRow("slo target") << ConfigFieldId::SloTarget << 0.0 << QStringLiteral("sloTarget");
    }
    void invalidValueMarksFieldOfItsId()
    {
        QFETCH(ConfigFieldId, id);
        QFETCH(double, value);
        QFETCH(QString, marked);
        RunConfig c = base();
        const ConfigField &f = configField(id);
        if (f.type == ConfigType::Int)
            std::get<FieldRef<int>>(f.access)(c) = int(value);
        else
            std::get<FieldRef<double>>(f.access)(c) = value;
        bool named = false;
        for (const ConfigProblem &p : configProblems(c))
            named = named || p.field == id;
        QVERIFY(named);
        ConfigEditor editor;
        editor.setConfig(c);
        auto *field = editor.findChild<QWidget *>(marked);
        QVERIFY2(field, qPrintable(marked));
        QVERIFY2(field->property("invalid").toBool(), qPrintable(editor.problems().join(QLatin1Char('\n'))));
    }

    // What the command line refuses the editor refuses with the same words, at the field: the
    // configuration's checks (configProblems) and the schema and tools files, which the run reads
    // before its first request (RequestBuilder::create).
    void refusedAsTheCommandLineRefuses_data()
    {
        QTest::addColumn<RunConfig>("config");
        QTest::addColumn<QString>("marked");
        RunConfig c = base();
        c.target.api = ApiKind::OpenAIEmbeddings;
        c.request.tools = m_toolsFile;
        QTest::newRow("tools for embeddings") << c << "tools";
        c = base();
        c.request.batchSize = 4;
        QTest::newRow("a batch for chat") << c << "batchSize";
        c = base();
        c.target.api = ApiKind::OpenAICompletions;
        c.prompt.images = 1;
        QTest::newRow("images for completions") << c << "images";
        c = base();
        c.prompt.images = 1;
        c.prompt.imageSize = QStringLiteral("4x4");
        QTest::newRow("images too small") << c << "imageSize";
        c = base();
        c.request.toolChoice = QStringLiteral("auto");
        QTest::newRow("a tool choice without tools") << c << "toolChoice";
        c = base();
        c.request.tools = m_toolsFile;
        c.request.toolChoice = QStringLiteral("get_time");
        QTest::newRow("a tool choice the file lacks") << c << "tools";
        c = base();
        c.request.tools = m_dir.filePath(QStringLiteral("missing-tools.json"));
        QTest::newRow("a tools file that is not there") << c << "tools";
        c = base();
        c.request.responseFormat = QStringLiteral("json_schema:") + m_promptFile; // JSON Lines, not a schema
        QTest::newRow("a schema that is not JSON") << c << "responseFormat";
        c = base();
        c.request.responseFormat = QStringLiteral("xml");
        QTest::newRow("an unknown response format") << c << "responseFormat";
        c = base();
        c.target.api = ApiKind::AnthropicMessages;
        c.request.responseFormat = QStringLiteral("json_object");
        QTest::newRow("JSON mode for Anthropic") << c << "responseFormat";
        c = base();
        c.load.cancelRate = 0.1;
        c.load.cancelAfter = QStringLiteral("soon");
        QTest::newRow("cancel after no duration") << c << "cancelAfter";
        c = base();
        c.target.model = QStringLiteral("a,,b");
        QTest::newRow("a model mix with an empty name") << c << "targetModel";
    }
    void refusedAsTheCommandLineRefuses()
    {
        QFETCH(RunConfig, config);
        QFETCH(QString, marked);
        QStringList expected;
        for (const ConfigProblem &p : configProblems(config))
            expected << p.message;
        if (QString error; expected.isEmpty() && !RequestBuilder::create(config.target, config.request, &error))
            expected << error;
        QVERIFY2(!expected.isEmpty(), "the command line accepts it");
        ConfigEditor editor;
        editor.setConfig(config);
        QVERIFY(!editor.isValid());
        for (const QString &message : std::as_const(expected))
            QVERIFY2(editor.problems().contains(message),
                     qPrintable(message + QStringLiteral("\nnot among\n") + editor.problems().join(u'\n')));
        auto *field = editor.findChild<QWidget *>(marked);
        QVERIFY2(field, qPrintable(marked));
        QVERIFY2(field->property("invalid").toBool(), qPrintable(editor.problems().join(QLatin1Char('\n'))));
        // The field stays open to be put right, even where the API does not use it.
        QVERIFY(field->isEnabled());
    }

    // Rows the API does not use are disabled and say why; choosing the API in the target's form
    // opens and closes them.
    void rowsTheApiDoesNotUseSayWhy_data()
    {
        QTest::addColumn<QString>("api");
        QTest::addColumn<QStringList>("unused");
        QTest::addColumn<QStringList>("used");
        QTest::newRow("embeddings")
            << "openai-embeddings"
            << QString(QStringLiteral("tools,toolChoice,images,imageSize,maxTokens,stream,responseFormat,temperature"))
                   .split(u',')
            << QStringLiteral("batchSize").split(u',');
        QTest::newRow("rerank") << "rerank" << QStringLiteral("tools,images,maxTokens").split(u',')
                                << QStringLiteral("batchSize").split(u',');
        QTest::newRow("completions") << "openai-completions" << QStringLiteral("tools,images,batchSize").split(u',')
                                     << QStringLiteral("maxTokens,stream,responseFormat").split(u',');
        QTest::newRow("chat") << "openai-chat" << QStringLiteral("batchSize,toolChoice,imageSize").split(u',')
                              << QStringLiteral("tools,images,maxTokens,responseFormat").split(u',');
    }
    void rowsTheApiDoesNotUseSayWhy()
    {
        QFETCH(QString, api);
        QFETCH(QStringList, unused);
        QFETCH(QStringList, used);
        ConfigEditor editor;
        editor.setConfig(base());
        auto *apiBox = editor.targetEditor()->findChild<QComboBox *>(QStringLiteral("targetApi"));
        QVERIFY(apiBox);
        // From another API first, so that the choice below is a change.
        apiBox->setCurrentIndex(apiBox->findData(api == QLatin1String("rerank") ? QStringLiteral("openai-chat")
                                                                                : QStringLiteral("rerank")));
        apiBox->setCurrentIndex(apiBox->findData(api));
        QCOMPARE(editor.config().target.api, apiKindFromName(api).value());
        for (const QString &name : std::as_const(unused)) {
            auto *field = editor.findChild<QWidget *>(name);
            QVERIFY2(field, qPrintable(name));
            QVERIFY2(!field->isEnabled(), qPrintable(name));
            QVERIFY2(field->toolTip().startsWith(QStringLiteral("Not used")), qPrintable(field->toolTip()));
        }
        for (const QString &name : std::as_const(used)) {
            auto *field = editor.findChild<QWidget *>(name);
            QVERIFY2(field, qPrintable(name));
            QVERIFY2(field->isEnabled(), qPrintable(name));
            QVERIFY2(!field->toolTip().startsWith(QStringLiteral("Not used")), qPrintable(field->toolTip()));
        }
    }

    void pastedKeyWithALineBreakIsMarked_data()
    {
        QTest::addColumn<QString>("field"); // objectName of the line edit pasted into
        QTest::addColumn<QString>("pasted");
        QTest::addColumn<QByteArray>("variable"); // the value of TB_UI_KEY
        QTest::addColumn<QString>("message");
        QTest::newRow("key typed in, trailing newline")
            << QStringLiteral("apiKey") << QStringLiteral("sk-A-secret\n") << QByteArray()
            << QStringLiteral("The API key typed in ends with a line break (CR or LF)");
        QTest::newRow("key typed in, a header after it")
            << QStringLiteral("apiKey") << QStringLiteral("sk-A-secret\r\nX-Injected-Key: 1") << QByteArray()
            << QStringLiteral("The API key typed in contains a line break (CR or LF)");
        QTest::newRow("key variable, trailing newline")
            << QStringLiteral("apiKeyEnv") << QStringLiteral("TB_UI_KEY") << QByteArray("sk-A-secret\n")
            << QStringLiteral("The API key in TB_UI_KEY ends with a line break (CR or LF)");
    }

    // A key pasted with its line break (or read from a variable with one) ran, and the request
    // carried it: the form marks the field now, without showing the key.
    void pastedKeyWithALineBreakIsMarked()
    {
        QFETCH(QString, field);
        QFETCH(QString, pasted);
        QFETCH(QByteArray, variable);
        QFETCH(QString, message);
        if (!variable.isEmpty())
            QVERIFY(qputenv("TB_UI_KEY", variable));
        ConfigEditor editor;
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        editor.setConfig(base());
        QVERIFY2(editor.isValid(), qPrintable(editor.problems().join(QLatin1Char('\n'))));
        auto *edit = editor.findChild<QLineEdit *>(field);
        QVERIFY2(edit, qPrintable(field));
        QApplication::clipboard()->setText(pasted);
        edit->setFocus();
        edit->paste();
        const bool valid = editor.isValid();
        const QStringList problems = editor.problems();
        qunsetenv("TB_UI_KEY");
        QVERIFY(!valid);
        QVERIFY2(edit->property("invalid").toBool(), qPrintable(problems.join(QLatin1Char('\n'))));
        QLabel *line = messageFor(edit);
        QVERIFY(line);
        QVERIFY2(line->text().contains(message), qPrintable(line->text()));
        QVERIFY2(!line->text().contains(QStringLiteral("secret")), qPrintable(line->text()));
    }

    void typedTextThatIsNoNumberIsMarkedNotApplied_data()
    {
        QTest::addColumn<QString>("field"); // objectName of the spin box typed into
        QTest::addColumn<QString>("typed");
        QTest::addColumn<int>("tab");
        // As it is typed, a prefix that reads ("20000" of "200000") is applied; nothing of "-5abc" reads.
        QTest::addColumn<bool>("unchanged");
        QTest::newRow("minus and letters") << "concurrency"
                                           << "-5abc" << int(ConfigEditor::LoadTab) << true;
        QTest::newRow("negative with a unit") << "maxTokens"
                                              << "-64k" << int(ConfigEditor::WorkloadTab) << true;
        QTest::newRow("above the maximum") << "concurrency"
                                           << "200000" << int(ConfigEditor::LoadTab) << false;
    }

    // "-5abc" in a spin box silently became 5 (the spin box dropped the keys it could not use).
    void typedTextThatIsNoNumberIsMarkedNotApplied()
    {
        QFETCH(QString, field);
        QFETCH(QString, typed);
        QFETCH(int, tab);
        QFETCH(bool, unchanged);
        ConfigEditor editor;
        editor.resize(520, 900);
        editor.show();
        QVERIFY(QTest::qWaitForWindowActive(&editor));
        editor.setConfig(base());
        editor.tabs()->setCurrentIndex(tab);
        const RunConfig before = editor.config();
        auto *spin = editor.findChild<QAbstractSpinBox *>(field);
        QVERIFY2(spin, qPrintable(field));
        auto *edit = spin->findChild<QLineEdit *>();
        QVERIFY(edit);
        spin->setFocus();
        edit->selectAll();
        QTest::keyClick(edit, Qt::Key_Backspace);
        QTest::keyClicks(edit, typed);
        QVERIFY2(spin->text().startsWith(typed), qPrintable(spin->text()));
        QVERIFY(!editor.isValid());
        QVERIFY(spin->property("invalid").toBool());
        QLabel *line = messageFor(spin);
        QVERIFY(line);
        QVERIFY2(line->isVisible() && line->text().contains(QStringLiteral("is not a number")),
                 qPrintable(line->text()));
        if (unchanged)
            QCOMPARE(editor.config(), before); // not applied
        editor.tabs()->setFocus();             // leaving the field keeps what was typed, and the mark
        QVERIFY(!spin->hasFocus());
        QVERIFY2(spin->text().startsWith(typed), qPrintable(spin->text()));
        QVERIFY(!editor.isValid());

        spin->setFocus();
        edit->selectAll();
        QTest::keyClick(edit, Qt::Key_Backspace);
        QTest::keyClicks(edit, QStringLiteral("7"));
        QVERIFY2(editor.isValid(), qPrintable(editor.problems().join(QLatin1Char('\n'))));
        QVERIFY(!spin->property("invalid").toBool());
        QVERIFY(editor.config() != before);
    }

    void undefinedTemplateVariable()
    {
        ConfigEditor editor;
        editor.show();
        RunConfig c = base();
        c.prompt.promptTokens = 0;
        c.prompt.userTemplate = QStringLiteral("Tell me about {{topic}} in {{style}} (#{{index}}).");
        c.prompt.variables = {{QStringLiteral("topic"), QStringLiteral("tides")}};
        editor.setConfig(c);
        QCOMPARE(editor.problems(), QStringList{QStringLiteral("prompt.variables: {{style}} has no value")});
        auto *view = editor.findChild<QWidget *>(QStringLiteral("variables"));
        QVERIFY(view->property("invalid").toBool());
        auto *addMissing = editor.findChild<QWidget *>(QStringLiteral("addMissingVariables"));
        QVERIFY(addMissing->isEnabled());
        QTest::mouseClick(addMissing, Qt::LeftButton);
        QVERIFY(editor.isValid());
        QCOMPARE(editor.config().prompt.variables.value(QStringLiteral("style"), QStringLiteral("absent")), QString());
        QVERIFY(!addMissing->isEnabled());
    }

    void stageProblemNamesRow()
    {
        ConfigEditor editor;
        editor.show();
        RunConfig c = base();
        StageConfig s;
        s.level = 4;
        s.durationMs = 10000;
        c.load.stages = {s, s};
        editor.setConfig(c);
        QVERIFY(editor.isValid());
        StagesModel *stages = editor.loadEditor()->stages();
        QVERIFY(stages->setData(stages->index(1, StagesModel::LevelColumn), 2.5));
        auto *view = editor.findChild<QWidget *>(QStringLiteral("stages"));
        QVERIFY(view->property("invalid").toBool());
        QVERIFY2(messageFor(view)->text().contains(QStringLiteral("Row 2: Concurrency must be a whole number")),
                 qPrintable(messageFor(view)->text()));
        QVERIFY2(editor.loadEditor()->effectiveStagesText().contains(QStringLiteral("c=2.5 for 10s")),
                 qPrintable(editor.loadEditor()->effectiveStagesText()));
    }

    void stagesEditedInTable()
    {
        ConfigEditor editor;
        QVERIFY(showTwoStages(editor));
        auto *view = editor.findChild<QTableView *>(QStringLiteral("stages"));
        StagesModel *model = editor.loadEditor()->stages();

        // Mode: a combo box; the level editor then speaks requests/s.
        view->setCurrentIndex(model->index(1, StagesModel::ModeColumn));
        view->edit(view->currentIndex());
        auto *combo = view->viewport()->findChild<QComboBox *>();
        QVERIFY(combo);
        combo->setCurrentIndex(1);
        QTest::keyClick(combo, Qt::Key_Return);
        QCoreApplication::processEvents(); // the delegate commits on a queued call
        view->setCurrentIndex(model->index(1, StagesModel::LevelColumn));
        view->edit(view->currentIndex());
        auto *level = view->viewport()->findChild<QDoubleSpinBox *>();
        QVERIFY(level);
        QCOMPARE(level->suffix(), QStringLiteral(" req/s"));
        level->setValue(2.5);
        QTest::keyClick(level, Qt::Key_Return);
        QCoreApplication::processEvents(); // the delegate commits on a queued call
        // Duration: the CLI's syntax.
        view->setCurrentIndex(model->index(0, StagesModel::DurationColumn));
        view->edit(view->currentIndex());
        auto *duration = view->viewport()->findChild<DurationEdit *>();
        QVERIFY(duration);
        duration->selectAll();
        QTest::keyClicks(duration, QStringLiteral("2m"));
        QTest::keyClick(duration, Qt::Key_Return);
        QCoreApplication::processEvents(); // the delegate commits on a queued call
        QCOMPARE(formatStages(editor.config().load.stages), QStringLiteral("c=8:2m,r=2.5:30s"));

        // Reorder with the arrow buttons.
        view->setCurrentIndex(model->index(1, StagesModel::NameColumn));
        QTest::mouseClick(editor.findChild<QWidget *>(QStringLiteral("moveStageUp")), Qt::LeftButton);
        QCOMPARE(formatStages(editor.config().load.stages), QStringLiteral("r=2.5:30s,c=8:2m"));
        QTest::mouseClick(editor.findChild<QWidget *>(QStringLiteral("addStage")), Qt::LeftButton);
        QCOMPARE(formatStages(editor.config().load.stages), QStringLiteral("r=2.5:30s,r=5:30s,c=8:2m"));
        QVERIFY(editor.isValid());
    }

    void sweepGeneratesStages()
    {
        ConfigEditor editor;
        QVERIFY(showTwoStages(editor));
        auto *spec = editor.findChild<QLineEdit *>(QStringLiteral("sweepSpec"));
        auto *problem = editor.findChild<QLabel *>(QStringLiteral("sweepProblem"));
        QVERIFY(spec && problem);

        QTest::keyClicks(spec, QStringLiteral("c=8..8"));
        QTest::keyClick(spec, Qt::Key_Return);
        QVERIFY(problem->isVisible());
        QVERIFY2(problem->text().contains(QStringLiteral("malformed sweep 'c=8..8'")), qPrintable(problem->text()));
        QCOMPARE(formatStages(editor.config().load.stages), QStringLiteral("c=8:30s,c=16:30s")); // left alone

        spec->clear();
        QTest::keyClicks(spec, QStringLiteral("c=1..16:20s"));
        QVERIFY(!problem->isVisible());
        QTest::mouseClick(editor.findChild<QWidget *>(QStringLiteral("generateSweep")), Qt::LeftButton);
        QCOMPARE(formatStages(editor.config().load.stages), QStringLiteral("c=1:20s,c=2:20s,c=4:20s,c=8:20s,c=16:20s"));
        QVERIFY(!problem->isVisible());
        QVERIFY(editor.isValid());
    }

    void stopAfterRequestsSaysWhenItApplies_data()
    {
        QTest::addColumn<QString>("stages"); ///< empty: the simple form
        QTest::addColumn<QString>("sweep");  ///< typed and generated after the stages, if any
        QTest::addColumn<bool>("applies");
        QTest::addColumn<QString>("says"); ///< in the hint under the fields, or (simple form) their tooltip
        QTest::newRow("plain") << QString() << QString() << true << "The run ends after this many requests";
        QTest::newRow("stages with durations") << "c=8:30s,c=16:30s" << QString() << false << "Not used";
        QTest::newRow("stages without ends") << "c=8,c=16" << QString() << true << "For each stage";
        QTest::newRow("some stages with ends") << "c=8:30s,c=16" << QString() << true
                                               << "Only for the stages without a Duration or Requests of their own: "
                                                  "c=16.";
        QTest::newRow("sweep with durations") << "c=8:30s"
                                              << "c=1..4:10s" << false << "Not used";
        QTest::newRow("sweep without ends") << "c=8:30s"
                                            << "c=1..4" << true << "For each stage";
    }

    // "Stop after 200 requests" looked active, its tooltip saying "whichever comes first", while every
    // stage had a duration of its own (c=50 ran 244 requests): the field says what it ends, or that
    // it ends nothing and is disabled.
    void stopAfterRequestsSaysWhenItApplies()
    {
        QFETCH(QString, stages);
        QFETCH(QString, sweep);
        QFETCH(bool, applies);
        QFETCH(QString, says);
        ConfigEditor editor;
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        RunConfig c = base();
        c.load.requests = 200;
        if (!stages.isEmpty()) {
            QString why;
            const auto parsed = parseStages(stages, &why);
            QVERIFY2(parsed, qPrintable(why));
            c.load.stages = *parsed;
        }
        editor.setConfig(c);
        editor.tabs()->setCurrentIndex(ConfigEditor::LoadTab);
        if (!sweep.isEmpty()) {
            QTest::keyClicks(editor.findChild<QLineEdit *>(QStringLiteral("sweepSpec")), sweep);
            QTest::mouseClick(editor.findChild<QWidget *>(QStringLiteral("generateSweep")), Qt::LeftButton);
        }
        auto *requests = editor.findChild<QSpinBox *>(QStringLiteral("requests"));
        auto *duration = editor.findChild<QWidget *>(QStringLiteral("duration"));
        auto *hint = editor.findChild<QLabel *>(QStringLiteral("stopAfterHint"));
        QVERIFY(requests && duration && hint);
        QCOMPARE(requests->value(), 200);
        QCOMPARE(requests->isEnabled(), applies);
        QCOMPARE(duration->isEnabled(), applies);
        QVERIFY(!requests->toolTip().contains(QStringLiteral("whichever comes first")) || applies);
        const QString said = stages.isEmpty() ? requests->toolTip() : hint->text();
        QVERIFY2(said.contains(says), qPrintable(said));
        QCOMPARE(!hint->isHidden(), !stages.isEmpty());
    }

    void missingPromptFileMarked()
    {
        ConfigEditor editor;
        editor.show();
        RunConfig c = base();
        c.prompt.promptFile = m_dir.filePath(QStringLiteral("absent.jsonl"));
        editor.setConfig(c);
        auto *file = editor.findChild<QWidget *>(QStringLiteral("promptFile"));
        QVERIFY(file->property("invalid").toBool());
        QVERIFY(messageFor(file)->text().contains(QStringLiteral("Cannot read")));

        const QString bad =
            tb::test::writeFile(m_dir, QStringLiteral("bad.jsonl"), "{\"prompt\": \"ok\"}\n{\"text\": \"no\"}\n");
        QVERIFY(!bad.isEmpty());
        enter(file, bad);
        QVERIFY(file->property("invalid").toBool());
        QVERIFY2(messageFor(file)->text().contains(QStringLiteral("line 2")), qPrintable(messageFor(file)->text()));
    }

    void workloadFileShowsItsRequestsAndLengths_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("summary");
        QTest::addColumn<int>("series"); ///< prompt, and output when the file records output lengths
        QTest::addColumn<bool>("timeScaleShown");
        const QString data = QStringLiteral(TOKENBENCH_TESTDATA "/workload/");
        QTest::newRow("sharegpt") << data + QStringLiteral("sharegpt.json") << int(WorkloadEditor::FileKind::Dataset)
                                  << QStringLiteral("3 of 3 entries (sharegpt; 1 without a human turn)") << 2 << false;
        QTest::newRow("azure trace") << data + QStringLiteral("azure.csv") << int(WorkloadEditor::FileKind::Trace)
                                     << QStringLiteral("4 of 4 entries (azure-csv)") << 2 << true;
        QTest::newRow("prompt lines") << m_promptFile << int(WorkloadEditor::FileKind::Prompts)
                                      << QStringLiteral("3 of 3 entries (prompts)") << 1 << false;
    }

    void workloadFileShowsItsRequestsAndLengths()
    {
        QFETCH(QString, file);
        QFETCH(int, kind);
        QFETCH(QString, summary);
        QFETCH(int, series);
        QFETCH(bool, timeScaleShown);
        ConfigEditor editor;
        editor.setConfig(base());
        editor.show();
        WorkloadEditor *workload = editor.workloadEditor();
        auto *lengths = new WorkloadLengthsView; // as the main window puts it there
        connect(workload, &WorkloadEditor::estimated, lengths, &WorkloadLengthsView::showEstimate);
        workload->setFilePreview(lengths);
        workload->setSource(WorkloadEditor::Source::File);
        editor.findChild<QComboBox *>(QStringLiteral("fileKind"))->setCurrentIndex(kind);
        enter(editor.findChild<QWidget *>(QStringLiteral("promptFile")), file);
        QVERIFY2(workload->fileSummaryText().contains(summary), qPrintable(workload->fileSummaryText()));
        QCOMPARE(lengths->chart()->distributions().size(), series);
        QVERIFY(lengths->chart()->hasData());
        QVERIFY(lengths->isVisibleTo(workload));
        QCOMPARE(editor.findChild<QWidget *>(QStringLiteral("timeScale"))->isVisibleTo(workload), timeScaleShown);
        const RunConfig c = editor.config();
        QCOMPARE(c.load.trace, kind == int(WorkloadEditor::FileKind::Trace) ? file : QString());
        QCOMPARE(c.prompt.dataset, kind == int(WorkloadEditor::FileKind::Dataset) ? file : QString());
        QVERIFY2(editor.isValid(), qPrintable(editor.problems().join(QLatin1Char('\n'))));
    }

    void shapeSwitchSeedsStages()
    {
        ConfigEditor editor;
        RunConfig c = base();
        c.load.concurrency = 8;
        editor.setConfig(c);
        editor.loadEditor()->setShape(LoadEditor::Shape::Stages);
        QCOMPARE(formatStages(editor.config().load.stages), QStringLiteral("c=8:30s,c=16:30s,c=32:30s"));
        QCOMPARE(editor.config().load.mode, LoadMode::Concurrency);
        editor.loadEditor()->setShape(LoadEditor::Shape::Rate);
        QVERIFY(editor.config().load.stages.isEmpty());
        QCOMPARE(editor.config().load.mode, LoadMode::Rate);
    }

    void estimates_data()
    {
        QTest::addColumn<RunConfig>("config");
        QTest::addColumn<QString>("expected");
        RunConfig synthetic = base();
        synthetic.prompt.promptTokens = 2000;
        synthetic.prompt.systemTokens = 100;
        synthetic.prompt.sharedPrefixTokens = 1000;
        QTest::newRow("synthetic") << synthetic
                                   << QStringLiteral(
                                          "≈ %1 prompt tokens per request (system 100 + user %2); the first %3 are")
                                          .arg(QLocale().toString(2100), QLocale().toString(2000),
                                               QLocale().toString(1000));
        RunConfig templ = base();
        templ.prompt.promptTokens = 0;
        templ.prompt.userTemplate = QStringLiteral("Summarise {{topic}}.");
        templ.prompt.variables = {{QStringLiteral("topic"), QStringLiteral("the history of tokenization")}};
        const qint64 user = ApproxTokenizer::count(u"Summarise the history of tokenization.");
        QTest::newRow("template") << templ << QStringLiteral("≈ %1 prompt tokens per request").arg(user);
        RunConfig file = base();
        file.prompt.promptFile = m_promptFile;
        QTest::newRow("file") << file << QStringLiteral("on average over 3 prompts");
    }

    void estimates()
    {
        QFETCH(RunConfig, config);
        QFETCH(QString, expected);
        ConfigEditor editor;
        editor.setConfig(config);
        QVERIFY2(editor.workloadEditor()->estimateText().contains(expected),
                 qPrintable(editor.workloadEditor()->estimateText()));
    }

    void syntheticSystemRowShownAtStartAndTabbedInOrder_data()
    {
        QTest::addColumn<RunConfig>("config");
        QTest::addColumn<WorkloadEditor::Source>("source");
        QTest::newRow("synthetic, the default") << base() << WorkloadEditor::Source::Synthetic;
        RunConfig templated = base();
        templated.prompt.promptTokens = 0;
        templated.prompt.userTemplate = QStringLiteral("Say hello.");
        QTest::newRow("template") << templated << WorkloadEditor::Source::Template;
        RunConfig file = base();
        file.prompt.promptFile = m_promptFile;
        QTest::newRow("file") << file << WorkloadEditor::Source::File;
    }

    /// The "Synthetic system" row was missing on a fresh editor for the default (synthetic) source
    /// until Source was switched away and back (a row next to the hidden pages was drawn 0 px
    /// high), and Tab from it went up to "Shared prefix".
    void syntheticSystemRowShownAtStartAndTabbedInOrder()
    {
        QFETCH(RunConfig, config);
        QFETCH(WorkloadEditor::Source, source);
        ConfigEditor editor;
        editor.setConfig(config);
        editor.tabs()->setCurrentIndex(ConfigEditor::WorkloadTab);
        editor.show();
        QVERIFY(QTest::qWaitForWindowExposed(&editor));
        QCOMPARE(editor.workloadEditor()->source(), source);
        auto *system = editor.findChild<QSpinBox *>(QStringLiteral("systemTokens"));
        auto *repeat = editor.findChild<QWidget *>(QStringLiteral("repeatPrompts"));
        QVERIFY(system && repeat);
        for (QWidget *field : {static_cast<QWidget *>(system), repeat}) {
            QVERIFY(field->isVisible());
            QVERIFY2(field->height() >= field->minimumSizeHint().height(),
                     qPrintable(QStringLiteral("%1 is %2 px high").arg(field->objectName()).arg(field->height())));
        }
        system->setFocus();
        QVERIFY(system->hasFocus());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        QCOMPARE(QApplication::focusWidget(), repeat);
    }

    void targetListEditing()
    {
        ConfigEditor editor;
        editor.setConfig(base());
        const int before = editor.targets()->count();
        editor.duplicateTarget();
        QCOMPARE(editor.targets()->count(), before + 1);
        QCOMPARE(editor.config().target.name, QStringLiteral("local vLLM (copy)"));
        enter(editor.findChild<QWidget *>(QStringLiteral("targetModel")), QStringLiteral("llama-3-8b"));
        QCOMPARE(editor.targets()->target(editor.currentTarget()).model, QStringLiteral("llama-3-8b"));
        editor.removeTarget();
        QCOMPARE(editor.targets()->count(), before);
        QCOMPARE(editor.config().target.model, QStringLiteral("qwen2.5-7b"));
        editor.addTarget();
        QCOMPARE(editor.config().target.name, QStringLiteral("New target"));
        QVERIFY(!editor.isValid()); // no model yet
        while (editor.targets()->count() > 0)
            editor.removeTarget();
        QCOMPARE(editor.currentTarget(), -1);
        QVERIFY(!editor.isValid());
        QVERIFY(editor.findChild<QLabel *>(QStringLiteral("otherProblems"))
                    ->text()
                    .contains(QStringLiteral("add an endpoint")));
    }

    /// Each target keeps its own tokenizer: switching targets shows each one's, and the saved
    /// target list (what the workbench stores between sessions) holds it.
    void tokenizerRememberedPerTarget()
    {
        ConfigEditor editor;
        editor.setConfig(base());
        editor.duplicateTarget();
        const int second = editor.currentTarget();
        const QString file = QStringLiteral(TOKENBENCH_TESTDATA "/tiny.tiktoken");
        auto *field = editor.findChild<QComboBox *>(QStringLiteral("tokenizer"));
        QVERIFY(field);
        enter(field, file);
        QCOMPARE(editor.config().target.tokenizer, file);
        QVERIFY2(editor.isValid(), qPrintable(editor.problems().join(QLatin1Char('\n'))));
        editor.setCurrentTarget(second - 1);
        QCOMPARE(field->currentText(), QString());
        enter(field, QStringLiteral("server"));
        editor.setCurrentTarget(second);
        QCOMPARE(field->currentText(), file);
        const QList<TargetConfig> saved = TargetListModel::fromJson(
            TargetListModel::toJson({editor.targets()->target(second - 1), editor.targets()->target(second)}));
        QCOMPARE(saved.size(), 2);
        QCOMPARE(saved.at(0).tokenizer, QStringLiteral("server"));
        QCOMPARE(saved.at(1).tokenizer, file);
        // A file that is not there is named in the field's problem.
        enter(field, QStringLiteral("/no/such/tokenizer.json"));
        QVERIFY(!editor.isValid());
        QVERIFY2(editor.problems().join(QLatin1Char('\n')).contains(QStringLiteral("/no/such/tokenizer.json")),
                 qPrintable(editor.problems().join(QLatin1Char('\n'))));
    }
};

QTEST_MAIN(TestUiConfigEditor)
#include "tst_ui_configeditor.moc"
