#pragma once

#include "workload/workloadreader.h"

#include <QHash>

#include <optional>

namespace tb {

/// How reading one JSON entry went.
enum class Parsed { Ok, NoPrompt, Bad, Fatal };

/// The numbers any JSON entry may carry, read (and bounded) before its kind is: an entry reader
/// may adjust them (a trace's output length becomes the cap asked for again).
struct EntryFields {
    std::optional<std::int64_t> maxTokens;
    std::optional<std::int64_t> outputLen; ///< "output_len", or "output_length"
    std::optional<std::int64_t> inputLen;  ///< "input_length": a trace line
};

/// One kind of JSON workload entry, told by its keys: kShareGptReader, kMooncakeReader,
/// kPromptsReader, a file each. A kind keeps no state: it is its two functions. JsonWorkloadReader
/// asks each in turn whether an entry is its kind; what every kind shares ("system", "max_tokens",
/// "output_len", "timestamp") it reads itself.
struct JsonEntryReader {
    /// The kind `j` is when this reader takes it (the file's format is its first entry's kind), or
    /// null when it is not this reader's.
    const char *(*kindOf)(const nlohmann::json &j, const EntryFields &fields);
    /// Fills `e` from `j`; *why says what is wrong when not Ok.
    Parsed (*read)(const nlohmann::json &j, WorkloadRole role, EntryFields &fields, WorkloadEntry &e, QString &why);
};

/// ApproxTokenizer's count of a text: a dataset entry's prompt and reply lengths.
std::int64_t approxTokens(std::string_view text);

/// JSON workload files (--prompt-file, --dataset, --trace): one JSON object per line, or a JSON
/// array of them (ShareGPT's .json), each object read by the JsonEntryReader of its kind.
class JsonWorkloadReader : public WorkloadReader
{
public:
    using WorkloadReader::WorkloadReader;
    bool read(std::string_view data) override;

private:
    bool object(const char *begin, const char *end, int line);
    Parsed entry(const nlohmann::json &j, WorkloadEntry &e, QString &why, const char *&kind);
    /// An entry's "images" (an array) or "image" (one): false with *why when one is refused.
    bool readImages(const nlohmann::json &j, WorkloadEntry &e, QString &why);
    /// A data URL, or a file relative to the workload file's folder that stays inside it.
    std::shared_ptr<const PromptImage> image(const std::string &text, QString &why);

    /// Image files read, by path: a file several entries name is held once.
    QHash<QString, std::shared_ptr<const PromptImage>> m_imageFiles;
    qint64 m_imageFileBytes = 0; ///< theirs together, at most workloadlimits::kMaxImageFilesBytes
    bool readLines(std::string_view data);
    bool readArray(std::string_view data, std::size_t at);
};

} // namespace tb
