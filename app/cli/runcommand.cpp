#include "cliparser.h"
#include "commands.h"
#include "runconsole.h"
#include "signalwatcher.h"

#include "api/apidialect.h"
#include "api/modelslisting.h"
#include "config/pricepresets.h"
#include "config/runconfig.h"
#include "config/sharding.h"
#include "net/fdlimit.h"
#include "net/targetaccess.h"
#include "results/runwriter.h"
#include "run/benchmarkrunner.h"
#include "workload/runplan.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QTimer>

#include <algorithm>
#include <cmath>

namespace tb::cli {

namespace {

QCommandLineOption flag(const QString &name, const QString &description, const QString &value = {})
{
    return value.isEmpty() ? QCommandLineOption(name, description) : QCommandLineOption(name, description, value);
}

struct Flags {
    CliParser &cli;
    QCommandLineParser &p;
    QString error;

    bool isSet(const char *name) const { return p.isSet(QLatin1String(name)); }
    QString value(const char *name) const { return p.value(QLatin1String(name)); }

    bool fail(const QString &message)
    {
        if (error.isEmpty())
            error = message;
        return false;
    }

    /// A whole number in [minimum, maximum] (never one that wraps around in Int).
    template<typename Int> bool integer(const char *name, Int &out, Int minimum, Int maximum)
    {
        if (!isSet(name))
            return true;
        bool ok = false;
        const qlonglong v = value(name).toLongLong(&ok);
        if (!ok || v < qlonglong(minimum) || v > qlonglong(maximum))
            return fail(QStringLiteral("--%1: '%2' is not a whole number from %3 to %4")
                            .arg(QLatin1String(name), value(name).left(32))
                            .arg(qlonglong(minimum))
                            .arg(qlonglong(maximum)));
        out = Int(v);
        return true;
    }

    bool real(const char *name, double &out, double minimum, bool exclusive)
    {
        if (!isSet(name))
            return true;
        bool ok = false;
        const double v = value(name).toDouble(&ok);
        // toDouble() reads "inf" and "nan": neither is a setting.
        if (!ok || !std::isfinite(v) || v < minimum || (exclusive && v == minimum))
            return fail(
                QStringLiteral("--%1: '%2' is not a finite number %3 %4")
                    .arg(QLatin1String(name), value(name), exclusive ? QStringLiteral(">") : QStringLiteral("≥"))
                    .arg(minimum));
        out = v;
        return true;
    }

    /// A duration above 0 (0 would mean "not set" and silently change the run).
    bool duration(const char *name, qint64 &out)
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
};

/// A flag the run as configured would not use is refused with the flag that makes it moot, rather
/// than dropped without a word. Checked on the resolved configuration, so a value from --config counts.
bool unusedFlagsRefused(Flags &f, const RunConfig &c)
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

/// Applies the command line over the configuration file (flags win), docs/SPEC.md §1.
bool applyFlags(Flags &f, RunConfig &c)
{
    if (f.isSet("url")) {
        // Repeated: several instances of one model; requests are spread over them (--balance).
        const QStringList urls = f.p.values(QStringLiteral("url"));
        c.target.url = urls.first();
        c.target.replicas = urls.mid(1);
    }
    if (f.isSet("balance")) {
        const auto balance = balanceFromName(f.value("balance"));
        if (!balance)
            return f.fail(QStringLiteral("--balance: unknown policy '%1' (accepted: %2)")
                              .arg(f.value("balance"), balanceNames()));
        c.target.balance = *balance;
    }
    if (f.isSet("api")) {
        const auto api = apiKindFromName(f.value("api"));
        if (!api)
            return f.fail(QStringLiteral("--api: unknown API '%1' (accepted: %2)").arg(f.value("api"), apiKindNames()));
        c.target.api = *api;
    }
    if (f.isSet("model"))
        c.target.model = f.value("model");
    if (f.isSet("name"))
        c.target.name = f.value("name");
    if (f.isSet("api-key-env")) {
        static const QRegularExpression envName(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
        if (!envName.match(f.value("api-key-env")).hasMatch())
            return f.fail(
                QStringLiteral(
                    "--api-key-env: '%1' is not an environment variable name (give the variable's name, not the key)")
                    .arg(f.value("api-key-env").left(4) + QStringLiteral("…")));
        c.target.apiKeyEnv = f.value("api-key-env");
    }
    for (const QString &h : f.p.values(QStringLiteral("header"))) {
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
    if (f.isSet("transport")) {
        const auto transport = transportKindFromName(f.value("transport"));
        if (!transport)
            return f.fail(QStringLiteral("--transport: unknown transport '%1' (accepted: %2)")
                              .arg(f.value("transport"), transportKindNames()));
        c.target.transport = *transport;
    }
    if (f.isSet("http2"))
        c.target.httpVersion = HttpVersion::Http2;
    if (f.isSet("insecure"))
        c.target.tlsVerify = false;
    if (f.isSet("ca-cert"))
        c.target.caCertificate = f.value("ca-cert");
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
    if (f.isSet("follow-redirects"))
        c.target.followRedirects = true;
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
    for (const auto &[flag, price] : {std::pair{"price-input", &c.target.pricing.inputPerM},
                                      std::pair{"price-cached-input", &c.target.pricing.cachedInputPerM},
                                      std::pair{"price-output", &c.target.pricing.outputPerM}}) {
        if (!f.isSet(flag))
            continue;
        double v = 0;
        if (!f.real(flag, v, 0, false))
            return false;
        *price = v;
        priceEdited = true;
    }
    if (priceEdited) // no longer the preset's (or the file's) prices as they were
        c.target.pricing.source = f.isSet("price-preset") ? c.target.pricing.source + QStringLiteral(", edited")
                                                          : QStringLiteral("command line");
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
    if (f.isSet("max-tokens-field")) {
        const auto field = maxTokensFieldFromName(f.value("max-tokens-field"));
        if (!field)
            return f.fail(QStringLiteral("--max-tokens-field: unknown field '%1' (accepted: %2)")
                              .arg(f.value("max-tokens-field"), maxTokensFieldNames()));
        c.request.maxTokensField = *field;
    }
    if (f.isSet("temperature")) {
        double t = 0;
        if (!f.real("temperature", t, 0, false))
            return false;
        c.request.temperature = t;
    }
    if (f.isSet("top-p")) {
        double t = 0;
        if (!f.real("top-p", t, 0, true))
            return false;
        c.request.topP = t;
    }
    if (f.isSet("tokenizer"))
        c.target.tokenizer = f.value("tokenizer") == QLatin1String("none") ? QString() : f.value("tokenizer");
    if (f.isSet("calibrate"))
        c.prompt.calibrate = true;
    if (!f.integer("prompt-tokens", c.prompt.promptTokens, 0, limits::kMaxPromptTokens) ||
        !f.integer("system-tokens", c.prompt.systemTokens, 0, limits::kMaxPromptTokens) ||
        !f.integer("shared-prefix-tokens", c.prompt.sharedPrefixTokens, 0, limits::kMaxPromptTokens))
        return false;
    if (f.isSet("prompt-file"))
        c.prompt.promptFile = f.value("prompt-file");
    if (f.isSet("dataset"))
        c.prompt.dataset = f.value("dataset");
    if (!f.integer("dataset-sample", c.prompt.datasetSample, qint64(1), limits::kMaxRequests))
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
    if (!lengthRange("dataset-prompt-len", c.prompt.promptLenMin, c.prompt.promptLenMax) ||
        !lengthRange("dataset-output-len", c.prompt.outputLenMin, c.prompt.outputLenMax))
        return false;
    if (f.isSet("skip-bad-lines"))
        c.prompt.skipBadLines = true;
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
    if (!f.real("time-scale", c.load.timeScale, 0, true))
        return false;
    if (f.isSet("prompt-salt"))
        c.prompt.salt = f.value("prompt-salt");
    if (f.isSet("prompt-repeat"))
        c.prompt.repeat = true;
    if (f.isSet("prompt"))
        c.prompt.userTemplate = f.value("prompt");

    // Load profile: closed loop, open loop or stages — exactly one way to say it.
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
        if (!f.integer("concurrency", c.load.concurrency, 1, limits::kMaxConcurrency))
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
    if (f.isSet("arrival")) {
        const auto arrival = arrivalFromName(f.value("arrival"));
        if (!arrival)
            return f.fail(
                QStringLiteral("--arrival: unknown arrival '%1' (accepted: constant|poisson)").arg(f.value("arrival")));
        c.load.arrival = *arrival;
    }
    if (!f.integer("max-in-flight", c.load.maxInFlight, 0, limits::kMaxConcurrency))
        return false;
    if (f.isSet("requests") || f.isSet("duration")) {
        // A stop condition on the command line replaces the file's.
        c.load.requests = 0;
        c.load.durationMs = 0;
        if (!f.integer("requests", c.load.requests, qint64(1), limits::kMaxRequests) ||
            !f.duration("duration", c.load.durationMs))
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
    if (!f.duration("timeout", c.load.timeoutMs) || !f.duration("connect-timeout", c.load.connectTimeoutMs))
        return false;
    if (!f.integer("turns", c.load.turns, 1, limits::kMaxTurns))
        return false;
    if (f.isSet("think-time")) {
        const auto think = parseThinkTime(f.value("think-time"));
        if (!think || think->ms > limits::kMaxDurationMs)
            return f.fail(QStringLiteral("--think-time: '%1' is not a duration (e.g. 2s) or exp:DURATION (exponential "
                                         "think times with that mean, e.g. exp:2s)")
                              .arg(f.value("think-time")));
        c.load.thinkTimeMs = think->ms;
        c.load.thinkTimeExponential = think->exponential;
    }
    if (f.isSet("seed")) {
        bool ok = false;
        const quint64 seed = f.value("seed").toULongLong(&ok);
        if (!ok)
            return f.fail(QStringLiteral("--seed: '%1' is not a whole number ≥ 0").arg(f.value("seed")));
        c.load.seed = seed;
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
    if (!f.real("slo-target", c.slo.target, 0, true))
        return false;
    if (f.isSet("fail-on-slo"))
        c.slo.failOnSlo = true;
    if (f.isSet("out"))
        c.outDir = withHomeExpanded(f.value("out"));
    return unusedFlagsRefused(f, c);
}

/// "openai-chat (default) | openai-completions | …": every dialect, in ApiKind's order.
QString apiFlagHelp()
{
    QStringList names;
    for (const ApiDialect *dialect : apiDialects())
        names << dialect->name() + (dialect->kind() == TargetConfig().api ? QStringLiteral(" (default)") : QString());
    return names.join(QStringLiteral(" | ")) + QLatin1Char('.');
}

/// The target's context length from its /models listing (3 s at most, 1 MiB at most); 0 when it
/// reports none or does not answer, and the check before the run is skipped.
qint64 targetContextTokens(const TargetConfig &target)
{
    if (!dialectFor(target.api).listsContextLengths())
        return 0;
    QString base = target.url.trimmed();
    while (base.endsWith(QLatin1Char('/')))
        base.chop(1);
    QNetworkAccessManager nam;
    QNetworkRequest request(QUrl(base + QStringLiteral("/models"), QUrl::StrictMode));
    if (!TargetAccess::prepare(nam, request, target, nullptr))
        return 0; // the run itself reports a proxy setting it cannot use
    request.setTransferTimeout(3000);
    const auto headers = RequestBuilder::targetHeaders(target, nullptr);
    if (!headers)
        return 0; // the run itself refuses them, saying why
    for (const auto &[name, value] : *headers)
        request.setRawHeader(name, value);
    QNetworkReply *reply = nam.get(request);
    reply->setReadBufferSize(1 << 20); // a larger listing stalls into the timeout
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    const QByteArray body = reply->error() == QNetworkReply::NoError ? reply->readAll() : QByteArray();
    delete reply;
    return contextLengthFromModels(body, target.model).value_or(0);
}

/// How far in the past a --start-at may lie (pods started a little late still join) and in the future.
constexpr qint64 kStartAtLateMs = 5000;
constexpr qint64 kStartAtAheadMs = 7LL * 24 * 3600 * 1000;

/// --shard K/N, or --shards N with K from JOB_COMPLETION_INDEX (what a Kubernetes Indexed Job sets).
bool shardFlags(Flags &f, ShardSpec &shard)
{
    if (f.isSet("shard") && f.isSet("shards"))
        return f.fail(QStringLiteral("--shard and --shards: choose one (--shards takes K from JOB_COMPLETION_INDEX)"));
    QString why;
    if (f.isSet("shard")) {
        const auto parsed = ShardSpec::parse(f.value("shard"), &why);
        if (!parsed)
            return f.fail(QStringLiteral("--shard: ") + why);
        shard = *parsed;
    }
    if (f.isSet("shards")) {
        int count = 0;
        if (!f.integer("shards", count, 1, ShardSpec::kMaxCount))
            return false;
        const QString index = qEnvironmentVariable("JOB_COMPLETION_INDEX");
        if (index.isEmpty())
            return f.fail(QStringLiteral("--shards: JOB_COMPLETION_INDEX is not set (a Kubernetes Indexed Job sets it; "
                                         "elsewhere use --shard K/N)"));
        const auto parsed = ShardSpec::parse(index + QLatin1Char('/') + QString::number(count), &why);
        if (!parsed)
            return f.fail(
                QStringLiteral("--shards %1: JOB_COMPLETION_INDEX is '%2'; expected a whole number from 0 to %3")
                    .arg(count)
                    .arg(index.left(20))
                    .arg(count - 1));
        shard = *parsed;
    }
    return true;
}

/// --start-at as an RFC 3339 time with its zone ("2026-05-01T10:00:00Z", "…+02:00").
bool startAtFlag(Flags &f, QDateTime &startAt)
{
    if (!f.isSet("start-at"))
        return true;
    static const QRegularExpression rfc3339(
        QStringLiteral("^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]\\d{2}:\\d{2})$"),
        QRegularExpression::CaseInsensitiveOption);
    const QString text = f.value("start-at").trimmed();
    QString iso = text.toUpper();
    // Qt reads at most milliseconds: cut longer fractions (the wait is timer-precise anyway).
    static const QRegularExpression longFraction(QStringLiteral("(\\.\\d{3})\\d+"));
    iso.replace(longFraction, QStringLiteral("\\1"));
    startAt = rfc3339.match(text).hasMatch() ? QDateTime::fromString(iso, Qt::ISODateWithMs) : QDateTime();
    if (!startAt.isValid())
        return f.fail(QStringLiteral("--start-at: '%1' is not an RFC 3339 time with a zone (e.g. 2026-05-01T10:00:00Z)")
                          .arg(text.left(40)));
    const qint64 inMs = QDateTime::currentDateTimeUtc().msecsTo(startAt);
    if (inMs < -kStartAtLateMs)
        return f.fail(
            QStringLiteral("--start-at: %1 is %2 s in the past; give a time ahead of now").arg(text).arg(-inMs / 1000));
    if (inMs > kStartAtAheadMs)
        return f.fail(QStringLiteral("--start-at: %1 is more than 7 days ahead").arg(text));
    return true;
}

/// What --dry-run prints: the run as resolved, so a manifest's command line can be checked.
QString planText(const RunConfig &config, const RunPlan &plan, const QDateTime &startAt)
{
    QString text = QStringLiteral("dry run: configuration valid, nothing sent\n");
    text += QStringLiteral("  target    %1 @ %2 (%3)\n")
                .arg(config.target.model, config.target.instanceUrls().join(QStringLiteral(", ")),
                     apiKindName(config.target.api));
    if (plan.shard.isSharded())
        text += QStringLiteral("  shard     %1 of %2 (request ids %3, %4, …; arrival seed %5)\n")
                    .arg(plan.shard.index)
                    .arg(plan.shard.count)
                    .arg(shardRequestId(1, plan.shard))
                    .arg(shardRequestId(2, plan.shard))
                    .arg(shardArrivalSeed(plan.config.load.seed, plan.shard));
    for (const StageConfig &stage : plan.stages) {
        const QString level = stage.mode == LoadMode::Rate ? QStringLiteral("%1 requests/s").arg(stage.level)
                                                           : QStringLiteral("%1 users").arg(stage.level);
        QStringList ends;
        if (stage.durationMs > 0)
            ends << formatDuration(stage.durationMs);
        if (stage.requests > 0)
            ends << QStringLiteral("%1 requests").arg(stage.requests);
        text +=
            QStringLiteral("  stage     %1: %2, until %3\n").arg(stage.name, level, ends.join(QStringLiteral(" or ")));
    }
    text += QStringLiteral("  start     %1\n")
                .arg(startAt.isValid() ? startAt.toUTC().toString(Qt::ISODateWithMs) : QStringLiteral("now"));
    text += QStringLiteral("  out       %1\n")
                .arg(config.outDir.isEmpty() ? QStringLiteral("(default: runs/<time>-<model>)") : config.outDir);
    return text;
}

void addRunOptions(CliParser &cli)
{
    const QList<QCommandLineOption> options{
        flag(QStringLiteral("config"), QStringLiteral("Run configuration (the JSON the GUI saves); flags override it."),
             QStringLiteral("FILE.json")),
        flag(QStringLiteral("url"),
             QStringLiteral("API base URL, e.g. http://127.0.0.1:8000/v1. Repeat it for several instances of the "
                            "same model: requests are spread over them and reported per instance."),
             QStringLiteral("URL")),
        flag(QStringLiteral("balance"),
             QStringLiteral("How requests are spread over several --url instances: round-robin (default), "
                            "least-in-flight (fewest requests in flight, i.e. least connections) or random."),
             QStringLiteral("POLICY")),
        flag(QStringLiteral("api"), apiFlagHelp(), QStringLiteral("API")),
        flag(QStringLiteral("model"), QStringLiteral("Model name to request."), QStringLiteral("NAME")),
        flag(QStringLiteral("name"), QStringLiteral("Display name of the target (default: the model)."),
             QStringLiteral("NAME")),
        flag(QStringLiteral("api-key-env"),
             QStringLiteral("Environment variable holding the API key (default OPENAI_API_KEY or "
                            "ANTHROPIC_API_KEY); a key with a line break, a trailing one too, is refused. Keys are "
                            "never written to any file."),
             QStringLiteral("VAR")),
        flag(QStringLiteral("header"), QStringLiteral("Extra request header 'Name: value' (repeatable)."),
             QStringLiteral("'K: V'")),
        flag(QStringLiteral("extra-body"),
             QStringLiteral("JSON object merged into every request body, e.g. '{\"ignore_eos\": true}'."),
             QStringLiteral("JSON")),
        flag(QStringLiteral("transport"),
             QStringLiteral("HTTP client: auto (default: native, but qnam for h2c through a proxy), native "
                            "(TokenBench's own HTTP/1.1 and HTTP/2 client) or qnam (Qt's QNetworkAccessManager)."),
             QStringLiteral("NAME")),
        flag(QStringLiteral("http2"),
             QStringLiteral("Force HTTP/2: over https h2 by ALPN (a server that picks HTTP/1.1 is an error), over "
                            "http by prior knowledge (h2c). Without it https offers h2 and HTTP/1.1 by ALPN and uses "
                            "the server's pick; http is HTTP/1.1.")),
        flag(QStringLiteral("insecure"),
             QStringLiteral("https: check neither the server's certificate nor its host name (self-signed test "
                            "servers), directly or through a proxy.")),
        flag(QStringLiteral("ca-cert"), QStringLiteral("https: also trust the CA certificates in this PEM file."),
             QStringLiteral("FILE")),
        flag(QStringLiteral("server-metrics"),
             QStringLiteral(
                 "The server's Prometheus endpoint, scraped once a second during the run into server_metrics.csv "
                 "and the summary (default: the --url server's /metrics, when it answers)."),
             QStringLiteral("URL")),
        flag(QStringLiteral("no-server-metrics"), QStringLiteral("Do not scrape the server's metrics.")),
        flag(QStringLiteral("proxy"),
             QStringLiteral("Send through this http:// proxy (CONNECT for https); NO_PROXY still exempts hosts "
                            "(default: HTTPS_PROXY/HTTP_PROXY/ALL_PROXY, else the system's)."),
             QStringLiteral("URL")),
        flag(QStringLiteral("no-proxy"), QStringLiteral("Connect directly, whatever the environment says.")),
        flag(QStringLiteral("follow-redirects"),
             QStringLiteral("Follow 301/302/303/307/308 (up to 5 hops) instead of reporting them as errors.")),
        flag(QStringLiteral("metrics-listen"),
             QStringLiteral("Serve TokenBench's own figures as OpenMetrics at http://ADDR:PORT/metrics during the run "
                            "(requests, tokens, in flight, TTFT/ITL/E2E histograms by stage), e.g. 127.0.0.1:9464."),
             QStringLiteral("ADDR:PORT")),
        flag(QStringLiteral("price-input"),
             QStringLiteral("Price of prompt tokens, USD per 1M: the run's cost goes in the summary."),
             QStringLiteral("USD")),
        flag(QStringLiteral("price-cached-input"),
             QStringLiteral(
                 "Price of cached prompt tokens (usage's cached_tokens), USD per 1M (default: --price-input)."),
             QStringLiteral("USD")),
        flag(QStringLiteral("price-output"), QStringLiteral("Price of completion tokens, USD per 1M."),
             QStringLiteral("USD")),
        flag(QStringLiteral("price-preset"),
             QStringLiteral("Example list prices of a model on a date (README \"Cost\"): gpt-4o, gpt-4o-mini, "
                            "o1-preview, claude-3.5-sonnet, claude-3.5-haiku; --price-* flags override them."),
             QStringLiteral("NAME")),
        flag(QStringLiteral("stream"), QStringLiteral("Stream responses (default).")),
        flag(QStringLiteral("no-stream"), QStringLiteral("Ask for whole responses.")),
        flag(QStringLiteral("max-tokens"),
             QStringLiteral("max_tokens per request (default 256); 'dataset': each --dataset entry's recorded reply "
                            "length (entries without one: 256)."),
             QStringLiteral("N|dataset")),
        flag(QStringLiteral("max-tokens-field"),
             QStringLiteral(
                 "Body field for --max-tokens: auto (default: max_completion_tokens for OpenAI's own chat API, "
                 "max_tokens elsewhere) | max_tokens | max_completion_tokens."),
             QStringLiteral("FIELD")),
        flag(QStringLiteral("temperature"), QStringLiteral("Sampling temperature."), QStringLiteral("X")),
        flag(QStringLiteral("top-p"), QStringLiteral("Nucleus sampling top_p."), QStringLiteral("X")),
        flag(QStringLiteral("tokenizer"),
             QStringLiteral("The model's tokenizer, to size prompts exactly and count text when the server reports no "
                            "usage: a tokenizer.json or .tiktoken FILE (or a model folder), approx, server (the "
                            "target's /tokenize, for --calibrate) or none (default: one token per chunk)."),
             QStringLiteral("approx|server|FILE")),
        flag(
            QStringLiteral("calibrate"),
            QStringLiteral("Probe the target before the run (max_tokens=1 requests, or /tokenize) so synthetic prompts "
                           "have the requested size in its own counting, chat template included.")),
        flag(QStringLiteral("prompt-tokens"),
             QStringLiteral("Synthetic user prompt of about N tokens, different for each request."),
             QStringLiteral("N")),
        flag(QStringLiteral("system-tokens"),
             QStringLiteral("Synthetic system prompt of about N tokens, the same for each request."),
             QStringLiteral("N")),
        flag(QStringLiteral("shared-prefix-tokens"),
             QStringLiteral("The first N prompt tokens are identical in every request (prefix-cache tests)."),
             QStringLiteral("N")),
        flag(QStringLiteral("prompt-salt"),
             QStringLiteral("Salt of the prompts: a run's salt (in its run.json) replays its prompts exactly "
                            "(default: a fresh salt per run, so no prefix cache carries over; the summary says when a "
                            "run replays one)."),
             QStringLiteral("S")),
        flag(QStringLiteral("prompt-repeat"),
             QStringLiteral("Repeat prompts on purpose (prefix-cache tests): prompt files, datasets and templates are "
                            "sent as written and every synthetic request sends the same text (default: each request's "
                            "prompt is its own, a salt tag at the start of its first user message).")),
        flag(QStringLiteral("prompt-file"),
             QStringLiteral("JSONL prompts: {\"prompt\": ...} or {\"messages\": [...]} per line."),
             QStringLiteral("FILE")),
        flag(QStringLiteral("dataset"),
             QStringLiteral("ShareGPT JSON or JSONL (the first human turn is the prompt, the reply's length its output "
                            "length), or JSONL prompt lines with max_tokens / output_len."),
             QStringLiteral("FILE")),
        flag(QStringLiteral("dataset-sample"),
             QStringLiteral("Use N entries of the workload file drawn at random (seeded by --seed)."),
             QStringLiteral("N")),
        flag(QStringLiteral("dataset-prompt-len"),
             QStringLiteral("Keep entries whose prompt is MIN..MAX tokens (either end may be left out, e.g. 4..1024)."),
             QStringLiteral("MIN..MAX")),
        flag(QStringLiteral("dataset-output-len"),
             QStringLiteral("Keep entries whose output length is MIN..MAX tokens (entries without one are dropped)."),
             QStringLiteral("MIN..MAX")),
        flag(QStringLiteral("skip-bad-lines"),
             QStringLiteral("Skip a workload file's broken lines (counted in the summary) instead of refusing it.")),
        flag(QStringLiteral("trace"),
             QStringLiteral("Replay a trace at its timestamps, open loop: Mooncake JSONL (timestamp ms, input_length, "
                            "output_length, hash_ids), Azure LLM trace CSV (TIMESTAMP, ContextTokens, "
                            "GeneratedTokens) or JSONL prompt lines with \"timestamp\"."),
             QStringLiteral("FILE")),
        flag(QStringLiteral("time-scale"),
             QStringLiteral("Trace time multiplier (default 1; 0.5 replays twice as fast)."), QStringLiteral("X")),
        flag(QStringLiteral("prompt"),
             QStringLiteral("User prompt template; {{index}} and {{seed}} are replaced. Not with --prompt-file, "
                            "--dataset, --trace or --prompt-tokens, which make the prompts themselves."),
             QStringLiteral("TEXT")),
        flag(QStringLiteral("concurrency"),
             QStringLiteral("Closed loop: N virtual users, each sends its next request when the last ends."),
             QStringLiteral("N")),
        flag(QStringLiteral("rate"), QStringLiteral("Open loop: R requests/s."), QStringLiteral("R")),
        flag(QStringLiteral("arrival"), QStringLiteral("Open-loop arrivals: poisson (default) | constant."),
             QStringLiteral("KIND")),
        flag(QStringLiteral("max-in-flight"),
             QStringLiteral("Open-loop cap (with --rate, rate stages or --trace); requests over it wait, and the wait "
                            "is measured."),
             QStringLiteral("N")),
        flag(QStringLiteral("stages"),
             QStringLiteral("Staged levels, e.g. \"c=50:30s,c=100:30s\" or \"r=20:60s,r=100:500\" "
                            "(after ':' a duration or a request count)."),
             QStringLiteral("SPEC")),
        flag(QStringLiteral("sweep"),
             QStringLiteral("Generated stages to find the throughput-latency knee: \"c=1..256\" doubles the users, "
                            "\"c=8..128x5\" or \"r=2..50x6\" gives N log-spaced levels; \":60s\" or \":200\" ends "
                            "each stage (else --duration/--requests). The summary names the knee. \"p=256..16384x6\" "
                            "sweeps the prompt size at the --concurrency/--rate load and fits TTFT = a*x^b + c."),
             QStringLiteral("SPEC")),
        flag(QStringLiteral("requests"),
             QStringLiteral("Stop each stage after N requests (default 100 when no duration is given)."),
             QStringLiteral("N")),
        flag(QStringLiteral("duration"), QStringLiteral("Stop each stage after D (e.g. 60s, 5m)."),
             QStringLiteral("D")),
        flag(QStringLiteral("warmup"),
             QStringLiteral("Warm-up before measuring: a duration (10s) or a request count (20); "
                            "written to requests.csv, excluded from statistics."),
             QStringLiteral("D|N")),
        flag(QStringLiteral("turns"),
             QStringLiteral("Conversations of N turns: each user (or each open-loop arrival) holds one, and turn k "
                            "carries the whole history with the model's own replies to turns 1..k-1."),
             QStringLiteral("N")),
        flag(QStringLiteral("think-time"),
             QStringLiteral("Pause between a conversation's turns: fixed (2s) or exponential with that mean (exp:2s)."),
             QStringLiteral("D")),
        flag(QStringLiteral("timeout"), QStringLiteral("Per-request total deadline (default 600s)."),
             QStringLiteral("D")),
        flag(QStringLiteral("connect-timeout"),
             QStringLiteral("Deadline for connecting and the TLS handshake (default 10s)."), QStringLiteral("D")),
        flag(QStringLiteral("slo"), QStringLiteral("Goodput thresholds, e.g. ttft_ms=500,tpot_ms=50,e2e_ms=10000."),
             QStringLiteral("SPEC")),
        flag(QStringLiteral("slo-target"), QStringLiteral("Good fraction needed with --fail-on-slo (default 0.99)."),
             QStringLiteral("X")),
        flag(QStringLiteral("fail-on-slo"),
             QStringLiteral("Exit 3 when the good fraction is below --slo-target (needs --slo).")),
        flag(QStringLiteral("seed"), QStringLiteral("Seed for prompts and arrivals (default 1)."), QStringLiteral("N")),
        flag(QStringLiteral("out"),
             QStringLiteral("Run directory (default ./runs/<timestamp>-<model>); it must be new or empty."),
             QStringLiteral("DIR")),
        flag(QStringLiteral("force"),
             QStringLiteral("Write into a non-empty --out directory, replacing the run files there.")),
        flag(QStringLiteral("workers"), QStringLiteral("Transport threads (default: one per core, at least 2)."),
             QStringLiteral("N")),
        flag(QStringLiteral("quiet"), QStringLiteral("No progress on stderr.")),
        flag(QStringLiteral("shard"),
             QStringLiteral("Run shard K of N (0 ≤ K < N): users, rates and request counts are split exactly over "
                            "the shards, prompts never repeat between them; 'merge' joins their run directories."),
             QStringLiteral("K/N")),
        flag(QStringLiteral("shards"),
             QStringLiteral("Like --shard, with K from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)."),
             QStringLiteral("N")),
        flag(QStringLiteral("start-at"),
             QStringLiteral("Wait until this RFC 3339 time (e.g. 2026-05-01T10:00:00Z), so shards start together."),
             QStringLiteral("TIME")),
        flag(QStringLiteral("dry-run"),
             QStringLiteral("Check the configuration and print the resolved plan; send nothing (exit 0 or 2).")),
    };
    // Several --url are instances of one model, several --header several headers; any other flag
    // given twice is refused rather than its last value taken.
    const QStringList repeatable{QStringLiteral("url"), QStringLiteral("header")};
    for (const QCommandLineOption &o : options)
        cli.addOption(o, repeatable.contains(o.names().first()) ? CliParser::Repeat::Many : CliParser::Repeat::Once);
}

} // namespace

int runCommand(const QStringList &args)
{
    CliParser cli(QStringLiteral("run"),
                  QStringLiteral("Run a benchmark against an LLM API and write a run directory.\n"
                                 "Progress goes to stderr, the summary table to stdout.\n"
                                 "Exit codes: 0 ok, 1 runtime failure (or every request failed), "
                                 "2 bad usage/config, 3 SLO not met, 130 interrupted (SIGINT/SIGTERM; the run "
                                 "is saved).\n"
                                 "A flag that takes a value is given once; --url and --header repeat."));
    addRunOptions(cli);
    if (const auto exit = cli.parse(args))
        return *exit;
    QCommandLineParser &p = cli.parser();
    if (!p.positionalArguments().isEmpty())
        return cli.usageError(QStringLiteral("unexpected argument '%1'").arg(p.positionalArguments().first()));

    RunConfig config;
    if (p.isSet(QStringLiteral("config"))) {
        QString error;
        const auto loaded = loadRunConfig(p.value(QStringLiteral("config")), &error);
        if (!loaded)
            return cli.usageError(QStringLiteral("--config: ") + error);
        config = *loaded;
    }
    Flags flags{cli, p, {}};
    if (!applyFlags(flags, config))
        return cli.usageError(flags.error);
    int workers = 0;
    ShardSpec shard;
    QDateTime startAt;
    if (!flags.integer("workers", workers, 1, limits::kMaxWorkers) || !shardFlags(flags, shard) ||
        !startAtFlag(flags, startAt))
        return cli.usageError(flags.error);
    // Before the limits are checked: allow what the system allows (the soft limit is often 1024).
    raiseOpenFileLimit();
    if (const QString files = checkOpenFiles(config, workers); workers > 0 && !files.isEmpty())
        return cli.usageError(QStringLiteral("--workers: ") + files);

    const bool freshSalt = shard.isSharded() && config.prompt.salt.isEmpty();
    if (freshSalt) {
        // One run in N processes: every shard needs the same salt (merge checks the configurations
        // agree), and a fresh one per sharded run. The start time the shards share serves for
        // that; without --start-at the shards' common configuration alone decides it.
        RunConfig common = config;
        common.outDir.clear(); // each shard writes its own directory
        const QByteArray basis =
            toJson(common).dump().c_str() +
            (startAt.isValid() ? startAt.toUTC().toString(Qt::ISODateWithMs).toUtf8() : QByteArray());
        config.prompt.salt =
            QString::fromLatin1(QCryptographicHash::hash(basis, QCryptographicHash::Sha256).toHex().left(16));
    }

    const bool force = p.isSet(QStringLiteral("force"));
    if (!force && !config.outDir.isEmpty()) {
        if (const QString why = RunWriter::occupied(config.outDir); !why.isEmpty())
            return cli.usageError(
                QStringLiteral("out (--out): %1; choose a new directory, or --force to write into it").arg(why));
    }

    const qint64 waitMs = startAt.isValid() ? QDateTime::currentDateTimeUtc().msecsTo(startAt) : 0;
    if (p.isSet(QStringLiteral("dry-run")) || waitMs > 0) {
        // Resolved now (the runner does it again at the start), so a bad configuration fails at
        // once rather than at the start time.
        QString why;
        RunConfig share = config;
        const auto load = shardLoad(config.load, shard, &why);
        if (!load)
            return cli.usageError(QStringLiteral("--shard %1: %2").arg(shard.text(), why));
        share.load = *load;
        const auto plan = RunPlan::create(share, {share.target}, &why, shard);
        if (!plan) {
            printErr(QStringLiteral("tokenbench-cli run: %1\n").arg(why));
            return ExitUsage;
        }
        if (p.isSet(QStringLiteral("dry-run"))) {
            printOut(planText(share, *plan, startAt));
            return ExitOk;
        }
    }

    RunConsole console(config, !p.isSet(QStringLiteral("quiet")));
    BenchmarkRunner runner;
    runner.setWorkerThreads(workers);
    runner.setReplaceExisting(force);
    runner.setShard(shard);
    runner.setFreshSalt(freshSalt);
    runner.setMetricsListen(p.value(QStringLiteral("metrics-listen")));
    int exitCode = ExitOk;
    // Only a workload file's sizes are unknown to the user; a synthetic prompt's are given.
    if (!config.prompt.promptFile.isEmpty() || !config.prompt.dataset.isEmpty() || !config.load.trace.isEmpty())
        runner.setContextTokens(targetContextTokens(config.target));
    const auto start = [&]() {
        QString error;
        if (!runner.start(config, &error)) {
            printErr(QStringLiteral("tokenbench-cli run: %1\n").arg(error));
            exitCode = runner.failureIsConfiguration() ? ExitUsage : ExitFailure;
            return false;
        }
        for (const QString &warning : runner.info().preRunWarnings)
            printErr(QStringLiteral("warning: %1\n").arg(warning));
        console.attach(&runner);
        if (!runner.metricsUrl().isEmpty() && !p.isSet(QStringLiteral("quiet")))
            printErr(QStringLiteral("metrics for Prometheus: %1\n").arg(runner.metricsUrl()));
        return true;
    };
    QTimer startTimer;
    if (waitMs > 0) {
        if (!p.isSet(QStringLiteral("quiet")))
            printErr(QStringLiteral("waiting until %1 (%2 s) to start\n")
                         .arg(startAt.toUTC().toString(Qt::ISODateWithMs))
                         .arg(waitMs / 1000.0, 0, 'f', 1));
        startTimer.setSingleShot(true);
        startTimer.setTimerType(Qt::PreciseTimer);
        QObject::connect(&startTimer, &QTimer::timeout, &runner, [&] {
            if (!start())
                QCoreApplication::exit(exitCode);
        });
        startTimer.start(int(waitMs));
    } else if (!start()) {
        return exitCode;
    }

    SignalWatcher watcher;
    bool interrupted = false;
    QObject::connect(&watcher, &SignalWatcher::terminationRequested, &runner, [&runner, &interrupted](int, int count) {
        interrupted = true;
        if (!runner.isRunning()) { // still waiting for --start-at: nothing to save
            QCoreApplication::exit(ExitInterrupted);
            return;
        }
        if (count == 1) {
            printErr(QStringLiteral(
                "\nstopping: cancelling requests in flight and saving results (Ctrl-C again to quit at once)\n"));
            runner.stop();
        } else {
            std::_Exit(ExitInterrupted);
        }
    });
    QObject::connect(&runner, &BenchmarkRunner::runFinished, &runner, [&](const RunOutcome &outcome) {
        exitCode = console.finish(outcome, interrupted);
        QCoreApplication::quit();
    });
    const int loopExit = QCoreApplication::exec();
    return loopExit != 0 ? loopExit : exitCode;
}

} // namespace tb::cli
