// tokenbench: the Qt Widgets workbench.
#include "mainwindow.h"

#include "tokenbench/version.h"

#include <QApplication>

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("TokenBench"));
    QApplication::setOrganizationName(QStringLiteral("TokenBench"));
    QApplication::setApplicationVersion(tb::version());

    tb::MainWindow window;
    window.show();
    return app.exec();
}
