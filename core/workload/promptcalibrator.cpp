#include "workload/promptcalibrator.h"

#include "api/streamdecoder.h"
#include "config/saturating.h"
#include "net/targetaccess.h"
#include "tokenize/tokenizer.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>

#include <algorithm>
#include <cmath>

namespace tb {

namespace {

// Probes are the run's first prompts with their words in another order (PromptSource::probe):
// they count as the run's do, and warm no cache for its user text.
constexpr qint64 kMaxReplyBytes = 4 * 1024 * 1024;
constexpr int kMaxChecks = 6;
constexpr int kSamples = 3;     // prompts averaged per measurement: their texts' tokens per word differ
constexpr int kFirstCheck = 10; // steps 0-2 fit the line, then the checks

QByteArray tokenizeUrl(const QString &base)
{
    // The tokenize endpoints live at the server's root, beside /v1.
    QUrl url(base);
    url.setPath(QStringLiteral("/tokenize"));
    url.setQuery(QString());
    return url.toEncoded();
}

/// {"count": N} or {"tokens": [...]} (vLLM, SGLang, llama.cpp), or a list of tokens (TGI).
std::optional<std::int64_t> tokenizeCount(const nlohmann::json &json)
{
    if (json.is_array())
        return std::int64_t(json.size());
    if (!json.is_object())
        return std::nullopt;
    if (const auto it = json.find("count"); it != json.end() && it->is_number_integer())
        return it->get<std::int64_t>();
    if (const auto it = json.find("tokens"); it != json.end() && it->is_array())
        return std::int64_t(it->size());
    return std::nullopt;
}

} // namespace

PromptCalibrator::PromptCalibrator(const RunConfig &config, std::shared_ptr<const Tokenizer> local, QObject *parent)
    : QObject(parent)
    , m_config(config)
    , m_local(local ? std::move(local) : Tokenizer::approx())
    , m_network(new QNetworkAccessManager(this))
{
    qRegisterMetaType<CalibrationResult>();
}

PromptCalibrator::~PromptCalibrator() = default;

bool PromptCalibrator::closeEnough(std::int64_t measured, std::int64_t requested)
{
    return double(std::abs(measured - requested)) <= std::max(2.0, 0.01 * double(requested));
}

void PromptCalibrator::start()
{
    const PromptConfig &p = m_config.prompt;
    if (p.promptTokens <= 0 || !p.promptFile.isEmpty())
        return done(QStringLiteral("only synthetic prompts (--prompt-tokens) are calibrated"));
    m_requested = std::int64_t(p.promptTokens) + p.systemTokens;
    RequestConfig probe = m_config.request;
    probe.maxTokens = 1;
    probe.stream = false;
    QString error;
    m_builder = RequestBuilder::create(m_config.target, probe, &error);
    if (!m_builder)
        return done(error);
    if (m_config.target.tokenizer == QLatin1String("server"))
        m_probe = m_builder->dialect().promptIsText() ? Probe::TokenizePrompt : Probe::TokenizeChat;
    m_result.method = m_probe == Probe::Chat ? QStringLiteral("usage") : QStringLiteral("tokenize");
    measure({}, kSamples);
}

int PromptCalibrator::probesPlanned() const
{
    if (m_finished)
        return m_result.probes;
    // The measurement going: its probes not sent yet. Then the fewest the steps after it take (see
    // measured()): the smallest prompt, a usage measurement when /tokenize counts text alone, one check.
    const bool inFlight = m_reply && !m_reply->isFinished();
    int later = 0;
    switch (m_step) {
    case 0: {
        const bool textOnly = m_probe != Probe::Chat && m_probe != Probe::TokenizeChat;
        later = 1 + (textOnly ? kSamples : 0) + kSamples;
        break;
    }
    case 1:
        later = (m_textOnly ? kSamples : 0) + kSamples;
        break;
    case 2:
        later = kSamples;
        break;
    default:
        break;
    }
    return m_result.probes + std::max(0, m_samples - m_sampled - int(inFlight)) + later;
}

void PromptCalibrator::abort()
{
    if (m_finished)
        return;
    done(QStringLiteral("stopped"));
    if (m_reply)
        m_reply->abort();
}

void PromptCalibrator::measure(const PromptCalibration &calibration, int samples)
{
    QString error;
    m_source = PromptSource::create(m_config.prompt, m_config.load.seed, &error, m_local, calibration);
    if (!m_source)
        return done(error);
    m_samples = samples;
    m_sampled = 0;
    m_localSum = m_countSum = 0;
    sendNext();
}

void PromptCalibrator::sendNext()
{
    const Prompt prompt = m_source->probe(std::uint64_t(m_sampled));
    m_localSum += prompt.tokens;
    send(m_probe, prompt);
}

void PromptCalibrator::sampled(std::int64_t count)
{
    m_countSum += count;
    if (++m_sampled < m_samples)
        return sendNext();
    m_localNow = double(m_localSum) / m_samples;
    measured(double(m_countSum) / m_samples);
}

void PromptCalibrator::send(Probe probe, const Prompt &prompt)
{
    const TargetConfig &t = m_config.target;
    QNetworkRequest request;
    nlohmann::json body;
    const std::string text = prompt.system.empty() ? prompt.user : prompt.system + "\n\n" + prompt.user;
    switch (probe) {
    case Probe::Chat: {
        QUrl url(t.url);
        url.setPath(QString::fromUtf8(m_builder->path()));
        request.setUrl(url);
        body = m_builder->body(prompt);
        break;
    }
    case Probe::TokenizeChat: {
        nlohmann::json messages = nlohmann::json::array();
        if (!prompt.system.empty())
            messages.push_back({{"role", "system"}, {"content", prompt.system}});
        messages.push_back({{"role", "user"}, {"content", prompt.user}});
        body = {{"model", toStd(t.primaryModel())}, {"messages", messages}};
        break;
    }
    case Probe::TokenizePrompt:
        body = {{"model", toStd(t.primaryModel())}, {"prompt", text}};
        break;
    case Probe::TokenizeContent:
        body = {{"content", text}};
        break;
    case Probe::TokenizeInputs:
        body = {{"inputs", text}};
        break;
    }
    if (probe != Probe::Chat)
        request.setUrl(QUrl::fromEncoded(tokenizeUrl(t.url)));
    QString why;
    const auto headers = RequestBuilder::targetHeaders(t, &why);
    if (!headers)
        return done(QStringLiteral("probe request: ") + why);
    for (const auto &[name, value] : *headers)
        request.setRawHeader(name, value);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setTransferTimeout(int(std::clamp<qint64>(m_config.load.timeoutMs, 1000, 300000)));
    // The run's TLS settings and proxy: a probe reaches the server the way the run's requests will.
    if (!TargetAccess::prepare(*m_network, request, t, &why))
        return done(QStringLiteral("probe request: ") + why);
    ++m_result.probes;
    m_reply = m_network->post(request, QByteArray::fromStdString(body.dump()));
    QNetworkReply *reply = m_reply;
    connect(reply, &QNetworkReply::finished, this, [this, reply, probe, prompt] {
        reply->deleteLater();
        received(reply, probe, prompt);
    });
}

void PromptCalibrator::received(QNetworkReply *reply, Probe probe, const Prompt &prompt)
{
    if (m_finished)
        return;
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray body = reply->read(kMaxReplyBytes);
    if (probe != Probe::Chat) {
        if (status < 200 || status >= 300)
            return nextDialect(probe, status ? QStringLiteral("HTTP %1").arg(status) : reply->errorString(), prompt);
        const nlohmann::json json =
            nlohmann::json::parse(body.constData(), body.constData() + body.size(), nullptr, false);
        const auto count = tokenizeCount(json);
        if (!count)
            return nextDialect(probe, QStringLiteral("no token count in the answer"), prompt);
        if (*count <= 0) // the text is never empty: a server that did not read the body
            return nextDialect(probe, QStringLiteral("an empty token list"), prompt);
        if (*count > limits::kMaxTokenCount) // beyond any context; sums of such would overflow
            return nextDialect(probe, QStringLiteral("a token count beyond %1").arg(limits::kMaxTokenCount), prompt);
        m_textOnly = probe != Probe::TokenizeChat;
        m_result.dialect = bodyOf(probe);
        return sampled(*count);
    }
    if (reply->error() != QNetworkReply::NoError && status == 0)
        return done(QStringLiteral("probe request failed: %1").arg(reply->errorString()));
    if (status < 200 || status >= 300) {
        return done(QStringLiteral("probe request: HTTP %1: %2")
                        .arg(status)
                        .arg(StreamDecoder::errorMessageFromBody(
                            std::string_view(body.constData(), std::size_t(body.size())))));
    }
    RequestRecord record;
    StreamDecoder decoder(m_config.target.api);
    decoder.begin(&record);
    decoder.onBody(std::string_view(body.constData(), std::size_t(body.size())), 0);
    decoder.finish(-1, TokenSource::Estimate);
    if (record.promptTokenSource != TokenSource::Usage || record.promptTokens <= 0)
        return done(QStringLiteral("the target reports no usage.prompt_tokens"));
    sampled(record.promptTokens);
}

QString PromptCalibrator::bodyOf(Probe probe)
{
    static const char *const kBodies[] = {R"({"model", "messages"})", R"({"model", "prompt"})", R"({"content"})",
                                          R"({"inputs"})"};
    return QLatin1String(kBodies[int(probe) - int(Probe::TokenizeChat)]);
}

void PromptCalibrator::nextDialect(Probe probe, const QString &why, const Prompt &prompt)
{
    m_unanswered << QStringLiteral("%1: %2").arg(bodyOf(probe), why);
    m_result.dialect.clear(); // a dialect that stopped counting part-way counts for nothing
    m_probe = probe == Probe::TokenizeInputs ? Probe::Chat : Probe(int(probe) + 1);
    if (m_probe == Probe::Chat)
        m_result.method = QStringLiteral("usage");
    if (m_step == 0 && m_sampled == 0)
        return send(m_probe, prompt);
    // The counts of one line come from one dialect: a dialect that failed part-way starts it over.
    m_step = 0;
    m_textOnly = false;
    measure({}, kSamples);
}

void PromptCalibrator::measured(double count)
{
    PromptCalibration &c = m_result.calibration;
    switch (m_step) {
    case 0: // the requested size, as the local tokenizer counts it
        m_local1 = m_localNow;
        m_count1 = count;
        m_step = 1;
        // The smallest prompt (a token of system, a token of user): mostly template, so the
        // overhead comes out without the noise of a second text's tokens-per-word.
        return measure({1e9, 0}, 1);
    case 1: {
        const double dl = m_local1 - m_localNow;
        c.scale = dl > 0 && m_count1 > count ? (m_count1 - count) / dl : m_count1 / m_local1;
        c.overhead = saturatingRound(m_count1 - c.scale * m_local1);
        if (m_textOnly) {
            // /tokenize counted the text alone: one usage request adds the chat template.
            m_probe = Probe::Chat;
            m_step = 2;
            return measure({}, kSamples);
        }
        m_step = kFirstCheck;
        return measure(c, kSamples);
    }
    case 2: // usage of the requested-size prompt, whose text /tokenize counted as m_count1
        c.overhead = saturatingRound(count - c.scale * m_local1);
        m_step = kFirstCheck;
        return measure(c, kSamples);
    default: // a check of the calibrated sizes
        return checked(count);
    }
}

void PromptCalibrator::checked(double count)
{
    PromptCalibration &c = m_result.calibration;
    const double miss = double(m_requested) - count; // target tokens to add
    if (m_step == kFirstCheck || std::abs(miss) < std::abs(m_bestMiss)) {
        m_best = c;
        m_bestMiss = miss;
        m_result.probed = saturatingRound(count);
    }
    // Two checks that differ only in fillers tell what one costs.
    if (m_step > kFirstCheck && c.trim == m_last.trim && c.pad != m_last.pad) {
        const double cost = (count - m_lastCount) / double(c.pad - m_last.pad);
        if (cost > 0)
            m_fillerCost = std::clamp(cost, 0.25, 16.0);
    }
    m_last = c;
    m_lastCount = count;
    // A filler is the finest step there is: within half of one, no further check does better.
    if (std::abs(miss) <= std::max(0.5, m_fillerCost / 2) || m_step >= kFirstCheck + kMaxChecks - 1) {
        c = m_best;
        return done();
    }
    const auto fillers = [this](double tokens) {
        return std::max<std::int64_t>(1, saturatingRound(tokens / m_fillerCost));
    };
    if (miss > 0) {
        c.pad += fillers(miss);
    } else if (c.pad > 0 && -miss <= double(c.pad) * m_fillerCost) {
        c.pad = std::max<std::int64_t>(0, c.pad - fillers(-miss));
    } else {
        // Words off (whole local tokens, `scale` target tokens each), so fillers can fill back up.
        c.trim = saturatingAdd(c.trim,
                               std::max<std::int64_t>(1, saturatingRound(std::ceil(-miss / std::max(c.scale, 0.1)))));
        c.pad = 0;
    }
    ++m_step;
    measure(c, kSamples);
}

void PromptCalibrator::done(const QString &error)
{
    if (m_finished)
        return;
    m_finished = true;
    if (m_result.method == QLatin1String("usage") && !m_unanswered.isEmpty()) {
        m_result.warnings << QStringLiteral("the target's /tokenize counted the prompts in no dialect (%1)%2")
                                 .arg(m_unanswered.join(QStringLiteral("; ")),
                                      error.isEmpty() ? QStringLiteral(": calibrated by usage (max_tokens=1 requests) "
                                                                       "instead")
                                                      : QString());
    }
    if (error.isEmpty() && m_result.probed && !closeEnough(*m_result.probed, m_requested)) {
        m_result.warnings << QStringLiteral("calibration came no closer than %1 target tokens for the %2 requested")
                                 .arg(*m_result.probed)
                                 .arg(m_requested);
    }
    // Goes into summary.json and the console: a server echoing credentials must not put them there.
    const QStringList secrets = secretsOf(m_config.target);
    m_result.error = maskSecrets(error, secrets);
    for (QString &warning : m_result.warnings)
        warning = maskSecrets(warning, secrets);
    if (!error.isEmpty()) {
        m_result.calibration = {};
        m_result.method.clear(); // nothing was calibrated: no method may be named
        m_result.dialect.clear();
        m_result.probed.reset();
    }
    Q_EMIT finished(m_result);
}

} // namespace tb
