#pragma once

#include "api/requestbuilder.h"
#include "config/runconfig.h"
#include "workload/promptsource.h"

#include <QObject>
#include <QPointer>

#include <memory>
#include <optional>

class QNetworkAccessManager;
class QNetworkReply;

namespace tb {

/// What calibration found.
struct CalibrationResult {
    PromptCalibration calibration;
    /// What the counts came from: "usage" (max_tokens=1 requests) or "tokenize" (the target's
    /// /tokenize); empty when calibration could not be done.
    QString method;
    /// With "tokenize": the body whose dialect counted (llama.cpp's {"content"}, vLLM's {"model",
    /// "messages"}, …), so a label says which answer the sizes rest on.
    QString dialect;
    int probes = 0;                     ///< requests sent
    std::optional<std::int64_t> probed; ///< the target's count of the calibrated prompt
    QString error;                      ///< why calibration could not be done; the run goes on uncalibrated
    /// What the run's summary should warn of: a /tokenize that counted in no dialect (calibrated by
    /// usage instead), a calibration that stayed outside the tolerance.
    QStringList warnings;
};

/// Measures how a target counts synthetic prompts before a run (--calibrate), so their sizes are
/// the target's own, chat template included. It sends the run's prompt at its requested size and
/// at its smallest (one token each of system and user text), in the local tokenizer, and reads the
/// target's counts — usage.prompt_tokens of
/// max_tokens=1 requests, or with tokenizer "server" the target's /tokenize (vLLM and SGLang
/// {"model", "messages"} → {"count"}; llama.cpp {"content"} → {"tokens"}; TGI {"inputs"} → [...],
/// whose template overhead one usage request then measures). A dialect the server does not read
/// may still get 200: llama.cpp answers {"tokens": []} to a vLLM body. So an answer without a
/// count, or a count of 0 for the (never empty) text, means the next dialect; when none counts,
/// usage, with a warning. The two points give
/// target = overhead + scale × local. Checks of the corrected sizes follow: while they miss by more
/// than half a filler, words come off or fillers go on (PromptCalibration), up to 6 checks; the
/// closest is kept.
/// Probes share the run's system prompt (as every request does) but not its user text.
class PromptCalibrator : public QObject
{
    Q_OBJECT

public:
    PromptCalibrator(const RunConfig &config, std::shared_ptr<const Tokenizer> local, QObject *parent = nullptr);
    ~PromptCalibrator() override;

    void start();
    /// Gives up (Stop): finished follows with an error.
    void abort();

    /// Requests sent so far (the last may still be in flight), for a progress display.
    int probesSent() const { return m_result.probes; }
    /// The fewest requests calibration needs in all, as far as it knows now: a check that misses
    /// adds another.
    int probesPlanned() const;

    /// Within tolerance: ±1% or ±2 tokens, whichever is larger.
    static bool closeEnough(std::int64_t measured, std::int64_t requested);

Q_SIGNALS:
    void finished(const tb::CalibrationResult &result);

private:
    enum class Probe { Chat, TokenizeChat, TokenizePrompt, TokenizeContent, TokenizeInputs };

    /// Measures `samples` prompts sized with `calibration`, averaged.
    void measure(const PromptCalibration &calibration, int samples);
    void sendNext();
    void sampled(std::int64_t count);
    void send(Probe probe, const Prompt &prompt);
    void received(QNetworkReply *reply, Probe probe, const Prompt &prompt);
    /// `probe`'s /tokenize dialect gave no count (`why`): the next dialect, at last usage.
    void nextDialect(Probe probe, const QString &why, const Prompt &prompt);
    /// The /tokenize body `probe` sends, as labels and warnings name it.
    static QString bodyOf(Probe probe);
    void measured(double count);
    void checked(double count);
    void done(const QString &error = {});

    RunConfig m_config;
    std::shared_ptr<const Tokenizer> m_local;
    std::optional<RequestBuilder> m_builder;
    QNetworkAccessManager *m_network;
    QPointer<QNetworkReply> m_reply;
    CalibrationResult m_result;
    std::int64_t m_requested = 0; ///< system_tokens + prompt_tokens
    Probe m_probe = Probe::Chat;  ///< how counts are read
    int m_step = 0;               ///< 0: full size, 1: smallest, 2: template (text-only /tokenize), then checks
    std::shared_ptr<const PromptSource> m_source; ///< the prompts being measured
    int m_samples = 0, m_sampled = 0;
    std::int64_t m_localSum = 0, m_countSum = 0;
    double m_local1 = 0, m_count1 = 0; ///< the requested size: local and target tokens
    double m_localNow = 0;             ///< mean local tokens of the prompts just measured
    bool m_textOnly = false;           ///< /tokenize of text: the template overhead needs a usage probe
    QStringList m_unanswered;          ///< the /tokenize dialects that gave no count, and why
    double m_fillerCost = 1;           ///< target tokens per filler: one in real vocabularies until measured
    PromptCalibration m_last, m_best;  ///< the last check's sizes, and the closest check's
    double m_lastCount = 0, m_bestMiss = 0;
    bool m_finished = false;
};

} // namespace tb

Q_DECLARE_METATYPE(tb::CalibrationResult)
