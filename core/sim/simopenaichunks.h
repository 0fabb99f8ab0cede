#pragma once

// What the OpenAI chat and completions APIs share on the simulator's side: their stream of
// "data: {chunk}" lines ending in [DONE], their usage object and finish reasons.

#include "sim/simapi.h"

#include <nlohmann/json.hpp>

namespace tb::sim {

/// The system_fingerprint of the simulator's chat chunks and bodies.
inline constexpr const char kOpenAiFingerprint[] = "fp_tokenbench_sim";

/// How one of the two APIs writes its chunks' choice (JSON text up to and after the text).
struct OpenAiChunkFormat {
    const char *object;        ///< "chat.completion.chunk"
    bool fingerprint;          ///< chunks carry system_fingerprint
    const char *firstChoice;   ///< the choice of the chunk sent with the headers, or nullptr
    const char *contentOpen;   ///< a text chunk's choice up to its text
    const char *reasoningOpen; ///< a reasoning chunk's choice up to its text
    const char *deltaClose;    ///< after a chunk's text
    const char *finishOpen;    ///< the finish chunk's choice up to its reason
};

class OpenAiChunkStream final : public SimStream
{
public:
    OpenAiChunkStream(const ResponseMeta &meta, const OpenAiChunkFormat &format);

    void start(std::string &out, const Usage &prompt) override;
    void delta(std::string &out, bool reasoning, std::string_view text) override;
    /// Usage (when asked for, or llama.cpp's in the finish chunk) and `timings` in the finish
    /// reason's chunk, then [DONE].
    void finish(std::string &out, bool stoppedByLength, const Usage &usage, const Timings *timings) override;

private:
    ResponseMeta m_meta;
    OpenAiChunkFormat m_format;
    std::string m_head;          ///< chunk JSON up to the choices
    std::string m_tail;          ///< after the choices
    bool m_toolCallOpen = false; ///< the tool call's first delta (its id and name) went
};

/// The simulator's side of the OpenAI chat and completions APIs: stream_options taken, chunks
/// streamed in the dialect's format.
class OpenAiChunkApi : public SimApi
{
public:
    bool takesStreamOptions() const override { return true; }
    std::unique_ptr<SimStream> stream(const ResponseMeta &meta) const override;

protected:
    OpenAiChunkApi(Endpoint endpoint, const char *name, const char *path, const char *idPrefix,
                   const OpenAiChunkFormat &format)
        : SimApi(endpoint, name, path, idPrefix)
        , m_format(format)
    {}

private:
    const OpenAiChunkFormat &m_format;
};

/// llama.cpp reports the three counts only: what its cache saved is in `timings`.
nlohmann::json openAiUsage(const ResponseMeta &meta, const Usage &usage);
/// "length", else "tool_calls" for a tool call's reply (meta.toolName), else "stop".
const char *openAiFinishReason(const ResponseMeta &meta, bool stoppedByLength);
/// A non-streamed body of either API: `choice` (the message or text) gets its index, logprobs
/// and finish reason, then goes into the envelope with usage and, when given, `timings`.
std::string openAiCompleteBody(const ResponseMeta &meta, const char *object, bool fingerprint, nlohmann::json choice,
                               bool stoppedByLength, const Usage &usage, const Timings *timings);

} // namespace tb::sim
