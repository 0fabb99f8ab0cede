// The simulator's configuration: presets, the strict JSON form and text (flag) parsing.
#include "sim/servingmodel.h"
#include "sim/simconfig.h"

#include <QTest>

using namespace tb::sim;
using json = nlohmann::json;

namespace {

/// Mean first-token latency and saturated throughput for the seed report's workload (640-token
/// prompts): what the presets are calibrated to.
struct Profile {
    double ttftMs;
    double msPerToken;        ///< decode step with a full batch
    double requestsPerSecond; ///< max_batch / end-to-end time with a full batch
};

Profile profile(const SimConfig &c)
{
    const ServingModel model(c);
    const double ttft = c.ttftMs + double(model.prefillNs(640, 0)) / 1e6;
    const double step = double(model.stepNs(c.maxBatch)) / 1e6;
    const double output = c.outputTokens + c.outputRatio * 640;
    return {ttft, step, double(c.maxBatch) / ((ttft + output * step) / 1000)};
}

} // namespace

class TestSimConfig : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void presetsExistAndNameTheirModel()
    {
        const QStringList names = SimConfig::presetNames();
        QCOMPARE(names, (QStringList{QStringLiteral("default"), QStringLiteral("fast"), QStringLiteral("gpt4-like"),
                                     QStringLiteral("gpt4-turbo-like"), QStringLiteral("o1-preview-like"),
                                     QStringLiteral("llamacpp-like")}));
        for (const QString &name : names) {
            const auto config = SimConfig::preset(name);
            QVERIFY(config);
            // A server preset serves the model it was measured with.
            QCOMPARE(config->model, name == QLatin1String("llamacpp-like") ? QStringLiteral("tiny-llama3") : name);
            QVERIFY(config->validate().isEmpty());
            QVERIFY(!SimConfig::presetDescription(name).isEmpty());
        }
        QVERIFY(!SimConfig::preset(QStringLiteral("gpt5-like")));
        QVERIFY(SimConfig::preset(QStringLiteral("gpt4-like"))->servesModel(QStringLiteral("gpt-4")));
        // The workbench's built-in target names the preset as its model.
        for (const QString &name : names)
            QVERIFY2(SimConfig::preset(name)->servesModel(name), qPrintable(name));
        QVERIFY(!SimConfig::preset(QStringLiteral("fast"))->servesModel(QStringLiteral("gpt-4")));
    }

    void reportPresetsMatchTheReport()
    {
        // The report: first-token latency 1842 / 896 / 3217 ms, throughput 38.2 / 87.6 / 22.4
        // requests/s (scaled to a tenth), out/in token ratio 1.12 / 1.38 / 0.94.
        struct Expected {
            const char *preset;
            double ttftMs;
            double requestsPerSecond;
            double outIn;
        };
        for (const Expected &e : {Expected{"gpt4-like", 1842, 3.82, 1.12}, Expected{"gpt4-turbo-like", 896, 8.76, 1.38},
                                  Expected{"o1-preview-like", 3217, 2.24, 0.94}}) {
            const SimConfig c = *SimConfig::preset(QLatin1String(e.preset));
            const Profile p = profile(c);
            QVERIFY2(std::abs(p.ttftMs - e.ttftMs) < 5, e.preset);
            QVERIFY2(std::abs(p.requestsPerSecond - e.requestsPerSecond) / e.requestsPerSecond < 0.1, e.preset);
            QCOMPARE(c.outputRatio, e.outIn);
        }
        QVERIFY(SimConfig::preset(QStringLiteral("o1-preview-like"))->reasoningRatio > 0);
    }

    void presetSpeedsAreOrdered()
    {
        // A comparison run must find GPT-4 Turbo fastest and o1-preview slowest on every measure.
        const Profile turbo = profile(*SimConfig::preset(QStringLiteral("gpt4-turbo-like")));
        const Profile gpt4 = profile(*SimConfig::preset(QStringLiteral("gpt4-like")));
        const Profile o1 = profile(*SimConfig::preset(QStringLiteral("o1-preview-like")));
        QVERIFY(turbo.ttftMs < gpt4.ttftMs && gpt4.ttftMs < o1.ttftMs);
        QVERIFY(turbo.msPerToken < gpt4.msPerToken && gpt4.msPerToken < o1.msPerToken);
        QVERIFY(turbo.requestsPerSecond > gpt4.requestsPerSecond && gpt4.requestsPerSecond > o1.requestsPerSecond);
        const SimConfig t = *SimConfig::preset(QStringLiteral("gpt4-turbo-like"));
        const SimConfig g = *SimConfig::preset(QStringLiteral("gpt4-like"));
        const SimConfig o = *SimConfig::preset(QStringLiteral("o1-preview-like"));
        QVERIFY(t.stepMs < g.stepMs && g.stepMs < o.stepMs); // also with a single stream
        const Profile fast = profile(*SimConfig::preset(QStringLiteral("fast")));
        QVERIFY(fast.ttftMs < 5 && fast.msPerToken < 5);
    }

    void jsonRoundTrip()
    {
        SimConfig c = *SimConfig::preset(QStringLiteral("o1-preview-like"));
        c.seed = 77;
        c.outputDist = OutputDistribution::Exponential;
        c.cutRate = 0.125;
        c.aliases << QStringLiteral("extra");
        const json j = c.toJson();
        QCOMPARE(j["seed"].get<qint64>(), 77);
        QCOMPARE(j["output_dist"].get<std::string>(), std::string("exponential"));
        QCOMPARE(j["model"].get<std::string>(), std::string("o1-preview-like"));
        QVERIFY(j.contains("ttft_ms") && j.contains("tokens_per_chunk") && j.contains("rpm_limit"));
        QString error;
        const auto back = SimConfig::fromJson(j, &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->toJson().dump(), j.dump());
    }

    void llamacppPresetServesLikeASmallModelOnALaptopCpu()
    {
        const SimConfig c = *SimConfig::preset(QStringLiteral("llamacpp-like"));
        QCOMPARE(c.maxBatch, 8); // -np 8
        QVERIFY(c.validate().isEmpty());
        const ServingModel model(c);
        // Prefill: a few thousand tokens a second, from a short prompt up to a full slot.
        for (const qint64 prompt : {qint64(500), qint64(2000), qint64(4000)}) {
            const double perSecond = double(prompt) / (double(model.prefillNs(prompt, 0)) / 1e9);
            QVERIFY2(perSecond > 1500 && perSecond < 5000, qPrintable(QString::number(perSecond)));
        }
        // Decode: 20-30 ms a step, from one sequence to a full batch.
        QVERIFY(model.stepNs(1) >= 20'000'000 && model.stepNs(8) <= 30'000'000);
    }

    void jsonStartsFromAPreset()
    {
        QString error;
        const auto c = SimConfig::fromJson(json{{"preset", "fast"}, {"max_batch", 8}}, &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->model, QStringLiteral("fast"));
        QCOMPARE(c->maxBatch, 8);
        QCOMPARE(c->stepMs, SimConfig::preset(QStringLiteral("fast"))->stepMs);
        // A caller's preset (the --preset flag) wins over the file's.
        const auto d =
            SimConfig::fromJson(json{{"preset", "fast"}, {"model", "mine"}}, &error, QStringLiteral("gpt4-like"));
        QVERIFY(d);
        QCOMPARE(d->ttftMs, SimConfig::preset(QStringLiteral("gpt4-like"))->ttftMs);
        QCOMPARE(d->model, QStringLiteral("mine"));
        QCOMPARE(SimConfig::fromJson(json::object(), &error)->model, QStringLiteral("default"));
    }

    void jsonErrorsNameTheField_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("not an object") << QStringLiteral("[1]") << QStringLiteral("must be a JSON object");
        QTest::newRow("unknown key") << QStringLiteral(R"({"max_btach": 3})")
                                     << QStringLiteral("max_btach: unknown key (accepted: preset, model");
        QTest::newRow("unknown preset") << QStringLiteral(R"({"preset": "huge"})")
                                        << QStringLiteral("preset: unknown preset 'huge' (accepted: default|fast");
        QTest::newRow("wrong type") << QStringLiteral(R"({"max_batch": "8"})")
                                    << QStringLiteral("max_batch: must be a number");
        QTest::newRow("not whole") << QStringLiteral(R"({"max_batch": 2.5})")
                                   << QStringLiteral("max_batch: must be a whole number from 1 to");
        QTest::newRow("negative") << QStringLiteral(R"({"ttft_ms": -1})")
                                  << QStringLiteral("ttft_ms: must be a number from 0 to");
        QTest::newRow("rate above one") << QStringLiteral(R"({"error_rate": 1.5})")
                                        << QStringLiteral("error_rate: must be a number from 0 to 1");
        QTest::newRow("bad distribution")
            << QStringLiteral(R"({"output_dist": "zipf"})")
            << QStringLiteral("output_dist: unknown distribution (accepted: fixed|uniform|normal|exponential)");
        QTest::newRow("empty model") << QStringLiteral(R"({"model": " "})")
                                     << QStringLiteral("model: must be a non-empty string");
        QTest::newRow("aliases not names")
            << QStringLiteral(R"({"aliases": [1]})") << QStringLiteral("aliases: has the wrong type");
        QTest::newRow("alias repeats model")
            << QStringLiteral(R"({"aliases": ["default"]})") << QStringLiteral("aliases: 'default' is listed twice");
        QTest::newRow("min above max") << QStringLiteral(R"({"output_min": 10, "output_max": 5})")
                                       << QStringLiteral("output_min: must not exceed output_max (10 > 5)");
        QTest::newRow("null value") << QStringLiteral(R"({"seed": null})")
                                    << QStringLiteral("seed: has the wrong type");
        QTest::newRow("bad dialect") << QStringLiteral(R"({"metrics_dialect": "tgi"})")
                                     << QStringLiteral("metrics_dialect: unknown dialect (accepted: vllm|llamacpp)");
        QTest::newRow("slot context too small")
            << QStringLiteral(R"({"slot_context": 15})")
            << QStringLiteral("slot_context: must be 0 (off) or at least 16 (got 15)");
        QTest::newRow("backlog not whole") << QStringLiteral(R"({"listen_backlog": 5.5})")
                                           << QStringLiteral("listen_backlog: must be a whole number from 0 to 65535");
    }

    void jsonErrorsNameTheField()
    {
        QFETCH(QString, text);
        QFETCH(QString, message);
        QString error;
        QVERIFY(!SimConfig::fromJson(json::parse(text.toStdString()), &error));
        QVERIFY2(error.contains(message), qPrintable(error));
    }

    void setFromText()
    {
        SimConfig c;
        QString error;
        QVERIFY(c.setFromText(QStringLiteral("max_batch"), QStringLiteral("12"), &error));
        QCOMPARE(c.maxBatch, 12);
        QVERIFY(c.setFromText(QStringLiteral("step_ms"), QStringLiteral(" 2.5 "), &error));
        QCOMPARE(c.stepMs, 2.5);
        QVERIFY(c.setFromText(QStringLiteral("aliases"), QStringLiteral("a, b,,c"), &error));
        QCOMPARE(c.aliases, (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}));
        QVERIFY(c.setFromText(QStringLiteral("output_dist"), QStringLiteral("uniform"), &error));
        QCOMPARE(c.outputDist, OutputDistribution::Uniform);
        QVERIFY(c.setFromText(QStringLiteral("usage_dialect"), QStringLiteral("llamacpp"), &error));
        QCOMPARE(c.usageDialect, Dialect::Llamacpp);
        QVERIFY(!c.setFromText(QStringLiteral("max_batch"), QStringLiteral("many"), &error));
        QVERIFY2(error.startsWith(QStringLiteral("must be a whole number from 1 to")), qPrintable(error));
        QVERIFY(!c.setFromText(QStringLiteral("cut_rate"), QStringLiteral("2"), &error));
        QVERIFY(!c.setFromText(QStringLiteral("nonsense"), QStringLiteral("1"), &error));
        QCOMPARE(c.maxBatch, 12); // failures change nothing
        // Every parameter has a flag.
        QStringList keys;
        for (const SimConfig::Parameter &p : SimConfig::parameters())
            keys << p.key;
        const json all = c.toJson();
        for (auto it = all.begin(); it != all.end(); ++it)
            QVERIFY2(keys.contains(QString::fromStdString(it.key())), it.key().c_str());
    }
};

QTEST_GUILESS_MAIN(TestSimConfig)
#include "tst_simconfig.moc"
