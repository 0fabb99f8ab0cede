#pragma once

#include "workload/workloadfile.h"

#include <memory>
#include <string_view>

namespace tb {

/// Reads one workload file format from a file's bytes into entries and counts; one instance per
/// load. This base holds what every format shares — the file's name and role, the options, the
/// bounds of workloadlimits.h and how a broken line is refused or skipped — and picks the reader a
/// file's first bytes call for (forData). A new format is a subclass in a file of its own, and a
/// line in forData.
class WorkloadReader
{
public:
    WorkloadReader(const QString &path, WorkloadRole role, const WorkloadOptions &options, QString *error);
    virtual ~WorkloadReader();
    WorkloadReader(const WorkloadReader &) = delete;
    WorkloadReader &operator=(const WorkloadReader &) = delete;

    /// The reader for `data` (a byte-order mark is taken off it): a JSON array or JSON lines
    /// (JsonWorkloadReader), or for a trace anything else the Azure CSV (AzureCsvReader). Null,
    /// with *error set, when there is nothing in it to read.
    static std::unique_ptr<WorkloadReader> forData(std::string_view &data, const QString &path, WorkloadRole role,
                                                   const WorkloadOptions &options, QString *error);

    /// Reads every entry of `data`; false, with *error set, when the file is refused.
    virtual bool read(std::string_view data) = 0;

    std::vector<WorkloadEntry> entries;
    WorkloadStats stats;

protected:
    /// Refuses the file; `line` 0: no line to name.
    bool fail(int line, const QString &why);
    /// A broken line: refused, or skipped and counted with skipBadLines.
    bool bad(int line, const QString &why);
    bool add(WorkloadEntry &&e);

    /// The file being read: what relative paths in it (a dataset's images) are relative to.
    const QString &path() const { return m_path; }

    const WorkloadRole m_role;
    const WorkloadOptions m_options;

private:
    const QString m_path;
    QString *const m_error;
};

/// Calls `each(line number, line)` for every line of `data` without its '\n' (a last line without
/// one included) until `each` returns false; returns whether all were read.
template<typename Each> bool forEachLine(std::string_view data, Each each)
{
    int line = 0;
    for (std::size_t at = 0; at < data.size();) {
        std::size_t eol = data.find('\n', at);
        if (eol == std::string_view::npos)
            eol = data.size();
        if (!each(++line, data.substr(at, eol - at)))
            return false;
        at = eol + 1;
    }
    return true;
}

} // namespace tb
