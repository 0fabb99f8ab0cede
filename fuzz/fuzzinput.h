#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace tb::fuzz {

/// Inputs above this are skipped: every parser here bounds its own lines and bodies far above it,
/// and small inputs keep each run fast enough for libFuzzer to explore.
constexpr std::size_t kMaxInput = 16 * 1024;

inline std::string_view text(const std::uint8_t *data, std::size_t size)
{
    return {reinterpret_cast<const char *>(data), size};
}

/// The input cut into non-empty pieces, as socket reads would deliver it. The cut points come from
/// the input's own last bytes (FuzzedDataProvider takes integers from the end), so the fuzzer
/// chooses them while every byte still belongs to the stream. Empty pieces are never produced: a
/// read returns at least one byte.
inline std::vector<std::string_view> pieces(const std::uint8_t *data, std::size_t size)
{
    const std::string_view whole = text(data, size);
    FuzzedDataProvider choices(data, size);
    std::vector<std::size_t> cuts;
    const int count = choices.ConsumeIntegralInRange<int>(1, 16);
    for (int i = 0; i < count && size > 1; ++i)
        cuts.push_back(choices.ConsumeIntegralInRange<std::size_t>(1, size - 1));
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    std::vector<std::string_view> out;
    std::size_t from = 0;
    for (const std::size_t cut : cuts) {
        out.push_back(whole.substr(from, cut - from));
        from = cut;
    }
    if (from < size)
        out.push_back(whole.substr(from));
    return out;
}

/// Every byte on its own: the finest split, where a CRLF or a BOM always straddles two reads.
inline std::vector<std::string_view> bytes(const std::uint8_t *data, std::size_t size)
{
    std::vector<std::string_view> out;
    out.reserve(size);
    for (std::size_t i = 0; i < size; ++i)
        out.push_back(text(data + i, 1));
    return out;
}

/// A path in a directory of this process's own under the temporary directory, removed at exit:
/// for the parsers that take a file name (workload files, tokenizer files, run directories), which
/// then read the input through the same open and size checks as a user's file.
inline std::filesystem::path scratchPath(const std::string &name)
{
    static const std::filesystem::path directory = [] {
        std::string pattern = (std::filesystem::temp_directory_path() / "tokenbench-fuzz-XXXXXX").string();
        if (!mkdtemp(pattern.data())) {
            std::perror("mkdtemp");
            std::abort();
        }
        static const std::filesystem::path made = pattern;
        std::atexit([] {
            std::error_code ignored;
            std::filesystem::remove_all(made, ignored);
        });
        return made;
    }();
    return directory / name;
}

/// Writes `bytes` as the whole content of `path`.
inline void writeFile(const std::filesystem::path &path, std::string_view bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    if (!out.flush()) {
        std::perror(path.c_str());
        std::abort();
    }
}

/// A broken invariant is a finding: say which, and abort so libFuzzer saves the input.
[[noreturn]] inline void violated(const char *what)
{
    std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
    std::abort();
}

/// The invariant of every incremental parser: what it makes of a stream (`outcome(reads)`) does not
/// depend on how the stream is cut into reads. `what` names the outcome in the finding.
template<typename Outcome>
void checkSplitsAgree(const std::uint8_t *data, std::size_t size, Outcome outcome, const char *what)
{
    const auto whole = outcome(std::vector<std::string_view>{text(data, size)});
    if (outcome(pieces(data, size)) != whole)
        violated((std::string(what) + " differ when the bytes are split at the chosen points").c_str());
    if (outcome(bytes(data, size)) != whole)
        violated((std::string(what) + " differ when the bytes arrive one by one").c_str());
}

} // namespace tb::fuzz
