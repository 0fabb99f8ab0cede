#pragma once

#include "workload/workloadreader.h"

namespace tb {

/// The Azure LLM inference trace (--trace, format "azure-csv"): a CSV whose header names
/// TIMESTAMP, ContextTokens and GeneratedTokens (other columns ignored); each row is a synthetic
/// request of that many prompt tokens asking for that many output tokens, at that time.
class AzureCsvReader : public WorkloadReader
{
public:
    using WorkloadReader::WorkloadReader;
    bool read(std::string_view data) override;
};

} // namespace tb
