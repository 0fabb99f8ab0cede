#include "compare/comparisondelegate.h"

#include "models/comparisonmodel.h"
#include "models/quantitystyle.h"

#include <QApplication>
#include <QPainter>

#include <algorithm>

namespace tb {

namespace {

const QColor kBetter(0x15, 0x80, 0x3d);
const QColor kWorse(0xb9, 0x1c, 0x1c);
const QColor kMuted(0x4b, 0x55, 0x63); // 4.5:1 also on the baseline column's tint
const QColor kStar(0xb7, 0x79, 0x1f);

/// One of the colours above in the theme the table is drawn in.
QColor shade(const QColor &light, const QStyleOptionViewItem &option)
{
    return chartstyle::themed(light, chartstyle::themeOf(option.palette));
}

} // namespace

void ComparisonDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    if (index.column() == ComparisonModel::MetricColumn) {
        paintMetric(painter, option, index);
        return;
    }
    if (index.column() < ComparisonModel::FirstRunColumn) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    QString value;
    const QStyleOptionViewItem opt = drawPanel(painter, option, index, &value);
    const bool selected = opt.state.testFlag(QStyle::State_Selected);
    const bool best = index.data(ComparisonModel::BestRole).toBool();
    const bool isBase = index.data(ComparisonModel::BaselineRole).toBool();
    const QRect area = opt.rect.adjusted(6, 3, -10, -3);
    const int half = area.height() / 2;
    painter->save();
    QFont valueFont = opt.font;
    valueFont.setBold(best);
    const QFontMetrics valueMetrics(valueFont);
    const QString star = best ? QStringLiteral(" ★") : QString();
    const int starWidth = best ? valueMetrics.horizontalAdvance(star) : 0;
    painter->setFont(valueFont);
    painter->setPen(selected ? opt.palette.color(QPalette::HighlightedText) : opt.palette.color(QPalette::Text));
    const QRect valueRect(area.left(), area.top(), area.width() - starWidth, half);
    painter->drawText(valueRect, Qt::AlignRight | Qt::AlignBottom, value);
    if (best) {
        painter->setPen(selected ? opt.palette.color(QPalette::HighlightedText) : shade(kStar, opt));
        painter->drawText(QRect(valueRect.right(), area.top(), starWidth + 1, half), Qt::AlignLeft | Qt::AlignBottom,
                          star);
    }
    QFont small = option.font; // not the cell's font: that is bold for the best value
    small.setPointSizeF(std::max(6.0, option.font.pointSizeF() * 0.85));
    painter->setFont(small);
    QString delta = index.data(ComparisonModel::DeltaTextRole).toString();
    QColor color = kMuted;
    if (isBase) {
        delta = QObject::tr("baseline");
    } else {
        const int tone = index.data(ComparisonModel::DeltaToneRole).toInt();
        color = tone > 0 ? kBetter : tone < 0 ? kWorse : kMuted;
    }
    painter->setPen(selected ? opt.palette.color(QPalette::HighlightedText) : shade(color, opt));
    painter->drawText(QRect(area.left(), area.top() + half + 1, area.width(), area.height() - half),
                      Qt::AlignRight | Qt::AlignTop, delta);
    painter->restore();
}

void ComparisonDelegate::paintMetric(QPainter *painter, const QStyleOptionViewItem &option,
                                     const QModelIndex &index) const
{
    QString label;
    const QStyleOptionViewItem opt = drawPanel(painter, option, index, &label);
    const bool selected = opt.state.testFlag(QStyle::State_Selected);
    const QRect area = opt.rect.adjusted(8, 0, -10, 0);
    painter->save();
    painter->setPen(selected ? opt.palette.color(QPalette::HighlightedText) : opt.palette.color(QPalette::Text));
    painter->drawText(area, Qt::AlignLeft | Qt::AlignVCenter, label);
    const QString better = index.data(ComparisonModel::BetterRole).toString();
    if (!better.isEmpty()) {
        QFont small = option.font;
        small.setPointSizeF(std::max(6.0, option.font.pointSizeF() * 0.85));
        painter->setFont(small);
        painter->setPen(selected ? opt.palette.color(QPalette::HighlightedText) : shade(kMuted, opt));
        painter->drawText(area, Qt::AlignRight | Qt::AlignVCenter, QObject::tr("%1 is better").arg(better));
    }
    painter->restore();
}

QStyleOptionViewItem ComparisonDelegate::drawPanel(QPainter *painter, const QStyleOptionViewItem &option,
                                                   const QModelIndex &index, QString *text) const
{
    QStyleOptionViewItem opt(option);
    initStyleOption(&opt, index);
    *text = opt.text;
    opt.text.clear();
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);
    return opt;
}

QSize ComparisonDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const QSize base = QStyledItemDelegate::sizeHint(option, index);
    if (index.column() < ComparisonModel::FirstRunColumn)
        return base;
    QFont bold = option.font;
    bold.setBold(true);
    const int valueWidth = QFontMetrics(bold).horizontalAdvance(index.data().toString() + QStringLiteral(" ★"));
    const int deltaWidth = option.fontMetrics.horizontalAdvance(index.data(ComparisonModel::DeltaTextRole).toString());
    return {std::max(valueWidth, deltaWidth) + 24, option.fontMetrics.height() * 2 + 10};
}

} // namespace tb
