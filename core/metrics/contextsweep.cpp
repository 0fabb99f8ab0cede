#include "metrics/contextsweep.h"

#include "config/runconfig.h"

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
    QString text;
    if (!fit.ok) {
        text = QStringLiteral("no fit: ") + fit.reason;
    } else {
        // The hold is said beside the intercept, where a legend cut short still shows it.
        text = QStringLiteral("TTFT = %1·x^%2 %3 %4 ms%5, R² %6 (%7 requests)")
                   .arg(QString::number(fit.a, 'g', 4), QString::number(fit.b, 'f', 3),
                        fit.c < 0 ? QStringLiteral("−") : QStringLiteral("+"), QString::number(std::abs(fit.c), 'f', 1),
                        fit.interceptHeld ? QStringLiteral(" (intercept held at 0)") : QString(),
                        QString::number(fit.r2, 'f', 4))
                   .arg(fit.points);
        if (fit.interceptHeld)
            text += QStringLiteral("; a free fit gave −%1 ms, a TTFT below zero for small prompts")
                        .arg(QString::number(std::abs(fit.freeC), 'f', 1));
    }
    if (!excluded.empty())
        text += QStringLiteral("; %1 requests the server truncated left out").arg(excluded.size());
    if (!leftOut.isEmpty())
        text += QStringLiteral("; ") + leftOut;
    return text;
}

json ContextSweepSummary::toJson() const
{
    json f = {{"model", "ttft_ms = a * prompt_tokens^b + c"}, {"points", fit.points}};
    if (fit.ok) {
        f["a"] = finiteOrNull(fit.a);
        f["b"] = finiteOrNull(fit.b);
        f["c"] = finiteOrNull(fit.c);
        f["r2"] = finiteOrNull(fit.r2);
        if (fit.interceptHeld) {
            f["intercept_held"] = true;
            f["free_c"] = finiteOrNull(fit.freeC);
        }
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
             {"fit_prefill_tokens_per_s", s.fitPrefillTokensPerS ? finiteOrNull(*s.fitPrefillTokensPerS) : json()},
             {"requested_prompt_tokens", s.requestedTokens},
             {"truncated", s.truncated}});
    const auto pointArray = [](const std::vector<Point> &of) {
        json array = json::array();
        for (const Point &p : of)
            array.push_back({finiteOrNull(p.promptTokens), finiteOrNull(p.ttftMs)});
        return array;
    };
    json sweep{{"fit", std::move(f)},
               {"stages", std::move(stageArray)},
               {"points", pointArray(points)},
               {"excluded_points", pointArray(excluded)}};
    if (!leftOut.isEmpty())
        sweep["left_out"] = leftOut.toStdString();
    return sweep;
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
    if (const auto leftOut = j.find("left_out"); leftOut != j.end() && leftOut->is_string())
        s.leftOut = QString::fromStdString(leftOut->get<std::string>()).left(500);
    const json &f = j["fit"];
    if (f.contains("points") && f["points"].is_number_integer())
        s.fit.points = int(std::clamp<std::int64_t>(f["points"].get<std::int64_t>(), 0, 1 << 30));
    if (f.contains("a")) {
        s.fit.ok =
            number(f, "a", s.fit.a) && number(f, "b", s.fit.b) && number(f, "c", s.fit.c) && number(f, "r2", s.fit.r2);
        if (!s.fit.ok)
            return fail(QStringLiteral("fit"), QStringLiteral("a, b, c and r2 must be numbers"));
        s.fit.interceptHeld = f.value("intercept_held", json()) == json(true) && number(f, "free_c", s.fit.freeC);
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
        const auto count = [&o](const char *key) {
            const auto it = o.find(key);
            return it != o.end() && it->is_number_integer()
                       ? std::clamp<std::int64_t>(it->get<std::int64_t>(), 0, limits::kMaxRequests)
                       : std::int64_t(0);
        };
        st.requestedTokens = count("requested_prompt_tokens");
        st.truncated = count("truncated");
        s.stages.push_back(st);
    }
    const std::size_t most = kMaxPointsPerStage * std::max<std::size_t>(1, s.stages.size());
    const auto readPoints = [&j, most](const char *key, std::vector<Point> &out) {
        const auto points = j.find(key);
        if (points == j.end() || !points->is_array())
            return;
        for (std::size_t i = 0; i < points->size() && out.size() < most; ++i) {
            const json &p = (*points)[i];
            if (p.is_array() && p.size() == 2 && p[0].is_number() && p[1].is_number())
                out.push_back({p[0].get<double>(), p[1].get<double>()});
        }
    };
    readPoints("points", s.points);
    readPoints("excluded_points", s.excluded);
    return s;
}

} // namespace tb
