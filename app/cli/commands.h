#pragma once

#include "analysis/tracetimeline.h"

#include <QStringList>

namespace tb::cli {

// Each subcommand takes its arguments with args[0] == the command name, returns the process exit
// code (docs/SPEC.md §1) and may run the event loop of the QCoreApplication that main() created.
int runCommand(const QStringList &args);
int simCommand(const QStringList &args);
int compareCommand(const QStringList &args);
int reportCommand(const QStringList &args);
int mergeCommand(const QStringList &args);
int exportTraceCommand(const QStringList &args);
int exportReportCommand(const QStringList &args);

/// "Wrote FILE (N requests, M chunk instants, X MB…)": what export-trace and run --trace-out print.
QString traceWrittenText(const QString &path, const TraceTimeline::Stats &stats);
int importCommand(const QStringList &args);

} // namespace tb::cli
