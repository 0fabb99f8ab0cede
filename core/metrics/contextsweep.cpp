#include "metrics/contextsweep.h"

#include <algorithm>
#include <cmath>

namespace tb {

namespace {

using json = nlohmann::json;

json finiteOrNull(double v)
{
    return std::isfinite(v) ? json(v) : json();
}

} // namespace

QString ContextSweepSummary::fitText() const
{
    if (!fit.ok)
        return QStringLiteral("no fit: ") + fit.reason;
    return QStringLiteral("TTFT = %1·x^%2 %3 %4 ms, R² %5 (%6 requests)")
        .arg(QString::number(fit.a, 'g', 4), QString::number(fit.b, 'f', 3),
             fit.c < 0 ? QStringLiteral("−") : QStringLiteral("+"), QString::number(std::abs(fit.c), 'f', 1),
             QString::number(fit.r2, 'f', 4))
        .arg(fit.points);
}

json ContextSweepSummary::toJson() const
{
    json f = {{"model", "ttft_ms = a * prompt_tokens^b + c"}, {"points", fit.points}};
    if (fit.ok) {
        f["a"] = finiteOrNull(fit.a);
        f["b"] = finiteOrNull(fit.b);
        f["c"] = finiteOrNull(fit.c);
        f["r2"] = finiteOrNull(fit.r2);
    } else {
        f["reason"] = fit.reason.toStdString();
    }
    json stageArray = json::array();
    for (const Stage &s : stages)
        stageArray.push_back(
            {{"stage", s.stage},
             {"name", s.name.toStdString()},
             {"requests", s.requests},
             {"prompt_tokens_p50", finiteOrNull(s.promptTokens)},
             {"ttft_p50_ms", finiteOrNull(s.ttftP50Ms)},
             {"prefill_tokens_per_s", finiteOrNull(s.prefillTokensPerS)},
             {"fit_prefill_tokens_per_s", s.fitPrefillTokensPerS ? finiteOrNull(*s.fitPrefillTokensPerS) : json()}});
    json pointArray = json::array();
    for (const Point &p : points)
        pointArray.push_back({finiteOrNull(p.promptTokens), finiteOrNull(p.ttftMs)});
    return {{"fit", std::move(f)}, {"stages", std::move(stageArray)}, {"points", std::move(pointArray)}};
}

std::optional<ContextSweepSummary> ContextSweepSummary::fromJson(const json &j, QString *error)
{
    const auto fail = [error](const QString &where, const QString &why) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(where, why);
        return std::nullopt;
    };
    const auto number = [](const json &o, const char *key, double &out) {
        const auto it = o.find(key);
        if (it == o.end() || !it->is_number())
            return false;
        out = it->get<double>();
        return std::isfinite(out);
    };
    if (!j.is_object() || !j.contains("fit") || !j["fit"].is_object())
        return fail(QStringLiteral("fit"), QStringLiteral("must be an object"));
    ContextSweepSummary s;
    const json &f = j["fit"];
    if (f.contains("points") && f["points"].is_number_integer())
        s.fit.points = int(std::clamp<std::int64_t>(f["points"].get<std::int64_t>(), 0, 1 << 30));
    if (f.contains("a")) {
        s.fit.ok =
            number(f, "a", s.fit.a) && number(f, "b", s.fit.b) && number(f, "c", s.fit.c) && number(f, "r2", s.fit.r2);
        if (!s.fit.ok)
            return fail(QStringLiteral("fit"), QStringLiteral("a, b, c and r2 must be numbers"));
    } else {
        s.fit.reason = QString::fromStdString(f.value("reason", std::string("no fit"))).left(500);
    }
    const auto stages = j.find("stages");
    if (stages == j.end() || !stages->is_array())
        return fail(QStringLiteral("stages"), QStringLiteral("must be an array"));
    for (std::size_t i = 0; i < stages->size() && i < 1000; ++i) {
        const json &o = (*stages)[i];
        Stage st;
        if (!o.is_object() || !o.value("stage", json()).is_number_integer() ||
            !o.value("requests", json()).is_number_integer() || !number(o, "prompt_tokens_p50", st.promptTokens) ||
            !number(o, "ttft_p50_ms", st.ttftP50Ms) || !number(o, "prefill_tokens_per_s", st.prefillTokensPerS))
            return fail(QStringLiteral("stages[%1]").arg(i),
                        QStringLiteral("needs integers stage and requests and numbers prompt_tokens_p50, "
                                       "ttft_p50_ms and prefill_tokens_per_s"));
        st.stage = int(std::clamp<std::int64_t>(o["stage"].get<std::int64_t>(), 0, 1 << 20));
        st.requests = o["requests"].get<std::int64_t>();
        if (o.contains("name") && o["name"].is_string())
            st.name = QString::fromStdString(o["name"].get<std::string>()).left(200);
        if (double v = 0; number(o, "fit_prefill_tokens_per_s", v))
            st.fitPrefillTokensPerS = v;
        s.stages.push_back(st);
    }
    if (const auto points = j.find("points"); points != j.end() && points->is_array()) {
        const std::size_t most = kMaxPointsPerStage * std::max<std::size_t>(1, s.stages.size());
        for (std::size_t i = 0; i < points->size() && i < most; ++i) {
            const json &p = (*points)[i];
            if (p.is_array() && p.size() == 2 && p[0].is_number() && p[1].is_number())
                s.points.push_back({p[0].get<double>(), p[1].get<double>()});
        }
    }
    return s;
}

} // namespace tb
