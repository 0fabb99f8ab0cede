#include "metrics/runinfo.h"

#include "config/modelmix.h"
#include "formats/formatversion.h"
#include "platform/iobackend.h"
#include "tokenbench/version.h"

#include <QSysInfo>
#include <QUrl>

#include <algorithm>

namespace tb {

RunInfo RunInfo::begin(const RunConfig &config, std::chrono::steady_clock::time_point origin)
{
    using namespace std::chrono;
    RunInfo info;
    // What is recorded of a run is what may be written and shown: nothing of its credentials.
    info.config = redacted(config);
    info.stages = effectiveStages(config.load);
    // The wall clock read now, moved back by the time since the origin: both stamps name one instant.
    const steady_clock::time_point steadyNow = steady_clock::now();
    const system_clock::time_point wallNow = system_clock::now();
    info.monotonicOriginNs = duration_cast<nanoseconds>(origin.time_since_epoch()).count();
    info.wallOriginNs = duration_cast<nanoseconds>(wallNow.time_since_epoch() - (steadyNow - origin)).count();
    info.startedAt = QDateTime::fromMSecsSinceEpoch(info.wallOriginNs / 1'000'000);
    info.host = QSysInfo::machineHostName();
    info.toolVersion = version();
    info.io = IoInfo::current();
    info.models = info.modelList();
    return info;
}

QStringList RunInfo::modelList() const
{
    if (!models.isEmpty())
        return models;
    if (!config.target.model.contains(u','))
        return {config.target.model};
    const auto mix = ModelMix::parse(config.target.model, nullptr);
    return mix ? mix->names() : QStringList{config.target.model};
}

QString RunInfo::modelName(int index) const
{
    if (!models.isEmpty())
        return models.value(index);
    if (!config.target.model.contains(u','))
        return index == 0 ? config.target.model : QString();
    return modelList().value(index);
}

void RunInfo::moveOrigin(std::chrono::steady_clock::time_point origin)
{
    const std::int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(origin.time_since_epoch()).count();
    wallOriginNs += ns - monotonicOriginNs;
    monotonicOriginNs = ns;
    startedAt = QDateTime::fromMSecsSinceEpoch(wallOriginNs / 1'000'000);
}

QString RunInfo::startedAtText() const
{
    if (!startedAt.isValid())
        return {};
    // A local QDateTime prints no offset; pin it so the text says which zone it was.
    return startedAt.toOffsetFromUtc(startedAt.offsetFromUtc()).toString(Qt::ISODateWithMs);
}

QString RunInfo::promptText() const
{
    const PromptConfig &p = config.prompt;
    if (!p.promptFile.isEmpty())
        return QStringLiteral("file %1").arg(p.promptFile);
    if (p.promptTokens <= 0)
        return QStringLiteral("templates");
    QString text = QStringLiteral("~%1 tokens").arg(p.promptTokens);
    if (p.systemTokens > 0)
        text += QStringLiteral(" + system ~%1").arg(p.systemTokens);
    if (p.sharedPrefixTokens > 0)
        text += QStringLiteral(", shared prefix %1").arg(p.sharedPrefixTokens);
    return text;
}

QString RunInfo::loadText() const
{
    const LoadConfig &l = config.load;
    QString text = formatStages(stages);
    if (std::any_of(stages.begin(), stages.end(), [](const StageConfig &s) { return s.mode == LoadMode::Rate; })) {
        text += QLatin1Char(' ') + arrivalName(l.arrival);
        if (l.maxInFlight > 0)
            text += QStringLiteral(", max in flight %1").arg(l.maxInFlight);
    }
    if (l.warmupMs > 0)
        text += QStringLiteral(", warm-up %1").arg(formatDuration(l.warmupMs));
    if (l.warmupRequests > 0)
        text += QStringLiteral(", warm-up %1 requests").arg(l.warmupRequests);
    return text;
}

QString RunInfo::workloadCaption() const
{
    QStringList parts;
    const TargetConfig &t = config.target;
    if (!t.model.isEmpty())
        parts << QStringLiteral("%1 at %2").arg(t.model, QUrl(t.url).adjusted(QUrl::RemoveUserInfo).toString());
    parts << loadText() << QStringLiteral("prompt %1").arg(promptText())
          << QStringLiteral("max %1 tokens").arg(config.request.maxTokens);
    if (startedAt.isValid())
        parts << startedAt.toString(QStringLiteral("yyyy-MM-dd HH:mm"));
    parts.removeAll(QString());
    return parts.join(QStringLiteral(" · "));
}

} // namespace tb

namespace tb {

QString RunInfo::wallOriginText() const
{
    if (wallOriginNs <= 0)
        return {};
    const QDateTime at = QDateTime::fromMSecsSinceEpoch(wallOriginNs / 1'000'000, Qt::UTC);
    return at.toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss.")) +
           QStringLiteral("%1Z").arg(wallOriginNs / 1000 % 1'000'000, 6, 10, QLatin1Char('0'));
}

QString ConnectionInfo::proxyText() const
{
    const QString what = proxy.isEmpty() ? QStringLiteral("none") : proxy;
    return proxyOrigin.isEmpty() ? what : QStringLiteral("%1 (%2)").arg(what, proxyOrigin);
}

nlohmann::json ConnectionInfo::toJson() const
{
    return {{"proxy", proxy.isEmpty() ? nlohmann::json() : nlohmann::json(toStd(withoutUserInfo(proxy)))},
            {"proxy_source", toStd(proxySource.isEmpty() ? QStringLiteral("none") : proxySource)},
            {"proxy_origin", toStd(proxyOrigin)},
            {"transport", transport.isEmpty() ? nlohmann::json() : nlohmann::json(toStd(transport))},
            {"streams_per_connection", streamsPerConnection},
            {"alpn", tb::toJson(alpn)},
            {"negotiated", tb::toJson(negotiated)}};
}

ConnectionInfo ConnectionInfo::fromJson(const nlohmann::json &json)
{
    ConnectionInfo c;
    if (!json.is_object())
        return c;
    c.proxy = withoutUserInfo(lenientString(json, "proxy"));
    c.proxySource = lenientString(json, "proxy_source");
    c.proxyOrigin = lenientString(json, "proxy_origin");
    c.transport = lenientString(json, "transport");
    // A few short names: a file from elsewhere gets no more into a summary (runs from before
    // negotiation have none).
    const auto protocols = [&json](const char *key) {
        QStringList names;
        const auto it = json.find(key);
        if (it == json.end() || !it->is_array())
            return names;
        for (const auto &name : *it) {
            if (names.size() >= 4)
                break;
            if (name.is_string())
                names << fromStd(name.get<std::string>()).left(16);
        }
        return names;
    };
    if (const auto it = json.find("streams_per_connection"); it != json.end() && it->is_number_integer())
        c.streamsPerConnection = int(std::clamp<std::int64_t>(it->get<std::int64_t>(), 0, 1'000'000));
    c.alpn = protocols("alpn");
    c.negotiated = protocols("negotiated");
    return c;
}

IoInfo IoInfo::current()
{
    const IoBackend &b = ioBackend();
    return {b.name, b.poller, b.stamping, b.kernelReceiveStamps, b.timerPrecision, steadyClockResolutionNs()};
}

IoInfo IoInfo::merged(const QList<IoInfo> &shards)
{
    if (shards.isEmpty() || std::any_of(shards.begin(), shards.end(), [](const IoInfo &s) { return !s.recorded(); }))
        return {};
    IoInfo io = shards.first();
    const QString mixed = QStringLiteral("mixed");
    for (const IoInfo &s : shards) {
        for (auto field : {&IoInfo::backend, &IoInfo::poller, &IoInfo::stamping, &IoInfo::timerPrecision}) {
            if (io.*field != s.*field)
                io.*field = mixed;
        }
        // One shard's late chunk times are in the merged run's figures too.
        io.kernelReceiveStamps = io.kernelReceiveStamps && s.kernelReceiveStamps;
        io.clockStepNs = std::max(io.clockStepNs, s.clockStepNs);
    }
    return io;
}

QString IoInfo::text() const
{
    if (!recorded())
        return QStringLiteral("not recorded");
    const bool mixed = backend == QLatin1String("mixed");
    QStringList parts;
    parts << (poller == QLatin1String("mixed") ? QStringLiteral("pollers differ") : poller);
    if (kernelReceiveStamps)
        parts << QStringLiteral("chunk times: kernel receive stamps");
    else
        parts << (mixed ? QStringLiteral("chunk times: not all kernel receive stamps")
                        : QStringLiteral("chunk times: when read, with the client's read delay"));
    // The precision's first words ("1 ns"); the mechanism in parentheses is in run.json.
    parts << QStringLiteral("timers %1").arg(timerPrecision.section(QStringLiteral(" ("), 0, 0));
    parts << (clockStepNs > 0 ? QStringLiteral("clock step %1 ns").arg(clockStepNs)
                              : QStringLiteral("clock step unknown"));
    return QStringLiteral("%1 (%2)").arg(mixed ? QStringLiteral("mixed backends")
                                               : backend + QStringLiteral(" backend"),
                                         parts.join(QStringLiteral("; ")));
}

nlohmann::json IoInfo::toJson() const
{
    return {{"backend", toStd(backend)},
            {"poller", toStd(poller)},
            {"stamping", toStd(stamping)},
            {"kernel_receive_stamps", kernelReceiveStamps},
            {"timer_precision", toStd(timerPrecision)},
            {"clock_step_ns", clockStepNs}};
}

IoInfo IoInfo::fromJson(const nlohmann::json &json)
{
    IoInfo io;
    if (!json.is_object())
        return io;
    // Short texts: a file from elsewhere gets no more than a line into a header.
    const auto text = [&json](const char *key) { return lenientString(json, key).left(160); };
    io.backend = text("backend");
    io.poller = text("poller");
    io.stamping = text("stamping");
    io.timerPrecision = text("timer_precision");
    io.kernelReceiveStamps = json.value("kernel_receive_stamps", nlohmann::json()) == nlohmann::json(true);
    io.clockStepNs = std::clamp<std::int64_t>(lenientInteger(json, "clock_step_ns"), 0, 1'000'000'000);
    return io;
}

} // namespace tb
