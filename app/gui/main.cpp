// tokenbench: the Qt Widgets workbench.
#include "mainwindow.h"

#include "tokenbench/version.h"

#include <QApplication>
#include <QCommandLineParser>

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    // These name the QSettings store where the window keeps its targets and last configuration.
    QApplication::setApplicationName(QStringLiteral("TokenBench"));
    QApplication::setOrganizationName(QStringLiteral("TokenBench"));
    QApplication::setApplicationVersion(tb::version());

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Load-testing workbench for LLM inference APIs."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.process(app);

    tb::MainWindow window;
    window.show();
    return app.exec();
}
