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

} // namespace tb
