#pragma once

#include <QtGlobal>

#include <cstdint>

/// Bounds every workload file reader keeps, so that a hostile or mistaken file is refused rather
/// than exhausting the machine.
namespace tb::workloadlimits {

constexpr std::int64_t kHashBlockTokens = 512; ///< Mooncake's block size per hash id
constexpr qint64 kMaxFileBytes = qint64(8) << 30;
constexpr qint64 kMaxLineBytes = qint64(64) << 20; ///< a JSONL line or a JSON array's element
constexpr qint64 kMaxCsvLineBytes = 4096;          ///< a CSV trace's row: three numbers and a date
constexpr std::int64_t kMaxEntries = 20'000'000;
constexpr int kBadLinesNamed = 10;
/// The image files a dataset names, together (each is at most limits::kMaxImageFileBytes): every
/// one is held in memory for the run.
constexpr qint64 kMaxImageFilesBytes = qint64(1) << 30; ///< bad line numbers kept for the summary

} // namespace tb::workloadlimits
