#pragma once

#include "results/rundirectory.h"

#include <nlohmann/json.hpp>

namespace tb {

/// A run as an llm-d Benchmark Report, schema v0.2 (llm-d/llm-d-benchmark
/// llmdbenchmark/analysis/benchmark_report/schema_v0_2.py; docs/output-files.md "llm-d Benchmark
/// Report"), for `tokenbench-cli export-report`. JSON, which the schema's own loader reads (it parses
/// JSON and YAML alike). What the report holds:
///   - run: uid (a hash of the run's host, start and directory name), start, end and duration;
///   - scenario.load: the load (rate_qps or concurrency), the prompt length, and in its native
///     config the model, the API and the target's address (scheme, host, port and path only: never
///     a key, a user, a query);
///   - results.request_performance.aggregate: request counts, prompt and reply lengths, TTFT, TPOT,
///     ITL and E2E statistics in ms, and the throughputs, all of the whole run (summary "total").
/// Left out, because TokenBench does not know them: the stack (engine, accelerators), time series,
/// observability. A statistic without values (no successful request) is left out too.
class LlmdReport
{
public:
    static constexpr const char *kVersion = "0.2";
    static nlohmann::json fromRun(const RunData &run);
};

} // namespace tb
