#include "workload/workloadreader.h"

#include "workload/azurecsvreader.h"
#include "workload/jsonworkloadreader.h"
#include "workload/workloadlimits.h"

namespace tb {

WorkloadReader::WorkloadReader(const QString &path, WorkloadRole role, const WorkloadOptions &options, QString *error)
    : m_role(role)
    , m_options(options)
    , m_path(path)
    , m_error(error)
{}

WorkloadReader::~WorkloadReader() = default;

std::unique_ptr<WorkloadReader> WorkloadReader::forData(std::string_view &data, const QString &path, WorkloadRole role,
                                                        const WorkloadOptions &options, QString *error)
{
    if (data.size() >= 3 && data.substr(0, 3) == "\xEF\xBB\xBF")
        data.remove_prefix(3);
    const std::size_t first = data.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) {
        if (error)
            *error = QStringLiteral("'%1': no prompts in it").arg(path);
        return nullptr;
    }
    if (role == WorkloadRole::Trace && data[first] != '[' && data[first] != '{')
        return std::make_unique<AzureCsvReader>(path, role, options, error);
    return std::make_unique<JsonWorkloadReader>(path, role, options, error);
}

bool WorkloadReader::fail(int line, const QString &why)
{
    if (m_error)
        *m_error = line > 0 ? QStringLiteral("'%1' line %2: %3").arg(m_path).arg(line).arg(why)
                            : QStringLiteral("'%1': %2").arg(m_path, why);
    return false;
}

bool WorkloadReader::bad(int line, const QString &why)
{
    if (!m_options.skipBadLines)
        return fail(line, why);
    ++stats.badLines;
    if (stats.badLineNumbers.size() < workloadlimits::kBadLinesNamed)
        stats.badLineNumbers << line;
    return true;
}

bool WorkloadReader::add(WorkloadEntry &&e)
{
    if (std::int64_t(entries.size()) >= workloadlimits::kMaxEntries)
        return fail(e.line, QStringLiteral("more than %1 entries; split the file or sample it beforehand")
                                .arg(workloadlimits::kMaxEntries));
    ++stats.read;
    entries.push_back(std::move(e));
    return true;
}

} // namespace tb
