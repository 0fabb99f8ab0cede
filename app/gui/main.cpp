// tokenbench: the Qt Widgets workbench.
//
//   tokenbench [RUN_DIR...]          opens saved runs (the first in the dashboard, all in the history;
//                                    several runs, or a session folder, on their comparison)
//   tokenbench [--config FILE] --screenshot OUT.png --quit-when-done
//                                    a picture of the window as it starts
//   tokenbench --config FILE --autorun --screenshot OUT.png --quit-when-done
//                                    the scripted mode for documentation and tests: runs a benchmark,
//                                    saves a screenshot of the main window and exits 0 (1 when the run
//                                    failed, 2 for bad usage or configuration).
#include "editors/configeditor.h"
#include "mainwindow.h"
#include "models/runhistorymodel.h"
#include "views/rundocument.h"

#include "config/runconfig.h"
#include "platform/openfilelimit.h"
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

// Without a display QApplication aborts with a platform-plugin error: --help and --version need
// none (they are answered offscreen), anything else is told what to do instead.
bool prepareDisplay(int argc, char *argv[])
{
    // Set but empty counts as unset: Qt then looks for a display all the same, and finds none.
    if (!qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") || !qEnvironmentVariableIsEmpty("DISPLAY") ||
        !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        return true;
    for (int i = 1; i < argc; ++i) {
        const QByteArray arg(argv[i]);
        if (arg == "-h" || arg == "--help" || arg == "--help-all" || arg == "-v" || arg == "--version") {
            qputenv("QT_QPA_PLATFORM", "offscreen");
            return true;
        }
    }
    printError(QStringLiteral("no display: DISPLAY and WAYLAND_DISPLAY are not set. Start it under a "
                              "desktop session, with xvfb-run, or with QT_QPA_PLATFORM=offscreen"));
    return false;
}

} // namespace

int main(int argc, char *argv[])
{
    if (!prepareDisplay(argc, argv))
        return kExitRuntime;
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
    const QCommandLineOption sizeOption(
        QStringLiteral("size"),
        QStringLiteral("Window size, laid out as on a screen of that size, e.g. for screenshots (default: as last "
                       "left on this screen, fitted to it)."),
        QStringLiteral("WxH"));
    const QCommandLineOption themeOption(
        QStringLiteral("theme"), QStringLiteral("system, light or dark (View > Theme; default: as last chosen)."),
        QStringLiteral("THEME"));
    parser.addOptions({configOption, autorunOption, screenshotOption, quitOption, sizeOption, themeOption});
    parser.process(app);

    const QStringList runs = parser.positionalArguments();
    const bool autorun = parser.isSet(autorunOption);
    const bool quitWhenDone = parser.isSet(quitOption);
    const QString screenshot = parser.value(screenshotOption);
    if (quitWhenDone && !autorun && runs.isEmpty() && screenshot.isEmpty()) {
        printError(QStringLiteral("--quit-when-done needs --autorun, a RUN_DIR or --screenshot"));
        return kExitUsage;
    }

    tb::MainWindow window;
    window.setSettingsWritable(!quitWhenDone);
    if (parser.isSet(themeOption)) {
        const auto theme = tb::AppTheme::fromName(parser.value(themeOption));
        if (!theme) {
            printError(QStringLiteral("--theme: expected system, light or dark"));
            return kExitUsage;
        }
        window.setTheme(*theme);
    }
    if (parser.isSet(configOption)) {
        QString error;
        if (!window.openConfig(parser.value(configOption), &error)) {
            printError(error);
            return kExitUsage;
        }
    }
    if (parser.isSet(sizeOption)) {
        const QRegularExpressionMatch size =
            QRegularExpression(QStringLiteral("^(\\d+)x(\\d+)$")).match(parser.value(sizeOption));
        if (!size.hasMatch()) {
            printError(QStringLiteral("--size: expected WxH, e.g. 1440x900"));
            return kExitUsage;
        }
        window.setScreenSize({size.captured(1).toInt(), size.captured(2).toInt()});
        window.show();
    } else {
        window.showRestored();
    }

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
            // A run in which every request failed measured nothing: a failure, as in tokenbench-cli.
            const bool allFailed = outcome.summary.total.requests.allFailed() && !outcome.cancelled;
            if (allFailed)
                printError(QStringLiteral("Run failed: %1").arg(window.document()->failureHeadline()));
            done(outcome.error.isEmpty() && !allFailed);
        });
    } else if (!runs.isEmpty()) {
        QObject::connect(&window, &tb::MainWindow::runsShown, &window, done);
        QObject::connect(&window, &tb::MainWindow::runOpenFailed, &window,
                         [](const QString &, const QString &error) { printError(error); });
    }
    // Once the event loop runs: the window is laid out and the simulator is up.
    QTimer::singleShot(0, &window, [&] {
        if (!autorun && !runs.isEmpty())
            window.openRuns(runs);
        else if (!autorun && !screenshot.isEmpty())
            done(true); // the window as it starts, the configuration panel shown

        if (autorun) {
            for (auto run = runs.rbegin(); run != runs.rend(); ++run)
                window.history()->addDirectory(*run);
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
