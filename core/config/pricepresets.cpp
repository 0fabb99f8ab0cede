#include "config/pricepresets.h"

#include <QFile>

namespace tb {

namespace {

std::optional<double> price(const nlohmann::json &preset, const char *key)
{
    const auto it = preset.find(key);
    return it != preset.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
}

QList<PricePreset> loadPresets()
{
    QFile file(QStringLiteral(":/tokenbench/pricing-presets.json"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const auto json = nlohmann::json::parse(file.readAll().toStdString(), nullptr, false);
    QList<PricePreset> presets;
    if (!json.is_object() || !json.contains("presets") || !json["presets"].is_array())
        return presets;
    for (const nlohmann::json &p : json["presets"]) {
        if (!p.is_object() || !p.contains("name") || !p["name"].is_string())
            continue;
        PricePreset preset;
        preset.name = fromStd(p["name"].get<std::string>());
        preset.asOf =
            p.contains("as_of") && p["as_of"].is_string() ? fromStd(p["as_of"].get<std::string>()) : QString();
        preset.pricing.inputPerM = price(p, "input_per_1m");
        preset.pricing.cachedInputPerM = price(p, "cached_input_per_1m");
        preset.pricing.outputPerM = price(p, "output_per_1m");
        preset.pricing.source = QStringLiteral("%1 list price as of %2").arg(preset.name, preset.asOf);
        presets.append(preset);
    }
    return presets;
}

} // namespace

const QList<PricePreset> &pricePresets()
{
    static const QList<PricePreset> presets = loadPresets();
    return presets;
}

std::optional<PricePreset> findPricePreset(const QString &name)
{
    for (const PricePreset &p : pricePresets()) {
        if (p.name.compare(name, Qt::CaseInsensitive) == 0)
            return p;
    }
    return std::nullopt;
}

} // namespace tb
