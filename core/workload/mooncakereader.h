#pragma once

#include "workload/jsonworkloadreader.h"

namespace tb {

/// The Mooncake trace (--trace, kind "mooncake"): {"timestamp", "input_length", "output_length",
/// "hash_ids"} lines; each is a synthetic request of input_length prompt tokens whose prefix
/// blocks (workloadlimits::kHashBlockTokens each) are named by hash_ids, asking for its recorded
/// output length again.
extern const JsonEntryReader kMooncakeReader;

} // namespace tb
