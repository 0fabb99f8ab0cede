// Readable in either theme (issue 27): the main window with a saved run open, its requests and a
// request's detail, a comparison of two runs, the export and session dialogs, in the light and the
// dark theme, set at start or switched to with all of it already open. Every visible widget that
// shows text is photographed as drawn (style sheets, delegates, rich text and item colours
// included) and its text must stand out from what it is drawn on by at least 4.5:1 (WCAG AA), on a
// background of the theme's own lightness (no light panel left in the dark theme).
#include "compare/comparisonsessionpanel.h"
#include "compare/comparisonview.h"
#include "comparisoncontroller.h"
#include "mainwindow.h"
#include "models/quantitystyle.h"
#include "views/exportdialog.h"
#include "views/requestsview.h"
#include "views/runhistoryview.h"
#include "views/summaryview.h"
#include "widgets/apptheme.h"

#include "run/benchmarkrunner.h"
#include "support/savedrun.h"
#include "support/testsettings.h"
#include "support/testsimulator.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAction>
#include <QChartView>
#include <QComboBox>
#include <QGroupBox>
#include <QHash>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTabBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextEdit>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

using namespace tb;
using namespace Qt::Literals::StringLiterals;
using chartstyle::Theme;

Q_DECLARE_METATYPE(tb::AppTheme::Setting)

namespace {

constexpr double kMinimumContrast = 4.5;

double luminance(const QColor &color)
{
    const auto channel = [](double c) { return c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF()) + 0.0722 * channel(color.blueF());
}

/// WCAG 2 contrast ratio, 1 to 21.
double contrast(const QColor &a, const QColor &b)
{
    const double la = luminance(a);
    const double lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

/// What a patch of the screen shows: its commonest colour (the background) and the colour that
/// stands out from it most (the text's, where anti-aliasing leaves some pixel fully inked).
struct Patch {
    QColor background;
    QColor text;
    int inked = 0; ///< pixels clearly apart from the background
};

Patch sample(const QImage &image, const QRect &area)
{
    const QRect r = area.intersected(image.rect());
    QHash<QRgb, int> counts;
    for (int y = r.top(); y <= r.bottom(); ++y) {
        const auto *line = reinterpret_cast<const QRgb *>(image.constScanLine(y));
        for (int x = r.left(); x <= r.right(); ++x)
            ++counts[line[x] & RGB_MASK];
    }
    Patch patch;
    int most = 0;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
        if (it.value() > most) {
            most = it.value();
            patch.background = QColor(it.key());
        }
    }
    double best = 0;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
        const double ratio = contrast(QColor(it.key()), patch.background);
        if (ratio > 1.5)
            patch.inked += it.value();
        if (ratio > best) {
            best = ratio;
            patch.text = QColor(it.key());
        }
    }
    return patch;
}

/// "MainWindow/sideTabs/…/QLineEdit" from the window down to `widget`.
QString pathOf(const QWidget *widget)
{
    QStringList parts;
    for (const QObject *o = widget; o; o = o->parent())
        parts.prepend(o->objectName().isEmpty() ? QString::fromLatin1(o->metaObject()->className()) : o->objectName());
    return parts.join(u'/');
}

/// The parts of `widget` that show text, in its own coordinates, each with a name for messages.
QList<std::pair<QString, QRect>> textAreas(QWidget *widget)
{
    QList<std::pair<QString, QRect>> areas;
    if (auto *label = qobject_cast<QLabel *>(widget)) {
        if (!label->text().trimmed().isEmpty())
            areas.append({label->text().left(40), label->contentsRect()});
    } else if (auto *header = qobject_cast<QHeaderView *>(widget)) {
        for (int i = 0; i < header->count(); ++i) {
            if (header->isSectionHidden(i))
                continue;
            const int at = header->sectionViewportPosition(i);
            const QRect section = header->orientation() == Qt::Horizontal
                                      ? QRect(at, 0, header->sectionSize(i), header->height())
                                      : QRect(0, at, header->width(), header->sectionSize(i));
            areas.append({u"section %1"_s.arg(i), section.translated(header->viewport()->pos())});
        }
    } else if (auto *view = qobject_cast<QAbstractItemView *>(widget)) {
        const QAbstractItemModel *model = view->model();
        const QRect port = view->viewport()->rect();
        const int lineHeight = view->fontMetrics().height();
        const auto addCell = [&](const QModelIndex &index) {
            if (!(model->flags(index) & Qt::ItemIsEnabled) || index.data().toString().isEmpty())
                return;
            const QRect cell = view->visualRect(index).intersected(port).adjusted(1, 1, -1, -1);
            if (cell.isEmpty())
                return;
            const QString name = u"cell %1,%2"_s.arg(index.row()).arg(index.column());
            const QPoint offset = view->viewport()->pos();
            // A cell of two lines (the comparison's value over its change) is two texts.
            if (cell.height() >= 2 * lineHeight) {
                const int half = cell.height() / 2;
                areas.append({name + u" top"_s, QRect(cell.topLeft(), QSize(cell.width(), half)).translated(offset)});
                areas.append(
                    {name + u" bottom"_s,
                     QRect(cell.left(), cell.top() + half, cell.width(), cell.height() - half).translated(offset)});
            } else {
                areas.append({name, cell.translated(offset)});
            }
        };
        const std::function<void(const QModelIndex &)> addRows = [&](const QModelIndex &parent) {
            for (int row = 0; row < std::min(model->rowCount(parent), 200); ++row) {
                for (int column = 0; column < model->columnCount(parent); ++column)
                    addCell(model->index(row, column, parent));
                if (model->hasChildren(model->index(row, 0, parent)))
                    addRows(model->index(row, 0, parent));
            }
        };
        if (model)
            addRows(view->rootIndex());
    } else if (auto *tabs = qobject_cast<QTabBar *>(widget)) {
        for (int i = 0; i < tabs->count(); ++i) {
            if (tabs->isTabVisible(i))
                areas.append({tabs->tabText(i), tabs->tabRect(i).adjusted(2, 2, -2, -2)});
        }
    } else if (auto *menus = qobject_cast<QMenuBar *>(widget)) {
        for (QAction *action : menus->actions())
            areas.append({action->text(), menus->actionGeometry(action)});
    } else if (auto *button = qobject_cast<QAbstractButton *>(widget)) {
        if (!button->text().isEmpty())
            areas.append({button->text(), button->rect().adjusted(1, 1, -1, -1)});
    } else if (auto *line = qobject_cast<QLineEdit *>(widget)) {
        if (!line->text().isEmpty() || !line->placeholderText().isEmpty())
            areas.append({line->text().left(40), line->rect().adjusted(3, 3, -3, -3)});
    } else if (auto *combo = qobject_cast<QComboBox *>(widget)) {
        if (!combo->isEditable() && !combo->currentText().isEmpty())
            areas.append({combo->currentText(), combo->rect().adjusted(3, 3, -3, -3)});
    } else if (auto *plain = qobject_cast<QPlainTextEdit *>(widget)) {
        if (!plain->toPlainText().isEmpty() || !plain->placeholderText().isEmpty())
            areas.append({plain->toPlainText().left(40), plain->viewport()->geometry()});
    } else if (auto *rich = qobject_cast<QTextEdit *>(widget)) {
        if (!rich->toPlainText().isEmpty())
            areas.append({rich->toPlainText().left(40), rich->viewport()->geometry()});
    } else if (auto *group = qobject_cast<QGroupBox *>(widget)) {
        if (!group->title().isEmpty())
            areas.append({group->title(), QRect(0, 0, group->width(), group->fontMetrics().height() + 2)});
    }
    return areas;
}

/// Whether `widget` is drawn by a chart (its own colours, tested with the charts) rather than as
/// a widget: the chart's empty-state text is a label over it and counts.
bool insideChart(const QWidget *widget)
{
    for (const QWidget *w = widget; w; w = w->parentWidget()) {
        if (qobject_cast<const QChartView *>(w))
            return w != widget && widget->objectName() != "chartEmptyText"_L1;
    }
    return false;
}

/// Every unreadable text under `root` as drawn now, one line each.
QStringList unreadable(QWidget *root, Theme theme)
{
    QWidget *window = root->window();
    const QImage image = window->grab().toImage().convertToFormat(QImage::Format_RGB32);
    const qreal ratio = image.devicePixelRatio();
    QList<QWidget *> widgets = root->findChildren<QWidget *>();
    widgets.prepend(root);
    const QColor selection = QApplication::palette().color(QPalette::Highlight);
    QStringList problems;
    int checked = 0;
    for (QWidget *widget : std::as_const(widgets)) {
        if (!widget->isVisible() || !widget->isEnabled() || widget->visibleRegion().isEmpty() || insideChart(widget))
            continue;
        const QRect shown = widget->visibleRegion().boundingRect();
        for (const auto &[name, area] : textAreas(widget)) {
            const QRect local = area.intersected(shown);
            if (local.isEmpty())
                continue;
            const QRect onWindow(widget->mapTo(window, local.topLeft()) * ratio, local.size() * ratio);
            Patch patch = sample(image, onWindow);
            if (patch.inked < 4)
                continue; // nothing drawn here (an empty cell, a label scrolled away)
            // Small thin glyphs may leave no pixel fully inked: where the colour is known for sure
            // (plain text drawn in its palette, no style sheet, no markup) take it from there.
            if (auto *label = qobject_cast<QLabel *>(widget); label && !widget->testAttribute(Qt::WA_StyleSheet) &&
                                                              label->textFormat() != Qt::RichText &&
                                                              !Qt::mightBeRichText(label->text()))
                patch.text = widget->palette().color(widget->foregroundRole());
            ++checked;
            const double ratioFound = contrast(patch.text, patch.background);
            const double light = luminance(patch.background);
            const bool wrongLightness =
                theme == Theme::Dark ? light > 0.3 : light < 0.3 && patch.background != selection;
            if (ratioFound < kMinimumContrast || wrongLightness)
                problems << u"%1 (%2) \"%3\": %4 on %5, %6:1%7"_s
                                .arg(pathOf(widget), QString::fromLatin1(widget->metaObject()->className()), name,
                                     patch.text.name(), patch.background.name())
                                .arg(ratioFound, 0, 'f', 2)
                                .arg(wrongLightness ? u", a background of the other theme"_s : QString());
        }
    }
    if (checked == 0)
        problems << u"%1: no text found to check"_s.arg(pathOf(root));
    return problems;
}

} // namespace

class TestUiContrast : public QObject
{
    Q_OBJECT

    enum View {
        ConfigureTarget,
        ConfigureWorkload,
        ConfigureLoad,
        Runs,
        Dashboard,
        Summary,
        Requests,
        Comparison,
        Export,
        Session
    };

private:
    QTemporaryDir m_settingsDir;
    QTemporaryDir m_tmp;
    std::unique_ptr<sim::SimulatorHost> m_simulator;
    QString m_a;
    QString m_b;
    std::unique_ptr<MainWindow> m_window;
    QString m_windowKey; ///< the theme and when it was set, of m_window

    bool runOne(RunConfig config, const QString &directory)
    {
        config.target = test::targetOf(*m_simulator);
        config.outDir = directory;
        return test::saveRun(config);
    }

    /// The main window with everything open, in `theme` from the start or switched to at the end.
    MainWindow *window(AppTheme::Setting theme, bool atStart)
    {
        const QString key = u"%1 %2"_s.arg(AppTheme::name(theme)).arg(atStart);
        if (m_window && key == m_windowKey)
            return m_window.get();
        m_window.reset();
        AppTheme::apply(AppTheme::Setting::System);
        m_window = std::make_unique<MainWindow>();
        MainWindow *w = m_window.get();
        w->setSettingsWritable(false);
        w->setRunsFolder(m_tmp.path());
        // As `tokenbench --theme` does: the window is built, then themed.
        const AppTheme::Setting other =
            theme == AppTheme::Setting::Dark ? AppTheme::Setting::Light : AppTheme::Setting::Dark;
        w->setTheme(atStart ? theme : other);
        w->resize(1600, 1000);
        w->show();
        if (!QTest::qWaitForWindowExposed(w))
            return nullptr;
        QSignalSpy opened(w, &MainWindow::runOpened);
        if (!w->openRun(m_a) || !QTest::qWaitFor([&] { return opened.size() == 1; }, 60000))
            return nullptr;
        w->requestsView()->showRequest(1);
        auto *controller = w->findChild<ComparisonController *>();
        ComparisonView *comparison = controller->openComparison({m_a, m_b});
        if (!QTest::qWaitFor([&] { return comparison->runCount() == 2; }, 60000))
            return nullptr;
        for (QAction *action : w->findChildren<QAction *>()) {
            if (action->text() == u"&Export…"_s)
                action->trigger();
        }
        controller->showSessionPanel();
        if (!atStart)
            w->setTheme(theme);
        m_windowKey = key;
        return w;
    }

    /// Brings `view` to the front; the widget to walk.
    static QWidget *show(MainWindow *w, View view)
    {
        auto *config = w->findChild<QTabWidget *>(u"configTabs"_s);
        w->sideTabs()->show();
        switch (view) {
        case ConfigureTarget:
        case ConfigureWorkload:
        case ConfigureLoad:
            w->sideTabs()->setCurrentIndex(0);
            config->setCurrentIndex(int(view - ConfigureTarget));
            return config;
        case Runs:
            w->sideTabs()->setCurrentWidget(w->historyView());
            return w->historyView();
        case Dashboard:
            w->resultsTabs()->setCurrentWidget(w->dashboard());
            return w->dashboard();
        case Summary:
            w->resultsTabs()->setCurrentWidget(w->summaryView());
            return w->summaryView();
        case Requests:
            w->resultsTabs()->setCurrentWidget(w->requestsView());
            return w->requestsView();
        case Comparison: {
            ComparisonView *comparison = w->findChild<ComparisonController *>()->views().constFirst();
            w->resultsTabs()->setCurrentWidget(comparison);
            return comparison;
        }
        case Export:
            return w->findChild<ExportDialog *>();
        case Session:
            return w->findChild<ComparisonController *>()->sessionPanel();
        }
        return nullptr;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_settingsDir.isValid() && m_tmp.isValid());
        test::isolateSettings(m_settingsDir.path(), u"tst_ui_contrast"_s);
        qRegisterMetaType<RunOutcome>();
        m_simulator = test::startFastSimulator(20, 2);
        QVERIFY(m_simulator);
        RunConfig config;
        config.load.concurrency = 2;
        config.load.requests = 24;
        config.prompt.promptTokens = 40;
        config.request.maxTokens = 32;
        m_a = m_tmp.filePath(u"run-a"_s);
        QVERIFY(runOne(config, m_a));
        config.load.concurrency = 4;
        m_b = m_tmp.filePath(u"run-b"_s);
        QVERIFY(runOne(config, m_b));
    }

    void cleanupTestCase()
    {
        m_window.reset();
        AppTheme::apply(AppTheme::Setting::System);
    }

    void switchingThemeLeavesEveryTextReadable_data()
    {
        QTest::addColumn<AppTheme::Setting>("theme");
        QTest::addColumn<bool>("atStart");
        QTest::addColumn<int>("view");
        const std::pair<View, const char *> views[] = {
            {ConfigureTarget, "configure target"},
            {ConfigureWorkload, "configure workload"},
            {ConfigureLoad, "configure load"},
            {Runs, "runs"},
            {Dashboard, "dashboard"},
            {Summary, "summary"},
            {Requests, "requests and a request's detail"},
            {Comparison, "comparison"},
            {Export, "export dialog"},
            {Session, "session dialog"},
        };
        for (const AppTheme::Setting theme : {AppTheme::Setting::Light, AppTheme::Setting::Dark}) {
            for (const bool atStart : {true, false}) {
                for (const auto &[view, name] : views) {
                    QTest::addRow("%s, %s: %s", qPrintable(AppTheme::name(theme)), atStart ? "at start" : "switched to",
                                  name)
                        << theme << atStart << int(view);
                }
            }
        }
    }

    void switchingThemeLeavesEveryTextReadable()
    {
        QFETCH(AppTheme::Setting, theme);
        QFETCH(bool, atStart);
        QFETCH(int, view);
        MainWindow *w = window(theme, atStart);
        QVERIFY(w);
        QWidget *root = show(w, View(view));
        QVERIFY(root);
        QVERIFY(QTest::qWaitForWindowExposed(root->window()));
        QApplication::processEvents();
        const QStringList problems = unreadable(root, theme == AppTheme::Setting::Dark ? Theme::Dark : Theme::Light);
        QVERIFY2(problems.isEmpty(),
                 qPrintable(u"%1 unreadable:\n"_s.arg(problems.size()) + problems.mid(0, 40).join(u'\n')));
    }
};

QTEST_MAIN(TestUiContrast)
#include "tst_ui_contrast.moc"
