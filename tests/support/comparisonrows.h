#pragma once

#include "analysis/comparison.h"

namespace tb::test {

/// The row `key` of the table, or nullptr when it has none.
const ComparisonTable::Row *findRow(const ComparisonTable &table, const QString &key);
/// The row `key`, one the table must have: a test that asks for another stops there.
const ComparisonTable::Row &row(const ComparisonTable &table, const char *key);

} // namespace tb::test
