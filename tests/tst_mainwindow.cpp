// The main window as a user meets it: menus and shortcuts, Run enabled only for a valid
// configuration (and then running into the runs folder, Esc stopping), configurations saved and
// opened as the CLI's JSON, state kept across sessions in QSettings, and no API key in any file the
// window writes.
#include "mainwindow.h"

#include "editors/configeditor.h"
#include "editors/simulatorcontroller.h"
#include "models/targetlistmodel.h"
#include "views/gettingstartedpage.h"
#include "views/rundocument.h"

#include "analysis/metriccatalogue.h"
#include "support/openmetricsscrape.h"
#include "support/savedrun.h"
#include "support/testfiles.h"
#include "support/testsettings.h"
#include "support/testsimulator.h"
#include "tokenbench/version.h"

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDirIterator>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>

using namespace tb;

namespace {

const QString kSecret = QStringLiteral("sk-secret-never-on-disk-4711");

RunConfig remoteConfig()
{
    RunConfig c;
    c.target.name = QStringLiteral("staging");
    c.target.url = QStringLiteral("http://127.0.0.1:9/v1");
    c.target.model = QStringLiteral("m-7b");
    c.target.apiKeyEnv = QStringLiteral("STAGING_KEY");
    c.prompt.promptTokens = 256;
    c.load.concurrency = 16;
    c.load.durationMs = 60000;
    return c;
}

/// A setting as a killed process leaves it: read from a copy of the file on disk, so that nothing
/// this process holds in memory and has not written is seen.
QVariant onDisk(const QString &key)
{
    QTemporaryDir dir;
    const QString copy = dir.filePath(QStringLiteral("settings.ini"));
    if (!QFile::copy(QSettings().fileName(), copy))
        return {};
    return QSettings(copy, QSettings::IniFormat).value(key);
}

QStringList targetNamesOnDisk()
{
    QStringList names;
    for (const TargetConfig &t : TargetListModel::fromJson(onDisk(QStringLiteral("targets/user")).toString().toUtf8()))
        names << t.name;
    return names;
}

QStringList userTargetNames(const MainWindow &w)
{
    QStringList names;
    for (const TargetConfig &t : w.configEditor()->targets()->userTargets())
        names << t.name;
    return names;
}

QByteArray allFilesUnder(const QString &dir)
{
    QByteArray all;
    QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        QFile f(it.next());
        if (f.open(QIODevice::ReadOnly))
            all += f.readAll();
    }
    return all;
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_settingsDir;

    static void runAnyway(MainWindow &w)
    {
        QMessageBox *box = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((box = w.findChild<QMessageBox *>(QStringLiteral("targetUnreachableBox"))), 10000);
        QVERIFY(box->text().contains(QStringLiteral("127.0.0.1:9")));
        for (QAbstractButton *b : box->buttons()) {
            if (b->text() == QStringLiteral("Run Anyway"))
                b->click();
        }
        QTRY_VERIFY(w.isRunning());
        reactivate(w);
    }

    /// A desktop gives the focus back to the window when its message box closes; offscreen does not.
    static void reactivate(MainWindow &w)
    {
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
    }

    /// A run against nobody (it goes on until stopped: every request fails at once).
    static void startDeadRun(MainWindow &w, const QString &runsFolder)
    {
        w.setRunsFolder(runsFolder);
        w.configEditor()->setConfig(remoteConfig());
        QString error;
        QVERIFY2(w.startRun(&error), qPrintable(error));
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_settingsDir.isValid());
        QStandardPaths::setTestModeEnabled(true); // runs and history stay out of the user's folders
        test::isolateSettings(m_settingsDir.path(), QStringLiteral("tst_mainwindow"));
    }

    void init() { QSettings().clear(); }

    void constructsAndShows()
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.isVisible());
        const QImage shot = w.grab().toImage();
        QVERIFY(!shot.isNull());
        // For a person to look at: the window as a user first sees it, and each tab.
        shot.save(QDir::temp().filePath(QStringLiteral("tokenbench-mainwindow.png")));
        for (int tab = 1; tab < w.configEditor()->tabs()->count(); ++tab) {
            w.configEditor()->tabs()->setCurrentIndex(tab);
            QTest::qWait(100); // let the newly shown tab lay itself out (nested layouts take several passes)
            w.grab().save(QDir::temp().filePath(QStringLiteral("tokenbench-mainwindow-tab%1.png").arg(tab)));
        }
    }

    void sidePanelFitsItsContents_data()
    {
        QTest::addColumn<QSize>("window");
        QTest::newRow("1280x800") << QSize(1280, 800);
        QTest::newRow("1600x1000") << QSize(1600, 1000);
        QTest::newRow("1280x800 at 1.5x") << QSize(853, 533); // its size in logical pixels
    }

    // The side panel clipped its own contents at its default width (the Shape box's arrow, "no
    // count", Generate Sweep, the sweep error text): every field gets the width it asks for, and
    // none is cut off at the panel's edge.
    void sidePanelFitsItsContents()
    {
        QFETCH(QSize, window);
        MainWindow w;
        w.resize(window);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.setSidePanelVisible(true); // also where the window is too narrow to show it by itself
        RunConfig staged = remoteConfig();
        staged.load.stages = *parseStages(QStringLiteral("c=8:30s,c=16:30s"), nullptr);
        const QList<RunConfig> configs{remoteConfig(), staged};
        QStringList clipped;
        for (const RunConfig &config : configs) {
            w.configEditor()->setConfig(config);
            if (!config.load.stages.isEmpty()) { // a sweep that cannot be generated says why under it
                auto *sweep = w.findChild<QLineEdit *>(QStringLiteral("sweepSpec"));
                sweep->setText(QStringLiteral("c=1..nonsense"));
                w.findChild<QAbstractButton *>(QStringLiteral("generateSweep"))->click();
                QVERIFY(w.findChild<QLabel *>(QStringLiteral("sweepProblem"))->isVisible());
            }
            for (int tab = 0; tab < w.configEditor()->tabs()->count(); ++tab) {
                w.configEditor()->tabs()->setCurrentIndex(tab);
                QTRY_VERIFY(w.configEditor()->tabs()->currentWidget()->isVisible());
                QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
                QTest::qWait(50);
                for (QWidget *child : w.configEditor()->findChildren<QWidget *>()) {
                    if (!child->isVisible() || child->objectName().startsWith(QLatin1String("qt_")) ||
                        qobject_cast<QLineEdit *>(child->parentWidget())) // a line edit's own buttons
                        continue;
                    const QRect shown = child->visibleRegion().boundingRect();
                    if (shown.isEmpty())
                        continue; // scrolled out of view
                    const auto *label = qobject_cast<QLabel *>(child);
                    const bool field = qobject_cast<QComboBox *>(child) || qobject_cast<QAbstractButton *>(child) ||
                                       qobject_cast<QAbstractSpinBox *>(child) || qobject_cast<QLineEdit *>(child) ||
                                       label;
                    if (!field)
                        continue;
                    const int needs =
                        label && label->wordWrap() ? child->minimumSizeHint().width() : child->sizeHint().width();
                    if (shown.width() < child->width() || child->width() < std::min(needs, child->maximumWidth()))
                        clipped << QStringLiteral("tab %1: %2 %3 shows %4 of %5 px, asks for %6")
                                       .arg(tab)
                                       .arg(QString::fromLatin1(child->metaObject()->className()), child->objectName())
                                       .arg(shown.width())
                                       .arg(child->width())
                                       .arg(needs);
                }
                w.grab().save(QDir::temp().filePath(QStringLiteral("tokenbench-side-%1x%2-%3-tab%4.png")
                                                        .arg(window.width())
                                                        .arg(window.height())
                                                        .arg(configs.indexOf(config))
                                                        .arg(tab)));
            }
        }
        clipped.removeDuplicates();
        QVERIFY2(clipped.isEmpty(), qPrintable(clipped.join(QLatin1Char('\n'))));
    }

    void screenshotOfBusyForms()
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        RunConfig c = remoteConfig();
        c.target.headers = {{QStringLiteral("X-Team"), QStringLiteral("perf")}};
        c.target.extraBody = {{"top_k", 40}};
        c.prompt.promptTokens = 0;
        c.prompt.systemTemplate = QStringLiteral("You are {{persona}}.");
        c.prompt.userTemplate = QStringLiteral("Write {{n}} lines about {{topic}}.");
        c.prompt.variables = {{QStringLiteral("persona"), QStringLiteral("a poet")},
                              {QStringLiteral("n"), QStringLiteral("4")}};
        c.load.stages = *parseStages(QStringLiteral("c=8:30s,c=16:30s,c=32:500"), nullptr);
        c.slo.ttftMs = 500;
        c.load.concurrency = 0; // shown while stages are on: not a problem
        w.configEditor()->setConfig(c);
        for (int tab = 0; tab < w.configEditor()->tabs()->count(); ++tab) {
            w.configEditor()->tabs()->setCurrentIndex(tab);
            QTest::qWait(100);
            w.grab().save(QDir::temp().filePath(QStringLiteral("tokenbench-busy-tab%1.png").arg(tab)));
        }
        QCOMPARE(w.configEditor()->problems(), QStringList{QStringLiteral("prompt.variables: {{topic}} has no value")});
    }

    void menusInOrder()
    {
        MainWindow w;
        QStringList titles;
        for (QMenu *m : w.menus())
            titles << m->title().remove(QLatin1Char('&'));
        QCOMPARE(titles, (QStringList{QStringLiteral("File"), QStringLiteral("Run"), QStringLiteral("View"),
                                      QStringLiteral("Compare"), QStringLiteral("Help")}));
    }

    /// View listed the toolbar as "Main", and the toolbar showed "Open" beside "Open Run": each
    /// entry says what it is or opens.
    void toolbarAndOpenActionsSayWhatTheyAre_data()
    {
        QTest::addColumn<QString>("action");
        QTest::addColumn<QString>("iconText");
        QTest::newRow("open config") << "actionOpenConfig"
                                     << "Open Config";
        QTest::newRow("open run") << "actionOpenRun"
                                  << "Open Run";
    }

    void toolbarAndOpenActionsSayWhatTheyAre()
    {
        QFETCH(QString, action);
        QFETCH(QString, iconText);
        MainWindow w;
        auto *a = w.findChild<QAction *>(action);
        QVERIFY(a);
        QCOMPARE(a->iconText(), iconText);
        QStringList viewEntries;
        for (QMenu *m : w.menus()) {
            if (m->title().remove(QLatin1Char('&')) != QStringLiteral("View"))
                continue;
            for (const QAction *entry : m->actions())
                viewEntries << entry->text().remove(QLatin1Char('&'));
        }
        QVERIFY2(viewEntries.contains(QStringLiteral("Toolbar")), qPrintable(viewEntries.join(u", ")));
        QVERIFY(!viewEntries.contains(QStringLiteral("Main")));
    }

    void shortcuts_data()
    {
        QTest::addColumn<QString>("action");
        QTest::addColumn<QKeySequence>("keys");
        QTest::addColumn<QString>("menu");
        QTest::newRow("run") << "actionRun" << QKeySequence(Qt::CTRL | Qt::Key_R) << "Run";
        QTest::newRow("stop") << "actionStop" << QKeySequence(Qt::Key_Escape) << "Run";
        QTest::newRow("save config") << "actionSaveConfig" << QKeySequence(Qt::CTRL | Qt::Key_S) << "File";
        QTest::newRow("open run") << "actionOpenRun" << QKeySequence(Qt::CTRL | Qt::Key_O) << "File";
        QTest::newRow("export") << "actionExport" << QKeySequence(Qt::CTRL | Qt::Key_E) << "File";
        QTest::newRow("test connection") << "actionTestConnection" << QKeySequence(Qt::CTRL | Qt::Key_T) << "Run";
    }

    void shortcuts()
    {
        QFETCH(QString, action);
        QFETCH(QKeySequence, keys);
        QFETCH(QString, menu);
        MainWindow w;
        auto *a = w.findChild<QAction *>(action);
        QVERIFY(a);
        QCOMPARE(a->shortcut(), keys);
        bool inMenu = false;
        for (QMenu *m : w.menus())
            inMenu |= m->title().remove(QLatin1Char('&')) == menu && m->actions().contains(a);
        QVERIFY(inMenu);
    }

    void aboutShowsVersionAndQt()
    {
        MainWindow w;
        w.show();
        w.showAbout();
        auto *box = w.findChild<QMessageBox *>(QStringLiteral("aboutBox"));
        QVERIFY(box);
        QVERIFY(box->isVisible());
        QVERIFY(!box->isModal() || box->windowModality() == Qt::WindowModal); // open(): no nested event loop
        QVERIFY2(box->text().contains(tb::version()), qPrintable(box->text()));
        QVERIFY2(box->text().contains(QLatin1String(qVersion())), qPrintable(box->text()));
        box->accept();
    }

    // Help had only About: a metric glossary and the shortcuts, read off the actions themselves.
    void helpListsMetricsAndShortcuts()
    {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.findChild<QAction *>(QStringLiteral("actionMetricGlossary"))->trigger();
        auto *glossary = w.findChild<QDialog *>(QStringLiteral("metricGlossaryDialog"));
        QVERIFY(glossary);
        QVERIFY(glossary->isVisible());
        const QString terms = glossary->findChild<QTextBrowser *>()->toPlainText();
        QVERIFY(!MetricCatalogue::glossary().isEmpty());
        for (const MetricCatalogue::GlossaryEntry &entry : MetricCatalogue::glossary())
            QVERIFY2(terms.contains(entry.term) && terms.contains(entry.definition), qPrintable(entry.term));

        auto *save = w.findChild<QAction *>(QStringLiteral("actionSaveConfig"));
        save->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_F9)); // a changed shortcut is listed as it is
        w.findChild<QAction *>(QStringLiteral("actionKeyboardShortcuts"))->trigger();
        auto *shortcuts = w.findChild<QDialog *>(QStringLiteral("shortcutsDialog"));
        QVERIFY(shortcuts);
        const QString list = shortcuts->findChild<QTextBrowser *>()->toPlainText();
        int listed = 0;
        for (QAction *action : w.findChildren<QAction *>()) {
            if (action->shortcut().isEmpty() || action->menu() || !action->associatedObjects().size())
                continue;
            bool inMenu = false;
            for (QObject *o : action->associatedObjects())
                inMenu |= qobject_cast<QMenu *>(o) != nullptr;
            if (!inMenu)
                continue;
            const QString keys = action->shortcut().toString(QKeySequence::NativeText);
            QVERIFY2(list.contains(keys + QStringLiteral("\t")) || list.contains(keys + QStringLiteral("\n")) ||
                         list.contains(keys + QStringLiteral(" ")),
                     qPrintable(keys + QStringLiteral(" in\n") + list));
            ++listed;
        }
        QVERIFY(listed >= 10);
        QVERIFY2(list.contains(QStringLiteral("File ▸ Save Configuration")), qPrintable(list));
        QVERIFY(list.contains(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_F9).toString(QKeySequence::NativeText)));
        QVERIFY(list.contains(QStringLiteral("Esc")));
        shortcuts->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(shortcuts));
        QPointer<QDialog> guard(shortcuts);
        QTest::keyClick(shortcuts, Qt::Key_Escape);
        QTRY_VERIFY(!guard || !guard->isVisible());
    }

    void helpHasAGettingStartedPage_data()
    {
        QTest::addColumn<int>("theme");
        QTest::newRow("light") << int(AppTheme::Setting::Light);
        QTest::newRow("dark") << int(AppTheme::Setting::Dark);
    }

    // Help had no page for a new user. Getting Started is Help's first entry (F1); every name it
    // puts in bold is one the window shows (an action, tab, button or field), and it is readable in
    // either theme (no colours of its own: the palette's text on the palette's base).
    void helpHasAGettingStartedPage()
    {
        QFETCH(int, theme);
        MainWindow w;
        w.setSettingsWritable(false);
        w.setTheme(AppTheme::Setting(theme));
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QMenu *help = w.menus().constLast();
        QCOMPARE(help->title().remove(QLatin1Char('&')), QStringLiteral("Help"));
        QAction *first = help->actions().constFirst();
        QCOMPARE(first->text().remove(QLatin1Char('&')), QStringLiteral("Getting Started"));
        QCOMPARE(first->shortcut(), QKeySequence(Qt::Key_F1));
        first->trigger();
        auto *page = w.findChild<QDialog *>(QStringLiteral("gettingStartedDialog"));
        QVERIFY(page);
        QVERIFY(page->isVisible());
        auto *text = page->findChild<QTextBrowser *>();
        // For a person to look at, in either theme.
        page->grab().save(QDir::temp().filePath(
            QStringLiteral("tokenbench-getting-started-%1.png").arg(QLatin1String(QTest::currentDataTag()))));
        const QString plain = text->toPlainText();
        for (const char *topic :
             {"simulator", "Base URL", "Key variable", "Test connection", "Dashboard", "knee", "Compare", "Export"})
            QVERIFY2(plain.contains(QLatin1String(topic)), topic);

        // What the window shows, by name.
        QStringList shown;
        for (const QAction *a : w.findChildren<QAction *>())
            shown << a->text();
        for (const QAbstractButton *b : w.findChildren<QAbstractButton *>())
            shown << b->text();
        for (const QLabel *l : w.findChildren<QLabel *>())
            shown << l->text();
        for (const QTabWidget *t : w.findChildren<QTabWidget *>()) {
            for (int i = 0; i < t->count(); ++i)
                shown << t->tabText(i);
        }
        for (QString &name : shown)
            name = name.remove(QLatin1Char('&')).remove(QRegularExpression(QStringLiteral(":$"))).trimmed();
        const QString html = text->toHtml();
        QRegularExpressionMatchIterator bold =
            QRegularExpression(QStringLiteral("style=\" font-weight:\\d+;\">([^<]+)<")).globalMatch(html);
        int cited = 0;
        while (bold.hasNext()) {
            const QString name = bold.next().captured(1).simplified();
            QVERIFY2(shown.contains(name), qPrintable(name));
            ++cited;
        }
        QVERIFY2(cited >= 20, qPrintable(html));

        // No colour of its own: text and background are the theme's, far apart.
        QVERIFY(!GettingStartedPage::html().contains(QLatin1String("color")));
        const QPalette palette = text->palette();
        const auto luminance = [](const QColor &c) {
            const auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
            return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
        };
        const double a = luminance(palette.color(QPalette::Text));
        const double b = luminance(palette.color(QPalette::Base));
        QVERIFY((std::max(a, b) + 0.05) / (std::min(a, b) + 0.05) >= 4.5);
        w.setTheme(AppTheme::Setting::System);
    }

    // A run against a model the server does not have: every request 404, and the dashboard's error
    // line said the server's message twice (in the headline and again as the top error).
    void runBannerSaysEachMessageOnce()
    {
        QTemporaryDir runs;
        MainWindow w;
        w.show();
        w.setRunsFolder(runs.path());
        RunConfig c = w.currentConfig();
        c.target.name = QStringLiteral("wrong model");
        c.target.model = QStringLiteral("no-such-model");
        c.load.durationMs = 0;
        c.load.requests = 20;
        w.configEditor()->setConfig(c);
        QSignalSpy finished(&w, &MainWindow::runFinished);
        QVERIFY(w.startRun());
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        auto *note = w.findChild<QLabel *>(QStringLiteral("runErrors"));
        QVERIFY(note);
        QTRY_VERIFY(note->isVisible());
        const QString text = note->text();
        QVERIFY2(text.contains(QStringLiteral("20 of 20 requests failed")), qPrintable(text));
        QCOMPARE(text.count(QStringLiteral("'no-such-model' does not exist")), 1);
    }

    void firstStartRunsOnSimulator()
    {
        MainWindow w;
        w.show();
        const RunConfig c = w.currentConfig();
        QCOMPARE(c.target.name, TargetListModel::builtinName());
        QCOMPARE(c.target.model, SimulatorController::defaultPreset());
        QVERIFY(w.simulator()->isRunning());
        QVERIFY2(QRegularExpression(QStringLiteral("^http://127\\.0\\.0\\.1:\\d+/v1$")).match(c.target.url).hasMatch(),
                 qPrintable(c.target.url));
        QVERIFY2(w.runAction()->isEnabled(), qPrintable(w.configEditor()->problems().join(QLatin1Char('\n'))));
        QVERIFY(!w.findChild<QWidget *>(QStringLiteral("deleteTarget"))->isEnabled()); // the simulator stays
    }

    void simulatorConnectionAndPresets()
    {
        MainWindow w;
        w.show();
        auto *list = w.findChild<QListWidget *>(QStringLiteral("modelList"));
        w.findChild<QAction *>(QStringLiteral("actionTestConnection"))->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(list->count() > 0, 20000);
        QCOMPARE(list->item(0)->text(), SimulatorController::defaultPreset());

        // The model box holds the presets; picking one restarts the simulator with it.
        auto *model = w.findChild<QComboBox *>(QStringLiteral("targetModel"));
        QCOMPARE(model->count(), SimulatorController::presetNames().size());
        model->setCurrentText(QStringLiteral("fast"));
        QCOMPARE(w.simulator()->preset(), QStringLiteral("fast"));
        QVERIFY(w.simulator()->isRunning());
        QCOMPARE(w.currentConfig().target.model, QStringLiteral("fast"));
        QCOMPARE(w.currentConfig().target.url, w.simulator()->baseUrl().toString());
        list->clear();
        w.configEditor()->testConnection();
        QTRY_VERIFY_WITH_TIMEOUT(list->count() > 0, 20000);
        QVERIFY(!list->findItems(QStringLiteral("fast"), Qt::MatchExactly).isEmpty());
    }

    void savedSimulatorConfigFollowsNewPort()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("sim.json"));
        {
            MainWindow w;
            w.findChild<QComboBox *>(QStringLiteral("targetModel"))->setCurrentText(QStringLiteral("fast"));
            QVERIFY(w.saveConfig(path));
        }
        // Another session: the simulator listens elsewhere, the saved config still means it.
        RunConfig saved = *loadRunConfig(path, nullptr);
        saved.target.url = QStringLiteral("http://127.0.0.1:1/v1");
        QVERIFY(saveRunConfig(saved, path, nullptr));
        MainWindow w;
        QVERIFY(w.openConfig(path));
        QCOMPARE(w.configEditor()->currentTarget(), w.configEditor()->targets()->builtinRow());
        QCOMPARE(w.currentConfig().target.model, QStringLiteral("fast"));
        QCOMPARE(w.currentConfig().target.url, w.simulator()->baseUrl().toString());
        QCOMPARE(w.configEditor()->targets()->userTargets().size(), 0);
    }

    // The empty-state hint said the simulator was selected when another target was.
    void emptyStateNamesTheSelectedTarget()
    {
        MainWindow w;
        auto *hint = w.findChild<QLabel *>(QStringLiteral("noRunPlaceholder"));
        QVERIFY(hint);
        QVERIFY2(hint->text().contains(QStringLiteral("built-in simulator is selected")), qPrintable(hint->text()));
        w.configEditor()->setConfig(remoteConfig());
        QVERIFY2(!hint->text().contains(QStringLiteral("simulator")), qPrintable(hint->text()));
        QVERIFY2(hint->text().contains(QStringLiteral("<b>staging</b> is selected")), qPrintable(hint->text()));
        w.configEditor()->setCurrentTarget(w.configEditor()->targets()->builtinRow());
        QVERIFY2(hint->text().contains(QStringLiteral("built-in simulator is selected")), qPrintable(hint->text()));
    }

    void invalidInputDisablesRun()
    {
        MainWindow w;
        w.show();
        w.configEditor()->setConfig(remoteConfig());
        QVERIFY2(w.runAction()->isEnabled(), qPrintable(w.configEditor()->problems().join(QLatin1Char('\n'))));
        w.configEditor()->tabs()->setCurrentIndex(ConfigEditor::LoadTab);
        auto *users = w.findChild<QSpinBox *>(QStringLiteral("concurrency"));
        users->setValue(0);
        QVERIFY(!w.runAction()->isEnabled());
        QVERIFY2(w.runAction()->toolTip().contains(QStringLiteral("load.concurrency (--concurrency)")),
                 qPrintable(w.runAction()->toolTip()));
        QVERIFY(w.findChild<QLabel *>(QStringLiteral("runReadiness"))->text().contains(QStringLiteral("Cannot run")));
        QSignalSpy requested(&w, &MainWindow::runRequested);
        QTest::keyClick(&w, Qt::Key_R, Qt::ControlModifier);
        QCOMPARE(requested.size(), 0);
        users->setValue(4);
        QVERIFY(w.runAction()->isEnabled());
        QCOMPARE(w.findChild<QLabel *>(QStringLiteral("runReadiness"))->text(), QStringLiteral("Ready to run"));
    }

    void runAndStopSignals()
    {
        QTemporaryDir runs;
        MainWindow w;
        w.setRunsFolder(runs.path());
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        // Nothing listens on port 9: every request fails at once, and the run goes on until stopped.
        w.configEditor()->setConfig(remoteConfig());
        QSignalSpy requested(&w, &MainWindow::runRequested);
        QSignalSpy stopped(&w, &MainWindow::stopRequested);
        QSignalSpy finished(&w, &MainWindow::runFinished);
        QTest::keyClick(&w, Qt::Key_R, Qt::ControlModifier);
        // Nobody at the target: Run offers the connection test first; this run goes anyway.
        runAnyway(w);
        QCOMPARE(requested.size(), 1);
        const auto config = requested.constFirst().constFirst().value<RunConfig>();
        // A run without an outDir goes to <runs folder>/<yyyyMMdd-HHmmss>-<model>.
        QCOMPARE(QFileInfo(config.outDir).absolutePath(), QDir(runs.path()).absolutePath());
        QVERIFY2(QRegularExpression(QStringLiteral("^\\d{8}-\\d{6}-m-7b$"))
                     .match(QFileInfo(config.outDir).fileName())
                     .hasMatch(),
                 qPrintable(config.outDir));
        RunConfig expected = w.currentConfig();
        expected.outDir = config.outDir;
        QCOMPARE(config, expected);
        QVERIFY(w.isRunning());
        QVERIFY(!w.runAction()->isEnabled());
        QVERIFY(w.stopAction()->isEnabled());
        QTRY_VERIFY(!w.configEditor()->isEnabled());         // the forms are locked in the next event-loop turn
        QTest::keyClick(&w, Qt::Key_R, Qt::ControlModifier); // one run at a time
        QCOMPARE(requested.size(), 1);
        QTest::keyClick(&w, Qt::Key_Escape);
        QCOMPARE(stopped.size(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        QVERIFY(!w.isRunning());
        QVERIFY(w.runAction()->isEnabled());
        QVERIFY(!w.stopAction()->isEnabled());
        QTRY_VERIFY(w.configEditor()->isEnabled());
        QVERIFY(QFile::exists(QDir(config.outDir).filePath(QStringLiteral("summary.json"))));
    }

    // Run ▸ Serve Metrics (--metrics-listen in the GUI, issue 16): turned on, a run on the built-in
    // simulator serves OpenMetrics that a scraper reads while the run goes; once it ends, the figures
    // served are the summary's.
    void serveMetricsIsScrapedMidRun()
    {
        QSettings().setValue(QStringLiteral("run/metricsListen"), QStringLiteral("127.0.0.1:0")); // a free port
        QTemporaryDir runs;
        MainWindow w;
        w.setRunsFolder(runs.path());
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        auto *serve = w.findChild<QAction *>(QStringLiteral("actionServeMetrics"));
        QVERIFY(serve && serve->isCheckable());
        QVERIFY(serve->isChecked());                            // on, as the stored address says
        QVERIFY(w.menus().value(1)->actions().contains(serve)); // in the Run menu
        serve->trigger();
        QVERIFY(!serve->isChecked());
        serve->trigger(); // on again, by hand
        QVERIFY(serve->isChecked());

        RunConfig c = w.currentConfig();
        c.load.concurrency = 2;
        c.load.durationMs = 6000;
        c.request.maxTokens = 32;
        w.configEditor()->setConfig(c);
        QSignalSpy finished(&w, &MainWindow::runFinished);
        QString error;
        QVERIFY2(w.startRun(&error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(!w.runner()->metricsUrl().isEmpty(), 10000);
        const QString url = w.runner()->metricsUrl();
        QVERIFY2(url.startsWith(QStringLiteral("http://127.0.0.1:")) && !url.contains(QStringLiteral(":0/")),
                 qPrintable(url));

        test::Scrape mid;
        double midOk = 0;
        QTRY_VERIFY_WITH_TIMEOUT(
            (
                mid = test::scrape(url),
                midOk =
                    [&mid] {
                        const auto e = test::parsed(mid);
                        return e ? test::value(*e, "tokenbench_requests_total", {{"status", "ok"}}) : 0;
                    }()) > 0,
            30000);
        QVERIFY(w.isRunning()); // read mid-run
        QCOMPARE(mid.status, 200);
        QVERIFY2(mid.contentType.startsWith("application/openmetrics-text"), mid.contentType.constData());
        QVERIFY(mid.body.endsWith("# EOF\n"));
        const auto midE = test::parsed(mid);
        QVERIFY(midE);
        QVERIFY(test::value(*midE, "tokenbench_requests_total", {{"target", c.target.name.toStdString()}}) > 0);

        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        const auto outcome = finished.constFirst().constFirst().value<RunOutcome>();
        const auto e = test::parsed(test::scrape(url));
        QVERIFY(e);
        QVERIFY(double(outcome.summary.total.requests.ok) >= midOk);
        QCOMPARE(test::value(*e, "tokenbench_requests_total", {{"status", "ok"}}),
                 double(outcome.summary.total.requests.ok));
        QCOMPARE(test::value(*e, "tokenbench_tokens_total", {{"kind", "output"}}),
                 double(outcome.summary.total.tokens.output));
    }

    void configuredOutThatHoldsFilesIsRefused()
    {
        // A configured `out` that held only run.json was silently overwritten. The GUI has no
        // --force: it refuses, and says which directory.
        QTemporaryDir runs;
        const QString out = runs.filePath(QStringLiteral("mine"));
        QVERIFY(QDir().mkpath(out));
        const QString held = QDir(out).filePath(QStringLiteral("run.json"));
        QVERIFY(tb::test::writeFile(held, "sentinel"));
        MainWindow w;
        w.setRunsFolder(runs.path());
        w.show();
        RunConfig c = remoteConfig();
        c.outDir = out;
        w.configEditor()->setConfig(c);
        QString error;
        QVERIFY(!w.startRun(&error));
        QVERIFY(!w.isRunning());
        QVERIFY2(error.contains(QDir::toNativeSeparators(out) + QStringLiteral(" is not empty (it holds run.json)")),
                 qPrintable(error));
        auto *box = w.findChild<QMessageBox *>(QStringLiteral("errorBox"));
        QVERIFY(box);
        QCOMPARE(box->text(), error);
        QCOMPARE(tb::test::readFile(held), QByteArray("sentinel"));
    }

    // Esc on an open drop-down (the distribution chart's selector) used to stop the run.
    void escOnOpenPopupLeavesRunGoing()
    {
        QTemporaryDir runs;
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        startDeadRun(w, runs.path());
        QSignalSpy stopped(&w, &MainWindow::stopRequested);
        auto *combo = w.findChild<QComboBox *>(QStringLiteral("distributionMetric"));
        QVERIFY(combo);
        // The key where the popup has the keyboard, and where the window system delivers it to the
        // window that had the focus before: either way Esc closes the list, and only the list.
        for (bool toPopup : {true, false}) {
            combo->showPopup();
            QTRY_VERIFY(QApplication::activePopupWidget());
            QTest::keyClick(toPopup ? QApplication::activePopupWidget() : static_cast<QWidget *>(&w), Qt::Key_Escape);
            QTRY_VERIFY(!QApplication::activePopupWidget());
            QVERIFY(w.isRunning());
            QCOMPARE(stopped.size(), 0);
        }
        QTest::keyClick(&w, Qt::Key_Escape); // with nothing open, Esc stops
        QCOMPARE(stopped.size(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(!w.isRunning(), 30000);
    }

    void longRunAsksBeforeStopping()
    {
        QTemporaryDir runs;
        MainWindow w;
        w.show();
        w.setStopConfirmationAfter(1); // every run is "long"
        startDeadRun(w, runs.path());
        QTRY_VERIFY(w.document()->progress().elapsedNs > 1);
        QSignalSpy stopped(&w, &MainWindow::stopRequested);
        QTest::keyClick(&w, Qt::Key_Escape);
        auto *box = w.findChild<QMessageBox *>(QStringLiteral("confirmStopBox"));
        QVERIFY(box);
        QCOMPARE(stopped.size(), 0);
        QTest::keyClick(box, Qt::Key_Escape); // Esc again: the question goes, the run stays
        QTRY_VERIFY(!w.findChild<QMessageBox *>(QStringLiteral("confirmStopBox")));
        QVERIFY(w.isRunning());
        reactivate(w);
        QTest::keyClick(&w, Qt::Key_Escape);
        QTRY_VERIFY((box = w.findChild<QMessageBox *>(QStringLiteral("confirmStopBox"))));
        for (QAbstractButton *b : box->buttons()) {
            if (b->text() == QStringLiteral("Stop Run"))
                b->click();
        }
        QCOMPARE(stopped.size(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(!w.isRunning(), 30000);
    }

    void restoredWindowFitsASmallerScreen()
    {
        const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
        {
            MainWindow w;
            w.show();
            w.resize(available.size() + QSize(500, 400)); // left on a larger monitor
            w.writeSettings();
        }
        MainWindow w;
        w.showRestored();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTRY_VERIFY2(available.contains(w.frameGeometry()), qPrintable(QStringLiteral("%1x%2+%3+%4 on %5x%6")
                                                                           .arg(w.frameGeometry().width())
                                                                           .arg(w.frameGeometry().height())
                                                                           .arg(w.frameGeometry().x())
                                                                           .arg(w.frameGeometry().y())
                                                                           .arg(available.width())
                                                                           .arg(available.height())));
    }

    void maximisedStateRestored()
    {
        {
            MainWindow w;
            w.showMaximized();
            QTRY_VERIFY(w.isMaximized());
            w.writeSettings();
        }
        MainWindow w;
        w.showRestored();
        QTRY_VERIFY(w.isMaximized());
    }

    void positionRestoredOnTheSameScreen()
    {
        const QRect available = QGuiApplication::primaryScreen()->availableGeometry();
        const QRect left(available.topLeft() + QPoint(40, 30), QSize(1200, 760).boundedTo(available.size() * 0.8));
        {
            MainWindow w;
            w.setGeometry(left);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            w.writeSettings();
        }
        MainWindow w;
        w.showRestored();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QCOMPARE(w.geometry(), left);
    }

    // A dead target used to read as success; Run now offers the connection test first.
    void deadTargetOffersTestConnection()
    {
        MainWindow w;
        w.show();
        w.configEditor()->setConfig(remoteConfig()); // nobody listens on 127.0.0.1:9
        w.runAction()->trigger();
        QMessageBox *box = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((box = w.findChild<QMessageBox *>(QStringLiteral("targetUnreachableBox"))), 10000);
        QVERIFY(!w.isRunning());
        QAbstractButton *test = nullptr;
        for (QAbstractButton *b : box->buttons()) {
            if (b->text() == QStringLiteral("Test Connection"))
                test = b;
        }
        QVERIFY(test);
        QVERIFY(box->defaultButton() == test);
        test->click();
        auto *status = w.findChild<QLabel *>(QStringLiteral("connectionStatus"));
        QVERIFY(status);
        QTRY_VERIFY2_WITH_TIMEOUT(status->isVisible() && !status->text().startsWith(QStringLiteral("Asking")),
                                  qPrintable(status->text()), 20000);
        QVERIFY(!status->text().startsWith(QStringLiteral("Connected")));
        QVERIFY(!w.isRunning());
    }

    void sidePanelCollapsesWhenNarrow()
    {
        MainWindow w;
        w.resize(w.sidePanelCollapseWidth() + 200, 800);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        auto *panel = w.findChild<QAction *>(QStringLiteral("actionConfigPanel"));
        QVERIFY(w.sideTabs()->isVisible());
        QVERIFY(panel->isChecked());
        w.resize(w.sidePanelCollapseWidth() - 100, 800);
        QTRY_VERIFY(!w.sideTabs()->isVisible());
        QVERIFY(!panel->isChecked());                        // View → Side Panel tells the truth
        QTest::keyClick(&w, Qt::Key_1, Qt::ControlModifier); // Ctrl+1 shows it on demand…
        QVERIFY(w.sideTabs()->isVisible());
        QVERIFY(panel->isChecked()); // …and the menu says so
        w.resize(w.sidePanelCollapseWidth() + 200, 800);
        QVERIFY(w.sideTabs()->isVisible());
    }

    // View → Side Panel showed unchecked while the panel was visible: however the panel is shown
    // or hidden, the check mark says so (and the action shows and hides it).
    void sidePanelActionFollowsThePanel()
    {
        {
            MainWindow w;
            w.resize(1400, 900);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            w.sideTabs()->hide(); // as a restored splitter state or the narrow collapse would
            w.writeSettings();
        }
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto *panel = w.findChild<QAction *>(QStringLiteral("actionConfigPanel"));
        QVERIFY(panel);
        QCOMPARE(panel->isChecked(), w.sideTabs()->isVisible());
        w.sideTabs()->show();
        QVERIFY(panel->isChecked());
        w.sideTabs()->hide();
        QVERIFY(!panel->isChecked());
        panel->trigger();
        QVERIFY(w.sideTabs()->isVisible());
        QVERIFY(panel->isChecked());
        panel->trigger();
        QVERIFY(!w.sideTabs()->isVisible());
        QVERIFY(!panel->isChecked());
    }

    // Every request refused used to read "Run finished; results saved".
    void allFailedRunSaysRunFailed()
    {
        QTemporaryDir runs;
        MainWindow w;
        w.show();
        w.setRunsFolder(runs.path());
        RunConfig c = remoteConfig();
        c.load.durationMs = 0;
        c.load.requests = 20;
        w.configEditor()->setConfig(c);
        QSignalSpy finished(&w, &MainWindow::runFinished);
        QVERIFY(w.startRun());
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
        const QString status = w.statusBar()->currentMessage();
        QVERIFY2(status.startsWith(QStringLiteral("Run failed: 20 of 20 requests failed — ")), qPrintable(status));
        auto *note = w.findChild<QLabel *>(QStringLiteral("runErrors"));
        QVERIFY(note);
        QTRY_VERIFY(note->isVisible());
        // One cause: said once, in the headline.
        QVERIFY2(note->text().contains(QStringLiteral("Run failed: 20 of 20 requests failed — ")),
                 qPrintable(note->text()));
    }

    void liveStatusCountsHandshakesAndSaysTheFirstError()
    {
        // A server that accepts and never answers the TLS handshake.
        QTcpServer silent;
        connect(&silent, &QTcpServer::newConnection, &silent, [&silent] {
            while (QTcpSocket *socket = silent.nextPendingConnection())
                connect(socket, &QTcpSocket::readyRead, socket, [socket] { socket->readAll(); });
        });
        QVERIFY(silent.listen(QHostAddress(QStringLiteral("127.0.0.1"))));
        QTemporaryDir runs;
        MainWindow w;
        w.show();
        w.setRunsFolder(runs.path());
        RunConfig c = remoteConfig();
        c.target.url = QStringLiteral("https://127.0.0.1:%1/v1").arg(silent.serverPort());
        c.load.concurrency = 3;
        c.load.connectTimeoutMs = 60000;
        w.configEditor()->setConfig(c);
        QSignalSpy finished(&w, &MainWindow::runFinished);
        QVERIFY(w.startRun());
        auto *status = w.findChild<QLabel *>(QStringLiteral("liveStatus"));
        QTRY_VERIFY2_WITH_TIMEOUT(status->text().startsWith(QStringLiteral("0 in flight · 3 TLS handshaking · 0 done")),
                                  qPrintable(status->text()), 20000);
        w.stopAction()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);

        // Refused at once: the cause is in the live status while the run still goes.
        w.configEditor()->setConfig(remoteConfig());
        QVERIFY(w.startRun());
        QTRY_VERIFY2_WITH_TIMEOUT(status->text().contains(QStringLiteral(" errors — connect")),
                                  qPrintable(status->text()), 20000);
        QVERIFY(w.isRunning());
        w.stopAction()->trigger();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 30000);
    }

    // File ▸ Export Timeline… (issue 31): the open run's request timelines, written off the GUI
    // thread, as export-trace writes them (tst_tracetimeline checks the file itself).
    void exportTimelineWritesTheOpenRun()
    {
        MainWindow w;
        auto *action = w.findChild<QAction *>(QStringLiteral("actionExportTimeline"));
        QVERIFY(action);
        bool inFile = false;
        for (QMenu *m : w.menus())
            inFile |= m->title().remove(QLatin1Char('&')) == QStringLiteral("File") && m->actions().contains(action);
        QVERIFY(inFile);
        QTemporaryDir dir;
        const QString trace = dir.filePath(QStringLiteral("run.trace.json"));
        QVERIFY(!w.exportTimeline(trace)); // no run open
        const auto host = test::startFastSimulator(1, 1);
        QVERIFY(host);
        RunConfig config;
        config.target = test::targetOf(*host);
        config.load.concurrency = 2;
        config.load.requests = 6;
        config.outDir = dir.filePath(QStringLiteral("run"));
        QVERIFY(test::saveRun(config));
        QSignalSpy opened(&w, &MainWindow::runOpened);
        QVERIFY(w.openRun(config.outDir));
        QTRY_COMPARE(opened.size(), 1);
        QSignalSpy exported(&w, &MainWindow::timelineExported);
        QVERIFY(w.exportTimeline(trace));
        QTRY_COMPARE(exported.size(), 1);
        QCOMPARE(exported.constFirst().at(1).toString(), QString());
        const QByteArray text = test::readFile(trace);
        const auto json = nlohmann::json::parse(text.constData(), text.constData() + text.size());
        QCOMPARE(json["otherData"]["requests_in_trace"].get<int>(), 6);
        std::size_t slices = 0;
        for (const auto &e : json["traceEvents"])
            slices += e.value("ph", "") == "X" && e.value("name", "") == "request";
        QCOMPARE(slices, std::size_t(12)); // a user's and a connection's each
    }

    // File ▸ Import Results… (issue 31): other tools' files become run directories in the runs
    // folder and open as runs do (tst_import checks what is read); a damaged file writes nothing.
    void importResultsOpensThemAsRuns()
    {
        MainWindow w;
        auto *action = w.findChild<QAction *>(QStringLiteral("actionImportResults"));
        QVERIFY(action);
        bool inFile = false;
        for (QMenu *m : w.menus())
            inFile |= m->title().remove(QLatin1Char('&')) == QStringLiteral("File") && m->actions().contains(action);
        QVERIFY(inFile);
        QTemporaryDir runs;
        w.setRunsFolder(runs.path());
        const QString data = QStringLiteral(TOKENBENCH_TESTDATA "/import/");
        QSignalSpy imported(&w, &MainWindow::resultsImported);
        QSignalSpy shown(&w, &MainWindow::runsShown);
        w.importResults({data + QStringLiteral("vllm-detailed.json"), data + QStringLiteral("guidellm-benchmarks.json"),
                         data + QStringLiteral("llmd-report.yaml")});
        QTRY_COMPARE(imported.size(), 1);
        QCOMPARE(imported.constFirst().at(1).toString(), QString());
        const QStringList directories = imported.constFirst().at(0).toStringList();
        QCOMPARE(directories.size(), 4); // one vLLM run, GuideLLM's two benchmarks, an llm-d report in YAML
        for (const QString &d : directories) {
            QCOMPARE(QFileInfo(d).absolutePath(), QDir(runs.path()).absolutePath());
            QVERIFY2(QFileInfo::exists(d + QStringLiteral("/summary.json")), qPrintable(d));
        }
        QTRY_COMPARE(shown.size(), 1); // four runs: their comparison
        QVERIFY(shown.constFirst().at(0).toBool());

        // The dialog offers the files import reads, llm-d's YAML reports among them.
        action->trigger();
        auto *dialog = w.findChild<QFileDialog *>(QStringLiteral("importResultsDialog"));
        QVERIFY(dialog);
        QCOMPARE(dialog->nameFilters().constFirst(), QStringLiteral("Benchmark results (*.json *.jsonl *.yaml *.yml)"));
        dialog->reject();

        const QString damaged = test::writeFile(runs, QStringLiteral("damaged.json"), "{\"benchmarks\": [");
        const int before = int(QDir(runs.path()).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size());
        w.importResults({data + QStringLiteral("vllm-summary.json"), damaged});
        QTRY_COMPARE(imported.size(), 2);
        QVERIFY(imported.at(1).at(1).toString().contains(QStringLiteral("damaged.json")));
        QCOMPARE(int(QDir(runs.path()).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size()), before);
    }

    void saveAndOpen()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bench.json"));
        RunConfig c = remoteConfig();
        c.target.apiKey = kSecret;
        {
            MainWindow w;
            w.configEditor()->setConfig(c);
            QString error;
            QVERIFY2(w.saveConfig(path, &error), qPrintable(error));
            QCOMPARE(w.configPath(), path);
            QCOMPARE(w.recentConfigs().constFirst(), path);
            QVERIFY(!w.isWindowModified());
        }
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(!file.readAll().contains(kSecret.toUtf8()));
        // The CLI reads the same file.
        QString error;
        const auto loaded = loadRunConfig(path, &error);
        QVERIFY2(loaded, qPrintable(error));
        RunConfig withoutKey = c;
        withoutKey.target.apiKey.clear();
        QCOMPARE(*loaded, withoutKey);

        MainWindow w;
        QVERIFY2(w.openConfig(path, &error), qPrintable(error));
        QCOMPARE(w.currentConfig(), withoutKey);
        QVERIFY(!w.openConfig(dir.filePath(QStringLiteral("absent.json")), &error));
        QVERIFY(error.contains(QStringLiteral("absent.json")));
        QCOMPARE(w.currentConfig(), withoutKey);
    }

    void stateRestoredWithoutKeys()
    {
        RunConfig c = remoteConfig();
        c.target.apiKey = kSecret;
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("saved.json"));
        QSize size;
        {
            MainWindow w;
            w.show();
            w.resize(1100, 760);
            w.configEditor()->setConfig(c);
            w.configEditor()->duplicateTarget(); // the copy (with the typed key) becomes current
            QVERIFY(w.saveConfig(path));
            size = w.size();
            w.close();
        }
        QSettings().sync();
        QVERIFY(!allFilesUnder(m_settingsDir.path()).isEmpty());
        QVERIFY2(!allFilesUnder(m_settingsDir.path()).contains(kSecret.toUtf8()),
                 "an API key was written to QSettings");

        MainWindow w;
        w.showRestored();
        QCOMPARE(w.size(), size);
        const QList<TargetConfig> user = w.configEditor()->targets()->userTargets();
        QCOMPARE(user.size(), 2);
        QCOMPARE(user.at(0).name, QStringLiteral("staging"));
        QCOMPARE(user.at(1).name, QStringLiteral("staging (copy)"));
        QVERIFY(user.at(1).apiKey.isEmpty());
        QCOMPARE(w.currentConfig().target.name, QStringLiteral("staging (copy)"));
        QCOMPARE(w.currentConfig().load, c.load);
        QCOMPARE(w.configPath(), path);
        QCOMPARE(w.recentConfigs(), QStringList{path});
    }

    void newTargetProfileSurvivesAKill_data()
    {
        QTest::addColumn<QString>("button"); ///< under the profile list; empty: the name is edited
        QTest::newRow("add") << "addTarget";
        QTest::newRow("duplicate") << "duplicateTarget";
        QTest::newRow("edit") << QString();
        QTest::newRow("delete") << "deleteTarget";
    }

    // Settings were written only on a clean quit: a killed process lost the profiles added since the
    // start. They are written when they change; the window is never closed here.
    void newTargetProfileSurvivesAKill()
    {
        QFETCH(QString, button);
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.configEditor()->setConfig(remoteConfig()); // a profile of the user's own, selected
        QTRY_COMPARE(targetNamesOnDisk(), QStringList{QStringLiteral("staging")});
        if (button.isEmpty()) {
            auto *name = w.findChild<QLineEdit *>(QStringLiteral("targetName"));
            QVERIFY(name);
            name->selectAll();
            QTest::keyClicks(name, QStringLiteral("prod"));
        } else {
            auto *push = w.findChild<QPushButton *>(button);
            QVERIFY(push);
            push->click();
        }
        const QStringList now = userTargetNames(w);
        QVERIFY(now != QStringList{QStringLiteral("staging")});
        QTRY_COMPARE(targetNamesOnDisk(), now);
    }

    void workloadSurvivesAKill_data()
    {
        QTest::addColumn<QString>("field");
        QTest::addColumn<int>("value");
        QTest::newRow("prompt tokens (workload)") << "promptTokens" << 777;
        QTest::newRow("concurrency (load)") << "concurrency" << 13;
    }

    // The workload and the load typed into the forms were lost to a killed process.
    void workloadSurvivesAKill()
    {
        QFETCH(QString, field);
        QFETCH(int, value);
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto *spin = w.configEditor()->findChild<QSpinBox *>(field);
        QVERIFY(spin);
        spin->setValue(value);
        const RunConfig config = w.currentConfig();
        const auto stored = [] {
            const QByteArray json = onDisk(QStringLiteral("config/last")).toString().toUtf8();
            QString error;
            return runConfigFromJson(
                nlohmann::json::parse(json.constData(), json.constData() + json.size(), nullptr, false), &error);
        };
        QTRY_VERIFY(stored() && *stored() == config);
    }

    void windowLayoutSurvivesAKill_data()
    {
        QTest::addColumn<QString>("change");
        QTest::newRow("size") << "size";
        QTest::newRow("side tab") << "side tab";
        QTest::newRow("form tab") << "form tab";
        QTest::newRow("theme") << "theme";
    }

    // The window as it was left — its size, tabs, theme — was lost to a killed process too.
    void windowLayoutSurvivesAKill()
    {
        QFETCH(QString, change);
        MainWindow w;
        w.resize(1200, 760);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        if (change == QLatin1String("size")) {
            w.resize(1100, 700);
            const auto geometryOnDisk = [] {
                QTemporaryDir dir;
                const QString copy = dir.filePath(QStringLiteral("settings.ini"));
                QFile::copy(QSettings().fileName(), copy);
                const QSettings stored(copy, QSettings::IniFormat);
                for (const QString &key : stored.allKeys()) {
                    if (key.endsWith(QLatin1String("/geometry")))
                        return stored.value(key).toByteArray();
                }
                return QByteArray();
            };
            QTRY_COMPARE(geometryOnDisk(), w.saveGeometry());
        } else if (change == QLatin1String("side tab")) {
            w.sideTabs()->setCurrentIndex(1);
            QTRY_COMPARE(onDisk(QStringLiteral("window/sideTab")).toInt(), 1);
        } else if (change == QLatin1String("form tab")) {
            w.configEditor()->tabs()->setCurrentIndex(2);
            QTRY_COMPARE(onDisk(QStringLiteral("window/configTab")).toInt(), 2);
        } else {
            w.setTheme(AppTheme::Setting::Dark);
            QTRY_COMPARE(onDisk(QStringLiteral("view/theme")).toString(), QStringLiteral("dark"));
            w.setTheme(AppTheme::Setting::System);
        }
    }

    void credentialHeadersAndUserInfoNeverInSettings()
    {
        // Like the typed key, a literal credential header and URL userinfo live in memory only:
        // settings and saved files get "<redacted>" and the URL without them; ${env:} stays.
        qputenv("STAGING_HDR", "hdr-env-secret");
        const QByteArrayList secrets{"pw-userinfo-secret", "bearer-literal-secret", "cookie-literal-secret",
                                     "hdr-env-secret"};
        RunConfig c = remoteConfig();
        c.target.url = QStringLiteral("http://alice:pw-userinfo-secret@127.0.0.1:9/v1");
        c.target.headers = {{QStringLiteral("Authorization"), QStringLiteral("Bearer bearer-literal-secret")},
                            {QStringLiteral("Cookie"), QStringLiteral("sid=cookie-literal-secret")},
                            {QStringLiteral("X-Api-Key"), QStringLiteral("${env:STAGING_HDR}")},
                            {QStringLiteral("X-Team"), QStringLiteral("perf")}};
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("saved.json"));
        {
            MainWindow w;
            w.show();
            w.configEditor()->setConfig(c);
            QCOMPARE(w.currentConfig().target.headers, c.target.headers); // in memory: what is sent
            QCOMPARE(w.currentConfig().target.url, c.target.url);
            QVERIFY(w.runAction()->isEnabled());
            QVERIFY(w.saveConfig(path));
            w.close();
        }
        QSettings().sync();
        const QByteArray settings = allFilesUnder(m_settingsDir.path());
        QVERIFY(settings.contains("${env:STAGING_HDR}"));
        QFile saved(path);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        const QByteArray file = saved.readAll();
        for (const QByteArray &secret : secrets) {
            QVERIFY2(!settings.contains(secret), secret.constData());
            QVERIFY2(!file.contains(secret), secret.constData());
        }

        // Restored: the literal values must be given again, and the form says so.
        MainWindow w;
        w.show();
        const RunConfig restored = w.currentConfig();
        QCOMPARE(restored.target.url, QStringLiteral("http://127.0.0.1:9/v1"));
        QCOMPARE(restored.target.headers.at(0).value, QLatin1String(kRedacted));
        QCOMPARE(restored.target.headers.at(2).value, QStringLiteral("${env:STAGING_HDR}"));
        QCOMPARE(restored.target.headers.at(3).value, QStringLiteral("perf"));
        QVERIFY(!w.runAction()->isEnabled());
        QVERIFY2(w.runAction()->toolTip().contains(QStringLiteral("credentials are never saved")),
                 qPrintable(w.runAction()->toolTip()));
        qunsetenv("STAGING_HDR");
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
