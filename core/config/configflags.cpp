#include "config/configfield.h"
#include "config/flagreader.h"
#include "config/pricepresets.h"

#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <utility>

namespace tb {

bool FlagReader::fail(const QString &message)
{
    if (m_error.isEmpty())
        m_error = message;
    return false;
}

bool FlagReader::real(const char *name, double &out, double minimum, bool exclusive)
{
    if (!isSet(name))
        return true;
    bool ok = false;
    const double v = value(name).toDouble(&ok);
    // toDouble() reads "inf" and "nan": neither is a setting.
    if (!ok || !std::isfinite(v) || v < minimum || (exclusive && v == minimum))
        return fail(QStringLiteral("--%1: '%2' is not a finite number %3 %4")
                        .arg(QLatin1String(name), value(name), exclusive ? QStringLiteral(">") : QStringLiteral("≥"))
                        .arg(minimum));
    out = v;
    return true;
}

bool FlagReader::duration(const char *name, qint64 &out)
{
    if (!isSet(name))
        return true;
    const auto ms = parseDurationMs(value(name));
    if (!ms || *ms <= 0)
        return fail(QStringLiteral("--%1: '%2' is not a duration above 0 (e.g. 500ms, 30s, 5m, 1h; at most %3)")
                        .arg(QLatin1String(name), value(name).left(32), formatDuration(limits::kMaxDurationMs)));
    out = *ms;
    return true;
}

bool FlagReader::field(const ConfigField &f, RunConfig &c)
{
    const char *name = f.flag;
    if (!isSet(name))
        return true;
    switch (f.type) {
    case ConfigType::Bool:
        std::get<FieldRef<bool>>(f.access)(c) = f.flagSets;
        return true;
    case ConfigType::Int:
        return integer(name, std::get<FieldRef<int>>(f.access)(c), int(f.flagMinimum.value_or(f.minimum)),
                       int(f.maximum));
    case ConfigType::Int64:
        return integer(name, std::get<FieldRef<qint64>>(f.access)(c), qint64(f.flagMinimum.value_or(f.minimum)),
                       qint64(f.maximum));
    case ConfigType::UInt64: {
        bool ok = false;
        const quint64 v = value(name).toULongLong(&ok);
        if (!ok)
            return fail(QStringLiteral("--%1: '%2' is not a whole number ≥ 0").arg(QLatin1String(name), value(name)));
        std::get<FieldRef<quint64>>(f.access)(c) = v;
        return true;
    }
    case ConfigType::Real:
        return real(name, std::get<FieldRef<double>>(f.access)(c), f.minimum, f.minimumExclusive);
    case ConfigType::OptionalReal: {
        double v = 0;
        if (!real(name, v, f.minimum, f.minimumExclusive))
            return false;
        std::get<FieldRef<std::optional<double>>>(f.access)(c) = v;
        return true;
    }
    case ConfigType::Duration:
        return duration(name, std::get<FieldRef<qint64>>(f.access)(c));
    case ConfigType::String:
    case ConfigType::OptionalString:
        std::get<FieldRef<QString>>(f.access)(c) = value(name);
        return true;
    case ConfigType::Enum: {
        const EnumAccess &e = std::get<EnumAccess>(f.access);
        const auto v = e.fromName(value(name));
        if (!v)
            return fail(QStringLiteral("--%1: unknown %2 '%3' (accepted: %4)")
                            .arg(QLatin1String(name), QLatin1String(f.unit), value(name), e.names()));
        e.set(c, *v);
        return true;
    }
    default:
        return true;
    }
}

namespace {

/// A flag the run as configured would not use is refused with the flag that makes it moot, rather
/// than dropped without a word. Checked on the resolved configuration, so a value from --config counts.
bool unusedFlagsRefused(FlagReader &f, const RunConfig &c)
{
    if (f.isSet("prompt")) {
        // The template is the prompt only when nothing else makes the prompts (PromptSource).
        const std::pair<bool, const char *> replacing[] = {
            {!c.prompt.promptFile.isEmpty(), "--prompt-file"},
            {!c.prompt.dataset.isEmpty(), "--dataset"},
            {!c.load.trace.isEmpty(), "--trace"},
            {c.prompt.promptTokens > 0, "--prompt-tokens"},
            {isContextSweep(c.load.stages), "--sweep p=…"},
        };
        for (const auto &[replaces, flag] : replacing) {
            if (replaces)
                return f.fail(QStringLiteral("--prompt and %1: choose one (%1 makes the prompts; the template would "
                                             "not be sent)")
                                  .arg(QLatin1String(flag)));
        }
    }
    if (f.isSet("max-in-flight")) {
        const QList<StageConfig> stages = effectiveStages(c.load);
        if (std::none_of(stages.begin(), stages.end(), [](const StageConfig &s) { return s.mode == LoadMode::Rate; }))
            return f.fail(QStringLiteral("--max-in-flight needs --rate (or rate stages, --sweep r=…, --trace): it caps "
                                         "an open loop's requests; --concurrency users are their own cap"));
    }
    return true;
}

/// The target's flags that are more than one field's value.
bool targetFlags(FlagReader &f, RunConfig &c)
{
    if (f.isSet("url")) {
        // Repeated: several instances of one model; requests are spread over them (--balance).
        const QStringList urls = f.values("url");
        c.target.url = urls.first();
        c.target.replicas = urls.mid(1);
    }
    if (f.isSet("api-key-env")) {
        static const QRegularExpression envName(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
        if (!envName.match(f.value("api-key-env")).hasMatch())
            return f.fail(
                QStringLiteral(
                    "--api-key-env: '%1' is not an environment variable name (give the variable's name, not the key)")
                    .arg(f.value("api-key-env").left(4) + QStringLiteral("…")));
        c.target.apiKeyEnv = f.value("api-key-env");
    }
    for (const QString &h : f.values("header")) {
        QString why;
        const auto header = parseHeader(h, &why);
        if (!header)
            return f.fail(QStringLiteral("--header: ") + why);
        // Flags override the file: a header given again replaces the file's (e.g. a redacted one).
        c.target.headers.removeIf(
            [&header](const Header &h) { return h.name.compare(header->name, Qt::CaseInsensitive) == 0; });
        c.target.headers << *header;
    }
    if (f.isSet("extra-body")) {
        QString why;
        const auto extra = parseJsonBounded(f.value("extra-body").toUtf8(), &why);
        if (!extra)
            return f.fail(QStringLiteral("--extra-body: ") + why);
        if (!extra->is_object())
            return f.fail(QStringLiteral("--extra-body: not a JSON object (e.g. '{\"ignore_eos\": true}')"));
        c.target.extraBody = *extra;
    }
    if (f.isSet("http2"))
        c.target.httpVersion = HttpVersion::Http2;
    if (f.isSet("server-metrics") && f.isSet("no-server-metrics"))
        return f.fail(QStringLiteral("--server-metrics and --no-server-metrics: choose one"));
    if (f.isSet("server-metrics")) {
        c.target.serverMetrics = true;
        c.target.serverMetricsUrl = f.value("server-metrics");
    }
    if (f.isSet("no-server-metrics"))
        c.target.serverMetrics = false;
    if (f.isSet("proxy") && f.isSet("no-proxy"))
        return f.fail(QStringLiteral("--proxy and --no-proxy: choose one"));
    if (f.isSet("proxy")) {
        if (f.value("proxy").isEmpty() || f.value("proxy") == QLatin1String("none"))
            return f.fail(QStringLiteral("--proxy: give an http:// proxy URL (--no-proxy: none)"));
        c.target.proxy = f.value("proxy");
    }
    if (f.isSet("no-proxy"))
        c.target.proxy = QStringLiteral("none");
    if (f.isSet("price-preset")) {
        const auto preset = findPricePreset(f.value("price-preset"));
        if (!preset) {
            QStringList names;
            for (const PricePreset &p : pricePresets())
                names << p.name;
            return f.fail(QStringLiteral("--price-preset: unknown preset '%1' (accepted: %2)")
                              .arg(f.value("price-preset"), names.join(QLatin1Char('|'))));
        }
        c.target.pricing = preset->pricing;
    }
    bool priceEdited = false;
    for (const ConfigFieldId id :
         {ConfigFieldId::PriceInput, ConfigFieldId::PriceCachedInput, ConfigFieldId::PriceOutput}) {
        const ConfigField &price = configField(id);
        if (!f.isSet(price.flag))
            continue;
        if (!f.field(price, c))
            return false;
        priceEdited = true;
    }
    if (priceEdited) // no longer the preset's (or the file's) prices as they were
        c.target.pricing.source = f.isSet("price-preset") ? c.target.pricing.source + QStringLiteral(", edited")
                                                          : QStringLiteral("command line");
    if (f.isSet("tokenizer"))
        c.target.tokenizer = f.value("tokenizer") == QLatin1String("none") ? QString() : f.value("tokenizer");
    return true;
}

/// The request's and the prompts' flags that are more than one field's value.
bool promptFlags(FlagReader &f, RunConfig &c)
{
    if (f.isSet("stream") && f.isSet("no-stream"))
        return f.fail(QStringLiteral("--stream and --no-stream: choose one"));
    if (f.isSet("stream"))
        c.request.stream = true;
    if (f.isSet("no-stream"))
        c.request.stream = false;
    if (f.value("max-tokens") == QLatin1String("dataset"))
        c.prompt.outputLenAsMaxTokens = true; // entries without a recorded length keep request.max_tokens
    else if (!f.integer("max-tokens", c.request.maxTokens, 1, limits::kMaxTokens))
        return false;
    const auto lengthRange = [&f](const char *name, int &min, int &max) {
        if (!f.isSet(name))
            return true;
        QString why;
        const auto range = parseLengthRange(f.value(name), &why);
        if (!range)
            return f.fail(QStringLiteral("--%1: %2").arg(QLatin1String(name), why));
        std::tie(min, max) = *range;
        return true;
    };
    return lengthRange("dataset-prompt-len", c.prompt.promptLenMin, c.prompt.promptLenMax) &&
           lengthRange("dataset-output-len", c.prompt.outputLenMin, c.prompt.outputLenMax);
}

/// The load profile: closed loop, open loop, stages or a trace — exactly one way to say it.
bool loadFlags(FlagReader &f, RunConfig &c)
{
    if (f.isSet("trace")) {
        for (const char *schedule : {"concurrency", "rate", "stages", "sweep"}) {
            if (f.isSet(schedule))
                return f.fail(QStringLiteral("--trace and --%1: a trace is its own schedule (each request at its "
                                             "time; --time-scale speeds it up or slows it down)")
                                  .arg(QLatin1String(schedule)));
        }
        c.load.trace = f.value("trace");
        c.load.stages.clear();
    }
    const bool concurrency = f.isSet("concurrency");
    const bool rate = f.isSet("rate");
    const bool stages = f.isSet("stages");
    const bool sweep = f.isSet("sweep");
    if (concurrency && rate)
        return f.fail(
            QStringLiteral("--concurrency and --rate: choose one (closed loop: N users; open loop: R requests/s)"));
    if (stages && sweep)
        return f.fail(QStringLiteral("--stages and --sweep: choose one (a sweep generates the stages)"));
    // A context sweep (p=…) varies the prompt at the load --concurrency or --rate sets.
    const bool contextSweep = sweep && f.value("sweep").trimmed().startsWith(QLatin1Char('p'));
    if ((stages || (sweep && !contextSweep)) && (concurrency || rate))
        return f.fail(QStringLiteral("--%1 sets the load levels; do not combine it with --%2")
                          .arg(stages ? QStringLiteral("stages") : QStringLiteral("sweep"),
                               concurrency ? QStringLiteral("concurrency") : QStringLiteral("rate")));
    if (concurrency) {
        if (!f.field(configField(ConfigFieldId::Concurrency), c))
            return false;
        c.load.mode = LoadMode::Concurrency;
        c.load.stages.clear();
    }
    if (rate) {
        if (!f.real("rate", c.load.rate, 0, true))
            return false;
        c.load.mode = LoadMode::Rate;
        c.load.stages.clear();
    }
    if (stages || sweep) {
        QString why;
        StageConfig fixedLoad;
        fixedLoad.mode = c.load.mode;
        fixedLoad.level = c.load.mode == LoadMode::Rate ? c.load.rate : double(c.load.concurrency);
        const auto parsed =
            stages ? parseStages(f.value("stages"), &why) : parseSweep(f.value("sweep"), &why, fixedLoad);
        if (!parsed)
            return f.fail(
                QStringLiteral("--%1: %2").arg(stages ? QStringLiteral("stages") : QStringLiteral("sweep"), why));
        c.load.stages = *parsed;
        c.load.mode = parsed->first().mode;
    }
    if (f.isSet("requests") || f.isSet("duration")) {
        // A stop condition on the command line replaces the file's.
        c.load.requests = 0;
        c.load.durationMs = 0;
        if (!f.field(configField(ConfigFieldId::Requests), c) || !f.field(configField(ConfigFieldId::Duration), c))
            return false;
    }
    if (f.isSet("warmup")) {
        const QString w = f.value("warmup");
        bool isCount = false;
        const qint64 n = w.toLongLong(&isCount);
        c.load.warmupMs = 0;
        c.load.warmupRequests = 0;
        if (isCount && n >= 0 && n <= limits::kMaxRequests)
            c.load.warmupRequests = n;
        else if (const auto ms = parseDurationMs(w); ms && !isCount)
            c.load.warmupMs = *ms;
        else
            return f.fail(
                QStringLiteral("--warmup: '%1' is neither a request count (e.g. 20) nor a duration (e.g. 10s)").arg(w));
    }
    if (f.isSet("think-time")) {
        const auto think = parseThinkTime(f.value("think-time"));
        if (!think || think->ms > limits::kMaxDurationMs)
            return f.fail(QStringLiteral("--think-time: '%1' is not a duration (e.g. 2s) or exp:DURATION (exponential "
                                         "think times with that mean, e.g. exp:2s)")
                              .arg(f.value("think-time")));
        c.load.thinkTimeMs = think->ms;
        c.load.thinkTimeExponential = think->exponential;
    }
    if (f.isSet("slo")) {
        QString why;
        const auto slo = parseSlo(f.value("slo"), &why);
        if (!slo)
            return f.fail(QStringLiteral("--slo: ") + why);
        c.slo.ttftMs = slo->ttftMs;
        c.slo.tpotMs = slo->tpotMs;
        c.slo.e2eMs = slo->e2eMs;
    }
    if (f.isSet("out"))
        c.outDir = withHomeExpanded(f.value("out"));
    return true;
}

} // namespace

bool applyConfigFlags(const QCommandLineParser &parser, RunConfig &c, QString *error)
{
    FlagReader f(parser);
    bool ok = true;
    // The fields one flag sets, then the flags that set several or are checked against others.
    for (const ConfigField &field : configFields()) {
        if (*field.flag && !field.handFlag && field.isTabular() && !f.field(field, c)) {
            ok = false;
            break;
        }
    }
    ok = ok && targetFlags(f, c) && promptFlags(f, c) && loadFlags(f, c) && unusedFlagsRefused(f, c);
    if (!ok && error)
        *error = f.error();
    return ok;
}

} // namespace tb
