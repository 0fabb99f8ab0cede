#pragma once

// The decisions of a limit search (--find-max, docs/user-guide.md "Find the limit"): which level
// runs next, when a level is judged, and the answer — pure logic over counts, so that it is tested
// without a server. LimitSearch (run/limitsearch.h) runs the levels.

#include "config/runconfig.h"

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace tb {

/// What --find-max searches over: "c" or "r", optionally with the range "c=START..MAX".
struct LimitSearchSpec {
    static constexpr double kDefaultMaxUsers = 1024;
    static constexpr double kDefaultMaxRate = 1000;
    /// Distinct levels a search runs at most (each up to kMaxRunsPerLevel runs).
    static constexpr int kMaxLevels = 16;

    LoadMode mode = LoadMode::Concurrency;
    double start = 1;
    double max = kDefaultMaxUsers;

    /// "c", "r", "c=8..512", "r=0.5..200": users are whole numbers from 1 to limits::kMaxConcurrency,
    /// rates from limits::kMinRate to limits::kMaxRate; START ≤ MAX. nullopt with *error.
    static std::optional<LimitSearchSpec> parse(const QString &text, QString *error);
    /// "c=48", "r=12.5": a level as --stages writes it.
    QString levelName(double level) const;
    /// "48 users", "12.5 requests/s".
    QString levelText(double level) const;
};

/// A 95% Wilson score interval of a proportion good / n; [0, 1] when n is 0.
struct WilsonInterval {
    static constexpr double kZ95 = 1.959963984540054;
    double low = 0;
    double high = 1;
    static WilsonInterval of(std::int64_t good, std::int64_t n, double z = kZ95);
    bool contains(double p) const { return low <= p && p <= high; }
    double halfWidth() const { return (high - low) / 2; }
};

enum class LevelVerdict { Pending, Pass, Fail, Stopped };

/// One level tried: its runs pooled.
struct SearchLevel {
    double level = 0;
    QStringList runs; ///< run directories, relative to the search directory
    std::int64_t attempted = 0;
    std::int64_t good = 0;
    LevelVerdict verdict = LevelVerdict::Pending;
    /// Judged by the pooled point value after kMaxRunsPerLevel runs whose interval still held the target.
    bool withinNoise = false;

    std::optional<double> goodFraction() const;
    WilsonInterval interval() const { return WilsonInterval::of(good, attempted); }
};

enum class SearchStop { Running, Resolved, LevelCap, MaxLevelPassed, FirstLevelFails, Stopped, Error };

/// The search as a sequence of decisions (docs/user-guide.md "Find the limit"): bracketing — the
/// level doubles from START while it passes, up to MAX — then bisection between the highest pass
/// and the lowest fail until they are adjacent (users: 1 apart, or the fail within 5% above the
/// pass when it is above 20 users; rates: within 5%). A level whose good fraction's Wilson interval
/// holds the target runs again (counts pooled), kMaxRunsPerLevel runs in all; then the pooled point
/// value judges it, marked within noise.
class LimitSearchPlan
{
public:
    static constexpr int kMaxRunsPerLevel = 3;
    /// Users above which a 5% gap counts as adjacent; rates use the 5% always.
    static constexpr double kRelativeFromUsers = 20;
    static constexpr double kRelativeResolution = 0.05;

    LimitSearchPlan(const LimitSearchSpec &spec, double target);

    const LimitSearchSpec &spec() const { return m_spec; }
    double target() const { return m_target; }
    bool isDone() const { return m_stop != SearchStop::Running; }
    /// The level to run next (the same one again while it is being repeated); meaningless when done.
    double nextLevel() const { return m_levels.back().level; }
    /// The run number the next run of nextLevel() is: 1, 2 or 3.
    int nextRun() const;
    /// Adds a finished run of nextLevel() and decides what follows.
    void addRun(const QString &directory, std::int64_t attempted, std::int64_t good);
    /// The run going was cut short (Stop): recorded, not judged; the search ends "stopped".
    void stopRun(const QString &directory, std::int64_t attempted, std::int64_t good);
    /// Stop came between runs: a level waiting to run is dropped, one half repeated is not judged;
    /// the search ends "stopped".
    void stop();
    /// The search cannot go on (a level could not start or failed to save): ends "error".
    void fail(const QString &error);

    const std::vector<SearchLevel> &levels() const { return m_levels; }
    SearchStop stopReason() const { return m_stop; }
    const QString &error() const { return m_error; }
    /// The highest level that passed, the lowest that failed.
    const SearchLevel *highestPass() const;
    const SearchLevel *lowestFail() const;

    /// "pass", "fail (within noise)", "within noise: running it again", "stopped, not judged".
    static QString verdictText(const SearchLevel &level);
    /// "97.0–99.8%": the level's 95% interval of its good fraction.
    static QString intervalText(const SearchLevel &level);
    /// "c=48: good 238 of 240 = 99.2% (95% interval 97.0–99.8%): pass (within noise)"; a level
    /// still being repeated says "within noise: running it again".
    QString levelLine(const SearchLevel &level) const;
    /// "holds 48 users (passes at 48, fails at 56; goodput 99.2%, 95% interval 97.0–99.8%)".
    QString answerLine() const;
    /// "bracketed to resolution", "level cap (16 levels) reached", …
    QString stopText() const;
    /// search.json (docs/output-files.md).
    nlohmann::json toJson(const SloConfig &slo) const;

private:
    static void pool(SearchLevel &level, const QString &directory, std::int64_t attempted, std::int64_t good);
    void judge(SearchLevel &level);
    void decideNext();
    bool adjacent(double pass, double fail) const;
    double between(double pass, double fail) const;
    void startLevel(double level);

    LimitSearchSpec m_spec;
    double m_target;
    std::vector<SearchLevel> m_levels; ///< the last is the level running while not done
    SearchStop m_stop = SearchStop::Running;
    QString m_error;
};

} // namespace tb
