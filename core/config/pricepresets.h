#pragma once

#include "config/runconfig.h"

#include <QList>
#include <QString>

namespace tb {

/// A target's example prices on a date (resources/pricing-presets.json, compiled in): a starting
/// point for the price fields, which stay editable.
struct PricePreset {
    QString name;
    QString asOf;    ///< ISO date the prices were the provider's list prices
    Pricing pricing; ///< source = "NAME list price as of DATE"
};

/// The compiled-in presets, in file order.
const QList<PricePreset> &pricePresets();
/// The preset named `name` (case-insensitive), or none.
std::optional<PricePreset> findPricePreset(const QString &name);

} // namespace tb
