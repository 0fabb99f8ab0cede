#pragma once

#include "results/rundirectory.h"

#include <QStringList>

#include <vector>

namespace tb {

/// Runs named by directory arguments, read with their records: what `compare` and `report` are
/// given and what the comparison view opens. A session directory stands for its runs in target
/// order (expandRunDirectories); a file is another tool's result, imported (ForeignRuns::read),
/// one run per benchmark in it.
struct LoadedRuns {
    /// What a folder that cannot be read does: the CLI stops (its exit code says so), the
    /// comparison view names it and compares the others.
    enum Unreadable { Skip, Stop };

    std::vector<RunData> runs; ///< in argument order
    QStringList notes;         ///< session runs that never started, left out
    QStringList problems;      ///< "DIR: why" per folder that could not be read; with Stop, the first

    static LoadedRuns load(const QStringList &arguments, Unreadable unreadable);
};

} // namespace tb
