// The official OpenAI and Anthropic client libraries (npm packages, unchanged) against the
// simulator, streaming and not: tests/sdk/sdkcheck.mjs checks what each SDK parsed, and this test
// compares every call with the simulator's own record of it.
#include "sim/simulatorhost.h"

#include <QProcess>
#include <QTest>

#include <nlohmann/json.hpp>

using json = nlohmann::json;
using namespace tb::sim;

class TestSimSdk : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void officialClientsWork_data()
    {
        QTest::addColumn<double>("reasoningRatio");
        QTest::addColumn<qint64>("tokensPerChunk");
        QTest::newRow("plain") << 0.0 << qint64(1);
        QTest::newRow("reasoning, 3 tokens per chunk") << 0.5 << qint64(3);
    }

    void officialClientsWork()
    {
        QFETCH(double, reasoningRatio);
        QFETCH(qint64, tokensPerChunk);
        SimConfig config = *SimConfig::preset(QStringLiteral("fast"));
        config.reasoningRatio = reasoningRatio;
        config.tokensPerChunk = tokensPerChunk;
        config.models = {QStringLiteral("lora-a")}; // a LoRA adapter beside the model (--model mixes)
        SimulatorHost host(config);
        QVERIFY(host.start());

        QProcess node;
        node.setWorkingDirectory(QStringLiteral(TOKENBENCH_SDK_DIR));
        node.start(QStringLiteral(TOKENBENCH_NODE),
                   {QStringLiteral("sdkcheck.mjs"), host.baseUrl().toString(), config.model});
        QVERIFY(node.waitForStarted());
        QVERIFY(node.waitForFinished(180000));
        const QString errors = QString::fromUtf8(node.readAllStandardError());
        QVERIFY2(node.exitStatus() == QProcess::NormalExit && node.exitCode() == 0, qPrintable(errors));

        QMap<QString, RequestTrace> byId;
        for (const RequestTrace &t : host.requests())
            byId.insert(t.id, t);
        int calls = 0;
        bool done = false;
        for (const QByteArray &line : node.readAllStandardOutput().split('\n')) {
            if (line.trimmed().isEmpty())
                continue;
            const json r = json::parse(line.toStdString(), nullptr, false);
            QVERIFY2(!r.is_discarded(), line.constData());
            if (r.value("done", false)) {
                done = true;
                continue;
            }
            ++calls;
            const QString call = QString::fromStdString(r["call"].get<std::string>());
            const QString id = QString::fromStdString(r["id"].get<std::string>());
            QVERIFY2(byId.contains(id), qPrintable(call + QStringLiteral(": unknown id ") + id));
            const RequestTrace &t = byId[id];
            // What the SDK parsed is what the simulator sent.
            QCOMPARE(r["promptTokens"].get<qint64>(), t.promptTokens);
            QCOMPARE(r["completionTokens"].get<qint64>(), t.completionTokens);
            QCOMPARE(r["reasoningTokens"].get<qint64>(), t.reasoningTokens);
            QCOMPARE(t.outcome, QStringLiteral("ok"));
            if (reasoningRatio > 0 && t.endpoint != QLatin1String("completions") &&
                t.endpoint != QLatin1String("embeddings"))
                QVERIFY2(t.reasoningTokens > 0, qPrintable(call));
        }
        QVERIFY(done);
        QCOMPARE(calls, 17); // sdkcheck.mjs: 12 generations (one with an image, one to lora-a), 2 structured-output
                             // replies, 1 tool call, 2 embeddings
        const SimStats stats = host.stats();
        QCOMPARE(stats.requestsServed, calls);
        QCOMPARE(stats.rejections.value(404), 1); // the script's deliberate unknown model
        QCOMPARE(stats.rejections.value(400), 1); // and its negative max_tokens
    }
};

QTEST_GUILESS_MAIN(TestSimSdk)
#include "tst_simsdk.moc"
