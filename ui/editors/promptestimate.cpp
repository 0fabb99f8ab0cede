#include "editors/promptestimate.h"

#include "tokenize/tokenizer.h"
#include "workload/promptsource.h"

#include <algorithm>
#include <climits>

namespace tb {

PromptEstimate estimatePrompts(const PromptConfig &config, int maxPrompts, const QString &trace)
{
    PromptEstimate estimate;
    // Token counts do not depend on the seed (synthetic text is sized exactly), so any seed does.
    // The prompts as written: a file's entries are counted so, and each request's salt tag is a few
    // tokens of TokenBench's own, not of the workload.
    PromptConfig written = config;
    written.repeat = true;
    const auto source = PromptSource::create(written, 1, &estimate.error, nullptr, {}, trace);
    if (!source)
        return estimate;
    if (source->workloadStats()) {
        // Every entry's size is known without building its text (trace entries are synthetic).
        const std::int64_t system = source->defaultSystemTokens();
        estimate.systemTokens = system;
        double total = 0;
        for (const WorkloadEntry &e : source->entries()) {
            const std::int64_t tokens = e.promptTokens + (e.system.empty() ? system : 0);
            total += double(tokens);
            estimate.promptLengths.record(double(tokens));
            if (e.outputTokens >= 0)
                estimate.outputLengths.record(double(e.outputTokens));
        }
        estimate.workload = source->workloadStats();
        estimate.prompts = int(std::min<std::size_t>(source->entries().size(), std::size_t(INT_MAX)));
        estimate.meanTokens = total / double(source->entries().size());
        return estimate;
    }
    const std::size_t lines = source->fileLines();
    estimate.prompts = lines > 0 ? int(qMin<std::size_t>(lines, std::size_t(maxPrompts))) : 1;
    estimate.sampled = lines > std::size_t(estimate.prompts);
    qint64 total = 0;
    for (int i = 0; i < estimate.prompts; ++i) {
        const Prompt p = source->prompt(std::uint64_t(i));
        total += p.tokens;
        if (i == 0)
            estimate.systemTokens = ApproxTokenizer::countUtf8(p.system.data(), p.system.size());
    }
    estimate.meanTokens = double(total) / estimate.prompts;
    return estimate;
}

} // namespace tb
