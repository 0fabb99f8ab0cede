#include "config/configfield.h"

#include "config/jsonreader.h"
#include "config/runconfig_p.h"

#include <QtGlobal>

namespace tb {

namespace {

// The members of enum type, named: EnumAccess is made from them by enumAccess() below.
tb::ApiKind &apiOf(RunConfig &c)
{
    return c.target.api;
}
tb::Balance &balanceOf(RunConfig &c)
{
    return c.target.balance;
}
tb::TransportKind &transportOf(RunConfig &c)
{
    return c.target.transport;
}
tb::HttpVersion &httpVersionOf(RunConfig &c)
{
    return c.target.httpVersion;
}
tb::MaxTokensField &maxTokensFieldOf(RunConfig &c)
{
    return c.request.maxTokensField;
}
tb::LoadMode &loadModeOf(RunConfig &c)
{
    return c.load.mode;
}
tb::Arrival &arrivalOf(RunConfig &c)
{
    return c.load.arrival;
}

template<typename E, E &(*Ref)(RunConfig &), QString (*Name)(E), std::optional<E> (*FromName)(const QString &),
         QString (*Names)()>
EnumAccess enumAccess()
{
    return {
        // Reading through the reference changes nothing; one accessor serves both ways.
        [](const RunConfig &c) { return int(Ref(const_cast<RunConfig &>(c))); },
        [](RunConfig &c, int v) { Ref(c) = E(v); },
        [](int v) { return Name(E(v)); },
        [](const QString &name) -> std::optional<int> {
            if (const auto e = FromName(name))
                return int(*e);
            return std::nullopt;
        },
        Names,
    };
}

#define TB_REF(T, member) FieldRef<T>([](RunConfig &c) -> T & { return c.member; })

using Id = ConfigFieldId;
using Type = ConfigType;
const nlohmann::json null;

QList<ConfigField> makeFields()
{
    const double maxDuration = double(limits::kMaxDurationMs);
    const double maxRequests = double(limits::kMaxRequests);
    QList<ConfigField> fields{
        // target
        {.id = Id::TargetName,
         .section = "target",
         .key = "name",
         .type = Type::String,
         .flag = "name",
         .valueName = "NAME",
         .help = "Display name of the target (default: the model).",
         .unit = "",
         .defaultValue = "",
         .access = TB_REF(QString, target.name)},
        {.id = Id::TargetApi,
         .section = "target",
         .key = "api",
         .type = Type::Enum,
         .flag = "api",
         .valueName = "API",
         .help = "openai-chat (default) | openai-completions | anthropic-messages | openai-responses | "
                 "openai-embeddings | rerank | score.",
         .unit = "API",
         .defaultValue = "openai-chat",
         .access = enumAccess<ApiKind, apiOf, apiKindName, apiKindFromName, apiKindNames>()},
        {.id = Id::TargetUrl,
         .section = "target",
         .key = "url",
         .type = Type::String,
         .flag = "url",
         .valueName = "URL",
         .help = "API base URL, e.g. http://127.0.0.1:8000/v1. Repeat it for several instances of the same model: "
                 "requests are spread over them and reported per instance.",
         .unit = "",
         .defaultValue = "",
         .access = TB_REF(QString, target.url),
         .handFlag = true},
        {.id = Id::TargetReplicas,
         .section = "target",
         .key = "replicas",
         .type = Type::StringList,
         .flag = "",
         .valueName = "",
         .help = "",
         .unit = "",
         .defaultValue = nlohmann::json::array()},
        {.id = Id::TargetBalance,
         .section = "target",
         .key = "balance",
         .type = Type::Enum,
         .flag = "balance",
         .valueName = "POLICY",
         .help = "How requests are spread over several --url instances: round-robin (default), least-in-flight "
                 "(fewest requests in flight, i.e. least connections) or random.",
         .unit = "policy",
         .defaultValue = "round-robin",
         .access = enumAccess<Balance, balanceOf, balanceName, balanceFromName, balanceNames>()},
        {.id = Id::TargetModel,
         .section = "target",
         .key = "model",
         .type = Type::String,
         .flag = "model",
         .valueName = "NAME",
         .help = "Model name to request; or a mix, each request asking for one in exact shares: "
                 "a:0.7,b:0.3 (a,b: equal shares; LoRA adapters, a gateway's models).",
         .unit = "",
         .defaultValue = "",
         .access = TB_REF(QString, target.model)},
        {.id = Id::TargetApiKeyEnv,
         .section = "target",
         .key = "api_key_env",
         .type = Type::String,
         .flag = "api-key-env",
         .valueName = "VAR",
         .help = "Environment variable holding the API key (default OPENAI_API_KEY or ANTHROPIC_API_KEY); a key with "
                 "a line break, a trailing one too, is refused. Keys are never written to any file.",
         .unit = "",
         .defaultValue = "",
         .access = TB_REF(QString, target.apiKeyEnv),
         .handFlag = true},
        {.id = Id::TargetApiKey,
         .section = "target",
         .key = "api_key",
         .type = Type::Secret,
         .flag = "",
         .valueName = "",
         .help = "",
         .unit = "",
         .defaultValue = ""},
        {.id = Id::TargetHeaders,
         .section = "target",
         .key = "headers",
         .type = Type::Headers,
         .flag = "header",
         .valueName = "'K: V'",
         .help = "Extra request header 'Name: value' (repeatable).",
         .unit = "",
         .defaultValue = nlohmann::json::object()},
        {.id = Id::TargetExtraBody,
         .section = "target",
         .key = "extra_body",
         .type = Type::JsonObject,
         .flag = "extra-body",
         .valueName = "JSON",
         .help = "JSON object merged into every request body, e.g. '{\"ignore_eos\": true}'.",
         .unit = "",
         .defaultValue = nlohmann::json::object()},
        {.id = Id::TargetTlsVerify,
         .section = "target",
         .key = "tls_verify",
         .type = Type::Bool,
         .flag = "insecure",
         .valueName = "",
         .help = "https: check neither the server's certificate nor its host name (self-signed test servers), "
                 "directly or through a proxy.",
         .unit = "",
         .defaultValue = true,
         .access = TB_REF(bool, target.tlsVerify),
         .flagSets = false},
        {.id = Id::TargetCaCert,
         .section = "target",
         .key = "ca_cert",
         .type = Type::String,
         .flag = "ca-cert",
         .valueName = "FILE",
         .help = "https: also trust the CA certificates in this PEM file.",
         .unit = "",
         .defaultValue = "",
         .access = TB_REF(QString, target.caCertificate)},
        {.id = Id::TargetTokenizer,
         .section = "target",
         .key = "tokenizer",
         .type = Type::OptionalString,
         .flag = "tokenizer",
         .valueName = "approx|server|FILE",
         .help = "The model's tokenizer, to size prompts exactly and count text when the server reports no usage: a "
                 "tokenizer.json or .tiktoken FILE (or a model folder), approx, server (the target's /tokenize, for "
                 "--calibrate) or none (default: one token per chunk).",
         .unit = "",
         .defaultValue = null,
         .access = TB_REF(QString, target.tokenizer),
         .handFlag = true},
        {.id = Id::TargetServerMetrics,
         .section = "target",
         .key = "server_metrics",
         .type = Type::Bool,
         .flag = "no-server-metrics",
         .valueName = "",
         .help = "Do not scrape the server's metrics.",
         .unit = "",
         .defaultValue = true,
         .access = TB_REF(bool, target.serverMetrics),
         .handFlag = true,
         .flagSets = false},
        {.id = Id::TargetServerMetricsUrl,
         .section = "target",
         .key = "server_metrics_url",
         .type = Type::String,
         .flag = "server-metrics",
         .valueName = "URL",
         .help = "The server's Prometheus endpoint, scraped once a second during the run into server_metrics.csv and "
                 "the summary (default: the --url server's /metrics, when it answers).",
         .unit = "",
         .defaultValue = "",
         .access = TB_REF(QString, target.serverMetricsUrl),
         .handFlag = true},
        {.id = Id::TargetGpuMetricsUrl,
         .section = "target",
         .key = "gpu_metrics_url",
         .type = Type::String,
         .flag = "gpu-metrics",
         .valueName = "URL",
         .help = "A DCGM exporter's /metrics (NVIDIA's dcgm-exporter), scraped once a second during the run into "
                 "gpu_metrics.csv and the summary's gpu block: utilisation, memory, power, energy per output token.",
         .unit = "",
         .defaultValue = "",
         .access = TB_REF(QString, target.gpuMetricsUrl)},
        {.id = Id::TargetTransport,
         .section = "target",
         .key = "transport",
         .type = Type::Enum,
         .flag = "transport",
         .valueName = "NAME",
         .help = "HTTP client: auto (default: native, but qnam for h2c through a proxy), native (TokenBench's own "
                 "HTTP/1.1 and HTTP/2 client) or qnam (Qt's QNetworkAccessManager).",
         .unit = "transport",
         .defaultValue = "auto",
         .access =
             enumAccess<TransportKind, transportOf, transportKindName, transportKindFromName, transportKindNames>()},
        {.id = Id::TargetHttpVersion,
         .section = "target",
         .key = "http_version",
         .type = Type::Enum,
         .flag = "http2",
         .valueName = "",
         .help = "Force HTTP/2: over https h2 by ALPN (a server that picks HTTP/1.1 is an error), over http by prior "
                 "knowledge (h2c). Without it https offers h2 and HTTP/1.1 by ALPN and uses the server's pick; http "
                 "is HTTP/1.1.",
         .unit = "HTTP version",
         .defaultValue = "auto",
         .access = enumAccess<HttpVersion, httpVersionOf, httpVersionName, httpVersionFromName, httpVersionNames>(),
         .handFlag = true},
        {.id = Id::TargetProxy,
         .section = "target",
         .key = "proxy",
         .type = Type::String,
         .flag = "proxy",
         .valueName = "URL",
         .help = "Send through this http:// proxy (CONNECT for https); NO_PROXY still exempts hosts (default: "
                 "HTTPS_PROXY/HTTP_PROXY/ALL_PROXY, else the system's).",
         .unit = "",
         .defaultValue = "",
         .access = TB_REF(QString, target.proxy),
         .handFlag = true,
         .flag2 = "no-proxy",
         .help2 = "Connect directly, whatever the environment says."},
        {.id = Id::TargetFollowRedirects,
         .section = "target",
         .key = "follow_redirects",
         .type = Type::Bool,
         .flag = "follow-redirects",
         .valueName = "",
         .help = "Follow 301/302/303/307/308 (up to 5 hops) instead of reporting them as errors.",
         .unit = "",
         .defaultValue = false,
         .access = TB_REF(bool, target.followRedirects)},
        {.id = Id::PriceInput,
         .section = "target.pricing",
         .key = "input_per_1m",
         .type = Type::OptionalReal,
         .flag = "price-input",
         .valueName = "USD",
         .help = "Price of prompt tokens, USD per 1M: the run's cost goes in the summary.",
         .unit = "USD per 1M tokens",
         .minimum = 0,
         .maximum = kMaxPricePerM,
         .defaultValue = null,
         .access = TB_REF(std::optional<double>, target.pricing.inputPerM),
         .handFlag = true},
        {.id = Id::PriceCachedInput,
         .section = "target.pricing",
         .key = "cached_input_per_1m",
         .type = Type::OptionalReal,
         .flag = "price-cached-input",
         .valueName = "USD",
         .help = "Price of cached prompt tokens (usage's cached_tokens), USD per 1M (default: --price-input).",
         .unit = "USD per 1M tokens",
         .minimum = 0,
         .maximum = kMaxPricePerM,
         .defaultValue = null,
         .access = TB_REF(std::optional<double>, target.pricing.cachedInputPerM),
         .handFlag = true},
        {.id = Id::PriceOutput,
         .section = "target.pricing",
         .key = "output_per_1m",
         .type = Type::OptionalReal,
         .flag = "price-output",
         .valueName = "USD",
         .help = "Price of completion tokens, USD per 1M.",
         .unit = "USD per 1M tokens",
         .minimum = 0,
         .maximum = kMaxPricePerM,
         .defaultValue = null,
         .access = TB_REF(std::optional<double>, target.pricing.outputPerM),
         .handFlag = true},
        {.id = Id::PricePerKwh,
         .section = "target.pricing",
         .key = "energy_per_kwh",
         .type = Type::OptionalReal,
         .flag = "price-kwh",
         .valueName = "USD",
         .help = "Price of electricity, USD per kWh: with --gpu-metrics the GPUs' energy cost goes in the summary.",
         .unit = "USD per kWh",
         .minimum = 0,
         .maximum = kMaxPricePerKwh,
         .defaultValue = null,
         .access = TB_REF(std::optional<double>, target.energyPricePerKwh)},
        {.id = Id::PriceSource,
         .section = "target.pricing",
         .key = "source",
         .type = Type::String,
         .flag = "",
         .valueName = "",
         .help = "",
         .unit = "",
         .defaultValue = "",
         .access = TB_REF(QString, target.pricing.source)},
        // request
        {.id = Id::MaxTokens,
         .section = "request",
         .key = "max_tokens",
         .type = Type::Int,
         .flag = "max-tokens",
         .valueName = "N|dataset",
         .help = "max_tokens per request (default 256); 'dataset': each --dataset entry's recorded reply length "
                 "(entries without one: 256).",
         .unit = "tokens",
         .minimum = 1,
         .maximum = limits::kMaxTokens,
         .defaultValue = 256,
         .access = TB_REF(int, request.maxTokens),
         .handFlag = true,
         .checkRange = true},
        {.id = Id::MaxTokensField,
         .section = "request",
         .key = "max_tokens_field",
         .type = Type::Enum,
         .flag = "max-tokens-field",
         .valueName = "FIELD",
         .help = "Body field for --max-tokens: auto (default: max_completion_tokens for OpenAI's own chat API, "
                 "max_tokens elsewhere) | max_tokens | max_completion_tokens.",
         .unit = "field",
         .defaultValue = "auto",
         .access = enumAccess<tb::MaxTokensField, maxTokensFieldOf, maxTokensFieldName, maxTokensFieldFromName,
                              maxTokensFieldNames>()},
        {.id = Id::Temperature,
         .section = "request",
         .key = "temperature",
         .type = Type::OptionalReal,
         .flag = "temperature",
         .valueName = "X",
         .help = "Sampling temperature.",
         .unit = "",
         .minimum = 0,
         .maximum = 2,
         .defaultValue = null,
         .access = TB_REF(std::optional<double>, request.temperature)},
        {.id = Id::TopP,
         .section = "request",
         .key = "top_p",
         .type = Type::OptionalReal,
         .flag = "top-p",
         .valueName = "X",
         .help = "Nucleus sampling top_p.",
         .unit = "",
         .minimum = 0,
         .maximum = 1,
         .minimumExclusive = true,
         .defaultValue = null,
         .access = TB_REF(std::optional<double>, request.topP)},
        {.id = Id::Stream,
         .section = "request",
         .key = "stream",
         .type = Type::Bool,
         .flag = "stream",
         .valueName = "",
         .help = "Stream responses (default).",
         .unit = "",
         .defaultValue = true,
         .access = TB_REF(bool, request.stream),
         .handFlag = true,
         .flag2 = "no-stream",
         .help2 = "Ask for whole responses."},
        {.id = Id::ResponseFormat,
         .section = "request",
         .key = "response_format",
         .type = Type::String,
         .flag = "response-format",
         .valueName = "json_object|json_schema:FILE",
         .help = "Ask for structured output: any JSON, or JSON valid for the schema in FILE; each reply is "
                 "checked (docs/metrics.md \"Structured output\").",
         .unit = "",
         .defaultValue = "",
         .access = TB_REF(QString, request.responseFormat)},
        {.id = Id::Tools,
         .section = "request",
         .key = "tools",
         .type = Type::String,
         .flag = "tools",
         .valueName = "FILE",
         .help = "Offer the tools in FILE (OpenAI chat tools JSON: an array of {\"type\": \"function\", \"function\": "
                 "{name, description, parameters}}); each call's arguments are checked against its parameters "
                 "(docs/metrics.md \"Tool calls\").",
         .unit = "",
         .defaultValue = "",
         .access = TB_REF(QString, request.tools)},
        {.id = Id::ToolChoice,
         .section = "request",
         .key = "tool_choice",
         .type = Type::String,
         .flag = "tool-choice",
         .valueName = "auto|required|none|NAME",
         .help = "With --tools: let the model choose, make it call a tool, forbid calls, or make it call tool NAME "
                 "(default: not sent, the server's own, auto).",
         .unit = "",
         .defaultValue = "",
         .access = TB_REF(QString, request.toolChoice)},
        {.id = Id::ToolResultTokens,
         .section = "request",
         .key = "tool_result_tokens",
         .type = Type::Int,
         .flag = "tool-result-tokens",
         .valueName = "N",
         .help = "With --tools and --turns: the tokens of each tool result the next turn sends back for a call "
                 "(synthetic text from the salt; default 64).",
         .unit = "tokens",
         .minimum = 1,
         .maximum = limits::kMaxToolResultTokens,
         .defaultValue = 64,
         .access = TB_REF(int, request.toolResultTokens),
         .checkRange = true},
        {.id = Id::BatchSize,
         .section = "request",
         .key = "batch_size",
         .type = Type::Int,
         .flag = "batch-size",
         .valueName = "N",
         .help = "Inputs per request, each a prompt of its own (--api openai-embeddings; --api rerank and score: texts "
                 "scored against one; default 1).",
         .unit = "inputs",
         .minimum = 1,
         .maximum = limits::kMaxBatchSize,
         .defaultValue = 1,
         .access = TB_REF(int, request.batchSize),
         .checkRange = true},
        // prompt
        {.id = Id::PromptTokens,
         .section = "prompt",
         .key = "prompt_tokens",
         .type = Type::Int,
         .flag = "prompt-tokens",
         .valueName = "N",
         .help = "Synthetic user prompt of about N tokens, different for each request.",
         .unit = "tokens",
         .minimum = 0,
         .maximum = limits::kMaxPromptTokens,
         .defaultValue = 0,
         .access = TB_REF(int, prompt.promptTokens),
         .checkRange = true},
        {.id = Id::SystemTokens,
         .section = "prompt",
         .key = "system_tokens",
         .type = Type::Int,
         .flag = "system-tokens",
         .valueName = "N",
         .help = "Synthetic system prompt of about N tokens, the same for each request.",
         .unit = "tokens",
         .minimum = 0,
         .maximum = limits::kMaxPromptTokens,
         .defaultValue = 0,
         .access = TB_REF(int, prompt.systemTokens),
         .checkRange = true},
        {.id = Id::SharedPrefixTokens,
         .section = "prompt",
         .key = "shared_prefix_tokens",
         .type = Type::Int,
         .flag = "shared-prefix-tokens",
         .valueName = "N",
         .help = "The first N prompt tokens are identical in every request (prefix-cache tests).",
         .unit = "tokens",
         .minimum = 0,
         .maximum = limits::kMaxPromptTokens,
         .defaultValue = 0,
         .access = TB_REF(int, prompt.sharedPrefixTokens)},
        {.id = Id::PromptFile,
         .section = "prompt",
         .key = "prompt_file",
         .type = Type::String,
         .flag = "prompt-file",
         .valueName = "FILE",
         .help = "JSONL prompts: {\"prompt\": ...} or {\"messages\": [...]} per line.",
         .unit = "",
         .defaultValue = "",
         .access = TB_REF(QString, prompt.promptFile)},
        {.id = Id::Dataset,
         .section = "prompt",
         .key = "dataset",
         .type = Type::String,
         .flag = "dataset",
         .valueName = "FILE",
         .help = "ShareGPT JSON or JSONL (the first human turn is the prompt, the reply's length its output length), "
                 "or JSONL prompt lines with max_tokens / output_len.",
         .unit = "",
         .defaultValue = "",
         .access = TB_REF(QString, prompt.dataset)},
        {.id = Id::DatasetSample,
         .section = "prompt",
         .key = "dataset_sample",
         .type = Type::Int64,
         .flag = "dataset-sample",
         .valueName = "N",
         .help = "Use N entries of the workload file drawn at random (seeded by --seed).",
         .unit = "entries",
         .minimum = 0,
         .maximum = maxRequests,
         .flagMinimum = 1,
         .zeroMeans = "all",
         .defaultValue = 0,
         .access = TB_REF(qint64, prompt.datasetSample),
         .checkRange = true},
        {.id = Id::DatasetPromptLen,
         .section = "prompt",
         .key = "dataset_prompt_len",
         .type = Type::LengthRange,
         .flag = "dataset-prompt-len",
         .valueName = "MIN..MAX",
         .help = "Keep entries whose prompt is MIN..MAX tokens (either end may be left out, e.g. 4..1024).",
         .unit = "tokens",
         .defaultValue = ""},
        {.id = Id::DatasetOutputLen,
         .section = "prompt",
         .key = "dataset_output_len",
         .type = Type::LengthRange,
         .flag = "dataset-output-len",
         .valueName = "MIN..MAX",
         .help = "Keep entries whose output length is MIN..MAX tokens (entries without one are dropped).",
         .unit = "tokens",
         .defaultValue = ""},
        {.id = Id::MaxTokensFromDataset,
         .section = "prompt",
         .key = "max_tokens_from_dataset",
         .type = Type::Bool,
         .flag = "",
         .valueName = "",
         .help = "",
         .unit = "",
         .defaultValue = false,
         .access = TB_REF(bool, prompt.outputLenAsMaxTokens)},
        {.id = Id::SkipBadLines,
         .section = "prompt",
         .key = "skip_bad_lines",
         .type = Type::Bool,
         .flag = "skip-bad-lines",
         .valueName = "",
         .help = "Skip a workload file's broken lines (counted in the summary) instead of refusing it.",
         .unit = "",
         .defaultValue = false,
         .access = TB_REF(bool, prompt.skipBadLines)},
        {.id = Id::Calibrate,
         .section = "prompt",
         .key = "calibrate",
         .type = Type::Bool,
         .flag = "calibrate",
         .valueName = "",
         .help = "Probe the target before the run (max_tokens=1 requests, or /tokenize) so synthetic prompts have the "
                 "requested size in its own counting, chat template included.",
         .unit = "",
         .defaultValue = false,
         .access = TB_REF(bool, prompt.calibrate)},
        {.id = Id::Salt,
         .section = "prompt",
         .key = "salt",
         .type = Type::OptionalString,
         .flag = "prompt-salt",
         .valueName = "S",
         .help = "Salt of the prompts: a run's salt (in its run.json) replays its prompts exactly (default: a fresh "
                 "salt per run, so no prefix cache carries over; the summary says when a run replays one).",
         .unit = "",
         .defaultValue = null,
         .access = TB_REF(QString, prompt.salt)},
        {.id = Id::Repeat,
         .section = "prompt",
         .key = "repeat",
         .type = Type::Bool,
         .flag = "prompt-repeat",
         .valueName = "",
         .help = "Repeat prompts on purpose (prefix-cache tests): prompt files, datasets and templates are sent as "
                 "written and every synthetic request sends the same text (default: each request's prompt is its "
                 "own, a salt tag at the start of its first user message).",
         .unit = "",
         .defaultValue = false,
         .access = TB_REF(bool, prompt.repeat)},
        {.id = Id::Images,
         .section = "prompt",
         .key = "images",
         .type = Type::Int,
         .flag = "images",
         .valueName = "N",
         .help = "Synthetic PNG images per request, after the user text, each its own (from the salt and the "
                 "request); chat, Responses and Anthropic messages only.",
         .unit = "images",
         .minimum = 0,
         .maximum = limits::kMaxImages,
         .defaultValue = 0,
         .access = TB_REF(int, prompt.images),
         .checkRange = true},
        {.id = Id::ImageSize,
         .section = "prompt",
         .key = "image_size",
         .type = Type::String,
         .flag = "image-size",
         .valueName = "WxH",
         .help = "Size of the --images in pixels, each side 8 to 4096 (default 512x512).",
         .unit = "",
         .defaultValue = "512x512",
         .access = TB_REF(QString, prompt.imageSize)},
        {.id = Id::SystemTemplate,
         .section = "prompt",
         .key = "system",
         .type = Type::String,
         .flag = "",
         .valueName = "",
         .help = "",
         .unit = "",
         .defaultValue = "",
         .access = TB_REF(QString, prompt.systemTemplate)},
        {.id = Id::UserTemplate,
         .section = "prompt",
         .key = "user",
         .type = Type::String,
         .flag = "prompt",
         .valueName = "TEXT",
         .help = "User prompt template; {{index}} and {{seed}} are replaced. Not with --prompt-file, --dataset, "
                 "--trace or --prompt-tokens, which make the prompts themselves.",
         .unit = "",
         .defaultValue = "",
         .access = TB_REF(QString, prompt.userTemplate)},
        {.id = Id::Variables,
         .section = "prompt",
         .key = "variables",
         .type = Type::StringMap,
         .flag = "",
         .valueName = "",
         .help = "",
         .unit = "",
         .defaultValue = nlohmann::json::object()},
        // load
        {.id = Id::LoadMode,
         .section = "load",
         .key = "mode",
         .type = Type::Enum,
         .flag = "",
         .valueName = "",
         .help = "",
         .unit = "mode",
         .defaultValue = "concurrency",
         .access = enumAccess<tb::LoadMode, loadModeOf, loadModeName, loadModeFromName, loadModeNames>()},
        {.id = Id::Concurrency,
         .section = "load",
         .key = "concurrency",
         .type = Type::Int,
         .flag = "concurrency",
         .valueName = "N",
         .help = "Closed loop: N virtual users, each sends its next request when the last ends.",
         .unit = "users",
         .minimum = 1,
         .maximum = limits::kMaxConcurrency,
         .defaultValue = 1,
         .access = TB_REF(int, load.concurrency),
         .handFlag = true,
         .checkRange = true},
        {.id = Id::Rate,
         .section = "load",
         .key = "rate",
         .type = Type::Real,
         .flag = "rate",
         .valueName = "R",
         .help = "Open loop: R requests/s.",
         .unit = "requests/s",
         .minimum = limits::kMinRate,
         .maximum = limits::kMaxRate,
         .defaultValue = 0.0,
         .access = TB_REF(double, load.rate),
         .handFlag = true},
        {.id = Id::Arrival,
         .section = "load",
         .key = "arrival",
         .type = Type::Enum,
         .flag = "arrival",
         .valueName = "KIND",
         .help = "Open-loop arrivals: poisson (default) | constant.",
         .unit = "arrival",
         .defaultValue = "poisson",
         .access = enumAccess<tb::Arrival, arrivalOf, arrivalName, arrivalFromName, arrivalNames>()},
        {.id = Id::MaxInFlight,
         .section = "load",
         .key = "max_in_flight",
         .type = Type::Int,
         .flag = "max-in-flight",
         .valueName = "N",
         .help = "Open-loop cap (with --rate, rate stages or --trace); requests over it wait, and the wait is "
                 "measured.",
         .unit = "requests",
         .minimum = 0,
         .maximum = limits::kMaxConcurrency,
         .zeroMeans = "no cap",
         .defaultValue = 0,
         .access = TB_REF(int, load.maxInFlight),
         .checkRange = true},
        {.id = Id::Stages,
         .section = "load",
         .key = "stages",
         .type = Type::Stages,
         .flag = "stages",
         .valueName = "SPEC",
         .help = "Staged levels, e.g. \"c=50:30s,c=100:30s\" or \"r=20:60s,r=100:500\" (after ':' a duration or a "
                 "request count).",
         .unit = "",
         .defaultValue = nlohmann::json::array(),
         .flag2 = "sweep",
         .help2 = "Generated stages to find the throughput-latency knee: \"c=1..256\" doubles the users, "
                  "\"c=8..128x5\" or \"r=2..50x6\" gives N log-spaced levels; \":60s\" or \":200\" ends each stage "
                  "(else --duration/--requests). The summary names the knee. \"p=256..16384x6\" sweeps the prompt "
                  "size at the --concurrency/--rate load and fits TTFT = a*x^b + c.",
         .valueName2 = "SPEC"},
        {.id = Id::Requests,
         .section = "load",
         .key = "requests",
         .type = Type::Int64,
         .flag = "requests",
         .valueName = "N",
         .help = "Stop each stage after N requests (default 100 when no duration is given).",
         .unit = "requests",
         .minimum = 0,
         .maximum = maxRequests,
         .flagMinimum = 1,
         .defaultValue = 0,
         .access = TB_REF(qint64, load.requests),
         .handFlag = true,
         .checkRange = true},
        {.id = Id::Duration,
         .section = "load",
         .key = "duration",
         .type = Type::Duration,
         .flag = "duration",
         .valueName = "D",
         .help = "Stop each stage after D (e.g. 60s, 5m).",
         .unit = "ms",
         .minimum = 0,
         .maximum = maxDuration,
         .minimumExclusive = true,
         .defaultValue = null,
         .access = TB_REF(qint64, load.durationMs),
         .handFlag = true},
        {.id = Id::WarmupDuration,
         .section = "load",
         .key = "warmup_duration",
         .type = Type::Duration,
         .flag = "warmup",
         .valueName = "D|N",
         .help = "Warm-up before measuring: a duration (10s) or a request count (20); written to requests.csv, "
                 "excluded from statistics.",
         .unit = "ms",
         .minimum = 0,
         .maximum = maxDuration,
         .defaultValue = null,
         .access = TB_REF(qint64, load.warmupMs),
         .handFlag = true},
        {.id = Id::WarmupRequests,
         .section = "load",
         .key = "warmup_requests",
         .type = Type::Int64,
         .flag = "",
         .valueName = "",
         .help = "",
         .unit = "requests",
         .minimum = 0,
         .maximum = maxRequests,
         .defaultValue = 0,
         .access = TB_REF(qint64, load.warmupRequests)},
        {.id = Id::Timeout,
         .section = "load",
         .key = "timeout",
         .type = Type::Duration,
         .flag = "timeout",
         .valueName = "D",
         .help = "Per-request total deadline (default 600s).",
         .unit = "ms",
         .minimum = 0,
         .maximum = maxDuration,
         .minimumExclusive = true,
         .defaultValue = "10m",
         .access = TB_REF(qint64, load.timeoutMs)},
        {.id = Id::ConnectTimeout,
         .section = "load",
         .key = "connect_timeout",
         .type = Type::Duration,
         .flag = "connect-timeout",
         .valueName = "D",
         .help = "Deadline for connecting and the TLS handshake (default 10s).",
         .unit = "ms",
         .minimum = 0,
         .maximum = maxDuration,
         .minimumExclusive = true,
         .defaultValue = "10s",
         .access = TB_REF(qint64, load.connectTimeoutMs)},
        {.id = Id::Seed,
         .section = "load",
         .key = "seed",
         .type = Type::UInt64,
         .flag = "seed",
         .valueName = "N",
         .help = "Seed for prompts and arrivals (default 1).",
         .unit = "",
         .defaultValue = 1,
         .access = TB_REF(quint64, load.seed)},
        {.id = Id::Turns,
         .section = "load",
         .key = "turns",
         .type = Type::Int,
         .flag = "turns",
         .valueName = "N",
         .help = "Conversations of N turns: each user (or each open-loop arrival) holds one, and turn k carries the "
                 "whole history with the model's own replies to turns 1..k-1; with --tools, a reply's tool calls and a "
                 "result each are the next turn's new messages (an agent loop).",
         .unit = "turns",
         .minimum = 0,
         .maximum = limits::kMaxTurns,
         .flagMinimum = 1,
         .defaultValue = 0,
         .access = TB_REF(int, load.turns),
         .checkRange = true},
        {.id = Id::ThinkTime,
         .section = "load",
         .key = "think_time",
         .type = Type::ThinkTime,
         .flag = "think-time",
         .valueName = "D",
         .help = "Pause between a conversation's turns: fixed (2s) or exponential with that mean (exp:2s).",
         .unit = "ms",
         .minimum = 0,
         .maximum = maxDuration,
         .defaultValue = null},
        {.id = Id::Trace,
         .section = "load",
         .key = "trace",
         .type = Type::String,
         .flag = "trace",
         .valueName = "FILE",
         .help = "Replay a trace at its timestamps, open loop: Mooncake JSONL (timestamp ms, input_length, "
                 "output_length, hash_ids), Azure LLM trace CSV (TIMESTAMP, ContextTokens, GeneratedTokens) or JSONL "
                 "prompt lines with \"timestamp\".",
         .unit = "",
         .defaultValue = "",
         .access = TB_REF(QString, load.trace),
         .handFlag = true},
        {.id = Id::TimeScale,
         .section = "load",
         .key = "time_scale",
         .type = Type::Real,
         .flag = "time-scale",
         .valueName = "X",
         .help = "Trace time multiplier (default 1; 0.5 replays twice as fast).",
         .unit = "",
         .minimum = 0,
         .maximum = 1000,
         .minimumExclusive = true,
         .defaultValue = 1.0,
         .access = TB_REF(double, load.timeScale)},
        {.id = Id::StopOnSaturation,
         .section = "load",
         .key = "stop_on_saturation",
         .type = Type::Bool,
         .flag = "stop-on-saturation",
         .valueName = "",
         .help = "End the run when an open-loop stage over-saturates the target: in flight and TTFT p50 both "
                 "rising over the last 15 s (docs/metrics.md).",
         .unit = "",
         .defaultValue = false,
         .access = TB_REF(bool, load.stopOnSaturation)},
        {.id = Id::Slice,
         .section = "load",
         .key = "slice",
         .type = Type::Duration,
         .flag = "slice",
         .valueName = "D",
         .help = "Also summarise each slice of run time D long (e.g. 10s): requests, output tokens/s, TTFT and "
                 "ITL p50/p99, mean in flight (at most 1000 slices).",
         .unit = "ms",
         .minimum = 0,
         .maximum = maxDuration,
         .zeroMeans = "off",
         .defaultValue = null,
         .access = TB_REF(qint64, load.sliceMs)},
        {.id = Id::Window,
         .section = "load",
         .key = "window",
         .type = Type::String,
         .flag = "window",
         .valueName = "W",
         .help = "What the headline figures cover: all (every measured request; default), steady (the "
                 "steady-state window, when one is found) or D (requests sent from D after the start, e.g. 30s); "
                 "the whole run stays in summary.json.",
         .unit = "",
         .defaultValue = "all",
         .access = TB_REF(QString, load.window)},
        {.id = Id::CancelRate,
         .section = "load",
         .key = "cancel_rate",
         .type = Type::Real,
         .flag = "cancel-rate",
         .valueName = "P",
         .help = "Abandon this share of the requests (0..1; which ones derives from --seed and the salt), "
                 "after --cancel-after: a closed connection on HTTP/1.1, RST_STREAM(CANCEL) on HTTP/2.",
         .unit = "",
         .minimum = 0,
         .maximum = 1,
         .defaultValue = 0.0,
         .access = TB_REF(double, load.cancelRate)},
        {.id = Id::CancelAfter,
         .section = "load",
         .key = "cancel_after",
         .type = Type::String,
         .flag = "cancel-after",
         .valueName = "D",
         .help = "When --cancel-rate abandons a request: D after it started (e.g. 200ms, in prefill or decode) "
                 "or first-token+D (D after its first token, in decode).",
         .unit = "",
         .defaultValue = "",
         .access = TB_REF(QString, load.cancelAfter)},
        // slo
        {.id = Id::SloTtft,
         .section = "slo",
         .key = "ttft_ms",
         .type = Type::OptionalReal,
         .flag = "slo",
         .valueName = "SPEC",
         .help = "Goodput thresholds, e.g. ttft_ms=500,tpot_ms=50,e2e_ms=10000.",
         .unit = "ms",
         .minimum = 0,
         .maximum = std::numeric_limits<double>::max(),
         .minimumExclusive = true,
         .defaultValue = null,
         .access = TB_REF(std::optional<double>, slo.ttftMs),
         .handFlag = true},
        {.id = Id::SloTpot,
         .section = "slo",
         .key = "tpot_ms",
         .type = Type::OptionalReal,
         .flag = "",
         .valueName = "",
         .help = "",
         .unit = "ms",
         .minimum = 0,
         .maximum = std::numeric_limits<double>::max(),
         .minimumExclusive = true,
         .defaultValue = null,
         .access = TB_REF(std::optional<double>, slo.tpotMs)},
        {.id = Id::SloE2e,
         .section = "slo",
         .key = "e2e_ms",
         .type = Type::OptionalReal,
         .flag = "",
         .valueName = "",
         .help = "",
         .unit = "ms",
         .minimum = 0,
         .maximum = std::numeric_limits<double>::max(),
         .minimumExclusive = true,
         .defaultValue = null,
         .access = TB_REF(std::optional<double>, slo.e2eMs)},
        {.id = Id::SloTarget,
         .section = "slo",
         .key = "target",
         .type = Type::Real,
         .flag = "slo-target",
         .valueName = "X",
         .help = "Good fraction needed with --fail-on-slo, and by each level of --find-max (default 0.99).",
         .unit = "",
         .minimum = 0,
         .maximum = 1,
         .minimumExclusive = true,
         .defaultValue = 0.99,
         .access = TB_REF(double, slo.target)},
        {.id = Id::FailOnSlo,
         .section = "slo",
         .key = "fail_on_slo",
         .type = Type::Bool,
         .flag = "fail-on-slo",
         .valueName = "",
         .help = "Exit 3 when the good fraction is below --slo-target (needs --slo).",
         .unit = "",
         .defaultValue = false,
         .access = TB_REF(bool, slo.failOnSlo)},
        // quality
        {.id = Id::RedundancyThreshold,
         .section = "quality",
         .key = "redundancy_threshold",
         .type = Type::Real,
         .flag = "redundancy-threshold",
         .valueName = "X",
         .help = "Count requests whose output redundancy (repeated trigrams) exceeds X (default 0.3).",
         .unit = "",
         .minimum = 0,
         .maximum = 1,
         .defaultValue = 0.3,
         .access = TB_REF(double, quality.redundancyThreshold)},
        {.id = Id::SaveOutputs,
         .section = "quality",
         .key = "save_outputs",
         .type = Type::Bool,
         .flag = "save-outputs",
         .valueName = "",
         .help = "Write each request's generated text (first 64 KiB) to outputs.jsonl in the run directory.",
         .unit = "",
         .defaultValue = false,
         .access = TB_REF(bool, quality.saveOutputs)},
        // the run
        {.id = Id::OutDir,
         .section = "",
         .key = "out",
         .type = Type::String,
         .flag = "out",
         .valueName = "DIR",
         .help = "Run directory (default ./runs/<timestamp>-<model>); it must be new or empty.",
         .unit = "",
         .defaultValue = "",
         .access = TB_REF(QString, outDir),
         .handFlag = true},
    };
    for (qsizetype i = 0; i < fields.size(); ++i)
        Q_ASSERT(int(fields.at(i).id) == i);
    return fields;
}

#undef TB_REF

} // namespace

QString ConfigField::path() const
{
    return *section ? QLatin1String(section) + QLatin1Char('.') + QLatin1String(key) : QString::fromLatin1(key);
}

QString ConfigField::label() const
{
    return *flag ? QStringLiteral("%1 (--%2)").arg(path(), QLatin1String(flag)) : path();
}

nlohmann::json ConfigField::get(const RunConfig &config) const
{
    // Reading through the accessor's reference changes nothing.
    RunConfig &c = const_cast<RunConfig &>(config);
    switch (type) {
    case ConfigType::Bool:
        return std::get<FieldRef<bool>>(access)(c);
    case ConfigType::Int:
        return std::get<FieldRef<int>>(access)(c);
    case ConfigType::Int64:
        return std::get<FieldRef<qint64>>(access)(c);
    case ConfigType::UInt64:
        return std::get<FieldRef<quint64>>(access)(c);
    case ConfigType::Real:
        return std::get<FieldRef<double>>(access)(c);
    case ConfigType::OptionalReal: {
        const std::optional<double> &v = std::get<FieldRef<std::optional<double>>>(access)(c);
        return v ? nlohmann::json(*v) : nlohmann::json();
    }
    case ConfigType::Duration: {
        const qint64 ms = std::get<FieldRef<qint64>>(access)(c);
        return ms > 0 ? nlohmann::json(toStd(formatDuration(ms))) : nlohmann::json();
    }
    case ConfigType::String:
        return toStd(std::get<FieldRef<QString>>(access)(c));
    case ConfigType::OptionalString: {
        const QString &s = std::get<FieldRef<QString>>(access)(c);
        return s.isEmpty() ? nlohmann::json() : nlohmann::json(toStd(s));
    }
    case ConfigType::Enum: {
        const EnumAccess &e = std::get<EnumAccess>(access);
        return toStd(e.name(e.get(config)));
    }
    default:
        return {};
    }
}

const QList<ConfigField> &configFields()
{
    static const QList<ConfigField> fields = makeFields();
    return fields;
}

const ConfigField &configField(ConfigFieldId id)
{
    return configFields().at(qsizetype(id));
}

const ConfigField *configFieldAt(const QString &path)
{
    for (const ConfigField &f : configFields()) {
        if (f.path() == path)
            return &f;
    }
    return nullptr;
}

void readConfigFields(JsonReader &r, const char *section, RunConfig &c,
                      const std::function<void(const ConfigField &)> &readByHand)
{
    for (const ConfigField &f : configFields()) {
        if (qstrcmp(f.section, section) != 0)
            continue;
        if (!f.isTabular()) {
            if (readByHand)
                readByHand(f);
            continue;
        }
        switch (f.type) {
        case ConfigType::Bool:
            r.boolean(f.key, std::get<FieldRef<bool>>(f.access)(c));
            break;
        case ConfigType::Int:
            r.integer(f.key, std::get<FieldRef<int>>(f.access)(c), int(f.minimum), int(f.maximum));
            break;
        case ConfigType::Int64:
            r.integer(f.key, std::get<FieldRef<qint64>>(f.access)(c), qint64(f.minimum), qint64(f.maximum));
            break;
        case ConfigType::UInt64:
            r.integer(f.key, std::get<FieldRef<quint64>>(f.access)(c));
            break;
        case ConfigType::Real:
            r.real(f.key, std::get<FieldRef<double>>(f.access)(c));
            break;
        case ConfigType::OptionalReal:
            r.optionalReal(f.key, std::get<FieldRef<std::optional<double>>>(f.access)(c));
            break;
        case ConfigType::Duration:
            r.duration(f.key, std::get<FieldRef<qint64>>(f.access)(c), f.minimumExclusive);
            break;
        case ConfigType::String:
        case ConfigType::OptionalString:
            r.string(f.key, std::get<FieldRef<QString>>(f.access)(c));
            break;
        case ConfigType::Enum: {
            const EnumAccess &e = std::get<EnumAccess>(f.access);
            int value = e.get(c);
            r.enumeration(f.key, value, e.fromName, e.names());
            e.set(c, value);
            break;
        }
        default:
            break;
        }
    }
}

void writeConfigFields(const RunConfig &c, const char *section, nlohmann::json &object)
{
    for (const ConfigField &f : configFields()) {
        if (qstrcmp(f.section, section) == 0 && f.isTabular())
            object[f.key] = f.get(c);
    }
}

QList<QCommandLineOption> configOptions()
{
    QList<QCommandLineOption> options;
    const auto add = [&options](const char *flag, const char *help, const char *valueName) {
        if (*valueName)
            options << QCommandLineOption(QLatin1String(flag), QString::fromUtf8(help), QLatin1String(valueName));
        else
            options << QCommandLineOption(QLatin1String(flag), QString::fromUtf8(help));
    };
    for (const ConfigField &f : configFields()) {
        if (*f.flag)
            add(f.flag, f.help, f.valueName);
        if (*f.flag2)
            add(f.flag2, f.help2, f.valueName2);
    }
    // Not one field's: it sets the whole of target.pricing (configflags.cpp).
    add("price-preset",
        "Example list prices of a model on a date (README \"Cost\"): gpt-4o, gpt-4o-mini, o1-preview, "
        "claude-3.5-sonnet, claude-3.5-haiku; --price-* flags override them.",
        "NAME");
    return options;
}

} // namespace tb
