// tokenbench: the Qt Widgets workbench.
//
//   tokenbench [RUN_DIR...]          opens saved runs (the first in the dashboard, all in the history;
//                                    several runs, or a session folder, also in a comparison)
//   tokenbench --config FILE --autorun --screenshot OUT.png --quit-when-done
//                                    the scripted mode for documentation and tests: runs a benchmark,
//                                    saves a screenshot of the main window and exits 0 (1 when the run
//                                    failed, 2 for bad usage or configuration).
#include "configeditor.h"
#include "comparisoncontroller.h"
#include "mainwindow.h"
#include "results/comparisonsession.h"
#include "runhistorymodel.h"

#include "config/runconfig.h"
#include "tokenbench/version.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QRegularExpression>
#include <QTimer>

#include <cstdio>

namespace {

constexpr int kExitRuntime = 1;
constexpr int kExitUsage = 2;

void printError(const QString &text)
{
    std::fprintf(stderr, "tokenbench: %s\n", qPrintable(text));
}

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    // These name the QSettings store where the window keeps its targets and last configuration.
    QApplication::setApplicationName(QStringLiteral("TokenBench"));
    QApplication::setOrganizationName(QStringLiteral("TokenBench"));
    QApplication::setApplicationVersion(tb::version());
    // Each request in flight holds a socket: allow as many as the system does (the soft limit is
    // often 1024), so the forms' concurrency check is against the real limit.
    tb::raiseOpenFileLimit();

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Load-testing workbench for LLM inference APIs."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("RUN_DIR"), QStringLiteral("Saved runs to open."),
                                 QStringLiteral("[RUN_DIR...]"));
    const QCommandLineOption configOption(QStringLiteral("config"),
                                          QStringLiteral("Load a run configuration (the JSON tokenbench-cli reads)."),
                                          QStringLiteral("FILE"));
    const QCommandLineOption autorunOption(QStringLiteral("autorun"), QStringLiteral("Start the run at once."));
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"),
        QStringLiteral("When the run has finished (or the run given has opened), save a PNG of the window."),
        QStringLiteral("OUT.png"));
    const QCommandLineOption quitOption(QStringLiteral("quit-when-done"),
                                        QStringLiteral("Exit when the run has finished and the screenshot is saved; "
                                                       "the stored settings are left unchanged."));
    const QCommandLineOption sizeOption(QStringLiteral("size"),
                                        QStringLiteral("Window size for screenshots (default 1440x900)."),
                                        QStringLiteral("WxH"), QStringLiteral("1440x900"));
    parser.addOptions({configOption, autorunOption, screenshotOption, quitOption, sizeOption});
    parser.process(app);

    const QStringList runs = parser.positionalArguments();
    const bool autorun = parser.isSet(autorunOption);
    const bool quitWhenDone = parser.isSet(quitOption);
    const QString screenshot = parser.value(screenshotOption);
    if (quitWhenDone && !autorun && runs.isEmpty()) {
        printError(QStringLiteral("--quit-when-done needs --autorun or a RUN_DIR"));
        return kExitUsage;
    }

    tb::MainWindow window;
    window.setSettingsWritable(!quitWhenDone);
    if (parser.isSet(configOption)) {
        QString error;
        if (!window.openConfig(parser.value(configOption), &error)) {
            printError(error);
            return kExitUsage;
        }
    }
    if (!screenshot.isEmpty()) {
        const QRegularExpressionMatch size =
            QRegularExpression(QStringLiteral("^(\\d+)x(\\d+)$")).match(parser.value(sizeOption));
        if (!size.hasMatch()) {
            printError(QStringLiteral("--size: expected WxH, e.g. 1440x900"));
            return kExitUsage;
        }
        window.resize(size.captured(1).toInt(), size.captured(2).toInt());
    }
    window.show();

    // What ends a scripted session: the screenshot, then (with --quit-when-done) the exit code.
    // The views relayout after the last update; the screenshot waits a moment for that.
    constexpr int kSettleMs = 300;
    int exitCode = 0;
    const auto done = [&](bool ok) {
        exitCode = ok ? 0 : kExitRuntime;
        QTimer::singleShot(kSettleMs, &window, [&] {
            if (!screenshot.isEmpty()) {
                QString error;
                if (!window.saveScreenshot(screenshot, &error)) {
                    printError(error);
                    exitCode = kExitRuntime;
                }
            }
            if (quitWhenDone)
                QApplication::exit(exitCode);
        });
    };
    if (autorun) {
        QObject::connect(&window, &tb::MainWindow::runFinished, &window, [&](const tb::RunOutcome &outcome) {
            if (!outcome.error.isEmpty())
                printError(outcome.error);
            done(outcome.error.isEmpty());
        });
    } else if (!runs.isEmpty()) {
        QObject::connect(&window, &tb::MainWindow::runOpened, &window, [&] { done(true); });
        QObject::connect(&window, &tb::MainWindow::runOpenFailed, &window, [&](const QString &, const QString &error) {
            printError(error);
            done(false);
        });
    }
    // Once the event loop runs: the window is laid out and the simulator is up.
    QTimer::singleShot(0, &window, [&] {
        for (qsizetype i = runs.size() - 1; i >= 0; --i) {
            if (i == 0 && !autorun)
                window.openRun(runs.at(i));
            else
                window.history()->addDirectory(runs.at(i));
        }
        // Several runs (or a session folder) are opened to be compared, too.
        if (!autorun && (runs.size() > 1 || tb::SessionInfo::isSessionDirectory(runs.value(0)))) {
            if (auto *comparisons = window.findChild<tb::ComparisonController *>())
                comparisons->openComparison(runs);
        }
        if (autorun) {
            QString error;
            if (!window.startRun(&error)) {
                printError(QStringLiteral("cannot run: %1").arg(error));
                const bool configuration =
                    !window.configEditor()->isValid() || window.runner()->failureIsConfiguration();
                QApplication::exit(configuration ? kExitUsage : kExitRuntime);
            }
        }
    });
    const int code = QApplication::exec();
    return code != 0 ? code : exitCode;
}
