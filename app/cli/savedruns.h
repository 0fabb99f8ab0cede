#pragma once

#include "cliparser.h"

#include "results/rundirectory.h"

#include <QCommandLineOption>

#include <optional>
#include <vector>

namespace tb::cli {

/// What `compare` and `report` share: their DIR arguments (run directories, or session directories
/// that stand for their runs in order) loaded with their records, and the --baseline option.
struct SavedRuns {
    std::vector<RunData> runs;
    int baseline = 0; ///< index into runs
    /// The repeated-run directories (run --repeat) among the arguments: each stands for its
    /// finished runs, in order.
    QStringList repeatDirectories;
};

/// The DIR... argument both commands take.
void addSavedRunsArgument(CliParser &cli);

/// The --baseline option both commands offer.
QCommandLineOption baselineOption();

/// Loads the positional arguments after parse(). On bad input prints "tokenbench-cli CMD: …"
/// naming the directory and returns the exit code in *exitCode (2: a directory that is not a run,
/// a damaged or newer-format file, a bad --baseline); nothing else is printed or written.
std::optional<SavedRuns> loadSavedRuns(CliParser &cli, const QCommandLineOption &baseline, int *exitCode);

} // namespace tb::cli
