#include "views/requestsview.h"

#include "models/requestsmodel.h"
#include "views/requestdetailview.h"
#include "views/rundocument.h"
#include "widgets/card.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace tb {

RequestsView::RequestsView(RunDocument *document, QWidget *parent)
    : QWidget(parent)
    , m_document(document)
    , m_filter(new RequestsFilterModel(this))
    , m_errorsOnly(new QCheckBox(tr("&Errors only"), this))
    , m_stage(new QComboBox(this))
    , m_count(new QLabel(this))
    , m_table(new QTableView(this))
    , m_detail(new RequestDetailView(this))
    , m_countTimer(new QTimer(this))
{
    setObjectName(QStringLiteral("requestsView"));
    m_filter->setSourceModel(document->requests());
    m_errorsOnly->setObjectName(QStringLiteral("errorsOnly"));
    m_errorsOnly->setToolTip(tr("Show only failed and cancelled requests"));
    m_stage->setObjectName(QStringLiteral("stageFilter"));
    m_count->setObjectName(QStringLiteral("requestCount"));
    setTextColor(m_count, QColor(0x4b, 0x55, 0x63));

    m_table->setObjectName(QStringLiteral("requestsTable"));
    m_table->setModel(m_filter);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder); // completion order until a header is clicked
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    // Fixed row heights: the view never measures 100 000 rows.
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    const QFontMetrics fm = m_table->fontMetrics();
    for (int c = 0; c < RequestsModel::ErrorColumn; ++c) {
        const QString title = document->requests()->headerData(c, Qt::Horizontal).toString();
        m_table->setColumnWidth(
            c, std::max(fm.horizontalAdvance(title) + 28, fm.horizontalAdvance(QStringLiteral("0000000"))));
    }

    auto *filters = new QHBoxLayout;
    filters->addWidget(m_errorsOnly);
    filters->addWidget(new QLabel(tr("Stage:"), this));
    filters->addWidget(m_stage);
    filters->addStretch();
    filters->addWidget(m_count);
    auto *top = new QWidget(this);
    auto *topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(6, 6, 6, 0);
    topLayout->addLayout(filters);
    topLayout->addWidget(m_table, 1);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->setObjectName(QStringLiteral("requestsSplitter"));
    split->addWidget(top);
    split->addWidget(m_detail);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setChildrenCollapsible(false);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    connect(m_errorsOnly, &QCheckBox::toggled, m_filter, &RequestsFilterModel::setErrorsOnly);
    connect(m_errorsOnly, &QCheckBox::toggled, this, &RequestsView::updateCount);
    connect(m_stage, &QComboBox::currentIndexChanged, this, [this] {
        m_filter->setStage(m_stage->currentData().toInt());
        updateCount();
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &RequestsView::currentChanged);
    connect(document, &RunDocument::reset, this, &RequestsView::reset);
    // The shown request's chunks are read again from the renamed folder.
    connect(document, &RunDocument::directoryChanged, this, &RequestsView::currentChanged);
    // The count follows live batches at a steady pace rather than per batch.
    m_countTimer->setInterval(500);
    connect(m_countTimer, &QTimer::timeout, this, &RequestsView::updateCount);
    m_countTimer->start();
    reset();
}

void RequestsView::reset()
{
    m_detail->clear();
    updateStages();
    updateCount();
}

void RequestsView::updateStages()
{
    const QSignalBlocker block(m_stage);
    m_stage->clear();
    m_stage->addItem(tr("all"), -1);
    const QStringList names = m_document->stageNames();
    for (int i = 0; i < names.size(); ++i)
        m_stage->addItem(names.at(i), i);
    m_stage->setEnabled(names.size() > 1);
    m_filter->setStage(-1);
}

void RequestsView::updateCount()
{
    const int total = m_document->requests()->rowCount();
    const int shown = m_filter->rowCount();
    m_count->setText(shown == total ? tr("%n request(s)", nullptr, total)
                                    : tr("%1 of %n request(s)", nullptr, total).arg(shown));
}

void RequestsView::currentChanged()
{
    const QModelIndex current = m_filter->mapToSource(m_table->currentIndex());
    if (!current.isValid()) {
        m_detail->clear();
        return;
    }
    m_detail->showRecord(m_document->requests()->record(current.row()), m_document->directory());
}

bool RequestsView::showRequest(std::uint64_t id)
{
    const int row = m_document->requests()->rowOf(id);
    if (row < 0)
        return false;
    QModelIndex index = m_filter->mapFromSource(m_document->requests()->index(row, 0));
    if (!index.isValid()) {
        m_errorsOnly->setChecked(false);
        m_stage->setCurrentIndex(0);
        index = m_filter->mapFromSource(m_document->requests()->index(row, 0));
    }
    m_table->setCurrentIndex(index);
    m_table->scrollTo(index);
    return true;
}

} // namespace tb
