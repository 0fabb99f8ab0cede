#include "metrics/runinfo.h"

#include "formats/formatversion.h"
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
    return info;
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

} // namespace tb
