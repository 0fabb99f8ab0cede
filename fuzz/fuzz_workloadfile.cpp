// WorkloadFile::load, on workload files others write (prompt JSONL, ShareGPT JSON and JSONL,
// Mooncake JSONL, the Azure CSV trace): no crash or undefined behaviour on any file, and what it
// keeps holds its bounds — token counts in range, a trace in time order, the counts of the summary's
// "workload" block adding up and reading back.
//
// The input's first byte chooses how the rest is read: bits 0-1 the role (0 prompt file, 1 dataset,
// 2 trace, 3 as 0), bit 2 skip bad lines, bit 3 sample 2 entries, bit 4 a prompt-length filter, bit 5 an
// output-length filter. The rest is the file.
#include "config/runconfig.h"
#include "fuzzinput.h"
#include "workload/workloadfile.h"
#include "workload/workloadlimits.h"

namespace {

tb::WorkloadOptions optionsOf(std::uint8_t choice)
{
    tb::WorkloadOptions o;
    o.skipBadLines = choice & 0x04;
    o.sample = choice & 0x08 ? 2 : 0;
    if (choice & 0x10)
        o.promptLen = {2, 50};
    if (choice & 0x20)
        o.outputLen = {1, 100};
    o.seed = choice;
    return o;
}

void check(const tb::WorkloadFile &file, tb::WorkloadRole role)
{
    const tb::WorkloadStats &s = file.stats();
    if (s.kept != std::int64_t(file.entries().size()) || file.entries().empty())
        tb::fuzz::violated("kept differs from the entries returned (or none returned)");
    if (s.read != s.kept + s.filteredOut + s.sampledOut)
        tb::fuzz::violated("read differs from kept + filtered out + sampled out");
    if (s.badLineNumbers.size() > s.badLines)
        tb::fuzz::violated("more bad line numbers than bad lines");
    std::int64_t lastTime = -1;
    for (const tb::WorkloadEntry &e : file.entries()) {
        if (e.promptTokens < 0 ||
            (e.synthetic && (e.promptTokens < 1 || e.promptTokens > tb::limits::kMaxPromptTokens)))
            tb::fuzz::violated("a prompt length out of range");
        if (e.outputTokens < -1 || e.outputTokens > tb::limits::kMaxTokens)
            tb::fuzz::violated("an output length out of range");
        if (e.outputIsCap && e.outputTokens < 1)
            tb::fuzz::violated("an output cap below 1");
        if (e.hashIds.size() > std::size_t(e.promptTokens / tb::workloadlimits::kHashBlockTokens + 1))
            tb::fuzz::violated("more hash ids than the prompt has blocks");
        if (e.line < 1)
            tb::fuzz::violated("an entry without a line");
        if (role == tb::WorkloadRole::Trace) {
            if (e.timeNs < lastTime)
                tb::fuzz::violated("a trace out of time order");
            lastTime = e.timeNs;
        } else if (e.timeNs != -1) {
            tb::fuzz::violated("a time on an entry that is not from a trace");
        }
    }
    const tb::WorkloadStats back = tb::WorkloadStats::fromJson(s.toJson());
    if (back.format != s.format || back.read != s.read || back.badLines != s.badLines ||
        back.badLineNumbers != s.badLineNumbers || back.noPrompt != s.noPrompt || back.filteredOut != s.filteredOut ||
        back.sampledOut != s.sampledOut || back.kept != s.kept)
        tb::fuzz::violated("the workload block of summary.json does not read back");
    s.describe();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size < 1 || size > tb::fuzz::kMaxInput)
        return 0;
    const auto role = tb::WorkloadRole((data[0] & 0x03) % 3);
    const tb::WorkloadOptions options = optionsOf(data[0]);
    static const std::filesystem::path path = tb::fuzz::scratchPath("workload");
    tb::fuzz::writeFile(path, tb::fuzz::text(data + 1, size - 1));
    QString error;
    const auto file = tb::WorkloadFile::load(QString::fromStdString(path.string()), role, options, &error);
    if (file)
        check(*file, role);
    else if (error.isEmpty())
        tb::fuzz::violated("refused without saying why");
    return 0;
}
