// llm-d Benchmark Reports as import reads them (foreignruns_p.h): the file's syntax, YAML
// (parseYaml, libyaml's events) or JSON (parseJson), then readLlmdReport on the value. No crash or
// undefined behaviour on any input, and what the YAML reader builds holds its bounds: nesting at most
// 64, at most 10^6 values, valid UTF-8 (dump() refuses anything else), and a refusal says where.
//
// The input's first byte chooses the syntax: odd YAML ('y'), even JSON ('j'). The rest is the file.
#include "fuzzinput.h"
#include "results/foreignruns_p.h"

#include <QByteArray>
#include <QString>

#include <algorithm>
#include <utility>
#include <vector>

namespace {

/// Nesting depth and number of values of `root`, walked without recursion.
void measure(const nlohmann::json &root, std::size_t *depth, std::size_t *values)
{
    std::vector<std::pair<const nlohmann::json *, std::size_t>> todo{{&root, 1}};
    *depth = *values = 0;
    while (!todo.empty()) {
        const auto [value, level] = todo.back();
        todo.pop_back();
        ++*values;
        if (!value->is_structured())
            continue;
        *depth = std::max(*depth, level);
        for (const nlohmann::json &child : *value)
            todo.emplace_back(&child, level + 1);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size < 1 || size > tb::fuzz::kMaxInput)
        return 0;
    const QByteArray bytes(reinterpret_cast<const char *>(data + 1), qsizetype(size - 1));
    std::optional<nlohmann::json> value;
    if (data[0] % 2 == 1) {
        QString problem;
        value = tb::foreign::parseYaml(bytes, &problem);
        if (!value) {
            if (!problem.startsWith(QStringLiteral("line ")) && problem != QStringLiteral("without a document") &&
                problem != QStringLiteral("an empty document"))
                tb::fuzz::violated("a YAML refusal that does not say where");
            return 0;
        }
        std::size_t depth = 0, values = 0;
        measure(*value, &depth, &values);
        if (depth > 64)
            tb::fuzz::violated("YAML nested deeper than the bound");
        if (values > 1'000'000)
            tb::fuzz::violated("more YAML values than the bound");
        // Throws (and so aborts the run) on a string that is not UTF-8.
        (void)value->dump();
    } else {
        value = tb::foreign::parseJson(bytes);
        if (!value)
            return 0;
    }
    if (!tb::foreign::isLlmdReport(*value))
        return 0;
    QString error;
    const auto runs = tb::foreign::readLlmdReport(*value, QStringLiteral("fuzz.yaml"), &error);
    if (!runs && error.isEmpty())
        tb::fuzz::violated("a report refused without saying why");
    return 0;
}
