#pragma once

// The run configuration: plain value types copied into the engine before a run starts (workers
// never read GUI state). The JSON form is what the GUI saves and `tokenbench-cli run --config`
// reads; API keys are never part of it.

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <optional>
#include <utility>

class QSslCertificate;

namespace tb {

enum class ApiKind {
    OpenAIChat,
    OpenAICompletions,
    AnthropicMessages,
    OpenAIResponses,
    OpenAIEmbeddings,
    Rerank,
    Score
};

/// "openai-chat", "openai-completions", "anthropic-messages", "openai-responses", "openai-embeddings", "rerank",
/// "score"
QString apiKindName(ApiKind api);
/// The API generates text; embeddings, rerank and score take a batch of inputs
/// (request.batch_size) and answer with one vector or score each, never streamed.
constexpr bool apiGenerates(ApiKind api)
{
    return api != ApiKind::OpenAIEmbeddings && api != ApiKind::Rerank && api != ApiKind::Score;
}
/// The same for an API's name, as a summary records it; a name unknown here generates.
bool apiGenerates(const QString &name);
/// The API takes chat messages, with image parts (prompt.images) and tools (request.tools): chat,
/// Responses and Anthropic; not legacy completions nor the APIs that score or embed text.
constexpr bool apiTakesMessages(ApiKind api)
{
    return api == ApiKind::OpenAIChat || api == ApiKind::OpenAIResponses || api == ApiKind::AnthropicMessages;
}
std::optional<ApiKind> apiKindFromName(const QString &name);
/// The names above joined with '|', for messages.
QString apiKindNames();
/// OPENAI_API_KEY or ANTHROPIC_API_KEY.
QString defaultApiKeyEnv(ApiKind api);

struct Header {
    QString name;
    QString value; ///< a literal, or "${env:NAME}": read from the environment when the run starts
    /// The value to send: an ${env:NAME} reference resolved (empty when NAME is not set).
    QString resolvedValue() const;
    friend bool operator==(const Header &, const Header &) = default;
};

/// Authorization, Proxy-Authorization, Cookie, X-Api-Key, api-key, Ocp-Apim-Subscription-Key and
/// any name containing auth, key, token, secret, passw, cookie, session or credential: headers
/// whose literal values are never written anywhere (docs/user-guide.md "Secrets").
bool isCredentialHeader(const QString &name);
/// Why `text` cannot go into an HTTP header or stand as a name, or empty when it can: the one
/// check of every string that reaches a header (--header values, a configuration's headers,
/// ${env:NAME} values, the API key from its variable or typed into the GUI) and of names that
/// reach the wire or the console (model, target, stage). CR or LF would end a header and start
/// another (header injection), and a trailing one is said apart (a secret mounted as a file often
/// ends with one); NUL, ESC and the other control characters but tab are refused too.
QString controlCharacterProblem(QStringView text);
/// Why `text` is not a URL requests can go to ("is not an http:// or https:// URL with a host",
/// "has port 0; …"), or empty: it never quotes the URL, which may hold credentials.
QString httpUrlProblem(const QString &text);
/// NAME of a "${env:NAME}" header value; empty when the value is a literal.
QString headerEnvReference(const QString &value);
/// What a credential header's literal value is written as.
inline constexpr char kRedacted[] = "<redacted>";
/// Why the native transport refuses a target's HTTP/2: a proxy carries it (--proxy or the environment).
inline constexpr char kNativeH2ProxyProblem[] =
    "target.http_version (--http2): HTTP/2 in clear through a proxy needs --transport qnam or auto (native's "
    "h2c cannot cross a proxy; --proxy none goes direct, https:// goes through its tunnel)";
/// The environment variables a proxy may come from (their userinfo is a secret too).
inline constexpr const char *kProxyVariables[] = {"http_proxy",  "HTTP_PROXY", "https_proxy",
                                                  "HTTPS_PROXY", "all_proxy",  "ALL_PROXY"};
/// The URL without "user:password@"; other text unchanged.
QString withoutUserInfo(const QString &url);
/// Replaces every occurrence of each secret (of 4 characters or more) in server-provided text with
/// "***", and a secret's leading part where the text was cut short.
QString maskSecrets(QString text, const QStringList &secrets);

/// `path` with a leading "~" or "~/" replaced by the home directory, as a shell would: a path in a
/// JSON file or after "--out=" reaches TokenBench unexpanded, and a folder named "~" is never what
/// was meant. Other paths, "~user/…" too, are returned as they are (validate() refuses the latter).
QString withHomeExpanded(const QString &path);

/// The certificates of a --ca-cert PEM file, read as every file from outside is
/// (config/inputfile.h); empty with *why when the file cannot be read or holds none.
QList<QSslCertificate> caCertificates(const QString &path, QString *why);

/// Bounds on what a configuration may ask for, so that no value from a file or a flag wraps around
/// or exhausts the machine (docs/user-guide.md "Limits").
namespace limits {
inline constexpr int kMaxTokens = 10'000'000;             ///< request.max_tokens
inline constexpr int kMaxPromptTokens = 2'000'000;        ///< prompt + system tokens per request
inline constexpr int kMaxConcurrency = 100'000;           ///< users or in-flight cap; RLIMIT_NOFILE may allow fewer
inline constexpr double kMaxRate = 1'000'000;             ///< requests/s
inline constexpr qint64 kMaxRequests = 1'000'000'000'000; ///< per stage, warm-up
inline constexpr int kMaxStages = 1000;
inline constexpr int kMaxWorkers = 256;                                  ///< transport threads
inline constexpr qint64 kMaxDurationMs = qint64(365) * 24 * 3600 * 1000; ///< any duration: one year
inline constexpr int kMaxJsonDepth = 64; ///< nesting of a configuration file (extra_body)
inline constexpr int kMaxHeaders = 100;
inline constexpr int kMaxHeaderBytes = 16 * 1024; ///< one header's name and value
inline constexpr int kMaxRedirects = 5;           ///< hops a request follows with target.follow_redirects
/// Times a request goes again after its kept-alive connection closed before any response: once,
/// as curl and browsers do; the retry is on a new connection, whose failure is an error.
inline constexpr int kMaxRetries = 1;
inline constexpr int kMaxTurns = 1000;                 ///< turns of one conversation
inline constexpr int kMaxToolResultTokens = 1'000'000; ///< one tool result (--tool-result-tokens)
/// Inputs of one embeddings request (--batch-size): OpenAI's own limit is 2048.
inline constexpr int kMaxBatchSize = 2048;
/// Synthetic images of one request (--images), and a dataset row's.
inline constexpr int kMaxImages = 16;
/// A side of a synthetic image (--image-size), pixels.
inline constexpr int kMinImageSide = 8;
inline constexpr int kMaxImageSide = 4096;
/// An image file a dataset row names (its "images"), bytes.
inline constexpr qint64 kMaxImageFileBytes = qint64(20) << 20;
/// A request's synthetic images together, as raw RGB (3 bytes a pixel): 64 MiB.
inline constexpr qint64 kMaxImageRawBytes = qint64(64) << 20;
/// The slowest rate, requests/s: one request every 100,000 s (27.8 hours; one a day is
/// 0.0000116). Slower is no open-loop load that a stage of at most a year could show, and a slip
/// such as 1e-12 is refused instead of waiting for ever.
inline constexpr double kMinRate = 0.00001;
/// A token count a server sends (usage, /tokenize) or a run file holds: far beyond any model's context, and small
/// enough that sums over millions of requests stay in int64; a larger count is a broken server's,
/// rejected like a number out of int64's range.
inline constexpr std::int64_t kMaxTokenCount = 1'000'000'000'000;
} // namespace limits

/// How requests are spread over a target's instances (its url and replicas): the load-balancing
/// policies the seed report compares. The client is the balancer, so each policy's effect on
/// latency spread and per-instance load is measured without a proxy in between.
enum class Balance {
    RoundRobin,    ///< instances in turn
    LeastInFlight, ///< the instance with the fewest requests in flight (least connections); ties in turn
    Random,        ///< uniformly at random (seeded)
};
QString balanceName(Balance balance); ///< "round-robin" | "least-in-flight" | "random"
std::optional<Balance> balanceFromName(const QString &name);
QString balanceNames(); ///< the names joined with '|', for messages

/// Which HTTP client carries a target's requests (docs/measuring.md "Transports" has the auto rule):
/// TokenBench's own HTTP/1.1 and HTTP/2 client, or Qt's QNetworkAccessManager.
enum class TransportKind { Auto, Native, Qnam };
struct TargetConfig;
QString transportKindName(TransportKind kind); ///< "auto" | "native" | "qnam"
std::optional<TransportKind> transportKindFromName(const QString &name);
QString transportKindNames();
/// What auto picks for a target (never Auto): qnam where HTTP/2 in clear (h2c) is asked for
/// through a --proxy, else native. RequestBuilder also moves a target whose proxy comes from the
/// environment.
TransportKind effectiveTransport(const TargetConfig &target);

/// The HTTP version asked for: auto (over https h2 and HTTP/1.1 offered by ALPN, the server picks;
/// HTTP/1.1 in clear), 1.1, or 2 (over https h2 by ALPN or an error, in clear by prior knowledge:
/// h2c).
enum class HttpVersion { Auto, Http1, Http2 };
QString httpVersionName(HttpVersion version); ///< "auto" | "1.1" | "2"
std::optional<HttpVersion> httpVersionFromName(const QString &name);
QString httpVersionNames();
/// What a target charges, in USD per 1M tokens (docs/user-guide.md "Cost"); prices not set cost nothing, and a
/// target with no price set has no cost figures.
struct Pricing {
    std::optional<double> inputPerM;       ///< uncached prompt tokens
    std::optional<double> cachedInputPerM; ///< prompt tokens the server served from its cache; unset: the input price
    std::optional<double> outputPerM;      ///< completion tokens (reasoning included)
    QString source; ///< where the prices come from, e.g. a preset and its date; shown beside them
    bool isSet() const { return inputPerM || cachedInputPerM || outputPerM; }
    bool operator==(const Pricing &) const = default;
};
/// Largest price per 1M tokens a configuration may give (a typo of many zeros is refused).
inline constexpr double kMaxPricePerM = 1'000'000;
/// Largest price of a kWh a configuration may give.
inline constexpr double kMaxPricePerKwh = 1'000;

/// One endpoint profile.
struct TargetConfig {
    QString name; ///< display name; empty means "use the model name"
    ApiKind api = ApiKind::OpenAIChat;
    QString url;          ///< base URL, e.g. http://127.0.0.1:8000/v1
    QStringList replicas; ///< more base URLs serving the same model: requests spread over url + replicas
    Balance balance = Balance::RoundRobin; ///< how, when there are replicas
    QString model;
    QString apiKeyEnv;     ///< environment variable with the key; empty: defaultApiKeyEnv(api)
    QString apiKey;        ///< typed-in key, memory only: never serialised
    QList<Header> headers; ///< extra request headers
    nlohmann::json extraBody = nlohmann::json::object(); ///< merged into every request body
    bool tlsVerify = true;                               ///< https: check the server's certificate (off: --insecure)
    QString caCertificate; ///< https: PEM file of extra CAs to trust (self-hosted servers)
    /// How this model counts tokens, to size prompts and to count text when the server reports no
    /// usage: "approx" (ApproxTokenizer), "server" (the target's own /tokenize, for calibration), a
    /// tokenizer.json or .tiktoken file (or a model folder); empty: none (one token per chunk).
    QString tokenizer;
    /// Scrape the server's Prometheus endpoint during runs: serverMetricsUrl, or when empty the
    /// base URL's server root + /metrics if it answers.
    bool serverMetrics = true;
    QString serverMetricsUrl;
    /// A DCGM exporter's Prometheus endpoint, scraped during runs for GPU power and energy; empty: none.
    QString gpuMetricsUrl;
    /// Electricity, USD per kWh (JSON target.pricing.energy_per_kwh): prices the GPUs' energy, not
    /// the tokens; apart from Pricing, whose figures are per token.
    std::optional<double> energyPricePerKwh;
    TransportKind transport = TransportKind::Auto;
    HttpVersion httpVersion = HttpVersion::Auto;
    /// "" = from the environment (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY) or the system
    /// configuration; "none" = direct; else an http:// proxy URL (engine/proxyresolver.h).
    QString proxy;
    /// Follow 301/302/303/307/308 up to limits::kMaxRedirects hops; off: a redirect is an error.
    bool followRedirects = false;
    Pricing pricing;

    QString displayName() const { return name.isEmpty() ? model : name; }
    /// `model` when it is one name; a mix's first model (ModelMix): what a request that asks for
    /// no model of its own (calibration, the models listing) names.
    QString primaryModel() const;
    /// url followed by the replicas: the instances requests go to.
    QStringList instanceUrls() const { return QStringList{url} + replicas; }
    /// instanceUrls()[i] without building the list; empty when out of range.
    QString instanceUrl(int i) const { return i == 0 ? url : replicas.value(i - 1); }
    /// The variable the key is read from: apiKeyEnv, or defaultApiKeyEnv(api) when it is empty.
    QString apiKeyVariable() const;
    /// The key to send: apiKey if typed in, else the environment variable's value (may be empty).
    QString resolveApiKey() const;
    bool operator==(const TargetConfig &) const = default;
};

/// Which body field carries the output cap (RequestBuilder::maxTokensKey has the auto rule).
enum class MaxTokensField { Auto, MaxTokens, MaxCompletionTokens };
QString maxTokensFieldName(MaxTokensField field); ///< "auto" | "max_tokens" | "max_completion_tokens"
std::optional<MaxTokensField> maxTokensFieldFromName(const QString &name);
QString maxTokensFieldNames(); ///< the names joined with '|', for messages

/// What each request asks for.
struct RequestConfig {
    int maxTokens = 256;
    MaxTokensField maxTokensField = MaxTokensField::Auto;
    std::optional<double> temperature;
    std::optional<double> topP;
    bool stream = true;
    /// Structured output (--response-format): "" (none), "json_object", or "json_schema:FILE" (a
    /// JSON Schema file); parseResponseFormat() reads it.
    QString responseFormat;
    /// Tool calling (--tools): a file of OpenAI chat tools (api/toolset.h reads it); "" offers none.
    QString tools;
    /// --tool-choice: "" (not sent), "auto", "required", "none" or a tool's name; parseToolChoice() reads it.
    QString toolChoice;
    /// --tool-result-tokens: conversations (--turns) with --tools send each call's result back, this
    /// many tokens of synthetic text (PromptSource::toolResult).
    int toolResultTokens = 64;
    /// Embeddings and rerank (--batch-size): inputs (rerank: documents) per request, each a prompt
    /// of its own; 1 for every other API.
    int batchSize = 1;
    bool operator==(const RequestConfig &) const = default;
};

/// What request.response_format asks for: JSON of any shape, or JSON valid for a schema file.
struct ResponseFormat {
    enum class Kind { None, JsonObject, JsonSchema };
    Kind kind = Kind::None;
    QString schemaFile; ///< Kind::JsonSchema: the file, home expanded
};
/// nullopt when `text` is neither empty, "json_object" nor "json_schema:" followed by a path.
std::optional<ResponseFormat> parseResponseFormat(const QString &text);
/// The largest --response-format schema file read (a schema is sent with every request).
inline constexpr qint64 kMaxSchemaFileBytes = qint64(1) << 20;
/// The schema file's JSON (config/inputfile.h's rules, at most kMaxSchemaFileBytes, nesting
/// bounded as a configuration's): nullopt with *why naming the file.
std::optional<nlohmann::json> readSchemaFile(const QString &path, QString *why);

/// The width and height "WxH" names, each kMinImageSide..kMaxImageSide; nullopt otherwise.
std::optional<std::pair<int, int>> parseImageSize(const QString &text);
/// What request.tool_choice asks for; Named names a tool of the --tools file.
struct ToolChoice {
    enum class Kind { Default, Auto, Required, None, Named };
    Kind kind = Kind::Default;
    std::string name; ///< Kind::Named
};
/// nullopt when `text` is neither empty, auto, required, none nor a tool name (1 to 64 letters,
/// digits, '_' or '-', as OpenAI takes them).
std::optional<ToolChoice> parseToolChoice(const QString &text);

/// Where prompts come from. Precedence: promptFile, then synthetic (promptTokens > 0), then the
/// templates.
struct PromptConfig {
    int promptTokens = 0;       ///< synthetic user prompt of about N tokens
    int systemTokens = 0;       ///< synthetic system prompt of about N tokens
    int sharedPrefixTokens = 0; ///< identical leading tokens in every synthetic prompt (prefix-cache tests)
    QString promptFile;         ///< JSONL: {"prompt": ...} or {"messages": [...]}
    QString dataset;            ///< ShareGPT JSON/JSONL, or prompt lines with per-line lengths
    /// Workload files (prompt file, dataset, trace): keep entries whose prompt / output length in
    /// tokens is within [min, max] (0: no bound), then a seeded sample of N of them (0: all).
    int promptLenMin = 0;
    int promptLenMax = 0;
    int outputLenMin = 0;
    int outputLenMax = 0;
    qint64 datasetSample = 0;
    bool outputLenAsMaxTokens = false; ///< --max-tokens dataset: an entry's recorded reply length is its max_tokens
    bool skipBadLines = false;         ///< skip and count a workload file's broken lines instead of refusing it
    /// Mixed into every synthetic text (system prompt, shared prefix, user prompts), so a run's
    /// prompts are its own and a server's prefix cache cannot carry over from an earlier run.
    /// Empty: a fresh random salt when the run starts (BenchmarkRunner), recorded in run.json;
    /// giving a run's salt back replays its prompts exactly.
    QString salt;
    /// Repeat prompts on purpose (a prefix-cache test): a workload file's entries and templates
    /// are sent as written and every synthetic request sends the same text. Off: each request's
    /// prompt is its own (PromptSource), so a server's cache serves only what requests share by
    /// design (system prompt, shared prefix).
    bool repeat = false;
    /// Synthetic PNG images each request carries (--images), drawn from the salt and the request.
    int images = 0;
    QString imageSize = QStringLiteral("512x512"); ///< "WxH" (parseImageSize())
    QString systemTemplate;                        ///< may contain {{variables}}
    QString userTemplate;                          ///< may contain {{variables}}
    QMap<QString, QString> variables;
    /// Probe the target before the run (max_tokens=1 requests reading usage.prompt_tokens, or its
    /// /tokenize) so synthetic prompts have their size in the target's own counting.
    bool calibrate = false;
    bool operator==(const PromptConfig &) const = default;
};

enum class LoadMode { Concurrency, Rate };
enum class Arrival { Constant, Poisson };
QString loadModeName(LoadMode mode);  ///< "concurrency" | "rate"
QString arrivalName(Arrival arrival); ///< "constant" | "poisson"
std::optional<LoadMode> loadModeFromName(const QString &name);
std::optional<Arrival> arrivalFromName(const QString &name);

/// One level of a staged run. A stage ends after durationMs or after `requests` requests, whichever
/// comes first (0 = not set; at least one is set after effectiveStages()).
struct StageConfig {
    QString name; ///< e.g. "c=50"; empty: generated
    LoadMode mode = LoadMode::Concurrency;
    double level = 1; ///< virtual users (concurrency) or requests/s (rate)
    qint64 durationMs = 0;
    qint64 requests = 0;
    /// A context sweep's stage (--sweep p=…): synthetic prompts of this many tokens in this stage
    /// instead of prompt.prompt_tokens; 0: the run's prompts.
    int promptTokens = 0;
    bool operator==(const StageConfig &) const = default;
};

struct LoadConfig {
    LoadMode mode = LoadMode::Concurrency;
    int concurrency = 1;
    double rate = 0;
    Arrival arrival = Arrival::Poisson;
    int maxInFlight = 0;             ///< open-loop cap; 0 = none
    QList<StageConfig> stages;       ///< empty: one stage from mode/concurrency/rate
    qint64 requests = 0;             ///< stop each stage after N requests (0 = not set)
    qint64 durationMs = 0;           ///< stop each stage after D (0 = not set)
    qint64 warmupMs = 0;             ///< warm-up by time, at the start of the run
    qint64 warmupRequests = 0;       ///< or by count
    qint64 timeoutMs = 600000;       ///< per-request total deadline
    qint64 connectTimeoutMs = 10000; ///< deadline for a new connection's connect + TLS handshake
    quint64 seed = 1;
    /// Conversations (--turns): each virtual user (closed loop) or each arrival (open loop) holds a
    /// conversation of this many turns, every turn carrying the model's own earlier replies; 0 or 1
    /// = independent requests.
    int turns = 0;
    qint64 thinkTimeMs = 0;            ///< pause between a conversation's turns (--think-time)
    bool thinkTimeExponential = false; ///< exponential think times with mean thinkTimeMs ("exp:2s")
    /// A timed workload file (Mooncake JSONL, Azure trace CSV, prompt lines with "timestamp"):
    /// replaces the load profile with one open-loop stage that sends each entry at its time.
    QString trace;
    double timeScale = 1; ///< trace time multiplier: 0.5 replays twice as fast
    /// End the run early when an open-loop stage over-saturates the target (SaturationDetector).
    bool stopOnSaturation = false;
    /// Per-slice metrics (--slice): the summary's figures per slice of run time this long; 0 = off.
    qint64 sliceMs = 0;
    /// What the summary's headline figures cover (--window; parseHeadlineWindow): "all", "steady"
    /// or a duration.
    QString window = QStringLiteral("all");
    /// Request cancellation (--cancel-rate, --cancel-after; parseCancelAfter): the share of
    /// requests the client abandons, and when.
    double cancelRate = 0;
    QString cancelAfter;
    bool operator==(const LoadConfig &) const = default;
};

/// Goodput thresholds; unset thresholds do not constrain.
struct SloConfig {
    std::optional<double> ttftMs;
    std::optional<double> tpotMs;
    std::optional<double> e2eMs;
    double target = 0.99; ///< good fraction needed for --fail-on-slo
    bool failOnSlo = false;
    bool isEmpty() const { return !ttftMs && !tpotMs && !e2eMs; }
    bool operator==(const SloConfig &) const = default;
};

/// What is judged of the generated text (docs/metrics.md "Output redundancy").
struct QualityConfig {
    double redundancyThreshold = 0.3; ///< a request whose redundancy exceeds it is counted
    bool saveOutputs = false;         ///< write each request's generated text to outputs.jsonl
    bool operator==(const QualityConfig &) const = default;
};

struct RunConfig {
    TargetConfig target;
    RequestConfig request;
    PromptConfig prompt;
    LoadConfig load;
    SloConfig slo;
    QualityConfig quality;
    QString outDir; ///< empty: ./runs/<timestamp>-<model>
    bool operator==(const RunConfig &) const = default;
};

/// The stages a run executes: load.stages if given, else one stage from mode/level; each stage gets
/// the run-wide requests/duration when it has neither, and a generated name ("c=50", "r=20").
QList<StageConfig> effectiveStages(const LoadConfig &load);
QString stageDefaultName(const StageConfig &stage);
/// Whether the stages are a context sweep's (some stage sets its own prompt size).
bool isContextSweep(const QList<StageConfig> &stages);

/// checkConnectionLimits() (config/connectionlimits.h) against this process's limits: open files
/// (RLIMIT_NOFILE) and local ports to one server (workerThreads 0: the default, one per core).
QString checkOpenFiles(const RunConfig &config, int workerThreads);

/// Problems that make a configuration unusable. Each message names the field (the JSON path, which
/// is also the flag's spirit) and what is accepted. Empty means valid.
QStringList validate(const RunConfig &config);

/// Why the headers a target sends cannot go on the wire — its API key (naming the variable it came
/// from, never the key), the number of headers, each header's name and value — one problem a line
/// as validate() reports them; empty when they can. RequestBuilder::targetHeaders() refuses the
/// same, so requests made beside a run (calibration, model listing) are held to it too.
QStringList targetHeaderProblems(const TargetConfig &target);

/// A copy fit to be written or shown: no apiKey, no userinfo in any URL, literal credential header
/// values replaced by kRedacted (${env:NAME} references stay).
TargetConfig redacted(const TargetConfig &target);
RunConfig redacted(const RunConfig &config);
/// The secrets a target sends, resolved: API key, credential header values, the URLs' userinfo
/// passwords and their Basic tokens. Masked in server-provided text; never printed.
QStringList secretsOf(const TargetConfig &target);

// JSON (see docs/user-guide.md "Running a benchmark"). toJson() writes redacted(): no secret.
nlohmann::json toJson(const RunConfig &config);
nlohmann::json toJson(const TargetConfig &target);
/// Parses JSON text, refusing nesting deeper than limits::kMaxJsonDepth before any tree is built
/// (a deep tree overflows the stack when copied or written) and a key given twice in one object
/// (the tree would silently keep the last). nullopt with *error naming the key.
std::optional<nlohmann::json> parseJsonBounded(const QByteArray &text, QString *error);
/// Reads a configuration; unknown keys are errors (typos must not be silently ignored). On error
/// returns std::nullopt and fills *error with "field: problem (accepted: …)".
std::optional<RunConfig> runConfigFromJson(const nlohmann::json &json, QString *error);
std::optional<TargetConfig> targetFromJson(const nlohmann::json &json, QString *error);

std::optional<RunConfig> loadRunConfig(const QString &path, QString *error);
bool saveRunConfig(const RunConfig &config, const QString &path, QString *error);

// Small parsers shared by the CLI flags, the JSON reader and the GUI forms.
/// "250ms", "30s", "5m", "1h", "1.5s"; a bare number is seconds. Negative or malformed: nullopt.
std::optional<qint64> parseDurationMs(const QString &text);
/// The shortest exact form: "250ms", "30s", "5m".
QString formatDuration(qint64 ms);
/// A think time: "2s" (fixed) or "exp:2s" (exponential with that mean). nullopt when malformed.
struct ThinkTime {
    qint64 ms = 0;
    bool exponential = false;
};
std::optional<ThinkTime> parseThinkTime(const QString &text);
/// What a run's headline figures cover (--window, docs/metrics.md "Headline window"): every
/// measured request, the steady-state window, or the requests sent from a time after the start.
struct HeadlineWindow {
    enum class Kind { All, Steady, From };
    Kind kind = Kind::All;
    qint64 fromMs = 0; ///< Kind::From: requests sent this long after the start, or later
};
/// "all", "steady" or a duration ("30s": from 30 s after the start to the end; "0s" is "all").
/// nullopt when malformed or longer than the longest duration a run may have.
std::optional<HeadlineWindow> parseHeadlineWindow(const QString &text);
/// When a request chosen by --cancel-rate is abandoned (--cancel-after).
struct CancelAfter {
    qint64 ms = 0;
    bool afterFirstToken = false; ///< ms after its first token arrived; else ms after it started
};
/// "200ms" or "first-token+200ms" (also "first-token": at its first token); nullopt when malformed
/// or longer than the longest duration a run may have.
std::optional<CancelAfter> parseCancelAfter(const QString &text);
QString formatThinkTime(qint64 ms, bool exponential);
/// "c=50:30s,c=100:30s" or "r=20:60s,r=100:500" (a bare number after ':' is a request count).
std::optional<QList<StageConfig>> parseStages(const QString &spec, QString *error);
/// The stages as text; a context sweep's start with the load it holds ("c=4 p=256:20,p=1024:20").
QString formatStages(const QList<StageConfig> &stages);
/// A sweep (docs/SPEC.md §5): generated stages from one level to another, to find the throughput–latency
/// knee. "c=1..256" doubles the users from 1 to 256 (1, 2, 4, … 256); "c=8..128x5" or
/// "r=2..50x6" gives N levels evenly spaced on a log scale (users rounded to whole numbers,
/// repeats dropped; rates to 3 significant digits); an optional ":30s" or ":200" ends each stage
/// as in --stages (else the run's --duration/--requests does). "p=256..16384x6" is a context sweep:
/// the prompt size in tokens takes the levels (log-spaced or doubling, rounded to whole tokens) at
/// the fixed load of `fixedLoad`'s mode and level.
std::optional<QList<StageConfig>> parseSweep(const QString &spec, QString *error, const StageConfig &fixedLoad = {});
/// "4..1024", "4..", "..2048" or "512" (exactly): an inclusive token range, 0 for an open end.
std::optional<std::pair<int, int>> parseLengthRange(const QString &text, QString *error);
QString formatLengthRange(int min, int max); ///< "" when both are 0
/// "ttft_ms=500,tpot_ms=50,e2e_ms=10000"; at least one threshold.
std::optional<SloConfig> parseSlo(const QString &spec, QString *error);
/// "K: V"
std::optional<Header> parseHeader(const QString &text, QString *error);

// Qt <-> std::string at the JSON boundary.
inline std::string toStd(const QString &s)
{
    return s.toStdString();
}
inline QString fromStd(const std::string &s)
{
    return QString::fromStdString(s);
}
inline nlohmann::json toJson(const QStringList &strings)
{
    nlohmann::json array = nlohmann::json::array();
    for (const QString &s : strings)
        array.push_back(toStd(s));
    return array;
}

} // namespace tb
