#pragma once

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

class QAction;
class QMenu;

namespace tb {

class ComparisonSessionPanel;
class ComparisonView;
class MainWindow;

/// Comparisons in the main window: the Compare menu (Compare Runs…, New Comparison Session…,
/// Mark Shown Run as Baseline, Clear Baseline), comparison views as closable tabs among the run
/// views, the session panel, and run folders dropped on the window (one run opens in the
/// dashboard; a session or several runs open a comparison). It only uses MainWindow's public
/// interface, so the window needs one line to get all of it: `new ComparisonController(this);`.
class ComparisonController : public QObject
{
    Q_OBJECT

public:
    explicit ComparisonController(MainWindow *window);

    QMenu *menu() const { return m_menu; }

    /// A new comparison tab of these run or session directories (read off the GUI thread). When
    /// none of them can be read the tab closes and a message (not modal) names the folders.
    ComparisonView *openComparison(const QStringList &arguments);
    QList<ComparisonView *> views() const;
    /// Created on first use; a window of its own.
    ComparisonSessionPanel *sessionPanel();

public Q_SLOTS:
    void showPicker();
    void showSessionPanel();
    void markShownRunAsBaseline();
    void clearBaseline();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void updateActions();
    void closeTab(ComparisonView *view);
    void warn(const QString &title, const QString &text);

    MainWindow *m_window;
    QMenu *m_menu;
    QAction *m_compareRuns;
    QAction *m_newSession;
    QAction *m_markBaseline;
    QAction *m_clearBaseline;
    QPointer<ComparisonSessionPanel> m_panel;
    QList<QPointer<ComparisonView>> m_views;
    QString m_shownBaseline; ///< the baseline the history last showed
};

} // namespace tb
