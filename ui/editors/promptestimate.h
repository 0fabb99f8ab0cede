#pragma once

#include "config/runconfig.h"
#include "metrics/loghistogram.h"
#include "workload/workloadfile.h"

#include <QString>
#include <QStringList>

namespace tb {

/// The prompt tokens requests will send, counted the way the engine builds them (tb::PromptSource
/// and tb::ApproxTokenizer).
struct PromptEstimate {
    double meanTokens = 0;   ///< per request: system + user (+ all messages for chat lines)
    qint64 systemTokens = 0; ///< of which the system prompt (first prompt)
    int prompts = 0;         ///< prompts averaged over
    bool sampled = false;    ///< a prompt file longer than the sample: only its first lines were read
    QString error;           ///< why no prompt can be built (e.g. a bad prompt file line)
    /// A workload file: what reading it kept, and its requests' prompt and output lengths (approx
    /// tokens; outputs: the entries that have one) over every entry.
    std::optional<WorkloadStats> workload;
    LogHistogram promptLengths;
    LogHistogram outputLengths;
};
/// `trace`: LoadConfig::trace. A workload file's mean is over all its entries.
PromptEstimate estimatePrompts(const PromptConfig &config, int maxPrompts = 1000, const QString &trace = {});

} // namespace tb
