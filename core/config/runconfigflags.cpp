#include "config/runconfig.h"

#include "config/runconfig_p.h"

#include <QRegularExpression>

#include <cmath>
#include <utility>
#include <vector>

namespace tb {

std::optional<HeadlineWindow> parseHeadlineWindow(const QString &text)
{
    const QString t = text.trimmed();
    if (t == QLatin1String("all"))
        return HeadlineWindow{};
    if (t == QLatin1String("steady"))
        return HeadlineWindow{HeadlineWindow::Kind::Steady, 0};
    const auto ms = parseDurationMs(t);
    if (!ms || *ms > limits::kMaxDurationMs)
        return std::nullopt;
    if (*ms == 0)
        return HeadlineWindow{};
    return HeadlineWindow{HeadlineWindow::Kind::From, *ms};
}

std::optional<CancelAfter> parseCancelAfter(const QString &text)
{
    QString duration = text.trimmed();
    const QLatin1String firstToken("first-token");
    const bool afterFirstToken = duration.startsWith(firstToken);
    if (afterFirstToken) {
        duration = duration.mid(firstToken.size());
        if (duration.isEmpty())
            return CancelAfter{0, true};
        if (!duration.startsWith(u'+'))
            return std::nullopt;
        duration = duration.mid(1);
    }
    const auto ms = parseDurationMs(duration);
    if (!ms || *ms < 0 || *ms > limits::kMaxDurationMs)
        return std::nullopt;
    return CancelAfter{*ms, afterFirstToken};
}

std::optional<ThinkTime> parseThinkTime(const QString &text)
{
    QString duration = text.trimmed();
    const bool exponential = duration.startsWith(QLatin1String("exp:"));
    if (exponential)
        duration = duration.mid(4);
    const auto ms = parseDurationMs(duration);
    if (!ms)
        return std::nullopt;
    return ThinkTime{*ms, exponential};
}

QString formatThinkTime(qint64 ms, bool exponential)
{
    return (exponential ? QStringLiteral("exp:") : QString()) + formatDuration(ms);
}

std::optional<qint64> parseDurationMs(const QString &text)
{
    static const QRegularExpression re(QStringLiteral("^\\s*(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|min|h)?\\s*$"));
    const auto m = re.match(text);
    if (!m.hasMatch())
        return std::nullopt;
    const double value = m.captured(1).toDouble();
    const QString unit = m.captured(2);
    double factor = 1000.0;
    if (unit == QLatin1String("ms"))
        factor = 1.0;
    else if (unit == QLatin1String("m") || unit == QLatin1String("min"))
        factor = 60000.0;
    else if (unit == QLatin1String("h"))
        factor = 3600000.0;
    if (!(value * factor <= double(limits::kMaxDurationMs)))
        return std::nullopt;
    return qint64(std::llround(value * factor));
}

QString formatDuration(qint64 ms)
{
    if (ms != 0 && ms % 3600000 == 0)
        return QString::number(ms / 3600000) + QLatin1Char('h');
    if (ms != 0 && ms % 60000 == 0)
        return QString::number(ms / 60000) + QLatin1Char('m');
    if (ms % 1000 == 0)
        return QString::number(ms / 1000) + QLatin1Char('s');
    return QString::number(ms) + QStringLiteral("ms");
}

namespace {

/// A stage's end after ':' in --stages and --sweep: a request count ("200") or a duration ("30s").
/// Zero is refused: a stage that ends after no time or no request would be skipped unseen.
bool parseStageEnd(const QString &text, StageConfig &stage)
{
    bool isCount = false;
    const qint64 count = text.toLongLong(&isCount);
    if (isCount) {
        stage.requests = count;
        return count > 0 && count <= limits::kMaxRequests;
    }
    const auto ms = parseDurationMs(text);
    if (ms)
        stage.durationMs = *ms;
    return ms && *ms > 0;
}

} // namespace

std::optional<QList<StageConfig>> parseStages(const QString &spec, QString *error)
{
    static const QRegularExpression re(
        QStringLiteral("^\\s*([cr])\\s*=\\s*(\\d+(?:\\.\\d+)?)\\s*(?::\\s*([^:]+?)\\s*)?$"));
    const auto fail = [error, &spec](const QString &why) {
        if (error)
            *error = QStringLiteral(
                         "malformed stages '%1': %2 (expected e.g. \"c=50:30s,c=100:30s\" or "
                         "\"r=20:60s,r=100:500\"; c= users, r= requests/s, after ':' a duration or a request count)")
                         .arg(spec.size() > 80 ? spec.left(79) + QChar(0x2026) : spec, why);
        return std::nullopt;
    };
    QList<StageConfig> stages;
    if (spec.count(QLatin1Char(',')) >= limits::kMaxStages)
        return fail(QStringLiteral("more than %1 stages").arg(limits::kMaxStages));
    const QStringList parts = spec.split(QLatin1Char(','));
    for (const QString &part : parts) {
        const auto m = re.match(part);
        if (!m.hasMatch())
            return fail(QStringLiteral("cannot read '%1'").arg(part.trimmed()));
        StageConfig s;
        s.mode = m.captured(1) == QLatin1String("r") ? LoadMode::Rate : LoadMode::Concurrency;
        s.level = m.captured(2).toDouble();
        if (const QString end = m.captured(3); !end.isEmpty() && !parseStageEnd(end, s))
            return fail(QStringLiteral("'%1' is neither a duration above 0 nor a request count from 1 to %2")
                            .arg(end)
                            .arg(limits::kMaxRequests));
        stages << s;
    }
    return stages;
}

std::optional<QList<StageConfig>> parseSweep(const QString &spec, QString *error, const StageConfig &fixedLoad)
{
    static const QRegularExpression re(QStringLiteral("^\\s*([crp])\\s*=\\s*(\\d+(?:\\.\\d+)?)\\s*\\.\\.\\s*(\\d+(?:\\."
                                                      "\\d+)?)\\s*(?:x\\s*(\\d+))?\\s*(?::\\s*(\\S+)\\s*)?$"));
    constexpr int kMaxLevels = 50;
    const auto fail = [error, &spec](const QString &why) {
        if (error)
            *error = QStringLiteral(
                         "malformed sweep '%1': %2 (expected e.g. \"c=1..256\" (doubling), \"c=8..128x5\", "
                         "\"r=2..50x6:60s\" or \"p=256..16384x6\": c= users, r= requests/s, p= prompt tokens at "
                         "the run's load, FROM..TO, xN levels, after ':' a duration or a request count per stage)")
                         .arg(spec, why);
        return std::nullopt;
    };
    const auto m = re.match(spec);
    if (!m.hasMatch())
        return fail(QStringLiteral("cannot read it"));
    const bool prompts = m.captured(1) == QLatin1String("p");
    const LoadMode mode = prompts                               ? fixedLoad.mode
                          : m.captured(1) == QLatin1String("r") ? LoadMode::Rate
                                                                : LoadMode::Concurrency;
    const double from = m.captured(2).toDouble();
    const double to = m.captured(3).toDouble();
    if (!(from > 0) || !(to > from))
        return fail(QStringLiteral("the levels must rise from a level above 0"));
    if (prompts && (from < 1 || to > limits::kMaxPromptTokens))
        return fail(QStringLiteral("prompt sizes must be from 1 to %1 tokens").arg(limits::kMaxPromptTokens));
    std::vector<double> levels;
    if (m.captured(4).isEmpty()) {
        for (double level = from; level < to && int(levels.size()) < kMaxLevels; level *= 2)
            levels.push_back(level);
        levels.push_back(to);
    } else {
        const int n = m.captured(4).toInt();
        if (n < 2 || n > kMaxLevels)
            return fail(QStringLiteral("x%1: between 2 and %2 levels").arg(n).arg(kMaxLevels));
        for (int i = 0; i < n; ++i)
            levels.push_back(from * std::pow(to / from, double(i) / double(n - 1)));
    }
    StageConfig end;
    if (const QString text = m.captured(5); !text.isEmpty() && !parseStageEnd(text, end))
        return fail(QStringLiteral("'%1' is neither a duration above 0 nor a request count from 1 to %2")
                        .arg(text)
                        .arg(limits::kMaxRequests));
    QList<StageConfig> stages;
    for (double level : levels) {
        level =
            mode == LoadMode::Concurrency || prompts ? std::round(level) : QString::number(level, 'g', 3).toDouble();
        StageConfig s = end;
        s.mode = mode;
        s.level = prompts ? fixedLoad.level : level;
        s.promptTokens = prompts ? int(level) : 0;
        if (!stages.isEmpty() &&
            (prompts ? double(stages.constLast().promptTokens) : stages.constLast().level) >= level)
            continue;
        stages << s;
    }
    if (stages.size() < 2)
        return fail(QStringLiteral("it gives fewer than 2 distinct levels"));
    return stages;
}

QString formatStages(const QList<StageConfig> &stages)
{
    QStringList parts;
    for (const StageConfig &s : stages) {
        QString part = stageDefaultName(s);
        if (s.durationMs > 0)
            part += QLatin1Char(':') + formatDuration(s.durationMs);
        else if (s.requests > 0)
            part += QLatin1Char(':') + QString::number(s.requests);
        parts << part;
    }
    if (isContextSweep(stages)) {
        // The load a context sweep holds, once in front: "c=4 p=256:20,p=1024:20".
        StageConfig load = stages.first();
        load.promptTokens = 0;
        return stageDefaultName(load) + QLatin1Char(' ') + parts.join(QLatin1Char(','));
    }
    return parts.join(QLatin1Char(','));
}

std::optional<std::pair<int, int>> parseLengthRange(const QString &text, QString *error)
{
    const QString t = text.trimmed();
    const qsizetype dots = t.indexOf(QLatin1String(".."));
    const QString low = dots < 0 ? t : t.left(dots);
    const QString high = dots < 0 ? t : t.mid(dots + 2);
    const auto bound = [](const QString &s) -> std::optional<int> {
        if (s.isEmpty())
            return 0;
        bool ok = false;
        const int v = s.toInt(&ok);
        return ok && v >= 0 && v <= limits::kMaxPromptTokens + limits::kMaxTokens ? std::optional<int>(v)
                                                                                  : std::nullopt;
    };
    const auto min = bound(low), max = bound(high);
    if (t.isEmpty() || !min || !max || (*max > 0 && *min > *max)) {
        if (error)
            *error =
                QStringLiteral("'%1' is not a token range MIN..MAX (e.g. 4..1024, 4.., ..2048)").arg(text.left(32));
        return std::nullopt;
    }
    return std::pair{*min, *max};
}

QString formatLengthRange(int min, int max)
{
    if (min == 0 && max == 0)
        return {};
    return (min > 0 ? QString::number(min) : QString()) + QStringLiteral("..") +
           (max > 0 ? QString::number(max) : QString());
}

std::optional<SloConfig> parseSlo(const QString &spec, QString *error)
{
    SloConfig slo;
    for (const QString &part : spec.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const int eq = part.indexOf(QLatin1Char('='));
        const QString key = part.left(eq).trimmed();
        bool ok = false;
        const double value = eq > 0 ? part.mid(eq + 1).trimmed().toDouble(&ok) : 0.0;
        std::optional<double> *slot = nullptr;
        if (key == QLatin1String("ttft_ms"))
            slot = &slo.ttftMs;
        else if (key == QLatin1String("tpot_ms"))
            slot = &slo.tpotMs;
        else if (key == QLatin1String("e2e_ms"))
            slot = &slo.e2eMs;
        if (!slot || !ok || !(value > 0)) {
            if (error)
                *error = QStringLiteral("malformed SLO '%1' (expected e.g. ttft_ms=500,tpot_ms=50,e2e_ms=10000; keys: "
                                        "ttft_ms, tpot_ms, e2e_ms; values > 0)")
                             .arg(part.trimmed());
            return std::nullopt;
        }
        *slot = value;
    }
    // Nothing to judge by: --fail-on-slo could never fail, and no goodput would be counted.
    if (slo.isEmpty()) {
        if (error)
            *error = QStringLiteral("no threshold given (expected e.g. ttft_ms=500,tpot_ms=50,e2e_ms=10000)");
        return std::nullopt;
    }
    return slo;
}

std::optional<Header> parseHeader(const QString &text, QString *error)
{
    const int colon = text.indexOf(QLatin1Char(':'));
    const QString name = text.left(colon).trimmed();
    if (colon <= 0 || !isValidHeaderName(name)) {
        if (error)
            // Only the first word: a line without ':' may be a credential ("Authorization Bearer sk-…").
            *error = QStringLiteral("malformed header '%1…' (expected 'Name: value')")
                         .arg(text.trimmed().section(QLatin1Char(' '), 0, 0).left(32));
        return std::nullopt;
    }
    Header header{name, text.mid(colon + 1).trimmed()};
    if (const QString problem = headerProblem(header); !problem.isEmpty()) {
        if (error)
            *error = QStringLiteral("header '%1' %2").arg(name.left(64), problem);
        return std::nullopt;
    }
    return header;
}

} // namespace tb
