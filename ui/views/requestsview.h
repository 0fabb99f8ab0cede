#pragma once

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QTableView;
class QTimer;

namespace tb {

class RequestDetailView;
class RequestsFilterModel;
class RunDocument;

/// Every request of the run in a sortable table (filter: errors only, one stage), and the
/// selected request's detail and timeline below it.
class RequestsView : public QWidget
{
    Q_OBJECT

public:
    explicit RequestsView(RunDocument *document, QWidget *parent = nullptr);

    QTableView *table() const { return m_table; }
    RequestsFilterModel *filter() const { return m_filter; }
    RequestDetailView *detail() const { return m_detail; }
    /// Selects request `id` (clearing filters that hide it) and shows its detail.
    bool showRequest(std::uint64_t id);

private:
    void reset();
    void updateCount();
    void updateStages();
    void currentChanged();

    RunDocument *m_document;
    RequestsFilterModel *m_filter;
    QCheckBox *m_errorsOnly;
    QComboBox *m_stage;
    QLabel *m_count;
    QTableView *m_table;
    RequestDetailView *m_detail;
    QTimer *m_countTimer;
};

} // namespace tb
