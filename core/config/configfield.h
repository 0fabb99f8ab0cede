#pragma once

// The fields of a RunConfig as one table (configfields.cpp): a row per field with its JSON path,
// its command-line flag, type, unit, range, default and help line, and how to get and set it. JSON
// reading and writing, the run command's flags and --help, the range checks of configProblems()
// and the GUI forms' rows are made from it, so a new field is one row, not five edits.

#include "config/runconfig.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QList>
#include <QString>

#include <nlohmann/json.hpp>

#include <functional>
#include <limits>
#include <optional>
#include <variant>

namespace tb {

/// One value per row of configFields(), in its order: the value is the row's index.
enum class ConfigFieldId {
    // target
    TargetName,
    TargetApi,
    TargetUrl,
    TargetReplicas,
    TargetBalance,
    TargetModel,
    TargetApiKeyEnv,
    TargetApiKey,
    TargetHeaders,
    TargetExtraBody,
    TargetTlsVerify,
    TargetCaCert,
    TargetTokenizer,
    TargetServerMetrics,
    TargetServerMetricsUrl,
    TargetGpuMetricsUrl,
    TargetTransport,
    TargetHttpVersion,
    TargetProxy,
    TargetFollowRedirects,
    PriceInput,
    PriceCachedInput,
    PriceOutput,
    PricePerKwh,
    PriceSource,
    // request
    MaxTokens,
    MaxTokensField,
    Temperature,
    TopP,
    Stream,
    ResponseFormat,
    Tools,
    ToolChoice,
    ToolResultTokens,
    BatchSize,
    // prompt
    PromptTokens,
    SystemTokens,
    SharedPrefixTokens,
    PromptFile,
    Dataset,
    DatasetSample,
    DatasetPromptLen,
    DatasetOutputLen,
    MaxTokensFromDataset,
    SkipBadLines,
    Calibrate,
    Salt,
    Repeat,
    Images,
    ImageSize,
    SystemTemplate,
    UserTemplate,
    Variables,
    // load
    LoadMode,
    Concurrency,
    Rate,
    Arrival,
    MaxInFlight,
    Stages,
    Requests,
    Duration,
    WarmupDuration,
    WarmupRequests,
    Timeout,
    ConnectTimeout,
    Seed,
    Turns,
    ThinkTime,
    Trace,
    TimeScale,
    StopOnSaturation,
    Slice,
    Window,
    CancelRate,
    CancelAfter,
    // slo
    SloTtft,
    SloTpot,
    SloE2e,
    SloTarget,
    FailOnSlo,
    // quality
    RedundancyThreshold,
    SaveOutputs,
    // the run
    OutDir,
};

/// What a field holds, which decides how the table's readers treat it. The types from StringList
/// on are read and written by hand (runconfigjson.cpp, configflags.cpp): the table names them,
/// gives their flag and help, and their id to problems about them.
enum class ConfigType {
    Bool,         ///< JSON true/false; its flag (when it has one) sets it to flagSets
    Int,          ///< a whole number in [minimum, maximum]
    Int64,        ///< the same, 64 bits
    UInt64,       ///< any unsigned 64-bit number (a seed)
    Real,         ///< a finite number
    OptionalReal, ///< a finite number or null (not set)
    Duration,     ///< "30s"-style text or seconds; milliseconds in RunConfig, 0 written as null
    String,
    OptionalString, ///< a string whose empty value is written as null
    Enum,           ///< one of the names of EnumAccess::names()
    StringList,
    Headers,
    JsonObject,
    StringMap,
    Stages,
    LengthRange,
    ThinkTime,
    Secret, ///< memory only: never read from a file nor written (the typed-in API key)
};

/// An enum field, as ints so that one row type serves every enum.
struct EnumAccess {
    int (*get)(const RunConfig &) = nullptr;
    void (*set)(RunConfig &, int) = nullptr;
    QString (*name)(int) = nullptr;
    std::optional<int> (*fromName)(const QString &) = nullptr;
    QString (*names)() = nullptr; ///< joined with '|', for messages
};

/// The member a row is about (nothing for the hand-read types).
template<typename T> using FieldRef = T &(*)(RunConfig &);
using FieldAccess = std::variant<std::monostate, FieldRef<bool>, FieldRef<int>, FieldRef<qint64>, FieldRef<quint64>,
                                 FieldRef<double>, FieldRef<std::optional<double>>, FieldRef<QString>, EnumAccess>;

struct ConfigField {
    ConfigFieldId id = {};
    const char *section = ""; ///< "target", "target.pricing", …; "" for a top-level key
    const char *key = "";     ///< the key in its section ("concurrency")
    ConfigType type = {};
    /// The run command's flag without "--" ("" when none) and its value's name in --help ("N";
    /// "" for a flag without a value).
    const char *flag = "";
    const char *valueName = "";
    const char *help = ""; ///< the flag's --help line
    const char *unit =
        ""; ///< "tokens", "ms", "requests/s", "USD per 1M tokens"…; for an Enum what a name is ("policy")
    /// Numbers: the range a file's value and validation accept (Real: not enforced on reading).
    double minimum = 0;
    double maximum = 0;
    /// Real flags: the minimum itself is refused ("> 0").
    bool minimumExclusive = false;
    /// A flag's least value when it differs from minimum: there 0 would mean "not set".
    std::optional<double> flagMinimum = std::nullopt;
    /// What 0 means, said in range messages ("from 0 (no cap) to …"); "" when nothing special.
    const char *zeroMeans = "";
    nlohmann::json defaultValue = nullptr; ///< as written in JSON (a duration as "10m", unset as null)
    FieldAccess access = std::monostate();
    /// Its flag is read by hand (configflags.cpp): it sets more than this field, or is checked
    /// against other flags.
    bool handFlag = false;
    /// Bool rows: the value their flag sets (false for --insecure).
    bool flagSets = true;
    /// A whole-number row whose range configProblems() checks from the table ("must be from 1 to
    /// 100000 (got 0)"); the others' checks are worded by hand.
    bool checkRange = false;
    /// A second flag for the same field (--no-stream, --no-proxy, --sweep), read by hand.
    const char *flag2 = "";
    const char *help2 = "";
    const char *valueName2 = "";

    /// "load.concurrency"
    QString path() const;
    /// "load.concurrency (--concurrency)" or "target.extra_body": how problems name the field.
    QString label() const;
    /// The field's value in c as JSON writes it (null for the hand-read types).
    nlohmann::json get(const RunConfig &c) const;
    /// Whether the tabular readers (JSON, flags, range checks) handle this row.
    bool isTabular() const { return !std::holds_alternative<std::monostate>(access); }
};

/// Every field of RunConfig, in ConfigFieldId order.
const QList<ConfigField> &configFields();
const ConfigField &configField(ConfigFieldId id);
/// The row of a JSON path ("load.concurrency"); nullptr when none.
const ConfigField *configFieldAt(const QString &path);

class JsonReader;

/// Reads the fields of one section ("load", "" for the top level) from `reader` into c in table
/// order (so that of two bad keys the same one is reported first, always): the tabular ones by
/// their type, the others by `readByHand` (runconfigjson.cpp).
void readConfigFields(JsonReader &reader, const char *section, RunConfig &c,
                      const std::function<void(const ConfigField &)> &readByHand = {});
/// Writes the tabular fields of one section into `object`.
void writeConfigFields(const RunConfig &c, const char *section, nlohmann::json &object);

/// The run command's flags of the fields, in table order, with their --help lines.
QList<QCommandLineOption> configOptions();
/// Applies the command line over the configuration (flags win, docs/SPEC.md §1). False with *error
/// ("--concurrency: '0' is not a whole number from 1 to 100000") when a flag's value cannot be
/// used, two flags contradict each other, or a flag would have no effect on the run as configured.
bool applyConfigFlags(const QCommandLineParser &parser, RunConfig &c, QString *error);

/// A problem of a configuration: the field it is about and the message users see, which names the
/// field itself ("load.concurrency (--concurrency): must be from 1 to 100000 (got 0)").
struct ConfigProblem {
    ConfigFieldId field;
    QString message;
    friend bool operator==(const ConfigProblem &, const ConfigProblem &) = default;
};

/// What validate() says, each problem with its field.
QList<ConfigProblem> configProblems(const RunConfig &config);

} // namespace tb
