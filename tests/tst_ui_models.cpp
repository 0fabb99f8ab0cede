// The configuration forms' item models: structure under QAbstractItemModelTester, and what editing
// them does to the configuration values they hold; the headers of every flat table (RowTableModel).
#include "models/requestsmodel.h"
#include "models/runhistorymodel.h"
#include "models/stagesmodel.h"
#include "models/targetlistmodel.h"
#include "models/timelinemodel.h"
#include "models/variablesmodel.h"

#include <QAbstractItemModelTester>
#include <QTest>

#include <memory>

using namespace tb;

namespace {

StageConfig stage(LoadMode mode, double level, qint64 durationMs, qint64 requests = 0, const QString &name = {})
{
    StageConfig s;
    s.name = name;
    s.mode = mode;
    s.level = level;
    s.durationMs = durationMs;
    s.requests = requests;
    return s;
}

TargetConfig target(const QString &name, const QString &model)
{
    TargetConfig t;
    t.name = name;
    t.url = QStringLiteral("http://127.0.0.1:8000/v1");
    t.model = model;
    return t;
}

std::unique_ptr<QAbstractItemModel> table(const QString &name)
{
    if (name == QLatin1String("stages"))
        return std::make_unique<StagesModel>();
    if (name == QLatin1String("variables"))
        return std::make_unique<VariablesModel>();
    if (name == QLatin1String("targets"))
        return std::make_unique<TargetListModel>();
    if (name == QLatin1String("timeline"))
        return std::make_unique<TimelineModel>();
    if (name == QLatin1String("requests"))
        return std::make_unique<RequestsModel>();
    return std::make_unique<RunHistoryModel>();
}

} // namespace

class TestUiModels : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void tableHeaders_data()
    {
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("columns");
        QTest::addColumn<int>("column");
        QTest::addColumn<QString>("title");
        QTest::addColumn<bool>("toolTip");
        const auto row = [](const char *name, const char *model, int columns, int column, const char *title,
                            bool toolTip) {
            QTest::newRow(name) << QString::fromLatin1(model) << columns << column << QString::fromUtf8(title)
                                << toolTip;
        };
        row("stages first", "stages", StagesModel::ColumnCount, StagesModel::NameColumn, "Name", false);
        row("stages last", "stages", StagesModel::ColumnCount, StagesModel::PromptColumn, "Prompt tokens", false);
        row("variables", "variables", VariablesModel::ColumnCount, VariablesModel::ValueColumn, "Value", false);
        row("targets", "targets", TargetListModel::ColumnCount, TargetListModel::UrlColumn, "Base URL", false);
        row("timeline plain", "timeline", TimelineModel::ColumnCount, TimelineModel::EventColumn, "Event", false);
        row("timeline explained", "timeline", TimelineModel::ColumnCount, TimelineModel::GapColumn, "Gap (ms)", true);
        row("requests plain", "requests", RequestsModel::ColumnCount, RequestsModel::IdColumn, "Id", false);
        row("requests metric", "requests", RequestsModel::ColumnCount, RequestsModel::TtftColumn, "TTFT (ms)", true);
        row("requests last", "requests", RequestsModel::ColumnCount, RequestsModel::ErrorColumn, "Error", false);
        row("history name", "history", RunHistoryModel::ColumnCount, RunHistoryModel::NameColumn, "Run", true);
        row("history plain", "history", RunHistoryModel::ColumnCount, RunHistoryModel::DateColumn, "Date", false);
        row("history last", "history", RunHistoryModel::ColumnCount, RunHistoryModel::NotesColumn, "Notes", true);
    }

    void tableHeaders()
    {
        QFETCH(QString, model);
        QFETCH(int, columns);
        QFETCH(int, column);
        QFETCH(QString, title);
        QFETCH(bool, toolTip);
        const std::unique_ptr<QAbstractItemModel> table = ::table(model);
        QCOMPARE(table->columnCount(), columns);
        QCOMPARE(table->headerData(column, Qt::Horizontal).toString(), title);
        QCOMPARE(table->headerData(column, Qt::Horizontal, Qt::ToolTipRole).isValid(), toolTip);
        QVERIFY(!table->headerData(column, Qt::Horizontal, Qt::DecorationRole).isValid());
        // Rows are numbered from 1, as Qt numbers them.
        QCOMPARE(table->headerData(column, Qt::Vertical).toInt(), column + 1);
    }

    void stagesStructure()
    {
        StagesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setStages(
            {stage(LoadMode::Concurrency, 50, 30000), stage(LoadMode::Rate, 20, 0, 500, QStringLiteral("warm"))});
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.columnCount(), int(StagesModel::ColumnCount));
        QVERIFY(model.insertRows(1, 2));
        QVERIFY(model.removeRows(0, 1));
        QVERIFY(model.moveRows({}, 0, 1, {}, 3));
        QVERIFY(!model.moveRows({}, 0, 1, {}, 1)); // onto itself
        QVERIFY(!model.removeRows(2, 5));
        model.setStages({});
        QCOMPARE(model.rowCount(), 0);
    }

    void stagesDisplay()
    {
        StagesModel model;
        model.setStages(
            {stage(LoadMode::Concurrency, 50, 30000), stage(LoadMode::Rate, 2.5, 0, 500, QStringLiteral("warm"))});
        QCOMPARE(model.index(0, StagesModel::NameColumn).data().toString(), QStringLiteral("c=50"));
        QCOMPARE(model.index(0, StagesModel::NameColumn).data(Qt::EditRole).toString(), QString());
        QCOMPARE(model.index(0, StagesModel::LevelColumn).data().toString(), QStringLiteral("50 users"));
        QCOMPARE(model.index(0, StagesModel::DurationColumn).data().toString(), QStringLiteral("30s"));
        QCOMPARE(model.index(0, StagesModel::RequestsColumn).data().toString(), QStringLiteral("—"));
        QCOMPARE(model.index(1, StagesModel::NameColumn).data().toString(), QStringLiteral("warm"));
        QCOMPARE(model.index(1, StagesModel::ModeColumn).data(Qt::EditRole).toString(), QStringLiteral("rate"));
        QCOMPARE(model.index(1, StagesModel::LevelColumn).data().toString(), QStringLiteral("2.5 req/s"));
        QCOMPARE(model.index(1, StagesModel::RequestsColumn).data(Qt::EditRole).toLongLong(), 500);
    }

    void stagesEdit_data()
    {
        QTest::addColumn<int>("column");
        QTest::addColumn<QVariant>("value");
        QTest::addColumn<bool>("accepted");
        QTest::addColumn<QString>("expected"); // formatStages() of the result
        QTest::newRow("mode to rate") << int(StagesModel::ModeColumn) << QVariant(QStringLiteral("rate")) << true
                                      << QStringLiteral("r=4:30s");
        QTest::newRow("unknown mode") << int(StagesModel::ModeColumn) << QVariant(QStringLiteral("burst")) << false
                                      << QStringLiteral("c=4:30s");
        QTest::newRow("level") << int(StagesModel::LevelColumn) << QVariant(16.0) << true << QStringLiteral("c=16:30s");
        QTest::newRow("level text") << int(StagesModel::LevelColumn) << QVariant(QStringLiteral("many")) << false
                                    << QStringLiteral("c=4:30s");
        QTest::newRow("duration") << int(StagesModel::DurationColumn) << QVariant(QStringLiteral("2m")) << true
                                  << QStringLiteral("c=4:2m");
        QTest::newRow("bad duration") << int(StagesModel::DurationColumn) << QVariant(QStringLiteral("soon")) << false
                                      << QStringLiteral("c=4:30s");
        QTest::newRow("duration cleared, count")
            << int(StagesModel::DurationColumn) << QVariant(QString()) << true << QStringLiteral("c=4");
        QTest::newRow("negative requests")
            << int(StagesModel::RequestsColumn) << QVariant(qint64(-1)) << false << QStringLiteral("c=4:30s");
    }

    void stagesEdit()
    {
        QFETCH(int, column);
        QFETCH(QVariant, value);
        QFETCH(bool, accepted);
        QFETCH(QString, expected);
        StagesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setStages({stage(LoadMode::Concurrency, 4, 30000)});
        QCOMPARE(model.setData(model.index(0, column), value), accepted);
        QCOMPARE(formatStages(model.stages()), expected);
    }

    void stagesInsertContinuesRamp()
    {
        StagesModel model;
        model.setStages({stage(LoadMode::Rate, 10, 60000)});
        QVERIFY(model.insertRows(1, 2));
        QCOMPARE(formatStages(model.stages()), QStringLiteral("r=10:1m,r=20:1m,r=40:1m"));
        QVERIFY(model.moveRows({}, 2, 1, {}, 0));
        QCOMPARE(formatStages(model.stages()), QStringLiteral("r=40:1m,r=10:1m,r=20:1m"));
    }

    void variables()
    {
        VariablesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QMap<QString, QString> vars{{QStringLiteral("topic"), QStringLiteral("tides")},
                                          {QStringLiteral("n"), QStringLiteral("3")}};
        model.setVariables(vars);
        QCOMPARE(model.variables(), vars);
        QVERIFY(model.problems().isEmpty());
        const int row = model.addVariable(QStringLiteral("topic"), QStringLiteral("again"));
        QCOMPARE(model.problems().size(), 1);
        QVERIFY2(model.problems().constFirst().startsWith(QStringLiteral("prompt.variables[2]")),
                 qPrintable(model.problems().constFirst()));
        QVERIFY(model.setData(model.index(row, VariablesModel::NameColumn), QStringLiteral("  style ")));
        QCOMPARE(model.variables().value(QStringLiteral("style")), QStringLiteral("again"));
        QVERIFY(model.insertRows(0, 1));
        QVERIFY(model.problems().constFirst().contains(QStringLiteral("no name")));
        QVERIFY(model.removeRows(0, 1));
        QVERIFY(model.problems().isEmpty());
    }

    void targetsStructureAndBuiltin()
    {
        TargetListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setUserTargets(
            {target(QStringLiteral("a"), QStringLiteral("m1")), target(QString(), QStringLiteral("m2"))});
        QCOMPARE(model.builtinRow(), -1);
        TargetConfig sim = target(TargetListModel::builtinName(), QStringLiteral("default"));
        model.setBuiltin(sim);
        QCOMPARE(model.builtinRow(), 0);
        QCOMPARE(model.count(), 3);
        QVERIFY(!model.removeTarget(0));
        QCOMPARE(model.index(2, TargetListModel::NameColumn).data().toString(),
                 QStringLiteral("m2")); // model name stands in
        QCOMPARE(model.index(1, TargetListModel::ApiColumn).data().toString(), QStringLiteral("openai-chat"));
        const int copy = model.duplicateTarget(1);
        QCOMPARE(model.target(copy).name, QStringLiteral("a (copy)"));
        QCOMPARE(model.userTargets().size(), 3);
        model.setUserTargets({});
        QCOMPARE(model.count(), 1);
        QVERIFY(model.isBuiltin(0));
        QVERIFY(model.removeTarget(model.addTarget(target(QStringLiteral("b"), QStringLiteral("m")))));
    }

    void targetsFindIgnoresTypedKey()
    {
        TargetListModel model;
        TargetConfig t = target(QStringLiteral("a"), QStringLiteral("m1"));
        model.addTarget(t);
        t.apiKey = QStringLiteral("sk-typed");
        QCOMPARE(model.findTarget(t), 0);
        t.model = QStringLiteral("other");
        QCOMPARE(model.findTarget(t), -1);
    }

    void targetsJsonHasNoKey()
    {
        TargetConfig t = target(QStringLiteral("a"), QStringLiteral("m1"));
        t.apiKey = QStringLiteral("sk-never-stored-123");
        t.apiKeyEnv = QStringLiteral("MY_KEY");
        t.headers = {{QStringLiteral("X-Team"), QStringLiteral("perf")}};
        t.extraBody = {{"top_k", 40}};
        const QByteArray json = TargetListModel::toJson({t});
        QVERIFY(!json.contains("sk-never-stored-123"));
        const QList<TargetConfig> back = TargetListModel::fromJson(json);
        QCOMPARE(back.size(), 1);
        t.apiKey.clear();
        QCOMPARE(back.constFirst(), t);
        QVERIFY(TargetListModel::fromJson("not json").isEmpty());
        QCOMPARE(TargetListModel::fromJson(R"([{"api": "grpc"}, {"model": "ok"}])").size(),
                 1); // bad entries are skipped
    }
};

QTEST_MAIN(TestUiModels)
#include "tst_ui_models.moc"
