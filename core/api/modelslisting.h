#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace tb {

/// The context length in tokens that a GET {base}/models answer reports for `model`: vLLM's
/// `max_model_len`, or `context_length` / `max_context_length` (OpenRouter, LM Studio). The
/// model's entry is looked up by id; a listing of one model is taken as that model's. nullopt
/// when the answer reports none (OpenAI, Anthropic, Ollama's listing).
std::optional<qint64> contextLengthFromModels(const QByteArray &body, const QString &model);

} // namespace tb
