#include "run/limitsearchplan.h"

#include "config/saturating.h"

#include <QRegularExpression>

#include <algorithm>
#include <cmath>

namespace tb {

namespace {

/// "99.2%": a fraction to one decimal of a percent.
QString percent(double fraction)
{
    return QString::number(fraction * 100, 'f', 1) + QLatin1Char('%');
}

/// "good 238 of 240 = 99.2% (95% interval 97.0–99.8%)"
QString countsText(const SearchLevel &level)
{
    const auto fraction = level.goodFraction();
    return QStringLiteral("good %1 of %2 = %3 (95% interval %4)")
        .arg(level.good)
        .arg(level.attempted)
        .arg(fraction ? percent(*fraction) : QStringLiteral("—"), LimitSearchPlan::intervalText(level));
}

/// Three significant digits, as --sweep rounds its rates.
double threeDigits(double value)
{
    if (value <= 0)
        return value;
    const double scale = std::pow(10.0, 2 - std::floor(std::log10(value)));
    return std::round(value * scale) / scale;
}

const char *verdictName(LevelVerdict verdict)
{
    switch (verdict) {
    case LevelVerdict::Pass:
        return "pass";
    case LevelVerdict::Fail:
        return "fail";
    case LevelVerdict::Stopped:
        return "stopped";
    case LevelVerdict::Pending:
        break;
    }
    return "pending";
}

const char *stopName(SearchStop stop)
{
    switch (stop) {
    case SearchStop::Resolved:
        return "resolved";
    case SearchStop::LevelCap:
        return "level-cap";
    case SearchStop::MaxLevelPassed:
        return "max-level-passed";
    case SearchStop::FirstLevelFails:
        return "first-level-fails";
    case SearchStop::Stopped:
        return "stopped";
    case SearchStop::Error:
        return "error";
    case SearchStop::Running:
        break;
    }
    return "running";
}

} // namespace

std::optional<LimitSearchSpec> LimitSearchSpec::parse(const QString &text, QString *error)
{
    const auto fail = [error](const QString &why) -> std::optional<LimitSearchSpec> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    static const QRegularExpression form(QStringLiteral("^([cr])(?:=([0-9.eE+-]+)\\.\\.([0-9.eE+-]+))?$"));
    const QString trimmed = text.trimmed();
    const auto match = form.match(trimmed);
    if (!match.hasMatch())
        return fail(QStringLiteral("'%1' is not c, r, c=START..MAX or r=START..MAX (e.g. c=1..256, r=0.5..200)")
                        .arg(trimmed.left(40)));
    LimitSearchSpec spec;
    const bool users = match.captured(1) == QLatin1String("c");
    spec.mode = users ? LoadMode::Concurrency : LoadMode::Rate;
    spec.max = users ? kDefaultMaxUsers : kDefaultMaxRate;
    if (match.capturedLength(2) == 0)
        return spec;
    bool startOk = false;
    bool maxOk = false;
    spec.start = match.captured(2).toDouble(&startOk);
    spec.max = match.captured(3).toDouble(&maxOk);
    const double lowest = users ? 1 : limits::kMinRate;
    const double highest = users ? double(limits::kMaxConcurrency) : limits::kMaxRate;
    const auto inRange = [&](double v) {
        return std::isfinite(v) && v >= lowest && v <= highest && (!users || v == std::floor(v));
    };
    if (!startOk || !maxOk || !inRange(spec.start) || !inRange(spec.max))
        return fail(
            users ? QStringLiteral("'%1': users are whole numbers from 1 to %2").arg(trimmed).arg(highest, 0, 'f', 0)
                  : QStringLiteral("'%1': rates are from %2 to %3 requests/s")
                        .arg(trimmed)
                        .arg(lowest)
                        .arg(highest, 0, 'f', 0));
    if (spec.start > spec.max)
        return fail(QStringLiteral("'%1': START is above MAX").arg(trimmed));
    return spec;
}

QString LimitSearchSpec::levelName(double level) const
{
    return mode == LoadMode::Concurrency ? QStringLiteral("c=%1").arg(qint64(level))
                                         : QStringLiteral("r=%1").arg(QString::number(level, 'g', 6));
}

QString LimitSearchSpec::levelText(double level) const
{
    if (mode == LoadMode::Rate)
        return QStringLiteral("%1 requests/s").arg(QString::number(level, 'g', 6));
    return level == 1 ? QStringLiteral("1 user") : QStringLiteral("%1 users").arg(qint64(level));
}

WilsonInterval WilsonInterval::of(std::int64_t good, std::int64_t n, double z)
{
    if (n <= 0)
        return {};
    const double nn = double(n);
    const double p = std::clamp(double(good) / nn, 0.0, 1.0);
    const double z2 = z * z;
    const double centre = (p + z2 / (2 * nn)) / (1 + z2 / nn);
    const double spread = z / (1 + z2 / nn) * std::sqrt(p * (1 - p) / nn + z2 / (4 * nn * nn));
    // At p = 0 or 1 the bound on that side is exact; rounding must not move it off 0 or 1.
    return {good <= 0 ? 0.0 : std::max(0.0, centre - spread), good >= n ? 1.0 : std::min(1.0, centre + spread)};
}

std::optional<double> SearchLevel::goodFraction() const
{
    if (attempted <= 0)
        return std::nullopt;
    return double(good) / double(attempted);
}

LimitSearchPlan::LimitSearchPlan(const LimitSearchSpec &spec, double target)
    : m_spec(spec)
    , m_target(target)
{
    startLevel(spec.start);
}

int LimitSearchPlan::nextRun() const
{
    return int(m_levels.back().runs.size()) + 1;
}

void LimitSearchPlan::startLevel(double level)
{
    if (int(m_levels.size()) >= LimitSearchSpec::kMaxLevels) {
        m_stop = SearchStop::LevelCap;
        return;
    }
    SearchLevel next;
    next.level = level;
    m_levels.push_back(next);
}

void LimitSearchPlan::pool(SearchLevel &level, const QString &directory, std::int64_t attempted, std::int64_t good)
{
    // Counts come from a summary on disk: never negative, never more good than attempted.
    attempted = std::max<std::int64_t>(attempted, 0);
    level.runs << directory;
    level.attempted = saturatingAdd(level.attempted, attempted);
    level.good = saturatingAdd(level.good, std::clamp<std::int64_t>(good, 0, attempted));
}

void LimitSearchPlan::addRun(const QString &directory, std::int64_t attempted, std::int64_t good)
{
    if (isDone())
        return;
    SearchLevel &level = m_levels.back();
    pool(level, directory, attempted, good);
    if (level.interval().contains(m_target) && level.runs.size() < kMaxRunsPerLevel)
        return; // within noise: the same level again, its counts pooled
    judge(level);
    decideNext();
}

void LimitSearchPlan::stopRun(const QString &directory, std::int64_t attempted, std::int64_t good)
{
    if (isDone())
        return;
    pool(m_levels.back(), directory, attempted, good);
    stop();
}

void LimitSearchPlan::stop()
{
    if (isDone())
        return;
    if (m_levels.back().runs.isEmpty())
        m_levels.pop_back();
    else
        m_levels.back().verdict = LevelVerdict::Stopped;
    m_stop = SearchStop::Stopped;
}

void LimitSearchPlan::fail(const QString &error)
{
    m_error = error;
    m_stop = SearchStop::Error;
}

void LimitSearchPlan::judge(SearchLevel &level)
{
    level.withinNoise = level.interval().contains(m_target);
    level.verdict = level.goodFraction().value_or(0) >= m_target ? LevelVerdict::Pass : LevelVerdict::Fail;
}

const SearchLevel *LimitSearchPlan::highestPass() const
{
    const SearchLevel *best = nullptr;
    for (const SearchLevel &l : m_levels) {
        if (l.verdict == LevelVerdict::Pass && (!best || l.level > best->level))
            best = &l;
    }
    return best;
}

const SearchLevel *LimitSearchPlan::lowestFail() const
{
    const SearchLevel *best = nullptr;
    for (const SearchLevel &l : m_levels) {
        if (l.verdict == LevelVerdict::Fail && (!best || l.level < best->level))
            best = &l;
    }
    return best;
}

bool LimitSearchPlan::adjacent(double pass, double fail) const
{
    if (m_spec.mode == LoadMode::Concurrency) {
        if (fail - pass <= 1)
            return true;
        if (pass <= kRelativeFromUsers)
            return false;
    }
    return fail <= pass * (1 + kRelativeResolution);
}

double LimitSearchPlan::between(double pass, double fail) const
{
    if (m_spec.mode == LoadMode::Concurrency)
        return pass + std::floor((fail - pass) / 2);
    const double rounded = threeDigits((pass + fail) / 2);
    return rounded > pass && rounded < fail ? rounded : (pass + fail) / 2;
}

void LimitSearchPlan::decideNext()
{
    const SearchLevel *pass = highestPass();
    const SearchLevel *fail = lowestFail();
    if (!pass) {
        // Bracketing only climbs from a pass, so the one level without a pass below it is the first.
        m_stop = SearchStop::FirstLevelFails;
        return;
    }
    if (!fail) {
        if (pass->level >= m_spec.max) {
            m_stop = SearchStop::MaxLevelPassed;
            return;
        }
        startLevel(std::min(pass->level * 2, m_spec.max));
        return;
    }
    if (adjacent(pass->level, fail->level)) {
        m_stop = SearchStop::Resolved;
        return;
    }
    startLevel(between(pass->level, fail->level));
}

QString LimitSearchPlan::verdictText(const SearchLevel &level)
{
    switch (level.verdict) {
    case LevelVerdict::Pending:
        return QStringLiteral("within noise: running it again");
    case LevelVerdict::Stopped:
        return QStringLiteral("stopped, not judged");
    case LevelVerdict::Pass:
    case LevelVerdict::Fail:
        break;
    }
    return QLatin1String(verdictName(level.verdict)) +
           (level.withinNoise ? QStringLiteral(" (within noise)") : QString());
}

QString LimitSearchPlan::intervalText(const SearchLevel &level)
{
    const WilsonInterval w = level.interval();
    return QStringLiteral("%1–%2").arg(percent(w.low), percent(w.high));
}

QString LimitSearchPlan::levelLine(const SearchLevel &level) const
{
    const QString runs = level.runs.size() > 1 ? QStringLiteral(", %1 runs").arg(level.runs.size()) : QString();
    return QStringLiteral("%1%2: %3: %4")
        .arg(m_spec.levelName(level.level), runs, countsText(level), verdictText(level));
}

QString LimitSearchPlan::answerLine() const
{
    const SearchLevel *pass = highestPass();
    const SearchLevel *fail = lowestFail();
    const auto goodput = [](const SearchLevel &l) {
        const WilsonInterval w = l.interval();
        return QStringLiteral("goodput %1, 95% interval %2–%3")
            .arg(percent(l.goodFraction().value_or(0)), percent(w.low), percent(w.high));
    };
    if (pass && fail)
        return QStringLiteral("holds %1 (passes at %2, fails at %3; %4)")
            .arg(m_spec.levelText(pass->level), m_spec.levelName(pass->level), m_spec.levelName(fail->level),
                 goodput(*pass));
    if (pass)
        return QStringLiteral("holds at least %1 (passes at %2, nothing above it tried%3; %4)")
            .arg(m_spec.levelText(pass->level), m_spec.levelName(pass->level),
                 m_stop == SearchStop::MaxLevelPassed ? QStringLiteral(": the search's maximum") : QString(),
                 goodput(*pass));
    if (fail)
        return QStringLiteral("holds no level tried (fails at %1; %2)")
            .arg(m_spec.levelName(fail->level), goodput(*fail));
    return QStringLiteral("no level was judged");
}

QString LimitSearchPlan::stopText() const
{
    switch (m_stop) {
    case SearchStop::Resolved:
        return QStringLiteral("bracketed to resolution");
    case SearchStop::LevelCap:
        return QStringLiteral("level cap: %1 levels tried, the bracket not yet at resolution")
            .arg(LimitSearchSpec::kMaxLevels);
    case SearchStop::MaxLevelPassed:
        return QStringLiteral("the maximum level %1 passed").arg(m_spec.levelName(m_spec.max));
    case SearchStop::FirstLevelFails:
        return QStringLiteral("the first level %1 fails").arg(m_spec.levelName(m_spec.start));
    case SearchStop::Stopped:
        return QStringLiteral("stopped by the user");
    case SearchStop::Error:
        return QStringLiteral("error: ") + m_error;
    case SearchStop::Running:
        break;
    }
    return QStringLiteral("running");
}

nlohmann::json LimitSearchPlan::toJson(const SloConfig &slo) const
{
    const bool users = m_spec.mode == LoadMode::Concurrency;
    const auto levelValue = [users](double level) {
        return users ? nlohmann::json(std::int64_t(level)) : nlohmann::json(level);
    };
    nlohmann::json sloJson = nlohmann::json::object();
    const std::pair<const char *, std::optional<double>> thresholds[] = {
        {"ttft_ms", slo.ttftMs}, {"tpot_ms", slo.tpotMs}, {"e2e_ms", slo.e2eMs}};
    for (const auto &[key, value] : thresholds) {
        if (value)
            sloJson[key] = *value;
    }
    nlohmann::json levels = nlohmann::json::array();
    for (const SearchLevel &l : m_levels) {
        nlohmann::json runs = nlohmann::json::array();
        for (const QString &run : l.runs)
            runs.push_back(run.toStdString());
        const WilsonInterval w = l.interval();
        const auto fraction = l.goodFraction();
        levels.push_back({{"level", levelValue(l.level)},
                          {"name", m_spec.levelName(l.level).toStdString()},
                          {"runs", runs},
                          {"attempted", l.attempted},
                          {"good", l.good},
                          {"good_fraction", fraction ? nlohmann::json(*fraction) : nlohmann::json()},
                          {"wilson_low", w.low},
                          {"wilson_high", w.high},
                          {"verdict", verdictName(l.verdict)},
                          {"within_noise", l.withinNoise}});
    }
    const SearchLevel *pass = highestPass();
    const SearchLevel *fail = lowestFail();
    const SearchLevel *quoted = pass ? pass : fail;
    nlohmann::json answer = {
        {"holds", pass ? levelValue(pass->level) : nlohmann::json()},
        {"passes_at", pass ? levelValue(pass->level) : nlohmann::json()},
        {"fails_at", fail ? levelValue(fail->level) : nlohmann::json()},
        {"good_fraction", nlohmann::json()},
        {"wilson_low", nlohmann::json()},
        {"wilson_high", nlohmann::json()},
        {"half_width", nlohmann::json()},
        {"text", answerLine().toStdString()},
    };
    if (quoted && quoted->goodFraction()) {
        const WilsonInterval w = quoted->interval();
        answer["good_fraction"] = *quoted->goodFraction();
        answer["wilson_low"] = w.low;
        answer["wilson_high"] = w.high;
        answer["half_width"] = w.halfWidth();
    }
    nlohmann::json json = {
        {"format", "tokenbench-search"},
        {"format_version", 1},
        {"kind", users ? "c" : "r"},
        {"start", levelValue(m_spec.start)},
        {"max", levelValue(m_spec.max)},
        {"slo", sloJson},
        {"target", m_target},
        {"max_levels", LimitSearchSpec::kMaxLevels},
        {"max_runs_per_level", kMaxRunsPerLevel},
        {"levels", levels},
        {"answer", answer},
        {"stop_reason", stopName(m_stop)},
        {"stop_text", stopText().toStdString()},
    };
    return json;
}

} // namespace tb
