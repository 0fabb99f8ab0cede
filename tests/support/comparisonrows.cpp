#include "support/comparisonrows.h"

#include <algorithm>

namespace tb::test {

const ComparisonTable::Row *findRow(const ComparisonTable &table, const QString &key)
{
    const std::vector<ComparisonTable::Row> &rows = table.rows();
    const auto it = std::find_if(rows.begin(), rows.end(), [&key](const auto &r) { return r.key == key; });
    return it == rows.end() ? nullptr : &*it;
}

const ComparisonTable::Row &row(const ComparisonTable &table, const char *key)
{
    if (const ComparisonTable::Row *r = findRow(table, QLatin1String(key)))
        return *r;
    qFatal("no row %s", key);
}

} // namespace tb::test
