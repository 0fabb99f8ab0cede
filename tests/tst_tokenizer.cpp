#include "metrics/tokenizer.h"

#include <QTest>

using tb::ApproxTokenizer;

class TestTokenizer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void counts_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("tokens");
        QTest::newRow("empty") << QString() << qint64(0);
        QTest::newRow("spaces only") << QStringLiteral("  \n\t ") << qint64(0);
        QTest::newRow("short word") << QStringLiteral("the") << qint64(1);
        QTest::newRow("four letters") << QStringLiteral("four") << qint64(1);
        QTest::newRow("five letters") << QStringLiteral("model") << qint64(2);
        QTest::newRow("long word") << QStringLiteral("tokenization") << qint64(3);
        QTest::newRow("sentence") << QStringLiteral("Hello, world!") << qint64(6); // hell o , worl d !
        QTest::newRow("digits") << QStringLiteral("12345") << qint64(2);
        QTest::newRow("leading spaces belong to words") << QStringLiteral(" a b c") << qint64(3);
        QTest::newRow("non-ascii letters") << QStringLiteral("naïve") << qint64(2);
        QTest::newRow("cjk") << QStringLiteral("吞吐量") << qint64(1);
        QTest::newRow("emoji") << QStringLiteral("ok 👍") << qint64(2);
    }

    void counts()
    {
        QFETCH(QString, text);
        QFETCH(qint64, tokens);
        QCOMPARE(qint64(ApproxTokenizer::count(text)), tokens);
        const QByteArray utf8 = text.toUtf8();
        QCOMPARE(qint64(ApproxTokenizer::countUtf8(utf8.constData(), size_t(utf8.size()))), tokens);
    }
};

QTEST_GUILESS_MAIN(TestTokenizer)
#include "tst_tokenizer.moc"
