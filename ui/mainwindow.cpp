#include "mainwindow.h"

#include "tokenbench/version.h"

#include <QApplication>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>

namespace tb {

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("TokenBench"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/tokenbench.svg")));
    createMenus();
    auto *placeholder = new QLabel(tr("No run yet."), this);
    placeholder->setAlignment(Qt::AlignCenter);
    setCentralWidget(placeholder);
    statusBar()->showMessage(tr("Ready"));
    resize(1280, 800);
}

MainWindow::~MainWindow() = default;

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu *run = menuBar()->addMenu(tr("&Run"));
    QMenu *view = menuBar()->addMenu(tr("&View"));

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About TokenBench"), this, &MainWindow::showAbout);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);

    m_menus = {file, run, view, help};
}

void MainWindow::showAbout()
{
    // open(), not exec(): the GUI never runs a nested event loop, even for About.
    auto *box = new QMessageBox(QMessageBox::Information, tr("About TokenBench"),
                                tr("<h3>TokenBench %1</h3>"
                                   "<p>Load-testing workbench for LLM inference APIs.</p>"
                                   "<p>Qt %2 (built with Qt %3)</p>")
                                    .arg(version(), QString::fromLatin1(qVersion()), QStringLiteral(QT_VERSION_STR)),
                                QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("aboutBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

} // namespace tb
