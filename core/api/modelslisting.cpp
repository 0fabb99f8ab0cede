#include "api/modelslisting.h"

#include "config/runconfig.h"

namespace tb {

std::optional<qint64> contextLengthFromModels(const QByteArray &body, const QString &model)
{
    QString why;
    const auto json = parseJsonBounded(body, &why);
    if (!json || !json->is_object())
        return std::nullopt;
    const auto data = json->find("data");
    if (data == json->end() || !data->is_array())
        return std::nullopt;
    const nlohmann::json *entry = data->size() == 1 ? &data->front() : nullptr;
    for (const auto &m : *data) {
        if (m.is_object() && m.value("id", std::string()) == toStd(model))
            entry = &m;
    }
    if (!entry || !entry->is_object())
        return std::nullopt;
    for (const char *key : {"max_model_len", "context_length", "max_context_length"}) {
        const auto it = entry->find(key);
        // Bounded like a prompt: a context longer than any request may be is no limit to check.
        if (it != entry->end() && it->is_number_integer() && it->get<qint64>() > 0)
            return std::min<qint64>(it->get<qint64>(), qint64(limits::kMaxPromptTokens) + limits::kMaxTokens);
    }
    return std::nullopt;
}

} // namespace tb
