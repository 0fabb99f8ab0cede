#include "views/summaryview.h"

#include "models/summarymodel.h"
#include "views/rundocument.h"
#include "widgets/card.h"

#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace tb {

SummaryView::SummaryView(RunDocument *document, QWidget *parent)
    : QWidget(parent)
    , m_document(document)
    , m_model(new SummaryTableModel(this))
    , m_table(new QTableView(this))
    , m_timer(new QTimer(this))
{
    setObjectName(QStringLiteral("summaryView"));
    m_table->setObjectName(QStringLiteral("summaryTable"));
    m_table->setModel(m_model);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);

    auto *copy = new QPushButton(tr("&Copy Table"), this);
    copy->setObjectName(QStringLiteral("copySummary"));
    copy->setToolTip(tr("Copy the summary for a spreadsheet or a document (Ctrl+Shift+C)"));
    auto *hint = new QLabel(tr("Exact values: File → Export (Ctrl+E) writes this table as CSV."), this);
    setTextColor(hint, QColor(0x4b, 0x55, 0x63));
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(copy);
    buttons->addWidget(hint, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->addLayout(buttons);
    layout->addWidget(m_table, 1);

    connect(copy, &QPushButton::clicked, this, &SummaryView::copyToClipboard);
    connect(document, &RunDocument::reset, this, &SummaryView::refresh);
    connect(document, &RunDocument::stateChanged, this, &SummaryView::refresh);
    m_timer->setInterval(500);
    connect(m_timer, &QTimer::timeout, this, [this] {
        if (isVisible() && m_document->dataRevision() != m_shownRevision)
            refresh();
    });
    m_timer->start();
    refresh();
}

void SummaryView::refresh()
{
    m_shownRevision = m_document->dataRevision();
    m_model->setSummary(m_document->summary());
}

void SummaryView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_document->dataRevision() != m_shownRevision)
        refresh();
}

void SummaryView::copyToClipboard()
{
    refresh();
    QApplication::clipboard()->setMimeData(m_model->toMimeData());
    Q_EMIT copied();
}

} // namespace tb
