// RunReader::load on a run directory whose requests.csv (and chunks.jsonl) someone else wrote — a
// shard from another machine, a file edited by hand, a damaged disk: no crash, hang or undefined
// behaviour on any file; the summary and time series are recomputed from the records (no
// summary.json), as `compare` and `report` do for a run that crashed; and what was read, written back
// with RunWriter's formats, reads back to the same text (reading then writing is a fixed point).
//
// The input is requests.csv, then optionally a NUL byte and chunks.jsonl after it.
#include "fuzzinput.h"
#include "results/rundirectory.h"
#include "results/runfiles.h"

namespace {

/// A run.json for a run of two stages on two instances (the seeds' URL first), as RunWriter writes it.
const tb::RunInfo &runInfo()
{
    static const tb::RunInfo info = [] {
        tb::RunConfig config;
        config.target.url = QStringLiteral("http://127.0.0.1:18732/v1");
        config.target.replicas = {QStringLiteral("http://127.0.0.1:18733/v1")};
        config.target.model = QStringLiteral("fast");
        tb::RunInfo i = tb::RunInfo::begin(config);
        i.stages = {{QStringLiteral("c=1"), tb::LoadMode::Concurrency, 1, 1000, 0, 0},
                    {QStringLiteral("r=2"), tb::LoadMode::Rate, 2, 1000, 0, 0}};
        return i;
    }();
    return info;
}

std::filesystem::path runDirectory(const char *name)
{
    const std::filesystem::path directory = tb::fuzz::scratchPath(name);
    std::filesystem::create_directories(directory);
    tb::fuzz::writeFile(directory / tb::runfiles::kRunJson, tb::runfiles::runInfoToJson(runInfo()).dump());
    return directory;
}

std::optional<tb::RunData> load(const std::filesystem::path &directory, std::string_view requests,
                                std::string_view chunks)
{
    tb::fuzz::writeFile(directory / tb::runfiles::kRequestsCsv, requests);
    tb::fuzz::writeFile(directory / tb::runfiles::kChunksJsonl, chunks);
    QString error;
    auto data = tb::RunReader::load(QString::fromStdString(directory.string()), &error, tb::RunReader::Chunks);
    if (!data && error.isEmpty())
        tb::fuzz::violated("refused without saying why");
    if (data && (!data->summaryRecomputed || data->records.size() != data->itlMeanMs.size()))
        tb::fuzz::violated("loaded without recomputing the summary, or an itl_mean_ms per record");
    return data;
}

/// The records as RunWriter writes them: requests.csv and chunks.jsonl.
std::pair<std::string, std::string> written(const tb::RunData &data)
{
    std::pair<std::string, std::string> out{tb::runfiles::requestsCsvHeader(data.info), {}};
    for (const tb::RequestRecord &r : data.records) {
        tb::runfiles::appendRequestRow(out.first, r, data.info);
        tb::runfiles::appendChunksLine(out.second, r);
    }
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size > tb::fuzz::kMaxInput)
        return 0;
    static const std::filesystem::path given = runDirectory("given"), rewritten = runDirectory("rewritten");
    const std::string_view input = tb::fuzz::text(data, size);
    const std::size_t nul = std::min(input.find('\0'), input.size());
    const auto read = load(given, input.substr(0, nul), input.substr(std::min(nul + 1, input.size())));
    if (!read)
        return 0;
    const auto [requests, chunks] = written(*read);
    const auto again = load(rewritten, requests, chunks);
    if (!again)
        tb::fuzz::violated("what was read, written back, does not load");
    if (written(*again) != std::pair(requests, chunks))
        tb::fuzz::violated("what was read, written back and read again, writes a different requests.csv/chunks.jsonl");
    return 0;
}
