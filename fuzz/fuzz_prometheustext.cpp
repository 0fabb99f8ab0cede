// parsePrometheusText, on what a server's /metrics sends, and what a run makes of it: no crash or
// undefined behaviour on any text; an exposition it accepts keeps its limits (a tight set is tried
// too, so the limit paths run on small inputs); what PromWriter writes of the accepted samples
// parses back to the same samples; two scrapes (the input cut at a point the fuzzer chooses) go
// through the mapping to common series, the dashboard rows and the summary.
#include "formats/prometheustext.h"
#include "fuzzinput.h"
#include "metrics/servermetrics.h"

#include <cctype>
#include <cmath>

namespace {

bool isPlainName(const std::string &name)
{
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front())))
        return false;
    return std::all_of(name.begin(), name.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':'; });
}

bool sameValue(double a, double b)
{
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

void checkLimits(const tb::PromExposition &e, const tb::PromLimits &limits)
{
    if (e.samples.size() > limits.maxSeries)
        tb::fuzz::violated("more samples than maxSeries");
    for (const tb::PromSample &s : e.samples) {
        if (s.labels.size() > limits.maxLabels)
            tb::fuzz::violated("a sample with more labels than maxLabels");
        if (s.name.empty())
            tb::fuzz::violated("a sample without a name");
    }
}

/// The samples PromWriter can write (plain names: a quoted one it does not quote) come back the same.
void checkRoundTrip(const tb::PromExposition &e)
{
    tb::PromWriter writer;
    std::vector<const tb::PromSample *> written;
    for (const tb::PromSample &s : e.samples) {
        if (!isPlainName(s.name) ||
            !std::all_of(s.labels.begin(), s.labels.end(), [](const auto &l) { return isPlainName(l.first); }))
            continue;
        writer.sample(s.name, s.labels, s.value);
        written.push_back(&s);
    }
    QString why;
    const std::string &text = writer.text();
    const auto again = tb::parsePrometheusText(QByteArrayView(text.data(), qsizetype(text.size())), &why);
    if (!again)
        tb::fuzz::violated("what PromWriter wrote of accepted samples does not parse");
    if (again->samples.size() != written.size())
        tb::fuzz::violated("PromWriter's text parses to a different number of samples");
    for (std::size_t i = 0; i < written.size(); ++i) {
        const tb::PromSample &was = *written[i], &is = again->samples[i];
        if (was.name != is.name || was.labels != is.labels || !sameValue(was.value, is.value))
            tb::fuzz::violated("a sample differs after PromWriter and parsing again");
    }
}

std::optional<tb::PromExposition> parse(std::string_view text, const tb::PromLimits &limits)
{
    QString why;
    auto e = tb::parsePrometheusText(QByteArrayView(text.data(), qsizetype(text.size())), &why, limits);
    if (!e && why.isEmpty())
        tb::fuzz::violated("refused without saying why");
    if (e)
        checkLimits(*e, limits);
    return e;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size > tb::fuzz::kMaxInput)
        return 0;
    const std::string_view text = tb::fuzz::text(data, size);

    tb::PromLimits tight;
    tight.maxBytes = 4096;
    tight.maxLines = 64;
    tight.maxSeries = 16;
    tight.maxLineBytes = 256;
    tight.maxLabels = 4;
    parse(text, tight);

    const auto whole = parse(text, {});
    if (whole)
        checkRoundTrip(*whole);

    // Two scrapes of one endpoint: the input's start and the rest, cut where the fuzzer chooses.
    FuzzedDataProvider choices(data, size);
    const std::size_t cut = size ? choices.ConsumeIntegralInRange<std::size_t>(0, size) : 0;
    const auto first = parse(text.substr(0, cut), {});
    const auto second = parse(text.substr(cut), {});
    tb::ServerSeries series;
    const int source = series.addSource(QStringLiteral("http://127.0.0.1:1/metrics"));
    double tS = 0.5;
    for (const auto *scrape : {&first, &second, &whole}) {
        if (*scrape)
            series.add(source, tb::mapServerMetrics(**scrape, tS), tb::detectServerEngine(**scrape));
        else
            series.addFailure(source, tS, QStringLiteral("not Prometheus text"));
        if (tS == 0.5)
            series.markMeasurementStart(tS);
        tS += 1;
    }
    if (const auto summary = series.summary()) {
        QString why;
        if (!tb::ServerSummary::fromJson(summary->toJson(), &why))
            tb::fuzz::violated("summary.json's server block does not read back");
    }
    return 0;
}
