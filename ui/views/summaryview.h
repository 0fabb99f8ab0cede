#pragma once

#include <QWidget>

class QTableView;
class QTimer;

namespace tb {

class RunDocument;
class SummaryTableModel;

/// The run's summary as a table (whole run and each stage), with Copy (for a spreadsheet or a
/// document) and CSV export. A live run's values refresh twice a second while the tab is shown.
class SummaryView : public QWidget
{
    Q_OBJECT

public:
    explicit SummaryView(RunDocument *document, QWidget *parent = nullptr);

    SummaryTableModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }

public Q_SLOTS:
    /// Puts the table on the clipboard as text (tab separated) and HTML.
    void copyToClipboard();
    /// Brings the table up to date with the document now.
    void refresh();

Q_SIGNALS:
    void copied();

protected:
    void showEvent(QShowEvent *event) override;

private:
    RunDocument *m_document;
    SummaryTableModel *m_model;
    QTableView *m_table;
    QTimer *m_timer;
    quint64 m_shownRevision = ~quint64(0);
};

} // namespace tb
