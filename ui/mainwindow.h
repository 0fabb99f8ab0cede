#pragma once

#include <QMainWindow>

class QAction;
class QMenu;

namespace tb {

/// The workbench's main window: menus, and (as the work grows) the configuration forms, live
/// dashboard and comparison views.
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    /// The menus in the order they appear (File, Run, View, Help); tests walk these.
    QList<QMenu *> menus() const { return m_menus; }

public Q_SLOTS:
    void showAbout();

private:
    void createMenus();

    QList<QMenu *> m_menus;
};

} // namespace tb
