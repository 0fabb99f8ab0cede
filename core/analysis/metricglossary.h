#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace tb {

/// What each metric means, in one place for every screen: the glossary resource
/// (resources/metric-glossary.json, after docs/SPEC.md §3 and docs/metrics.md) compiled into the
/// core. Help ▸ Metrics lists it; summary and comparison rows take their tooltips from it.
class MetricGlossary
{
public:
    struct Entry {
        QString term;
        QStringList keys; ///< row keys (or key prefixes) it explains: "ttft", "window_s"
        QString definition;
    };

    /// Every entry, in the resource's order.
    static const QList<Entry> &entries();
    /// The entry for a summary or comparison row key: the longest listed key that is the row key
    /// or its prefix at an underscore ("ttft_from_schedule_p99" → "ttft_from_schedule"); null
    /// when none explains it.
    static const Entry *find(const QString &rowKey);
    /// find()'s definition, or empty.
    static QString definitionOf(const QString &rowKey);
};

} // namespace tb
