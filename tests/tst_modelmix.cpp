// Model mixes (--model a:0.7,b:0.3, a dataset row's "model"): the flag's syntax and checks, the
// exact shares each request draws, the model in every API's body, requests.csv's model column,
// summary.json's per-model blocks, and the simulator's --models (an unknown model is its 404).
#include "analysis/comparison.h"
#include "api/requestbuilder.h"
#include "config/configfield.h"
#include "config/modelmix.h"
#include "metrics/runaggregator.h"
#include "results/runfiles.h"
#include "sim/simulatorhost.h"

#include "support/loadrun.h"
#include "support/testfiles.h"
#include "support/testsimulator.h"

#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QTemporaryDir>
#include <QTest>

#include <vector>

using namespace tb;
using tb::sim::SimConfig;
using namespace Qt::Literals::StringLiterals;

namespace {

/// How many of `records` asked for each of `models` models.
std::vector<int> countByModel(const std::vector<RequestRecord> &records, int models)
{
    std::vector<int> counts(std::size_t(models), 0);
    for (const RequestRecord &r : records) {
        if (r.model >= 0 && r.model < models)
            ++counts[std::size_t(r.model)];
    }
    return counts;
}

/// GET `path` of the simulator: the status and the body.
std::pair<int, QByteArray> httpGet(const sim::SimulatorHost &host, const QString &path)
{
    QNetworkAccessManager nam;
    QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(host.port()).arg(path)));
    QNetworkReply *reply = nam.get(request);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray body = reply->readAll();
    delete reply;
    return {status, body};
}

/// A simulator that answers fast, serving `models` beside its own.
std::unique_ptr<sim::SimulatorHost> startMixSimulator(const QStringList &models)
{
    SimConfig simConfig = *SimConfig::preset(QStringLiteral("fast"));
    simConfig.models = models;
    return test::startSimulator(simConfig);
}

RunConfig mixConfig(const sim::SimulatorHost &host, const QString &model, int requests)
{
    RunConfig config;
    config.target = test::targetOf(host);
    config.target.model = model;
    config.target.transport = TransportKind::Native; // runLoad's global transport row otherwise
    config.load.concurrency = 4;
    config.load.requests = requests;
    config.load.timeoutMs = 30000;
    config.request.maxTokens = 8;
    config.prompt.promptTokens = 16;
    config.prompt.salt = QStringLiteral("00000000000000aa");
    return config;
}

} // namespace

class TestModelMix : public QObject
{
    Q_OBJECT

private slots:
    void parse_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("names");
        QTest::addColumn<QList<double>>("shares");
        QTest::addColumn<QString>("problem"); ///< a part of the refusal; empty: accepted
        QTest::newRow("one name") << "gpt-4o" << QStringList{u"gpt-4o"_s} << QList<double>{1} << "";
        QTest::newRow("one name with a tag") << "llama3:8b" << QStringList{u"llama3:8b"_s} << QList<double>{1} << "";
        QTest::newRow("one name that looks weighted") << "qwen:7" << QStringList{u"qwen:7"_s} << QList<double>{1} << "";
        QTest::newRow("weighted") << "a:0.7,b:0.3" << QStringList{u"a"_s, u"b"_s} << QList<double>{0.7, 0.3} << "";
        QTest::newRow("normalised") << "a:7, b:3" << QStringList{u"a"_s, u"b"_s} << QList<double>{0.7, 0.3} << "";
        QTest::newRow("equal") << "a,b,c,d" << QStringList{u"a"_s, u"b"_s, u"c"_s, u"d"_s}
                               << QList<double>{0.25, 0.25, 0.25, 0.25} << "";
        QTest::newRow("tag and weight") << "qwen:7b:2,llama3:8b" << QStringList{u"qwen:7b"_s, u"llama3:8b"_s}
                                        << QList<double>{2.0 / 3, 1.0 / 3} << "";
        QTest::newRow("missing") << "" << QStringList() << QList<double>() << "missing";
        QTest::newRow("blank") << "  " << QStringList() << QList<double>() << "missing";
        QTest::newRow("empty name") << "a,,b" << QStringList() << QList<double>() << "model 2's name is empty";
        QTest::newRow("trailing comma") << "a," << QStringList() << QList<double>() << "model 2's name is empty";
        QTest::newRow("weight only") << ":1,b" << QStringList() << QList<double>() << "model 1's name is empty";
        QTest::newRow("zero weight") << "a:0,b" << QStringList() << QList<double>() << "greater than 0";
        QTest::newRow("negative weight") << "a:-1,b" << QStringList() << QList<double>() << "greater than 0";
        QTest::newRow("infinite weight") << "a:inf,b" << QStringList() << QList<double>() << "finite";
        QTest::newRow("huge weights") << "a:1e308,b:1e308" << QStringList() << QList<double>() << "add up";
        QTest::newRow("twice") << "a,b,a" << QStringList() << QList<double>() << "model 3 is listed twice";
        QString many;
        for (int i = 0; i < ModelMix::kMaxModels + 1; ++i)
            many += QStringLiteral("m%1,").arg(i);
        many.chop(1);
        QTest::newRow("65 models") << many << QStringList() << QList<double>() << "65 models; at most 64";
        QTest::newRow("control character")
            << QStringLiteral("a,b\x1b[31m") << QStringList() << QList<double>() << "model 2's name";
        QTest::newRow("long name") << QStringLiteral("a,") + QString(300, u'x') << QStringList() << QList<double>()
                                   << "longer than 256";
    }
    void parse()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, names);
        QFETCH(QList<double>, shares);
        QFETCH(QString, problem);
        QString error;
        const auto mix = ModelMix::parse(text, &error);
        QCOMPARE(mix.has_value(), problem.isEmpty());
        if (!mix) {
            QVERIFY2(error.contains(problem), qPrintable(error));
            // The run's check says it under --model's field.
            RunConfig config;
            config.target.url = QStringLiteral("http://127.0.0.1:1/v1");
            config.target.model = text;
            config.load.requests = 1;
            const QList<ConfigProblem> problems = tb::configProblems(config);
            QCOMPARE(problems.size(), 1);
            QCOMPARE(problems[0].field, ConfigFieldId::TargetModel);
            QVERIFY2(problems[0].message.startsWith(u"target.model (--model): "), qPrintable(problems[0].message));
            return;
        }
        QCOMPARE(mix->names(), names);
        QCOMPARE(int(mix->shares().size()), shares.size());
        for (qsizetype i = 0; i < shares.size(); ++i)
            QVERIFY2(std::abs(mix->shares()[std::size_t(i)] - shares[i]) < 1e-12, qPrintable(QString::number(i)));
    }

    /// Any n consecutive draws give each model exactly n·w when that is whole, wherever the salt
    /// starts the pattern.
    void sharesExact_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("n");
        QTest::addColumn<QList<int>>("counts");
        QTest::newRow("70/30 of 10") << "a:0.7,b:0.3" << 10 << QList<int>{7, 3};
        QTest::newRow("70/30 of 100") << "a:0.7,b:0.3" << 100 << QList<int>{70, 30};
        QTest::newRow("thirds of 99") << "a,b,c" << 99 << QList<int>{33, 33, 33};
        QTest::newRow("half, quarters of 8") << "a:2,b:1,c:1" << 8 << QList<int>{4, 2, 2};
        QTest::newRow("10/90 of 10") << "a:0.1,b:0.9" << 10 << QList<int>{1, 9};
        QTest::newRow("29/71 of 100") << "a:0.29,b:0.71" << 100 << QList<int>{29, 71};
        QTest::newRow("5 models of 1000")
            << "a:0.05,b:0.15,c:0.2,d:0.25,e:0.35" << 1000 << QList<int>{50, 150, 200, 250, 350};
        QTest::newRow("one model") << "a" << 7 << QList<int>{7};
    }
    void sharesExact()
    {
        QFETCH(QString, text);
        QFETCH(int, n);
        QFETCH(QList<int>, counts);
        const auto mix = ModelMix::parse(text, nullptr);
        QVERIFY(mix);
        for (const std::uint64_t offset : {0ULL, 1ULL, 3ULL, 17ULL, 1234567ULL, 4294967295ULL}) {
            QList<int> got(counts.size(), 0);
            int longestRun = 0;
            int run = 0;
            int previous = -1;
            for (int i = 0; i < n; ++i) {
                const int k = mix->pick(std::uint64_t(i), offset);
                QVERIFY(k >= 0 && k < counts.size());
                ++got[k];
                run = k == previous ? run + 1 : 1;
                previous = k;
                longestRun = std::max(longestRun, run);
            }
            QCOMPARE(got, counts);
            // Spread over the run, not in blocks: 70/30 never gives more than 3 a's in a row.
            if (counts.size() > 1)
                QVERIFY2(longestRun <= n / *std::min_element(counts.begin(), counts.end()),
                         qPrintable(QString::number(longestRun)));
        }
    }

    /// Every API's body names the model asked for; without one, --model's (a mix's first).
    void bodyCarriesModel_data()
    {
        QTest::addColumn<int>("api");
        for (const ApiKind api : {ApiKind::OpenAIChat, ApiKind::OpenAICompletions, ApiKind::OpenAIResponses,
                                  ApiKind::AnthropicMessages, ApiKind::OpenAIEmbeddings})
            QTest::newRow(qPrintable(apiKindName(api))) << int(api);
    }
    void bodyCarriesModel()
    {
        QFETCH(int, api);
        TargetConfig target;
        target.url = QStringLiteral("http://127.0.0.1:1/v1");
        target.api = ApiKind(api);
        target.model = QStringLiteral("base:0.5,lora-1:0.5");
        QString error;
        const auto builder = RequestBuilder::create(target, RequestConfig{}, &error);
        QVERIFY2(builder, qPrintable(error));
        Prompt prompt;
        prompt.user = "hello";
        QVERIFY(builder->body(prompt, "lora-1")["model"] == "lora-1");
        QVERIFY(builder->body(prompt)["model"] == "base");
    }

    /// Against the simulator: each API's requests ask for the mix's models in their shares; a
    /// model the simulator does not serve is its 404 (an HTTP error, not "protocol"), the others
    /// ok; summary.json's per-model blocks add up to the total and survive the round trip, and
    /// requests.csv gives each record its model back.
    void runAgainstSimulator_data()
    {
        QTest::addColumn<int>("api");
        QTest::addColumn<QString>("model");
        QTest::addColumn<QStringList>("served");
        QTest::addColumn<QList<int>>("counts");
        QTest::addColumn<QList<int>>("failed"); ///< per model
        const QStringList ab{u"a"_s, u"b"_s};
        QTest::newRow("chat 70/30") << int(ApiKind::OpenAIChat) << "a:0.7,b:0.3" << ab << QList<int>{14, 6}
                                    << QList<int>{0, 0};
        QTest::newRow("completions equal")
            << int(ApiKind::OpenAICompletions) << "a,b" << ab << QList<int>{10, 10} << QList<int>{0, 0};
        QTest::newRow("responses 3 models")
            << int(ApiKind::OpenAIResponses) << "a:2,b:1,fast:1" << ab << QList<int>{10, 5, 5} << QList<int>{0, 0, 0};
        QTest::newRow("anthropic 60/40") << int(ApiKind::AnthropicMessages) << "a:0.6,b:0.4" << ab << QList<int>{12, 8}
                                         << QList<int>{0, 0};
        QTest::newRow("embeddings 50/50")
            << int(ApiKind::OpenAIEmbeddings) << "a,b" << ab << QList<int>{10, 10} << QList<int>{0, 0};
        QTest::newRow("chat, one unknown")
            << int(ApiKind::OpenAIChat) << "a:0.75,zzz:0.25" << ab << QList<int>{15, 5} << QList<int>{0, 5};
        QTest::newRow("embeddings, one unknown")
            << int(ApiKind::OpenAIEmbeddings) << "zzz,b" << ab << QList<int>{10, 10} << QList<int>{10, 0};
    }
    void runAgainstSimulator()
    {
        QFETCH(int, api);
        QFETCH(QString, model);
        QFETCH(QStringList, served);
        QFETCH(QList<int>, counts);
        QFETCH(QList<int>, failed);
        auto host = startMixSimulator(served);
        QVERIFY(host);
        RunConfig config = mixConfig(*host, model, 20);
        config.target.api = ApiKind(api);
        const test::LoadRun run = test::runLoad(config);
        QVERIFY(run.plan);
        QVERIFY(run.finished);
        QCOMPARE(int(run.records.size()), 20);
        const QStringList names = run.plan->targets.front().models;
        QCOMPARE(names.size(), counts.size());
        const std::vector<int> got = countByModel(run.records, int(names.size()));
        QCOMPARE(QList<int>(got.begin(), got.end()), counts);
        for (const RequestRecord &r : run.records) {
            if (failed[r.model] > 0) {
                QCOMPARE(r.status, RequestStatus::Http);
                QCOMPARE(r.httpStatus, 404);
                QVERIFY2(r.errorMessage.contains(u"The model `zzz` does not exist."), qPrintable(r.errorMessage));
            } else {
                QVERIFY2(r.ok(), qPrintable(r.errorMessage));
            }
        }

        RunInfo info = RunInfo::begin(config);
        info.models = names;
        RunAggregator aggregator(info);
        for (const RequestRecord &r : run.records)
            aggregator.add(r);
        const RunSummary summary = aggregator.summary();
        QCOMPARE(int(summary.models.size()), int(names.size()));
        std::int64_t ok = 0;
        std::int64_t failures = 0;
        for (std::size_t k = 0; k < summary.models.size(); ++k) {
            const SummaryBlock &b = summary.models[k];
            QCOMPARE(b.name, names[qsizetype(k)]);
            QCOMPARE(b.requests.ok + b.requests.failed, std::int64_t(counts[qsizetype(k)]));
            QCOMPARE(b.requests.failed, std::int64_t(failed[qsizetype(k)]));
            if (b.requests.failed > 0) { // the server's own answer, not a protocol failure
                QCOMPARE(b.requests.byError.at(u"http"_s), b.requests.failed);
                QCOMPARE(b.requests.byStatus.count(404) ? b.requests.byStatus.at(404) : 0, b.requests.failed);
            }
            QCOMPARE(b.stat(Metric::E2e).count, b.requests.ok);
            ok += b.requests.ok;
            failures += b.requests.failed;
            // Over its own window (its first request sent to its last done), as an instance's.
            QVERIFY(b.windowS > 0 && b.windowS <= summary.total.windowS + 1e-9);
            QCOMPARE(b.throughput.requestsPerS, double(b.requests.ok) / b.windowS);
        }
        QCOMPARE(ok, summary.total.requests.ok);
        QCOMPARE(failures, summary.total.requests.failed);
        QVERIFY(!summary.total.requests.byError.contains(u"protocol"_s));

        QString error;
        const auto back = RunSummary::fromJson(summary.toJson(), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(int(back->models.size()), int(names.size()));
        for (std::size_t k = 0; k < back->models.size(); ++k) {
            QCOMPARE(back->models[k].name, summary.models[k].name);
            QCOMPARE(back->models[k].requests.ok, summary.models[k].requests.ok);
        }

        // requests.csv's model column, and run.json's list, give each record its model back.
        const auto infoBack = runfiles::runInfoFromJson(runfiles::runInfoToJson(info), &error);
        QVERIFY2(infoBack, qPrintable(error));
        QCOMPARE(infoBack->models, names);
        std::string csv = runfiles::requestsCsvHeader(info);
        for (const RequestRecord &r : run.records)
            runfiles::appendRequestRow(csv, r, info);
        QVERIFY(csv.find(",model") != std::string::npos);
        QVERIFY(csv.find("," + names.back().toStdString() + ",") != std::string::npos);

        // compare, report and the console's table: one part per model, its own records; the parts
        // of one run share its salt without a note saying runs share prompts.
        RunData data;
        data.directory = QStringLiteral("/runs/mix");
        data.info = info;
        data.hasInfo = true;
        data.summary = summary;
        data.records = run.records;
        const std::vector<RunData> parts = splitByModel(data);
        QCOMPARE(int(parts.size()), int(names.size()));
        for (std::size_t k = 0; k < parts.size(); ++k) {
            QCOMPARE(parts[k].name, names[qsizetype(k)]);
            QCOMPARE(int(parts[k].records.size()), counts[qsizetype(k)]);
        }
        const QString table = ComparisonTable(parts).toText();
        QVERIFY2(!table.contains(u"share prompt salt"_s), qPrintable(table));
    }

    /// A dataset row's "model" is that request's; rows without one draw --model's; the run's list
    /// is --model's, then the names only rows give.
    void datasetRowsNameModels()
    {
        auto host = startMixSimulator({u"a"_s, u"b"_s, u"c"_s});
        QVERIFY(host);
        QTemporaryDir dir;
        const QString file = test::writeFile(dir, QStringLiteral("rows.jsonl"),
                                             "{\"prompt\": \"one\", \"model\": \"c\"}\n"
                                             "{\"prompt\": \"two\"}\n"
                                             "{\"prompt\": \"three\", \"model\": \"a\"}\n"
                                             "{\"prompt\": \"four\", \"model\": null}\n");
        RunConfig config = mixConfig(*host, QStringLiteral("a,b"), 8);
        config.prompt.promptTokens = 0;
        config.prompt.promptFile = file;
        const test::LoadRun run = test::runLoad(config);
        QVERIFY(run.plan);
        QVERIFY(run.finished);
        QCOMPARE(run.plan->targets.front().models, (QStringList{u"a"_s, u"b"_s, u"c"_s}));
        QCOMPARE(int(run.records.size()), 8);
        for (const RequestRecord &r : run.records) {
            QVERIFY2(r.ok(), qPrintable(r.errorMessage));
            const int row = int((r.id - 1) % 4);
            if (row == 0)
                QCOMPARE(r.model, 2);
            else if (row == 2)
                QCOMPARE(r.model, 0);
            else
                QVERIFY(r.model == 0 || r.model == 1);
        }
    }

    void datasetModelChecked_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::addColumn<QString>("problem");
        QTest::newRow("number") << QByteArray("{\"prompt\": \"x\", \"model\": 5}") << "\"model\" is not a string";
        QTest::newRow("empty") << QByteArray("{\"prompt\": \"x\", \"model\": \"\"}") << "\"model\" is empty";
        QTest::newRow("escape") << QByteArray("{\"prompt\": \"x\", \"model\": \"a\\u001b[2J\"}") << "\"model\" ";
        QTest::newRow("long") << QByteArray("{\"prompt\": \"x\", \"model\": \"" + QByteArray(300, 'm') + "\"}")
                              << "longer than 256";
    }
    void datasetModelChecked()
    {
        QFETCH(QByteArray, line);
        QFETCH(QString, problem);
        QTemporaryDir dir;
        RunConfig config;
        config.target.url = QStringLiteral("http://127.0.0.1:1/v1");
        config.target.model = QStringLiteral("a");
        config.load.requests = 1;
        config.prompt.promptFile = test::writeFile(dir, QStringLiteral("rows.jsonl"), line + '\n');
        QString error;
        QVERIFY(!RunPlan::create(config, &error));
        QVERIFY2(error.contains(problem) && error.contains(u"line 1"), qPrintable(error));
    }

    /// --model's mix survives config.json as it was given.
    void configRoundTrip()
    {
        RunConfig config;
        config.target.url = QStringLiteral("http://127.0.0.1:1/v1");
        config.target.model = QStringLiteral("a:0.7,b:0.3");
        config.load.requests = 1;
        QString error;
        const auto back = runConfigFromJson(toJson(config), &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->target.model, config.target.model);
        QVERIFY(tb::configProblems(*back).isEmpty());
        QCOMPARE(back->target.primaryModel(), QStringLiteral("a"));
    }

    /// The simulator's --models: /v1/models lists them on their base model; a request for another
    /// model gets OpenAI's 404 body word for word.
    void simulatorServesModels()
    {
        auto host = startMixSimulator({u"lora-a"_s, u"lora-b"_s});
        QVERIFY(host);
        const auto [status, body] = httpGet(*host, QStringLiteral("/v1/models"));
        QCOMPARE(status, 200);
        const auto list = nlohmann::json::parse(body.toStdString());
        QStringList ids;
        for (const auto &m : list["data"]) {
            ids << QString::fromStdString(m["id"].get<std::string>());
            if (m["id"] == "lora-a" || m["id"] == "lora-b")
                QVERIFY(m["parent"] == host->config().model.toStdString());
        }
        QVERIFY2(ids.contains(u"lora-a"_s) && ids.contains(u"lora-b"_s), qPrintable(ids.join(u',')));

        QNetworkAccessManager nam;
        QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1/v1/chat/completions").arg(host->port())));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
        QNetworkReply *reply =
            nam.post(request, QByteArray(R"({"model":"x","messages":[{"role":"user","content":"hi"}]})"));
        QEventLoop loop;
        QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
        loop.exec();
        QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 404);
        const auto error = nlohmann::json::parse(reply->readAll().toStdString());
        delete reply;
        QVERIFY2(error["error"]["message"] == "The model `x` does not exist.", error.dump().c_str());
        QVERIFY(error["error"]["type"] == "invalid_request_error");
        QVERIFY(error["error"]["code"] == "model_not_found");
    }
};

QTEST_MAIN(TestModelMix)
#include "tst_modelmix.moc"
