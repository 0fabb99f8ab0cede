#pragma once

// The names of an enum's values as they appear in files and on command lines, from one table per
// enum: value → name, name → value, and the list of names for "accepted: …" messages.

#include <QString>
#include <QStringList>

#include <optional>
#include <string_view>

namespace tb {

template<typename Enum> struct EnumName {
    Enum value;
    const char *name;
};

/// The value's name; "" when the table lacks it.
template<typename Table, typename Enum> const char *enumCName(const Table &table, Enum value)
{
    for (const auto &entry : table) {
        if (entry.value == value)
            return entry.name;
    }
    return "";
}

template<typename Table, typename Enum> QString enumName(const Table &table, Enum value)
{
    return QLatin1String(enumCName(table, value));
}

template<typename Enum, typename Table> std::optional<Enum> enumFromName(const Table &table, const QString &name)
{
    for (const auto &entry : table) {
        if (name == QLatin1String(entry.name))
            return entry.value;
    }
    return std::nullopt;
}

/// The same for parsers that read bytes, not QStrings.
template<typename Enum, typename Table> std::optional<Enum> enumFromName(const Table &table, std::string_view name)
{
    for (const auto &entry : table) {
        if (name == entry.name)
            return entry.value;
    }
    return std::nullopt;
}

/// The names in table order joined with '|'.
template<typename Table> QString enumNames(const Table &table)
{
    QStringList names;
    for (const auto &entry : table)
        names << QLatin1String(entry.name);
    return names.join(QLatin1Char('|'));
}

} // namespace tb
