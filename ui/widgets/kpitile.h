#pragma once

#include "widgets/card.h"

class QLabel;

namespace tb {

/// One key figure of a run: a caption, a large value and a line of detail, with an accent in the
/// colour its charts use and a tooltip saying what it measures.
class KpiTile : public Card
{
    Q_OBJECT

public:
    /// `unit` follows the value in smaller type ("req/s"); empty when the value carries its own.
    KpiTile(const QString &caption, const QString &unit, const QColor &accent, const QString &description,
            QWidget *parent = nullptr);

    void setValue(const QString &value, const QString &detail = {});
    /// More for the tooltip, after what the tile measures.
    void appendToolTip(const QString &html);
    /// The whole texts; a tile narrower than them shows them elided, whole in its tooltip.
    QString value() const;
    QString detail() const;

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void elide();

    QString m_description;
    QString m_fullValue;
    QString m_fullDetail;
    QLabel *m_caption;
    QLabel *m_value;
    QLabel *m_unit;
    QLabel *m_detail;
};

} // namespace tb
