#include "formats/jsonschema.h"

#include <QTest>

using tb::JsonSchema;

namespace {

nlohmann::json parsed(const QByteArray &text)
{
    return nlohmann::json::parse(text.toStdString());
}

/// {"a": {"a": … true …}} as "properties" nested `depth` times.
nlohmann::json nestedSchema(int depth)
{
    nlohmann::json s = true;
    for (int i = 0; i < depth; ++i) {
        nlohmann::json outer = {{"type", "object"}};
        outer["properties"]["a"] = std::move(s); // a copy a level would cost depth² time
        s = std::move(outer);
    }
    return s;
}

} // namespace

class TestJsonSchema : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void validatesTheSubset_data()
    {
        QTest::addColumn<QByteArray>("schema");
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<QString>("violation"); // empty: valid; else the start of the message

        const QByteArray person = R"({"type": "object", "properties": {"name": {"type": "string", "minLength": 2}, )"
                                  R"("age": {"type": "integer", "minimum": 0, "maximum": 150}}, "required": ["name"], )"
                                  R"("additionalProperties": false})";
        QTest::newRow("object valid") << person << QByteArray(R"({"name": "Ada", "age": 36})") << QString();
        QTest::newRow("required missing")
            << person << QByteArray(R"({"age": 36})") << QStringLiteral("$: required property 'name' is missing");
        QTest::newRow("additional refused")
            << person << QByteArray(R"({"name": "Ada", "x": 1})") << QStringLiteral("$: property 'x' is not allowed");
        QTest::newRow("nested type") << person << QByteArray(R"({"name": "Ada", "age": "36"})")
                                     << QStringLiteral("$.age: not of type \"integer\"");
        QTest::newRow("integer spelled 36.0") << person << QByteArray(R"({"name": "Ada", "age": 36.0})") << QString();
        QTest::newRow("integer with fraction")
            << person << QByteArray(R"({"name": "Ada", "age": 36.5})") << QStringLiteral("$.age: not of type");
        QTest::newRow("below minimum") << person << QByteArray(R"({"name": "Ada", "age": -1})")
                                       << QStringLiteral("$.age: below the minimum 0");
        QTest::newRow("above maximum") << person << QByteArray(R"({"name": "Ada", "age": 151})")
                                       << QStringLiteral("$.age: above the maximum 150");
        QTest::newRow("minLength counts characters, not bytes")
            << person << QByteArray(R"({"name": "\u00e9\u00e9"})") << QString();
        QTest::newRow("too short") << person << QByteArray(R"({"name": "A"})")
                                   << QStringLiteral("$.name: shorter than minLength");
        QTest::newRow("root of the wrong type") << person << QByteArray("[1]") << QStringLiteral("$: not of type");
        QTest::newRow("additional schema")
            << QByteArray(R"({"additionalProperties": {"type": "number"}})") << QByteArray(R"({"x": "1"})")
            << QStringLiteral("$.x: not of type \"number\"");
        QTest::newRow("type array with null")
            << QByteArray(R"({"type": ["string", "null"]})") << QByteArray("null") << QString();
        QTest::newRow("type array refuses the others")
            << QByteArray(R"({"type": ["string", "null"]})") << QByteArray("1") << QStringLiteral("$: not of type");
        QTest::newRow("number takes an integer") << QByteArray(R"({"type": "number"})") << QByteArray("3") << QString();
        QTest::newRow("boolean is no integer")
            << QByteArray(R"({"type": "integer"})") << QByteArray("true") << QStringLiteral("$: not of type");
        const QByteArray list = R"({"type": "array", "items": {"enum": ["a", "b", 3]}, "minItems": 1, "maxItems": 2})";
        QTest::newRow("items enum") << list << QByteArray(R"(["a", 3])") << QString();
        QTest::newRow("item not in enum")
            << list << QByteArray(R"(["a", "c"])") << QStringLiteral("$[1]: not one of the enum values");
        QTest::newRow("enum compares numbers by value") << list << QByteArray(R"([3.0])") << QString();
        QTest::newRow("too few items") << list << QByteArray("[]") << QStringLiteral("$: fewer items than minItems");
        QTest::newRow("too many items") << list << QByteArray(R"(["a", "b", "a"])")
                                        << QStringLiteral("$: more items than maxItems");
        QTest::newRow("const") << QByteArray(R"({"const": {"k": [1, 2]}})") << QByteArray(R"({"k": [1, 2]})")
                               << QString();
        QTest::newRow("const differs") << QByteArray(R"({"const": {"k": [1, 2]}})") << QByteArray(R"({"k": [2, 1]})")
                                       << QStringLiteral("$: not the const value");
        QTest::newRow("maxLength") << QByteArray(R"({"maxLength": 3})") << QByteArray(R"("abcd")")
                                   << QStringLiteral("$: longer than maxLength");
        QTest::newRow("keywords outside the subset are ignored")
            << QByteArray(R"({"type": "string", "pattern": "^x$", "format": "email", "$ref": "other.json"})")
            << QByteArray(R"("y")") << QString();
        QTest::newRow("true takes anything") << QByteArray("true") << QByteArray(R"({"a": [null]})") << QString();
        QTest::newRow("false takes nothing")
            << QByteArray("false") << QByteArray("null") << QStringLiteral("$: no value is allowed here");
        QTest::newRow("length keywords apply to their type only")
            << QByteArray(R"({"minLength": 5, "minItems": 5, "minimum": 5})") << QByteArray("{}") << QString();
    }
    void validatesTheSubset()
    {
        QFETCH(QByteArray, schema);
        QFETCH(QByteArray, value);
        QFETCH(QString, violation);
        QString why;
        const auto compiled = JsonSchema::compile(parsed(schema), &why);
        QVERIFY2(compiled, qPrintable(why));
        const QString got = compiled->violation(parsed(value));
        if (violation.isEmpty())
            QVERIFY2(got.isEmpty(), qPrintable(got));
        else
            QVERIFY2(got.startsWith(violation), qPrintable(got));
    }

    void refusesMalformedSchemas_data()
    {
        QTest::addColumn<QByteArray>("schema");
        QTest::addColumn<QString>("why");
        QTest::newRow("not a schema") << QByteArray("3") << QStringLiteral("a schema must be an object or a boolean");
        QTest::newRow("unknown type") << QByteArray(R"({"properties": {"a": {"type": "text"}}})")
                                      << QStringLiteral("properties.a.type: not a JSON type");
        QTest::newRow("empty type array") << QByteArray(R"({"type": []})") << QStringLiteral("type: not a JSON type");
        QTest::newRow("required not names")
            << QByteArray(R"({"required": ["a", 1]})") << QStringLiteral("required: must be an array of names");
        QTest::newRow("negative length") << QByteArray(R"({"maxLength": -1})")
                                         << QStringLiteral("maxLength: must be a whole number");
        QTest::newRow("fractional count")
            << QByteArray(R"({"minItems": 1.5})") << QStringLiteral("minItems: must be a whole number");
        QTest::newRow("minimum not a number")
            << QByteArray(R"({"minimum": "0"})") << QStringLiteral("minimum: must be a number");
        QTest::newRow("enum not an array") << QByteArray(R"({"enum": 1})") << QStringLiteral("enum: must be an array");
        QTest::newRow("items not a schema")
            << QByteArray(R"({"items": [{}]})") << QStringLiteral("items: a schema must be an object or a boolean");
    }
    void refusesMalformedSchemas()
    {
        QFETCH(QByteArray, schema);
        QFETCH(QString, why);
        QString got;
        QVERIFY(!JsonSchema::compile(parsed(schema), &got));
        QVERIFY2(got.contains(why), qPrintable(got));
    }

    void boundsHostileSchemas_data()
    {
        QTest::addColumn<int>("depth");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("at the depth limit") << JsonSchema::kMaxDepth << true;
        QTest::newRow("past it") << JsonSchema::kMaxDepth + 1 << false;
        QTest::newRow("far past it") << 5000 << false;
    }
    void boundsHostileSchemas()
    {
        QFETCH(int, depth);
        QFETCH(bool, accepted);
        QString why;
        const bool compiled = JsonSchema::compile(nestedSchema(depth), &why).has_value();
        QCOMPARE(compiled, accepted);
        if (!accepted)
            QVERIFY2(why.contains(QStringLiteral("nested deeper than")), qPrintable(why));
    }

    void boundsTheNumberOfSchemas()
    {
        nlohmann::json properties = nlohmann::json::object();
        for (std::size_t i = 0; i < JsonSchema::kMaxSchemas; ++i)
            properties["p" + std::to_string(i)] = nlohmann::json::object();
        QString why;
        QVERIFY(!JsonSchema::compile({{"properties", properties}}, &why)); // the root makes one more
        QVERIFY2(why.contains(QStringLiteral("more than 10000 schemas")), qPrintable(why));
        properties.erase("p0");
        QVERIFY(JsonSchema::compile({{"properties", properties}}, &why));
    }
};

QTEST_GUILESS_MAIN(TestJsonSchema)
#include "tst_jsonschema.moc"
