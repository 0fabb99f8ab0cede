#include "metrics/clienthealthsummary.h"

#include "config/saturating.h"

#include <climits>
#include <cmath>

namespace tb {

QString ClientHealthSummary::note() const
{
    QString text =
        QStringLiteral("client saturated for %1% of the window").arg(saturatingRound(100 * saturatedFraction()));
    if (firstSaturatedS)
        text += QStringLiteral("; figures after %1 s are limited by this machine").arg(*firstSaturatedS);
    return text +
           QStringLiteral(" (CPU peak %1% of %2 cores, event-loop lag up to %3 ms%4%5)")
               .arg(saturatingRound(cpuPeakPct))
               .arg(cores)
               .arg(saturatingRound(loopLagMaxMs))
               .arg(sendLagP50Ms ? QStringLiteral(", send lag p50 %1 ms").arg(*sendLagP50Ms, 0, 'f', 1) : QString())
               .arg(readBacklogP99Ms ? QStringLiteral(", read backlog p99 %1 ms").arg(*readBacklogP99Ms, 0, 'f', 1)
                                     : QString());
}

nlohmann::json ClientHealthSummary::toJson() const
{
    const auto optional = [](const auto &v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
    return {{"cores", cores},
            {"seconds", seconds},
            {"cpu_mean_pct", cpuMeanPct},
            {"cpu_peak_pct", cpuPeakPct},
            {"loop_lag_mean_ms", loopLagMeanMs},
            {"loop_lag_max_ms", loopLagMaxMs},
            {"send_lag_p50_ms", optional(sendLagP50Ms)},
            {"send_lag_max_ms", optional(sendLagMaxMs)},
            {"read_backlog_p50_ms", optional(readBacklogP50Ms)},
            {"read_backlog_p99_ms", optional(readBacklogP99Ms)},
            {"read_backlog_max_ms", optional(readBacklogMaxMs)},
            {"read_backlog_seconds", readBacklogSeconds},
            {"saturated_seconds", saturatedSeconds},
            {"saturated_fraction", saturatedFraction()},
            {"limited_after_s", optional(firstSaturatedS)},
            {"saturated", saturated},
            {"note", saturated ? nlohmann::json(note().toStdString()) : nlohmann::json()}};
}

std::optional<ClientHealthSummary> ClientHealthSummary::fromJson(const nlohmann::json &j, QString *error)
{
    ClientHealthSummary s;
    // Counts read as numbers and saturated: get<int>() of a number beyond int is undefined.
    const auto count = [](const nlohmann::json &v) { return int(saturatingRound(v.get<double>(), 0, INT_MAX)); };
    try {
        s.cores = count(j.at("cores"));
        s.seconds = count(j.at("seconds"));
        s.cpuMeanPct = j.at("cpu_mean_pct").get<double>();
        s.cpuPeakPct = j.at("cpu_peak_pct").get<double>();
        s.loopLagMeanMs = j.at("loop_lag_mean_ms").get<double>();
        s.loopLagMaxMs = j.at("loop_lag_max_ms").get<double>();
        if (!j.at("send_lag_p50_ms").is_null())
            s.sendLagP50Ms = j["send_lag_p50_ms"].get<double>();
        if (!j.at("send_lag_max_ms").is_null())
            s.sendLagMaxMs = j["send_lag_max_ms"].get<double>();
        // Summaries from before the read backlog have none of its keys.
        const auto read = [&j](const char *key, std::optional<double> &to) {
            if (j.contains(key) && !j[key].is_null())
                to = j[key].get<double>();
        };
        read("read_backlog_p50_ms", s.readBacklogP50Ms);
        read("read_backlog_p99_ms", s.readBacklogP99Ms);
        read("read_backlog_max_ms", s.readBacklogMaxMs);
        s.readBacklogSeconds = count(j.value("read_backlog_seconds", nlohmann::json(0)));
        s.saturatedSeconds = count(j.at("saturated_seconds"));
        if (!j.at("limited_after_s").is_null())
            s.firstSaturatedS = count(j["limited_after_s"]);
        s.saturated = j.at("saturated").get<bool>();
    } catch (const nlohmann::json::exception &e) {
        if (error)
            *error = QString::fromUtf8(e.what());
        return std::nullopt;
    }
    return s;
}

} // namespace tb
