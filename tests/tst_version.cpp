#include "tokenbench/version.h"

#include <QRegularExpression>
#include <QTest>

class TestVersion : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void versionIsSemantic()
    {
        const QString v = tb::version();
        QVERIFY2(QRegularExpression(QStringLiteral("^\\d+\\.\\d+\\.\\d+$")).match(v).hasMatch(), qPrintable(v));
    }

    void bannerNamesToolVersionAndQt()
    {
        const QString banner = tb::versionBanner();
        QVERIFY(banner.startsWith(QStringLiteral("tokenbench ") + tb::version()));
        QVERIFY2(banner.contains(QLatin1String(qVersion())), qPrintable(banner));
    }
};

QTEST_GUILESS_MAIN(TestVersion)
#include "tst_version.moc"
