#include "editors/promptestimate.h"

#include "engine/promptsource.h"
#include "metrics/tokenizer.h"

namespace tb {

PromptEstimate estimatePrompts(const PromptConfig &config, int maxPrompts)
{
    PromptEstimate estimate;
    // Token counts do not depend on the seed (synthetic text is sized exactly), so any seed does.
    const auto source = PromptSource::create(config, 1, &estimate.error);
    if (!source)
        return estimate;
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
