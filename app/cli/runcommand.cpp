#include "cliparser.h"
#include "commands.h"
#include "runconsole.h"
#include "signalwatcher.h"

#include "config/runconfig.h"
#include "results/benchmarkrunner.h"

#include <QCoreApplication>
#include <QDir>
#include <QRegularExpression>

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

    template<typename Int>
    bool integer(const char *name, Int &out, Int minimum)
    {
        if (!isSet(name))
            return true;
        bool ok = false;
        const qlonglong v = value(name).toLongLong(&ok);
        if (!ok || v < qlonglong(minimum))
            return fail(QStringLiteral("--%1: '%2' is not a whole number ≥ %3").arg(QLatin1String(name), value(name)).arg(qlonglong(minimum)));
        out = Int(v);
        return true;
    }

    bool real(const char *name, double &out, double minimum, bool exclusive)
    {
        if (!isSet(name))
            return true;
        bool ok = false;
        const double v = value(name).toDouble(&ok);
        if (!ok || v < minimum || (exclusive && v == minimum))
            return fail(QStringLiteral("--%1: '%2' is not a number %3 %4").arg(QLatin1String(name), value(name),
                                                                             exclusive ? QStringLiteral(">") : QStringLiteral("≥"))
                            .arg(minimum));
        out = v;
        return true;
    }

    bool duration(const char *name, qint64 &out)
    {
        if (!isSet(name))
            return true;
        const auto ms = parseDurationMs(value(name));
        if (!ms)
            return fail(QStringLiteral("--%1: '%2' is not a duration (e.g. 500ms, 30s, 5m, 1h)").arg(QLatin1String(name), value(name)));
        out = *ms;
        return true;
    }
};

/// Applies the command line over the configuration file (flags win), SPEC §1.
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
            return f.fail(QStringLiteral("--balance: unknown policy '%1' (accepted: %2)").arg(f.value("balance"), balanceNames()));
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
            return f.fail(QStringLiteral("--api-key-env: '%1' is not an environment variable name (give the variable's name, not the key)")
                              .arg(f.value("api-key-env").left(4) + QStringLiteral("…")));
        c.target.apiKeyEnv = f.value("api-key-env");
    }
    for (const QString &h : f.p.values(QStringLiteral("header"))) {
        QString why;
        const auto header = parseHeader(h, &why);
        if (!header)
            return f.fail(QStringLiteral("--header: ") + why);
        c.target.headers << *header;
    }
    if (f.isSet("extra-body")) {
        const QByteArray text = f.value("extra-body").toUtf8();
        const nlohmann::json extra = nlohmann::json::parse(text.constData(), text.constData() + text.size(), nullptr, false);
        if (extra.is_discarded() || !extra.is_object())
            return f.fail(QStringLiteral("--extra-body: not a JSON object (e.g. '{\"ignore_eos\": true}')"));
        c.target.extraBody = extra;
    }
    if (f.isSet("insecure"))
        c.target.tlsVerify = false;
    if (f.isSet("ca-cert"))
        c.target.caCertificate = f.value("ca-cert");
    if (f.isSet("stream") && f.isSet("no-stream"))
        return f.fail(QStringLiteral("--stream and --no-stream: choose one"));
    if (f.isSet("stream"))
        c.request.stream = true;
    if (f.isSet("no-stream"))
        c.request.stream = false;
    if (!f.integer("max-tokens", c.request.maxTokens, 1))
        return false;
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
    if (!f.integer("prompt-tokens", c.prompt.promptTokens, 0) || !f.integer("system-tokens", c.prompt.systemTokens, 0)
        || !f.integer("shared-prefix-tokens", c.prompt.sharedPrefixTokens, 0))
        return false;
    if (f.isSet("prompt-file"))
        c.prompt.promptFile = f.value("prompt-file");
    if (f.isSet("prompt"))
        c.prompt.userTemplate = f.value("prompt");

    // Load profile: closed loop, open loop or stages — exactly one way to say it.
    const bool concurrency = f.isSet("concurrency");
    const bool rate = f.isSet("rate");
    const bool stages = f.isSet("stages");
    const bool sweep = f.isSet("sweep");
    if (concurrency && rate)
        return f.fail(QStringLiteral("--concurrency and --rate: choose one (closed loop: N users; open loop: R requests/s)"));
    if (stages && sweep)
        return f.fail(QStringLiteral("--stages and --sweep: choose one (a sweep generates the stages)"));
    if ((stages || sweep) && (concurrency || rate))
        return f.fail(QStringLiteral("--%1 sets the load levels; do not combine it with --%2")
                          .arg(stages ? QStringLiteral("stages") : QStringLiteral("sweep"),
                               concurrency ? QStringLiteral("concurrency") : QStringLiteral("rate")));
    if (concurrency) {
        if (!f.integer("concurrency", c.load.concurrency, 1))
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
        const auto parsed = stages ? parseStages(f.value("stages"), &why) : parseSweep(f.value("sweep"), &why);
        if (!parsed)
            return f.fail(QStringLiteral("--%1: %2").arg(stages ? QStringLiteral("stages") : QStringLiteral("sweep"), why));
        c.load.stages = *parsed;
        c.load.mode = parsed->first().mode;
    }
    if (f.isSet("arrival")) {
        const auto arrival = arrivalFromName(f.value("arrival"));
        if (!arrival)
            return f.fail(QStringLiteral("--arrival: unknown arrival '%1' (accepted: constant|poisson)").arg(f.value("arrival")));
        c.load.arrival = *arrival;
    }
    if (!f.integer("max-in-flight", c.load.maxInFlight, 0))
        return false;
    if (f.isSet("requests") || f.isSet("duration")) {
        // A stop condition on the command line replaces the file's.
        c.load.requests = 0;
        c.load.durationMs = 0;
        if (!f.integer("requests", c.load.requests, qint64(1)) || !f.duration("duration", c.load.durationMs))
            return false;
    }
    if (f.isSet("warmup")) {
        const QString w = f.value("warmup");
        bool isCount = false;
        const qint64 n = w.toLongLong(&isCount);
        c.load.warmupMs = 0;
        c.load.warmupRequests = 0;
        if (isCount && n >= 0)
            c.load.warmupRequests = n;
        else if (const auto ms = parseDurationMs(w); ms && !isCount)
            c.load.warmupMs = *ms;
        else
            return f.fail(QStringLiteral("--warmup: '%1' is neither a request count (e.g. 20) nor a duration (e.g. 10s)").arg(w));
    }
    if (!f.duration("timeout", c.load.timeoutMs))
        return false;
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
        c.outDir = f.value("out");
    return true;
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
        flag(QStringLiteral("api"), QStringLiteral("openai-chat (default) | openai-completions | anthropic-messages."),
             QStringLiteral("API")),
        flag(QStringLiteral("model"), QStringLiteral("Model name to request."), QStringLiteral("NAME")),
        flag(QStringLiteral("name"), QStringLiteral("Display name of the target (default: the model)."),
             QStringLiteral("NAME")),
        flag(QStringLiteral("api-key-env"),
             QStringLiteral("Environment variable holding the API key (default OPENAI_API_KEY or "
                            "ANTHROPIC_API_KEY). Keys are never written to any file."),
             QStringLiteral("VAR")),
        flag(QStringLiteral("header"), QStringLiteral("Extra request header 'Name: value' (repeatable)."),
             QStringLiteral("'K: V'")),
        flag(QStringLiteral("extra-body"),
             QStringLiteral("JSON object merged into every request body, e.g. '{\"ignore_eos\": true}'."),
             QStringLiteral("JSON")),
        flag(QStringLiteral("insecure"),
             QStringLiteral("https: do not check the server's certificate (self-signed test servers).")),
        flag(QStringLiteral("ca-cert"), QStringLiteral("https: also trust the CA certificates in this PEM file."),
             QStringLiteral("FILE")),
        flag(QStringLiteral("stream"), QStringLiteral("Stream responses (default).")),
        flag(QStringLiteral("no-stream"), QStringLiteral("Ask for whole responses.")),
        flag(QStringLiteral("max-tokens"), QStringLiteral("max_tokens per request (default 256)."),
             QStringLiteral("N")),
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
        flag(QStringLiteral("prompt-file"),
             QStringLiteral("JSONL prompts: {\"prompt\": ...} or {\"messages\": [...]} per line."),
             QStringLiteral("FILE")),
        flag(QStringLiteral("prompt"), QStringLiteral("User prompt template; {{index}} and {{seed}} are replaced."),
             QStringLiteral("TEXT")),
        flag(QStringLiteral("concurrency"),
             QStringLiteral("Closed loop: N virtual users, each sends its next request when the last ends."),
             QStringLiteral("N")),
        flag(QStringLiteral("rate"), QStringLiteral("Open loop: R requests/s."), QStringLiteral("R")),
        flag(QStringLiteral("arrival"), QStringLiteral("Open-loop arrivals: poisson (default) | constant."),
             QStringLiteral("KIND")),
        flag(QStringLiteral("max-in-flight"),
             QStringLiteral("Open-loop cap; requests over it wait, and the wait is measured."), QStringLiteral("N")),
        flag(QStringLiteral("stages"),
             QStringLiteral("Staged levels, e.g. \"c=50:30s,c=100:30s\" or \"r=20:60s,r=100:500\" "
                            "(after ':' a duration or a request count)."),
             QStringLiteral("SPEC")),
        flag(QStringLiteral("sweep"),
             QStringLiteral("Generated stages to find the throughput-latency knee: \"c=1..256\" doubles the users, "
                            "\"c=8..128x5\" or \"r=2..50x6\" gives N log-spaced levels; \":60s\" or \":200\" ends "
                            "each stage (else --duration/--requests). The summary names the knee."),
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
        flag(QStringLiteral("timeout"), QStringLiteral("Per-request total deadline (default 600s)."),
             QStringLiteral("D")),
        flag(QStringLiteral("slo"), QStringLiteral("Goodput thresholds, e.g. ttft_ms=500,tpot_ms=50,e2e_ms=10000."),
             QStringLiteral("SPEC")),
        flag(QStringLiteral("slo-target"), QStringLiteral("Good fraction needed with --fail-on-slo (default 0.99)."),
             QStringLiteral("X")),
        flag(QStringLiteral("fail-on-slo"), QStringLiteral("Exit 3 when the good fraction is below --slo-target.")),
        flag(QStringLiteral("seed"), QStringLiteral("Seed for prompts and arrivals (default 1)."), QStringLiteral("N")),
        flag(QStringLiteral("out"), QStringLiteral("Run directory (default ./runs/<timestamp>-<model>)."),
             QStringLiteral("DIR")),
        flag(QStringLiteral("workers"), QStringLiteral("Transport threads (default: one per core, at least 2)."),
             QStringLiteral("N")),
        flag(QStringLiteral("quiet"), QStringLiteral("No progress on stderr.")),
    };
    for (const QCommandLineOption &o : options)
        cli.addOption(o);
}

} // namespace

int runCommand(const QStringList &args)
{
    CliParser cli(QStringLiteral("run"), QStringLiteral("Run a benchmark against an LLM API and write a run directory.\n"
                                                        "Progress goes to stderr, the summary table to stdout.\n"
                                                        "Exit codes: 0 ok, 1 runtime failure (or every request failed), "
                                                        "2 bad usage/config, 3 SLO not met."));
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
    if (!flags.integer("workers", workers, 1))
        return cli.usageError(flags.error);

    RunConsole console(config, !p.isSet(QStringLiteral("quiet")));
    BenchmarkRunner runner;
    runner.setWorkerThreads(workers);
    QString error;
    if (!runner.start(config, &error)) {
        const bool usage = runner.failureIsConfiguration();
        printErr(QStringLiteral("tokenbench-cli run: %1\n").arg(error));
        return usage ? ExitUsage : ExitFailure;
    }
    console.attach(&runner);

    SignalWatcher watcher;
    QObject::connect(&watcher, &SignalWatcher::terminationRequested, &runner, [&runner](int, int count) {
        if (count == 1) {
            printErr(QStringLiteral("\nstopping: cancelling requests in flight and saving results (Ctrl-C again to quit at once)\n"));
            runner.stop();
        } else {
            std::_Exit(ExitFailure);
        }
    });
    int exitCode = ExitOk;
    QObject::connect(&runner, &BenchmarkRunner::runFinished, &runner, [&](const RunOutcome &outcome) {
        exitCode = console.finish(outcome);
        QCoreApplication::quit();
    });
    QCoreApplication::exec();
    return exitCode;
}

} // namespace tb::cli
