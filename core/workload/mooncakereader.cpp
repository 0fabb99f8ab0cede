#include "workload/mooncakereader.h"

#include "workload/workloadlimits.h"

#include <algorithm>

namespace tb {

namespace {

const char *kindOfMooncake(const nlohmann::json &, const EntryFields &fields)
{
    return fields.inputLen ? "mooncake" : nullptr;
}

Parsed readMooncake(const nlohmann::json &j, WorkloadRole, EntryFields &fields, WorkloadEntry &e, QString &why)
{
    e.synthetic = true;
    e.promptTokens = *fields.inputLen;
    if (const auto h = j.find("hash_ids"); h != j.end()) {
        const std::size_t maxBlocks = std::size_t(*fields.inputLen / workloadlimits::kHashBlockTokens + 1);
        if (!h->is_array() || h->size() > maxBlocks) {
            why = QStringLiteral("\"hash_ids\" must be an array of at most input_length/%1 + 1 ids")
                      .arg(workloadlimits::kHashBlockTokens);
            return Parsed::Bad;
        }
        for (const auto &id : *h) {
            if (!id.is_number_unsigned() && !(id.is_number_integer() && id.get<std::int64_t>() >= 0)) {
                why = QStringLiteral("\"hash_ids\" must hold whole numbers >= 0");
                return Parsed::Bad;
            }
            e.hashIds.push_back(id.get<std::uint64_t>());
        }
    }
    // A trace's output length is what the request produced: it is asked for again.
    if (fields.outputLen) {
        fields.outputLen = std::max<std::int64_t>(1, *fields.outputLen);
        e.outputIsCap = true;
    }
    return Parsed::Ok;
}

} // namespace

const JsonEntryReader kMooncakeReader{&kindOfMooncake, &readMooncake};

} // namespace tb
