#include "runconsole.h"

#include "cliparser.h"

#include "analysis/comparison.h"
#include "api/apidialect.h"
#include "formats/numberformat.h"
#include "platform/terminal.h"
#include "workload/workloadfile.h"

#include <QDir>

#include <algorithm>
#include <cmath>

namespace tb::cli {

namespace {

QString clock(std::int64_t ms)
{
    const std::int64_t s = ms / 1000;
    return s >= 3600
               ? QStringLiteral("%1:%2:%3")
                     .arg(s / 3600)
                     .arg((s / 60) % 60, 2, 10, QLatin1Char('0'))
                     .arg(s % 60, 2, 10, QLatin1Char('0'))
               : QStringLiteral("%1:%2").arg(s / 60, 2, 10, QLatin1Char('0')).arg(s % 60, 2, 10, QLatin1Char('0'));
}

/// "usage 3, tokenizer 2": the non-zero counts, each named by what counted it.
QString countedBy(std::initializer_list<std::pair<const char *, std::int64_t>> counts)
{
    QStringList parts;
    for (const auto &[source, n] : counts) {
        if (n)
            parts << QStringLiteral("%1 %2").arg(QLatin1String(source)).arg(n);
    }
    return parts.join(QStringLiteral(", "));
}

/// "p50 812 ms, p90 ∞ (failures), p99 ∞ (failures)": error-adjusted percentiles, an infinite one
/// falling among the failures.
QString adjustedPercentiles(const ErrorAdjusted &e)
{
    QStringList parts;
    for (const auto &[name, v] : {std::pair{"p50", e.p50}, std::pair{"p90", e.p90}, std::pair{"p99", e.p99}})
        parts << QStringLiteral("%1 %2").arg(QLatin1String(name), std::isinf(v)
                                                                      ? QStringLiteral("∞ (failures)")
                                                                      : formatNumber(v) + QStringLiteral(" ms"));
    return parts.join(QStringLiteral(", "));
}

/// The per-slice table (--slice): one line a slice.
QString sliceTable(const RunSummary &summary)
{
    QString text = QStringLiteral("\nper slice of %1 s (requests by their done time, tokens and ITL by their chunks' "
                                  "time):\n")
                       .arg(formatNumber(summary.sliceS, 6, 3));
    text += QStringLiteral("    from s     ok  failed   out tok/s  TTFT p50  TTFT p99  ITL p50  ITL p99  in flight\n");
    const auto ms = [](double v, int width) {
        return QStringLiteral("%1").arg(std::isfinite(v) ? formatNumber(v) : QStringLiteral("-"), width);
    };
    for (const SliceSummary &s : summary.slices)
        text += QStringLiteral("%1  %2  %3  %4  ")
                    .arg(formatNumber(s.startS, 6, 3), 8)
                    .arg(s.ok, 5)
                    .arg(s.failed, 6)
                    .arg(formatNumber(s.outputTokensPerS, 4, 1), 10) +
                ms(s.ttftP50Ms, 8) + QStringLiteral("  ") + ms(s.ttftP99Ms, 8) + QStringLiteral("  ") +
                ms(s.itlP50Ms, 7) + QStringLiteral("  ") + ms(s.itlP99Ms, 7) + QStringLiteral("  ") +
                QStringLiteral("%1").arg(formatNumber(s.meanInFlight), 9) + QLatin1Char('\n');
    return text;
}

} // namespace

RunConsole::RunConsole(const RunConfig &config, bool showProgress)
    : m_config(redacted(config)) // the summary it prints shows URLs and headers
    , m_showProgress(showProgress)
    , m_tty(stderrIsTerminal())
{}

void RunConsole::attach(BenchmarkRunner *runner)
{
    m_config = runner->info().config; // as run: with the salt the runner chose
    connect(runner, &BenchmarkRunner::recordsCompleted, this, [this](const QList<RequestRecord> &records) {
        for (const RequestRecord &r : records)
            m_errors.add(r);
    });
    connect(runner, &BenchmarkRunner::snapshotUpdated, this, [this](const RunSnapshot &snapshot) {
        m_snapshot = snapshot;
        m_haveSnapshot = true;
        if (!m_sinceLine.isValid() || m_sinceLine.elapsed() >= (m_tty ? 500 : 2000))
            printProgress();
    });
    // Calibration comes before the load, and before the first snapshot: its probes are the progress.
    connect(runner, &BenchmarkRunner::progressed, this, [this](const RunProgress &progress) {
        if (!progress.calibrating)
            return;
        m_snapshot.progress = progress;
        m_haveSnapshot = true;
        if (!m_sinceLine.isValid() || m_sinceLine.elapsed() >= (m_tty ? 500 : 2000))
            printProgress();
    });
    connect(runner, &BenchmarkRunner::stageStarted, this, [this](int stage, const QString &name, bool warmup) {
        if (m_showProgress && !m_tty)
            printErr(QStringLiteral("%1 %2 (stage %3)\n")
                         .arg(warmup ? QStringLiteral("warm-up at") : QStringLiteral("stage"), name)
                         .arg(stage + 1));
    });
    connect(runner, &BenchmarkRunner::serverMetricsFailed, this,
            [this](int, const QString &url, const QString &problem, bool stopped) {
                // A guessed endpoint that is not there is only worth a word when progress is shown.
                if (stopped && !m_showProgress)
                    return;
                printErr(QStringLiteral("%1server metrics: %2: %3%4\n")
                             .arg(m_tty && m_showProgress ? QStringLiteral("\n") : QString(), url, problem,
                                  stopped
                                      ? QStringLiteral(" (not scraped)")
                                      : QStringLiteral(" (still scraped; the summary warns if it does not recover)")));
            });
    if (m_showProgress) {
        printErr(QStringLiteral("run directory: %1\n").arg(QDir::toNativeSeparators(runner->directory())));
        // What the figures' chunk times can see, before any figure is read.
        printErr(QStringLiteral("I/O: %1\n").arg(runner->info().io.text()));
        // Said whenever a proxy, or a rule that passed one by, decided the route.
        if (const ConnectionInfo &c = runner->info().connection; c.proxySource != QLatin1String("none"))
            printErr(QStringLiteral("proxy: %1\n").arg(c.proxyText()));
    }
}

QString RunConsole::progressLine(const RunSnapshot &s, int inputsPerRequest)
{
    const RunProgress &p = s.progress;
    if (p.calibrating)
        return p.calibrationText();
    QString stage = p.warmup ? QStringLiteral("warm-up ") + p.stageName : p.stageName;
    if (p.stageCount > 1 && !p.warmup)
        stage += QStringLiteral(" [%1/%2]").arg(p.stage + 1).arg(p.stageCount);
    if (p.stopping)
        stage = QStringLiteral("stopping");
    else if (p.draining)
        stage = QStringLiteral("finishing");
    QString eta = p.etaMs >= 0 ? QStringLiteral(" ETA %1").arg(clock(p.etaMs)) : QString();
    // Rates of the last complete second: what is happening now, not the average so far. The time
    // series ends at its last event, so a lull has no row: nothing happened, the rate is 0 (not the
    // last busy second's).
    double reqPerS = 0;
    double tokPerS = 0;
    const int lastSecond = int(p.elapsedNs / 1'000'000'000) - 1;
    const auto last = std::find_if(s.timeSeries.rbegin(), s.timeSeries.rend(),
                                   [lastSecond](const TimeSeriesRow &row) { return row.second <= lastSecond; });
    if (last != s.timeSeries.rend() && last->second == lastSecond) {
        reqPerS = double(last->completed);
        // Embeddings generate nothing: what they get through is inputs.
        tokPerS = inputsPerRequest > 0 ? reqPerS * inputsPerRequest : double(last->outputTokens);
    }
    const QString target = p.mode == LoadMode::Concurrency ? QStringLiteral("/%1").arg(qint64(p.level)) : QString();
    return QStringLiteral("%1 %2%3 | done %4 | errors %5 | in flight %6%7 | %8 req/s | %9 %10")
        .arg(stage, clock(p.elapsedNs / 1'000'000), eta)
        .arg(p.completed)
        .arg(p.failed)
        .arg(p.inFlight)
        .arg(target, formatNumber(reqPerS), formatNumber(tokPerS),
             inputsPerRequest > 0 ? QStringLiteral("inputs/s") : QStringLiteral("tok/s"));
}

void RunConsole::printProgress()
{
    if (!m_showProgress || !m_haveSnapshot)
        return;
    m_sinceLine.start();
    const QString line = progressLine(
        m_snapshot, dialectFor(m_config.target.api).generates() ? 0 : std::max(m_config.request.batchSize, 1));
    if (m_tty) {
        const int pad = std::max(0, m_lineWidth - int(line.size()));
        m_lineWidth = int(line.size());
        printErr(QLatin1Char('\r') + line + QString(pad, QLatin1Char(' ')));
    } else {
        printErr(line + QLatin1Char('\n'));
    }
}

int RunConsole::finish(const RunOutcome &outcome, bool interrupted)
{
    if (m_showProgress && m_haveSnapshot) {
        m_snapshot.progress = outcome.progress;
        printProgress();
        if (m_tty)
            printErr(QStringLiteral("\n"));
    }
    const SummaryBlock &t = outcome.summary.total;
    QString text;
    text += QStringLiteral("target     %1 (%2, %3)\n")
                .arg(outcome.summary.targetUrl, outcome.summary.api, outcome.summary.model);
    if (const QString transport = outcome.summary.transportText(); !transport.isEmpty())
        text += QStringLiteral("transport  %1\n").arg(transport);
    text += QStringLiteral("I/O        %1\n").arg(outcome.summary.io.text());
    text += QStringLiteral("load       %1 %2\n")
                .arg(t.load.mode == LoadMode::Concurrency ? QStringLiteral("closed loop") : QStringLiteral("open loop"),
                     t.load.stages);
    text += QStringLiteral("requests   %1 ok, %2 failed, %3 cancelled, %4 warm-up; window %5 s; peak in flight %6\n")
                .arg(t.requests.ok)
                .arg(t.requests.failed)
                .arg(t.requests.cancelled)
                .arg(t.requests.warmup)
                .arg(t.windowS, 0, 'f', 2)
                .arg(t.concurrency.peakInFlight);
    if (const QString partial = outcome.summary.partialNote(); !partial.isEmpty())
        text += QStringLiteral("partial    %1\n").arg(partial);
    if (const auto &cancellation = outcome.summary.cancellation)
        text += QStringLiteral("cancel     %1\n").arg(cancellation->line());
    if (const auto &images = t.images)
        text += QStringLiteral("images     %1\n").arg(images->line());
    if (const auto &tools = t.toolCalls) {
        QString line = QStringLiteral("tools      %1 of %2 requests made tool calls (%3 calls); %4 valid, %5 invalid "
                                      "JSON, %6 not valid for the tool, %7 required and missing")
                           .arg(tools->withCalls)
                           .arg(tools->requests)
                           .arg(tools->calls)
                           .arg(tools->valid)
                           .arg(tools->invalidJson)
                           .arg(tools->schemaMismatch)
                           .arg(tools->missing);
        if (tools->firstToolCallMs.count > 0)
            line += QStringLiteral("; first tool-call token p50 / p99 %1 / %2 ms")
                        .arg(formatNumber(tools->firstToolCallMs.p50), formatNumber(tools->firstToolCallMs.p99));
        line += QStringLiteral("; qualified goodput %1 req/s").arg(formatNumber(tools->qualifiedGoodputPerS));
        text += line + QLatin1Char('\n');
    }
    if (const auto &steady = outcome.summary.steady)
        text += steady->line(outcome.summary.wholeRun()) + QLatin1Char('\n');
    if (const auto &window = outcome.summary.window)
        text += window->line() + QLatin1Char('\n');
    // Beside the ordinary percentiles, which leave the failures out (docs/metrics.md).
    // Embeddings and rerank have no first token: their failures are E2E's alone.
    if (t.requests.failed > 0 && !apiGenerates(outcome.summary.api))
        text += QStringLiteral("adjusted   failures as +∞ (%1 failed): E2E %2\n")
                    .arg(t.requests.failed)
                    .arg(adjustedPercentiles(t.errorAdjustedE2e));
    else if (t.requests.failed > 0 && t.errorAdjustedTtft.count + t.errorAdjustedE2e.count > 0)
        text += QStringLiteral("adjusted   failures as +∞ (%1 failed): TTFT %2; E2E %3\n")
                    .arg(t.requests.failed)
                    .arg(adjustedPercentiles(t.errorAdjustedTtft), adjustedPercentiles(t.errorAdjustedE2e));
    if (t.concurrency.meanTokensInFlight > 0)
        text += QStringLiteral("in flight  %1 requests on average (effective concurrency), peak %2; tokens held %3 on "
                               "average, %4 in the fullest second\n")
                    .arg(formatNumber(t.concurrency.meanInFlight))
                    .arg(t.concurrency.peakInFlight)
                    .arg(formatNumber(t.concurrency.meanTokensInFlight, 4, 0),
                         formatNumber(t.concurrency.peakTokensInFlight, 4, 0));
    if (t.connections.opened + t.connections.reused > 0) {
        QString line =
            QStringLiteral("connections %1 new, %2 kept alive").arg(t.connections.opened).arg(t.connections.reused);
        if (t.requests.retries > 0)
            line += QStringLiteral("; %1 requests sent again on a new connection (a kept-alive connection the server "
                                   "had closed)")
                        .arg(t.requests.retries);
        text += line + QLatin1Char('\n');
    }
    QStringList phases;
    for (const Metric m :
         {Metric::Blocked, Metric::Connect, Metric::Tls, Metric::Sending, Metric::Waiting, Metric::Receiving}) {
        if (const LatencyStats &s = t.stat(m); s.count > 0)
            phases
                << QStringLiteral("%1 %2 / %3").arg(metricLabel(m).toLower(), formatNumber(s.p50), formatNumber(s.p99));
    }
    if (!phases.isEmpty())
        text += QStringLiteral("phases     p50 / p99 ms: %1\n").arg(phases.join(QStringLiteral(" · ")));
    QStringList errors;
    for (const auto &[status, n] : t.requests.byStatus) {
        if (status >= 400)
            errors << QStringLiteral("HTTP %1 × %2").arg(status).arg(n);
    }
    for (const auto &[cls, n] : t.requests.byError) {
        if (cls != QLatin1String("http"))
            errors << QStringLiteral("%1 × %2").arg(cls).arg(n);
    }
    if (!errors.isEmpty())
        text += QStringLiteral("errors     %1\n").arg(errors.join(QStringLiteral(", ")));
    if (const QString failures = m_errors.headline(t.requests); !failures.isEmpty())
        text += QStringLiteral("failures   %1\n").arg(failures);
    const QString sources = countedBy({{"usage", t.tokens.fromUsage},
                                       {"tokenizer", t.tokens.fromTokenizer},
                                       {"chunks", t.tokens.fromChunks},
                                       {"estimate", t.tokens.fromEstimate}});
    if (!sources.isEmpty())
        text += QStringLiteral("tokens     counted from %1\n").arg(sources);
    // A server may report its cache in usage or only in llama.cpp's timings: say which.
    if (const QString cached =
            countedBy({{"usage", t.tokens.cachedFromUsage}, {"timings", t.tokens.cachedFromTimings}});
        !cached.isEmpty())
        text += QStringLiteral("cached     %1 of %2 prompt tokens (%3), counted from %4\n")
                    .arg(t.tokens.cached)
                    .arg(t.tokens.input)
                    .arg(formatPercent(t.tokens.cacheHitRatio.value_or(0)), cached);
    if (outcome.summary.workload.is_object())
        text += QStringLiteral("workload   %1\n").arg(WorkloadStats::fromJson(outcome.summary.workload).describe());
    const QString promptSources = countedBy({{"usage", t.tokens.promptFromUsage},
                                             {"tokenizer", t.tokens.promptFromTokenizer},
                                             {"estimate", t.tokens.promptEstimated}});
    if (t.requests.ok > 0) {
        const PromptSizing &p = outcome.summary.promptSizing;
        QString line = QStringLiteral("prompts    %1 tokens on average (%2–%3), counted from %4")
                           .arg(double(t.tokens.input) / double(t.requests.ok), 0, 'f', 1)
                           .arg(t.tokens.promptMin)
                           .arg(t.tokens.promptMax)
                           .arg(promptSources);
        if (p.requested)
            line += QStringLiteral("; requested %1, sized with %2").arg(*p.requested).arg(p.tokenizer);
        if (!p.calibration.isEmpty())
            line += QStringLiteral("; calibrated by %1 (%2 probes in %3 s before the run: %4 target tokens per local "
                                   "token, template %5, %6 words off, %7 fillers)")
                        .arg(p.calibrationDialect.isEmpty() ? p.calibration
                                                            : p.calibration + QLatin1Char(' ') + p.calibrationDialect)
                        .arg(p.probes)
                        .arg(p.calibrationS, 0, 'f', 1)
                        .arg(p.scale, 0, 'f', 3)
                        .arg(p.overhead)
                        .arg(p.trim)
                        .arg(p.pad);
        if (!p.calibration.isEmpty() && p.probed)
            line += QStringLiteral("; the target counted %1").arg(*p.probed);
        if (!p.calibrationError.isEmpty())
            line += QStringLiteral("; not calibrated: %1").arg(p.calibrationError);
        text += line + QLatin1Char('\n');
    }
    if (const auto &server = outcome.summary.server) {
        const auto scrapes = [](const ServerSummary &s) {
            QString line = QStringLiteral("%1 (%2): %3 scrapes").arg(s.url, s.engine).arg(s.scrapes);
            if (s.failures)
                line += QStringLiteral(", %1 failed (%2)").arg(s.failures).arg(s.problem);
            return line;
        };
        QString line = QStringLiteral("server     ") + scrapes(*server);
        if (server->ttft.p50 && std::isfinite(t.stat(Metric::Ttft).p50))
            line += QStringLiteral("; TTFT p50 %1 ms at the server, %2 ms here")
                        .arg(*server->ttft.p50, 0, 'f', 1)
                        .arg(t.stat(Metric::Ttft).p50, 0, 'f', 1);
        if (server->cacheHitRatio)
            line += QStringLiteral("; %1% of prompt tokens from its cache by its counters")
                        .arg(*server->cacheHitRatio * 100.0, 0, 'f', 1);
        text += line + QLatin1Char('\n');
        for (const ServerSummary &instance : server->instances)
            text += QStringLiteral("             %1\n").arg(scrapes(instance));
    }
    if (const auto &gpu = outcome.summary.gpu)
        text +=
            QStringLiteral("gpu        %1: %2 scrapes; %3\n").arg(gpu->url, QString::number(gpu->scrapes), gpu->line());
    if (const auto &cost = t.cost) {
        QString line =
            QStringLiteral("cost       %1 USD (input %2, cached input %3, output %4)")
                .arg(ComparisonTable::formatValue(cost->total), ComparisonTable::formatValue(cost->input),
                     ComparisonTable::formatValue(cost->cachedInput), ComparisonTable::formatValue(cost->output));
        if (cost->perRequest)
            line += QStringLiteral("; %1 per request").arg(ComparisonTable::formatValue(*cost->perRequest));
        if (cost->perMOutputTokens)
            line +=
                QStringLiteral(", %1 per 1M output tokens").arg(ComparisonTable::formatValue(*cost->perMOutputTokens));
        if (!cost->prices.source.isEmpty())
            line += QStringLiteral(" [%1]").arg(cost->prices.source);
        text += line + QLatin1Char('\n');
    }
    // Every source's prompts derive from the salt (synthetic text, or a salt tag on each request).
    text += QStringLiteral("prompts    salt %1 (--prompt-salt %1 sends the same prompts again)\n")
                .arg(m_config.prompt.salt);
    if (const auto knee = findKnee(outcome.summary))
        text += QStringLiteral("knee       %1\n").arg(knee->text);
    if (const auto &sweep = outcome.summary.contextSweep)
        text += QStringLiteral("context    %1\n").arg(sweep->fitText());
    text += QLatin1Char('\n');

    RunData data;
    data.directory = outcome.directory;
    data.info.config = m_config;
    data.info.stages = effectiveStages(m_config.load);
    data.hasInfo = true;
    data.summary = outcome.summary;
    data.timeSeries = outcome.timeSeries;
    text += ComparisonTable({data}).toText();
    if (const std::vector<RunData> instances = splitByInstance(data); !instances.empty()) {
        text += QStringLiteral("\nper instance (balance %1; changes against #1):\n").arg(outcome.summary.balance);
        text += ComparisonTable(instances).toText();
    }
    if (const std::vector<RunData> models = splitByModel(data); !models.empty()) {
        text += QStringLiteral("\nper model (changes against #1):\n");
        text += ComparisonTable(models).toText();
    }
    if (!outcome.summary.turns.empty()) {
        text += QStringLiteral("\nper turn (conversations of %1 turns, think time %2):\n")
                    .arg(m_config.load.turns)
                    .arg(formatThinkTime(m_config.load.thinkTimeMs, m_config.load.thinkTimeExponential));
        text += QStringLiteral("turn  requests  TTFT p50 ms  TTFT mean ms  prompt p50  prompt mean  cached p50  "
                               "cached mean  completion mean  tool results\n");
        const auto cell = [](double v, int width, int decimals) {
            return std::isfinite(v) ? QStringLiteral("%1").arg(v, width, 'f', decimals)
                                    : QStringLiteral("%1").arg(QStringLiteral("-"), width);
        };
        for (const TurnSummary &turn : outcome.summary.turns) {
            text += QStringLiteral("%1  %2  ").arg(turn.turn, 4).arg(turn.requests, 8) + cell(turn.ttftMs.p50, 11, 1) +
                    QStringLiteral("  ") + cell(turn.ttftMs.mean, 12, 1) + QStringLiteral("  ") +
                    cell(turn.promptTokens.p50, 10, 0) + QStringLiteral("  ") + cell(turn.promptTokens.mean, 11, 1) +
                    QStringLiteral("  ") + cell(turn.cachedTokens.p50, 10, 0) + QStringLiteral("  ") +
                    cell(turn.cachedTokens.mean, 11, 1) + QStringLiteral("  ") +
                    cell(turn.completionTokens.count > 0 ? turn.completionTokens.mean : qQNaN(), 15, 1) +
                    QStringLiteral("  %1\n").arg(turn.toolResults, 12);
        }
        // The agent loop's token cost: what one conversation of every turn sends and receives.
        const ConversationTokens cost = ConversationTokens::of(outcome.summary.turns);
        text += QStringLiteral("tokens per conversation: %1 (prompt %2 + completion %3; sum of the turns' means)")
                    .arg(formatNumber(cost.total(), 9, 0), formatNumber(cost.prompt, 9, 0),
                         formatNumber(cost.completion, 9, 0));
        if (!m_config.request.tools.isEmpty())
            text += QStringLiteral("; %1 of %2 turns carried tool results (--tool-result-tokens %3)")
                        .arg(cost.turnsWithToolResults)
                        .arg(outcome.summary.turns.size())
                        .arg(m_config.request.toolResultTokens);
        text += QLatin1Char('\n');
    }
    if (const auto &sweep = outcome.summary.contextSweep) {
        text += QStringLiteral("\nper prompt size (context sweep; prefill tok/s = prompt / TTFT p50, fit = 1 / the "
                               "fit's slope):\n");
        text += QStringLiteral("stage        requests  prompt p50  TTFT p50 ms  prefill tok/s  fit prefill tok/s  "
                               "truncated\n");
        for (const ContextSweepSummary::Stage &stage : sweep->stages) {
            text += QStringLiteral("%1  %2  %3  %4  %5  %6  %7\n")
                        .arg(stage.name.left(11), -11)
                        .arg(stage.requests, 8)
                        .arg(stage.promptTokens, 10, 'f', 0)
                        .arg(stage.ttftP50Ms, 11, 'f', 1)
                        .arg(stage.prefillTokensPerS, 13, 'f', 0)
                        .arg(stage.fitPrefillTokensPerS ? QString::number(*stage.fitPrefillTokensPerS, 'f', 0)
                                                        : QStringLiteral("-"),
                             17)
                        .arg(stage.truncated > 0 ? QString::number(stage.truncated) : QStringLiteral("-"), 9);
        }
    }
    if (!outcome.summary.slices.empty())
        text += sliceTable(outcome.summary);
    text += QStringLiteral("\nrun directory: %1\n").arg(QDir::toNativeSeparators(outcome.directory));
    printOut(text);

    if (!outcome.error.isEmpty()) {
        printErr(QStringLiteral("tokenbench-cli run: %1\n").arg(outcome.error));
        return ExitFailure;
    }
    // Scripts must not take a run cut short for a finished one, whatever it measured.
    if (interrupted) {
        printErr(QStringLiteral("tokenbench-cli run: interrupted; what was measured is saved\n"));
        return ExitInterrupted;
    }
    if (t.requests.allFailed()) {
        printErr(QStringLiteral("tokenbench-cli run: every request failed\n"));
        return ExitFailure;
    }
    if (t.requests.attempted == 0 && !outcome.cancelled) {
        printErr(QStringLiteral("tokenbench-cli run: no request completed\n"));
        return ExitFailure;
    }
    if (m_config.slo.failOnSlo && !m_config.slo.isEmpty()) {
        const double good = t.throughput.goodFraction.value_or(0);
        if (good < m_config.slo.target) {
            printErr(QStringLiteral("tokenbench-cli run: SLO not met: good fraction %1 < target %2\n")
                         .arg(good, 0, 'f', 4)
                         .arg(m_config.slo.target));
            return ExitSloMissed;
        }
    }
    return ExitOk;
}

} // namespace tb::cli
