// tokenbench-cli sim: the simulated LLM server in the foreground (docs/SPEC.md §1, §6).
#include "cliparser.h"
#include "commands.h"
#include "signalwatcher.h"

#include "config/inputfile.h"
#include "platform/openfilelimit.h"
#include "sim/simserver.h"
#include "sim/simulatorhost.h"

#include <QCoreApplication>

#include <algorithm>
#include <limits>

namespace tb::cli {

namespace {

/// Descriptors the simulator holds besides its connections: the standard streams, the listener,
/// its poll set and timers, Qt's own; 13 measured at start on Linux, doubled for a margin.
constexpr qint64 kSimReservedFiles = 32;

/// "; holds up to 19968 connections (20000 open files, RLIMIT_NOFILE; raise it with 'ulimit -n')":
/// how many clients it can serve at once, so that a run of more is not taken for the server's
/// failure (the connects beyond wait in the kernel's queue); empty where the OS sets no limit.
QString connectionCapacity(qint64 openFiles)
{
    if (openFiles == std::numeric_limits<qint64>::max())
        return {};
    return QStringLiteral("; holds up to %1 connections (%2 open files, %3)")
        .arg(std::max<qint64>(0, openFiles - kSimReservedFiles))
        .arg(openFiles)
        .arg(openFileLimitHint());
}

QString flagName(const QString &key)
{
    return QString(key).replace(QLatin1Char('_'), QLatin1Char('-'));
}

/// The configuration from --preset, --config and the parameter flags (in that order of
/// precedence, lowest first). On error returns nullopt with *error naming the flag or field.
std::optional<sim::SimConfig> effectiveConfig(const QCommandLineParser &parser, QString *error)
{
    const QString presetName = parser.value(QStringLiteral("preset"));
    nlohmann::json json = nlohmann::json::object();
    if (parser.isSet(QStringLiteral("config"))) {
        const QString path = parser.value(QStringLiteral("config"));
        QString why;
        const auto bytes = readInputFile(path, kMaxConfigFileBytes, &why);
        if (!bytes) {
            *error = QStringLiteral("--config: cannot read '%1': %2").arg(path, why);
            return std::nullopt;
        }
        json = nlohmann::json::parse(bytes->begin(), bytes->end(), nullptr, false);
        if (json.is_discarded()) {
            *error = QStringLiteral("--config: '%1' is not valid JSON").arg(path);
            return std::nullopt;
        }
    }
    // --preset was checked by the caller, so only the file can be wrong here.
    QString problem;
    std::optional<sim::SimConfig> config = sim::SimConfig::fromJson(json, &problem, presetName);
    if (!config) {
        *error = QStringLiteral("--config: ") + problem;
        return std::nullopt;
    }
    for (const sim::SimConfig::Parameter &p : sim::SimConfig::parameters()) {
        const QString flag = flagName(p.key);
        if (!parser.isSet(flag))
            continue;
        const QString value = parser.value(flag);
        if (!config->setFromText(p.key, value, &problem)) {
            *error = QStringLiteral("--%1: %2 (got '%3')").arg(flag, problem, value);
            return std::nullopt;
        }
    }
    if (const QString problem = config->validate(); !problem.isEmpty()) {
        *error = QStringLiteral("--") + flagName(problem.section(QStringLiteral(": "), 0, 0)) + QStringLiteral(": ") +
                 problem.section(QStringLiteral(": "), 1);
        return std::nullopt;
    }
    return config;
}

QString listPresets()
{
    QString text;
    for (const QString &name : sim::SimConfig::presetNames())
        text += QStringLiteral("%1  %2\n").arg(name, -16).arg(sim::SimConfig::presetDescription(name));
    return text;
}

} // namespace

int simCommand(const QStringList &args)
{
    CliParser cli(QStringLiteral("sim"),
                  QStringLiteral("Start the built-in simulated LLM server in the foreground.\n"
                                 "OpenAI-compatible (/v1/chat/completions, /v1/completions, /v1/models) and Anthropic "
                                 "(/v1/messages), with GET /sim/stats and GET /sim/requests as ground truth.\n"
                                 "Parameters apply in this order: --preset, then --config, then the other flags."));
    cli.addOption({QStringLiteral("host"), QStringLiteral("Address to listen on (default 127.0.0.1)."),
                   QStringLiteral("ADDR"), QStringLiteral("127.0.0.1")});
    cli.addOption({QStringLiteral("port"), QStringLiteral("Port to listen on; 0 picks a free one (default 8000)."),
                   QStringLiteral("N"), QStringLiteral("8000")});
    cli.addOption({QStringLiteral("preset"),
                   QStringLiteral("Starting point: %1 (default: default).")
                       .arg(sim::SimConfig::presetNames().join(QLatin1Char('|'))),
                   QStringLiteral("NAME")});
    cli.addOption({QStringLiteral("list-presets"), QStringLiteral("List the presets and exit.")});
    cli.addOption({QStringLiteral("config"),
                   QStringLiteral("JSON file with any parameters (keys as the flags, with '_')."),
                   QStringLiteral("FILE.json")});
    cli.addOption(
        {QStringLiteral("print-config"), QStringLiteral("Print the effective configuration as JSON and exit.")});
    for (const sim::SimConfig::Parameter &p : sim::SimConfig::parameters())
        cli.addOption({flagName(p.key), p.help + QLatin1Char('.'), p.valueName});
    if (const auto exit = cli.parse(args))
        return *exit;
    const QCommandLineParser &parser = cli.parser();
    if (!parser.positionalArguments().isEmpty())
        return cli.usageError(QStringLiteral("unexpected argument '%1'").arg(parser.positionalArguments().first()));

    if (parser.isSet(QStringLiteral("list-presets"))) {
        printOut(listPresets());
        return ExitOk;
    }
    const QString presetName = parser.value(QStringLiteral("preset"));
    if (!presetName.isEmpty() && !sim::SimConfig::preset(presetName))
        return cli.usageError(QStringLiteral("--preset: unknown preset '%1' (accepted: %2)")
                                  .arg(presetName, sim::SimConfig::presetNames().join(QLatin1Char('|'))));
    QString error;
    const std::optional<sim::SimConfig> config = effectiveConfig(parser, &error);
    if (!config)
        return cli.usageError(error);
    if (parser.isSet(QStringLiteral("print-config"))) {
        printOut(QString::fromStdString(config->toJson().dump(2)) + QLatin1Char('\n'));
        return ExitOk;
    }

    const QHostAddress host(parser.value(QStringLiteral("host")));
    if (host.isNull())
        return cli.usageError(QStringLiteral("--host: '%1' is not an IP address (e.g. 127.0.0.1, 0.0.0.0, ::1)")
                                  .arg(parser.value(QStringLiteral("host"))));
    bool portOk = false;
    const uint port = parser.value(QStringLiteral("port")).toUInt(&portOk);
    if (!portOk || port > 65535)
        return cli.usageError(QStringLiteral("--port: must be a whole number from 0 to 65535 (got '%1')")
                                  .arg(parser.value(QStringLiteral("port"))));

    // Thousands of client connections need more descriptors than the usual soft limit.
    const qint64 openFiles = raiseOpenFileLimit();
    sim::SimulatorHost simulator(*config);
    if (!simulator.start(host, quint16(port), &error)) {
        printErr(QStringLiteral("tokenbench-cli sim: %1\n").arg(error));
        return ExitFailure;
    }

    SignalWatcher stopSignals;
    QObject::connect(&stopSignals, &SignalWatcher::terminationRequested, qApp, &QCoreApplication::quit);

    const QString hostText = host.protocol() == QAbstractSocket::IPv6Protocol
                                 ? QLatin1Char('[') + host.toString() + QLatin1Char(']')
                                 : host.toString();
    printOut(QStringLiteral("listening on http://%1:%2\n").arg(hostText).arg(simulator.port()));
    printErr(QStringLiteral("tokenbench-cli sim: serving model '%1'%2%3 at %4%5; stats at /sim/stats; Ctrl-C stops\n")
                 .arg(config->model,
                      config->aliases.isEmpty()
                          ? QString()
                          : QStringLiteral(" (aliases: %1)").arg(config->aliases.join(QStringLiteral(", "))),
                      config->models.isEmpty()
                          ? QString()
                          : QStringLiteral(" and models %1").arg(config->models.join(QStringLiteral(", "))),
                      simulator.baseUrl().toString(), connectionCapacity(openFiles)));

    QCoreApplication::exec();

    simulator.stop();
    const sim::SimStats stats = simulator.stats();
    qint64 rejected = 0;
    for (qint64 n : stats.rejections)
        rejected += n;
    printErr(QStringLiteral("tokenbench-cli sim: stopped after %1 s: %2 requests served, %3 rejected, %4 tokens sent, "
                            "peak %5 concurrent requests, peak %6 connections\n")
                 .arg(stats.uptimeS, 0, 'f', 1)
                 .arg(stats.requestsServed)
                 .arg(rejected)
                 .arg(stats.tokensSent)
                 .arg(stats.peakConcurrentRequests)
                 .arg(stats.peakOpenConnections));
    return ExitOk;
}

} // namespace tb::cli
