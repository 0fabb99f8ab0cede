#pragma once

// Every parameter of the simulated LLM server as one value type, with named presets and a strict
// JSON form (the file `tokenbench-cli sim --config` reads). One table of parameters drives the
// JSON reader and writer and the CLI's flags, so a new parameter is added in one place.

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <optional>

namespace tb::sim {

/// How the natural output length (before max_tokens) is drawn around its mean.
enum class OutputDistribution { Fixed, Uniform, Normal, Exponential };

/// Whose wire format a part of the server speaks: vLLM's (the simulator's own) or llama.cpp's
/// `llama-server`.
enum class Dialect { Vllm, Llamacpp };

struct SimConfig {
    QString model = QStringLiteral("default"); ///< the name /v1/models lists; requests for others get 404
    QStringList aliases;                       ///< more accepted model names
    /// More models served beside `model` (vLLM's LoRA adapters): each listed by /v1/models as its
    /// own, with `model` as its parent. Set, an unknown name gets OpenAI's 404 body exactly.
    QStringList models;
    qint64 seed = 1; ///< output text, output lengths and faults derive from it

    // Time to first token = ttftMs + waiting for the (serial) prefill unit + prefill time, where
    // prefill time = prefillMsPer1k * U/1000 + prefillQuadraticMs * ((P/1000)^2 - (C/1000)^2) for
    // P prompt tokens of which C are cached and U = P - C are computed, + prefillPowerMs *
    // ((P/1000)^prefillExponent - (C/1000)^prefillExponent): a known power law a context sweep's fit
    // can be checked against.
    double ttftMs = 150;           ///< fixed per-request latency before prefill (not shared)
    double prefillMsPer1k = 20;    ///< linear prefill cost per 1000 uncached prompt tokens
    double prefillQuadraticMs = 2; ///< super-linear (attention) term; long contexts cost more
    double prefillPowerMs = 0;     ///< power-law prefill term's coefficient, ms; 0: none
    double prefillExponent = 1.5;  ///< its exponent

    // Decode: continuous batching; each sequence in the batch gets one token per step of
    // stepMs + stepMsPerSeq * batch size.
    double stepMs = 10;
    double stepMsPerSeq = 0.05;
    /// A cold engine (CUDA graphs not captured, caches empty): prefill and decode steps take
    /// warmupFactor × their time at the first request, easing linearly to 1× over warmupS seconds.
    double warmupS = 0;
    double warmupFactor = 1;
    qint64 maxBatch = 64;      ///< sequences decoding at once; more wait in the queue
    qint64 queueLimit = 1024;  ///< requests waiting for a batch slot; more get 503
    qint64 tokensPerChunk = 1; ///< tokens per SSE event after the first (which comes alone)
    /// Periodic stalls: every stallEvery-th decode step of a sequence takes stallMs longer (0: none),
    /// the ~8% of steps stalling a fixed time that failure counts never show.
    qint64 stallEvery = 0;
    double stallMs = 0;

    // Output length: mean = outputTokens + outputRatio * prompt tokens, drawn by outputDist,
    // clamped to [outputMin, outputMax], then to the request's max_tokens.
    double outputTokens = 128;
    double outputRatio = 0;
    OutputDistribution outputDist = OutputDistribution::Normal;
    double outputSpread = 0.3; ///< uniform: ±spread*mean; normal: sd = spread*mean
    qint64 outputMin = 1;
    qint64 outputMax = 4096;
    double reasoningRatio = 0; ///< share of output tokens emitted as reasoning first (chat, messages)
    /// 1: chat completions behave as OpenAI's o-series — reasoning is generated (it takes decode
    /// steps) and counted in usage.completion_tokens_details.reasoning_tokens but never sent, and
    /// a request with max_tokens gets 400 (max_completion_tokens is the field).
    qint64 hideReasoning = 0;
    /// Share of each response's word trigrams that repeat an earlier trigram of that response
    /// (TextSource), so a client's output-redundancy figure has a known answer; 0: words at random.
    double repeatShare = 0;
    /// Share of structured-output replies (response_format) sent broken, not JSON: the k-th is
    /// when ⌊k·rate⌋ passes a whole number (SchemaOutput::brokenAt), so the count is exact.
    double invalidJsonRate = 0;
    /// Share of tool-call replies (a request with tools) whose arguments are sent broken, not
    /// JSON: counted as invalidJsonRate is, over the tool-call replies alone.
    double invalidToolCallRate = 0;

    qint64 prefixCacheTokens = 1000000; ///< prefix cache capacity; 0 disables it
    qint64 kvCacheTokens = 131072;      ///< KV cache size: /metrics' kv_cache_usage_perc = batch's tokens / this
    qint64 maxModelLen = 0;             ///< context length /v1/models reports as max_model_len (vLLM); 0: none

    /// How prompts are counted (usage.prompt_tokens, prefill, cache): a tokenizer.json or .tiktoken
    /// file, or empty for ApproxTokenizer; so a client's calibration meets a server that is not
    /// approx. Output text is generated in ApproxTokenizer tokens either way.
    QString tokenizer;
    qint64 templateTokens = 0; ///< tokens a chat template adds to every chat/messages prompt

    // Faults, decided per request index from the seed (except the rate limits, which are clocked).
    double errorRate = 0;       ///< fraction of requests answered 500
    double cutRate = 0;         ///< fraction of responses cut mid-way (connection closed)
    qint64 rpmLimit = 0;        ///< requests per minute before 429; 0 = none
    qint64 tpmLimit = 0;        ///< prompt + max_tokens per minute before 429; 0 = none
    double headerDelayMs = 0;   ///< slow response headers: the front end holds requests this long
    double headerDelayRate = 1; ///< fraction of requests that get headerDelayMs

    qint64 maxBodyBytes = 32 * 1024 * 1024; ///< larger request bodies get 413
    double idleTimeoutS =
        60; ///< a connection with no request under way and nothing read this long is closed; 0 = never
    qint64 traceCapacity = 100000; ///< finished requests kept for GET /sim/requests
    qint64 maxStreams = 1000;      ///< HTTP/2: concurrent streams per connection (SETTINGS_MAX_CONCURRENT_STREAMS)

    // llama.cpp's llama-server (examples/server, Feb 2025), each behaviour on its own.
    /// 1: a streamed HTTP/1.1 response ends with the connection closed right after its last chunk,
    /// although its headers said keep-alive (httplib treats the content provider's `false` as
    /// "close"); other responses stay kept alive.
    qint64 closeAfterStream = 0;
    /// Requests a connection serves before its last response says "connection: close" (httplib's
    /// Keep-Alive max); 0 = no limit.
    qint64 keepAliveMax = 0;
    qint64 listenBacklog = 4096; ///< listen(2) backlog: httplib's 5 overflows when many connect at once
    /// 1: HTTP/1.1 responses are written as llama.cpp's httplib writes them: Nagle's algorithm on (no
    /// TCP_NODELAY), the headers alone when the request comes, every SSE event a write of its own
    /// (the assistant-role chunk with the first token), the last chunk's line and CRLF apart — so a
    /// small write waits in the kernel while the client has not acknowledged the one before.
    qint64 nagleWrites = 0;
    /// How long a connection waits in the kernel's accept queue before the server takes it, ms:
    /// llama.cpp's accept thread competes with inference for the CPU, so a burst of connects
    /// fills a small backlog before it runs.
    double acceptDelayMs = 0;
    Dialect tokenizeDialect = Dialect::Vllm; ///< POST /tokenize: vLLM's {"count"} or llama.cpp's {"content"}
    /// llama.cpp's per-slot context (n_ctx / n_parallel), tokens: longer prompts are cut as
    /// llama.cpp cuts them, silently; 0 = off.
    qint64 slotContext = 0;
    qint64 timings = 0; ///< 1: final chunk and body carry llama.cpp's `timings` (prompt_n = evaluated tokens)
    Dialect usageDialect = Dialect::Vllm;   ///< llamacpp: usage without details, in the finish chunk
    Dialect metricsDialect = Dialect::Vllm; ///< GET /metrics: vllm:* with histograms, or llamacpp:*
    /// 1: GET /metrics waits while a prefill runs (llama.cpp answers it from its busy main loop).
    qint64 metricsStallWhilePrefilling = 0;
    /// 1: a request whose client left (closed connection, RST_STREAM) keeps its batch slot and
    /// generates to its end, unsent: a server that does not free an abandoned request's capacity.
    qint64 ignoreCancel = 0;

    // GET /dcgm: NVIDIA DCGM exporter's series from a stated power model (docs/simulator.md "GPU
    // telemetry"): the energy counter is idle power × uptime + a fixed energy per output token
    // written and per prompt token admitted, shared evenly by the GPUs.
    qint64 gpus = 1;                  ///< GPUs the model is spread over (tensor parallel)
    double gpuIdleW = 60;             ///< all GPUs together, W
    double gpuJPerToken = 0.4;        ///< per output token written, J (all GPUs together)
    double gpuJPerPromptToken = 0.02; ///< per prompt token admitted, J (all GPUs together)
    qint64 gpuMemoryMib = 81920;      ///< each GPU's framebuffer; 90 % shows as used (vLLM's preallocation)

    /// Whether `name` is the model, one of its aliases or one of `models`.
    bool servesModel(const QString &name) const;
    /// Cross-field problems ("output_min: must not exceed output_max (…)"); empty when valid.
    QString validate() const;

    /// Every parameter (including model and aliases), snake_case keys.
    nlohmann::json toJson() const;
    /// Reads a configuration: the preset named by "preset" (or `basePreset` when not empty, which
    /// wins), then every other key on top. Unknown keys, wrong types and values out of range are
    /// errors: std::nullopt and *error = "key: problem (accepted: …)".
    static std::optional<SimConfig> fromJson(const nlohmann::json &json, QString *error,
                                             const QString &basePreset = {});

    /// One parameter by its JSON key from text (a command-line value). On error *error says what
    /// is accepted, without the key.
    bool setFromText(const QString &key, const QString &text, QString *error);

    /// A parameter for building flags: key (snake_case), value name and help text.
    struct Parameter {
        QString key;
        QString valueName;
        QString help;
    };
    static QList<Parameter> parameters();

    static std::optional<SimConfig> preset(const QString &name);
    static QStringList presetNames();
    /// One line about a preset, for `--list-presets`.
    static QString presetDescription(const QString &name);
};

QString outputDistributionName(OutputDistribution dist);
std::optional<OutputDistribution> outputDistributionFromName(const QString &name);
QString dialectName(Dialect dialect);

} // namespace tb::sim
