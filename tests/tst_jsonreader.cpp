#include "config/jsonreader.h"

#include <QTest>

using tb::JsonReader;

namespace {

/// Reads one document with both kinds of field: optional "name" and "count" (0 to 10), a
/// required object "inner" with a required integer "n"; unknown keys refused.
QString problemOf(const QByteArray &text)
{
    const nlohmann::json json = nlohmann::json::parse(text.toStdString());
    QString error;
    JsonReader top(json, QString(), &error, QStringLiteral("document"));
    QString name;
    qint64 count = 0;
    top.string("name", name);
    top.integer("count", count, qint64(0), qint64(10));
    const JsonReader inner = top.object("inner");
    inner.integer("n");
    const bool ok = top.finish();
    if (ok != error.isEmpty())
        return QStringLiteral("finish() disagrees with the error '%1'").arg(error);
    return error;
}

} // namespace

class TestJsonReader : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void firstProblemNamesItsPath_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("problem"); // empty: none
        QTest::newRow("valid") << QByteArray(R"({"name": "x", "count": 3, "inner": {"n": 1}})") << QString();
        QTest::newRow("optional fields absent or null")
            << QByteArray(R"({"name": null, "inner": {"n": 1}})") << QString();
        QTest::newRow("not an object") << QByteArray("[1]") << QStringLiteral("document: must be a JSON object");
        QTest::newRow("optional of the wrong type")
            << QByteArray(R"({"name": 1, "inner": {"n": 1}})") << QStringLiteral("name: must be a string");
        QTest::newRow("optional out of range") << QByteArray(R"({"count": 11, "inner": {"n": 1}})")
                                               << QStringLiteral("count: must be a whole number from 0 to 10 (got 11)");
        QTest::newRow("required missing") << QByteArray("{}") << QStringLiteral("inner: missing");
        QTest::newRow("required of the wrong type")
            << QByteArray(R"({"inner": [1]})") << QStringLiteral("inner: must be a JSON object");
        QTest::newRow("nested missing") << QByteArray(R"({"inner": {}})") << QStringLiteral("inner.n: missing");
        QTest::newRow("nested fraction") << QByteArray(R"({"inner": {"n": 1.5}})")
                                         << QStringLiteral("inner.n: must be an integer");
        QTest::newRow("the first problem wins over later ones")
            << QByteArray(R"({"name": 1, "extra": 2})") << QStringLiteral("name: must be a string");
        QTest::newRow("unknown key") << QByteArray(R"({"inner": {"n": 1}, "extra": 2})")
                                     << QStringLiteral("extra: unknown key (accepted: name, count, inner)");
    }

    void firstProblemNamesItsPath()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, problem);
        QCOMPARE(problemOf(json), problem);
    }
};

QTEST_GUILESS_MAIN(TestJsonReader)
#include "tst_jsonreader.moc"
