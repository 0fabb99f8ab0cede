#include "analysis/baseline.h"

#include "analysis/comparison.h"
#include "analysis/metriccatalogue.h"

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStringList>

#include <cmath>

namespace tb {

namespace {

QString normalised(const QString &directory)
{
    return directory.isEmpty() ? QString() : QDir::cleanPath(QFileInfo(directory).absoluteFilePath());
}

std::optional<double> relative(double run, double baseline)
{
    if (!std::isfinite(run) || !std::isfinite(baseline) || baseline == 0)
        return std::nullopt;
    return (run - baseline) / std::abs(baseline) * 100;
}

} // namespace

QString Baseline::directory()
{
    return QSettings().value(QLatin1String(kSettingsKey)).toString();
}

void Baseline::setDirectory(const QString &directory)
{
    QSettings settings;
    if (directory.isEmpty())
        settings.remove(QLatin1String(kSettingsKey));
    else
        settings.setValue(QLatin1String(kSettingsKey), normalised(directory));
}

bool Baseline::isBaseline(const QString &directory)
{
    const QString marked = Baseline::directory();
    return !marked.isEmpty() && normalised(directory) == marked;
}

Baseline::Change Baseline::change(const RunSummary &run, const RunSummary &baseline)
{
    const SummaryBlock &r = run.total;
    const SummaryBlock &b = baseline.total;
    Change c;
    c.ttftP50Pct = relative(r.stat(Metric::Ttft).p50, b.stat(Metric::Ttft).p50);
    c.e2eP99Pct = relative(r.stat(Metric::E2e).p99, b.stat(Metric::E2e).p99);
    c.requestsPerSPct = relative(r.throughput.requestsPerS, b.throughput.requestsPerS);
    c.outputTokensPerSPct = relative(r.throughput.outputTokensPerS, b.throughput.outputTokensPerS);
    const MetricCatalogue::Entry &errorPct = *MetricCatalogue::find(QStringLiteral("error_pct"));
    const auto errors = errorPct.of(r);
    const auto baseErrors = errorPct.of(b);
    if (errors && baseErrors)
        c.errorPoints = *errors - *baseErrors;
    return c;
}

bool Baseline::Change::isEmpty() const
{
    return !ttftP50Pct && !e2eP99Pct && !requestsPerSPct && !outputTokensPerSPct && !errorPoints;
}

QString Baseline::Change::text() const
{
    QStringList parts;
    if (ttftP50Pct)
        parts << QStringLiteral("TTFT p50 ") + ComparisonTable::formatChange(*ttftP50Pct);
    if (e2eP99Pct)
        parts << QStringLiteral("E2E p99 ") + ComparisonTable::formatChange(*e2eP99Pct);
    if (requestsPerSPct)
        parts << QStringLiteral("req/s ") + ComparisonTable::formatChange(*requestsPerSPct);
    if (outputTokensPerSPct)
        parts << QStringLiteral("tok/s ") + ComparisonTable::formatChange(*outputTokensPerSPct);
    if (errorPoints && *errorPoints != 0)
        parts << QStringLiteral("errors ") + ComparisonTable::formatChange(*errorPoints, QStringLiteral(" pp"));
    return parts.join(QStringLiteral(" · "));
}

int Baseline::Change::direction() const
{
    // Count the moves each way, each figure judged by its metric's direction in the catalogue.
    int better = 0;
    int worse = 0;
    const auto count = [&](const std::optional<double> &v, const char *key) {
        if (!v || *v == 0)
            return;
        const bool lowerIsBetter = MetricCatalogue::find(QLatin1String(key))->better == MetricCatalogue::Better::Lower;
        ((*v < 0) == lowerIsBetter ? better : worse) += 1;
    };
    count(ttftP50Pct, "ttft_p50");
    count(e2eP99Pct, "e2e_p99");
    count(requestsPerSPct, "requests_per_s");
    count(outputTokensPerSPct, "output_tokens_per_s");
    count(errorPoints, "error_pct");
    if (better > 0 && worse == 0)
        return 1;
    if (worse > 0 && better == 0)
        return -1;
    return 0;
}

} // namespace tb
