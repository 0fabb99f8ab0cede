#include "mainwindow.h"

#include "tokenbench/version.h"

#include <QApplication>
#include <QMenu>
#include <QMessageBox>
#include <QTest>

class TestMainWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void constructsAndShows()
    {
        tb::MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.isVisible());
        QVERIFY(w.width() > 0 && w.height() > 0);
        const QImage shot = w.grab().toImage();
        QVERIFY(!shot.isNull());
    }

    void menusInOrder()
    {
        tb::MainWindow w;
        QStringList titles;
        for (QMenu *m : w.menus())
            titles << m->title().remove(QLatin1Char('&'));
        QCOMPARE(titles, (QStringList{QStringLiteral("File"), QStringLiteral("Run"), QStringLiteral("View"), QStringLiteral("Help")}));
    }

    void aboutShowsVersionAndQt()
    {
        tb::MainWindow w;
        w.show();
        w.showAbout();
        auto *box = w.findChild<QMessageBox *>(QStringLiteral("aboutBox"));
        QVERIFY(box);
        QVERIFY(box->isVisible());
        QVERIFY2(box->text().contains(tb::version()), qPrintable(box->text()));
        QVERIFY2(box->text().contains(QLatin1String(qVersion())), qPrintable(box->text()));
        box->accept();
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
