#include "formats/formatversion.h"

namespace tb {

QString newerFormatVersion(int version, int readsUpTo)
{
    return QStringLiteral("written by a newer format version %1 (this build reads up to %2)")
        .arg(version)
        .arg(readsUpTo);
}

QString checkFormatHead(const nlohmann::json &json, const char *format, int readsUpTo)
{
    if (!json.is_object())
        return QStringLiteral("not a JSON object");
    const auto name = json.find("format");
    if (name == json.end() || !name->is_string() || name->get<std::string>() != format)
        return QStringLiteral("format: not \"%1\"").arg(QLatin1String(format));
    const auto version = json.find("format_version");
    if (version == json.end() || !version->is_number_integer())
        return QStringLiteral("format_version: missing");
    if (version->get<int>() > readsUpTo)
        return newerFormatVersion(version->get<int>(), readsUpTo);
    return {};
}

QString lenientString(const nlohmann::json &object, const char *key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

std::int64_t lenientInteger(const nlohmann::json &object, const char *key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_number_integer() ? it->get<std::int64_t>() : std::int64_t(0);
}

} // namespace tb
