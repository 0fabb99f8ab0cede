#pragma once

#include <QStyledItemDelegate>

namespace tb {

/// A run cell in two lines: the value (bold and starred where it is the row's best), and under
/// it, smaller, its change against the baseline coloured by whether it is a significant
/// improvement, a significant regression, or neither.
class ComparisonDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

private:
    /// The metric's name, and in grey at the right of the cell which way is better.
    void paintMetric(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const;
    /// Draws the cell as the style does (background, selection, focus) but without its text, which
    /// it returns in `text` for the caller to draw its own way; returns the cell's style option.
    QStyleOptionViewItem drawPanel(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index,
                                   QString *text) const;
};

} // namespace tb
