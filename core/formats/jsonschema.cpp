#include "formats/jsonschema.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

namespace tb {

namespace {

using Json = nlohmann::json;

constexpr std::array<std::string_view, 7> kSchemaTypeNames = {"object",  "array",   "string", "number",
                                                              "integer", "boolean", "null"};

bool isSchemaTypeName(const Json &name)
{
    if (!name.is_string())
        return false;
    const auto &text = name.get_ref<const std::string &>();
    for (const std::string_view known : kSchemaTypeNames) {
        if (text == known)
            return true;
    }
    return false;
}

bool isSchemaCount(const Json &value)
{
    return value.is_number_unsigned() || (value.is_number_integer() && value.get<std::int64_t>() >= 0);
}

/// Walks a schema for compile(): the subset's keywords checked, nested schemas counted.
struct SchemaCheck {
    std::size_t schemas = 0;
    QString why;

    bool fail(const QString &path, const QString &problem)
    {
        why = path + QStringLiteral(": ") + problem;
        return false;
    }

    bool check(const Json &s, const QString &path, int depth)
    {
        if (s.is_boolean())
            return true;
        if (!s.is_object())
            return fail(path, QStringLiteral("a schema must be an object or a boolean"));
        if (depth >= JsonSchema::kMaxDepth)
            return fail(path, QStringLiteral("schemas nested deeper than %1").arg(JsonSchema::kMaxDepth));
        if (++schemas > JsonSchema::kMaxSchemas)
            return fail(path, QStringLiteral("more than %1 schemas").arg(JsonSchema::kMaxSchemas));
        const QString prefix = path.isEmpty() ? QString() : path + QLatin1Char('.');
        for (const auto &[key, value] : s.items()) {
            const QString at = prefix + QString::fromStdString(key);
            if (key == "type") {
                const bool ok =
                    isSchemaTypeName(value) ||
                    (value.is_array() && !value.empty() &&
                     std::all_of(value.begin(), value.end(), [](const Json &t) { return isSchemaTypeName(t); }));
                if (!ok)
                    return fail(at, QStringLiteral("not a JSON type or an array of them"));
            } else if (key == "properties") {
                if (!value.is_object())
                    return fail(at, QStringLiteral("must be an object of schemas"));
                for (const auto &[name, sub] : value.items()) {
                    if (!check(sub, at + QLatin1Char('.') + QString::fromStdString(name), depth + 1))
                        return false;
                }
            } else if (key == "required") {
                if (!value.is_array() ||
                    !std::all_of(value.begin(), value.end(), [](const Json &n) { return n.is_string(); }))
                    return fail(at, QStringLiteral("must be an array of names"));
            } else if (key == "additionalProperties" || key == "items") {
                if (!check(value, at, depth + 1))
                    return false;
            } else if (key == "enum") {
                if (!value.is_array())
                    return fail(at, QStringLiteral("must be an array"));
            } else if (key == "minimum" || key == "maximum") {
                if (!value.is_number())
                    return fail(at, QStringLiteral("must be a number"));
            } else if (key == "minLength" || key == "maxLength" || key == "minItems" || key == "maxItems") {
                if (!isSchemaCount(value))
                    return fail(at, QStringLiteral("must be a whole number ≥ 0"));
            }
        }
        return true;
    }
};

bool matchesSchemaType(const Json &value, std::string_view type)
{
    if (type == "object")
        return value.is_object();
    if (type == "array")
        return value.is_array();
    if (type == "string")
        return value.is_string();
    if (type == "number")
        return value.is_number();
    if (type == "integer") // 1.0 is an integer too (JSON Schema counts values, not spellings)
        return value.is_number_integer() || (value.is_number_float() && std::isfinite(value.get<double>()) &&
                                             std::floor(value.get<double>()) == value.get<double>());
    if (type == "boolean")
        return value.is_boolean();
    return value.is_null();
}

/// Unicode code points of UTF-8 text: what minLength and maxLength count.
std::size_t codePoints(const std::string &text)
{
    std::size_t n = 0;
    for (const char c : text)
        n += (static_cast<unsigned char>(c) & 0xC0) == 0x80 ? 0 : 1;
    return n;
}

std::uint64_t countOf(const Json &schema, const char *key, std::uint64_t otherwise)
{
    const auto it = schema.find(key);
    return it == schema.end() ? otherwise : it->get<std::uint64_t>();
}

/// The first violation of `value` against compiled schema `s`, at `path`; empty when none.
QString schemaViolation(const Json &s, const Json &value, const QString &path)
{
    if (s.is_boolean())
        return s.get<bool>() ? QString() : path + QStringLiteral(": no value is allowed here");
    const auto fail = [&path](const QString &problem) { return path + QStringLiteral(": ") + problem; };
    if (const auto type = s.find("type"); type != s.end()) {
        const bool ok = type->is_string() ? matchesSchemaType(value, type->get_ref<const std::string &>())
                                          : std::any_of(type->begin(), type->end(), [&](const Json &t) {
                                                return matchesSchemaType(value, t.get_ref<const std::string &>());
                                            });
        if (!ok)
            return fail(QStringLiteral("not of type %1").arg(QString::fromStdString(type->dump())));
    }
    if (const auto c = s.find("const"); c != s.end() && !(*c == value))
        return fail(QStringLiteral("not the const value"));
    if (const auto e = s.find("enum"); e != s.end() && std::find(e->begin(), e->end(), value) == e->end())
        return fail(QStringLiteral("not one of the enum values"));
    if (value.is_number()) {
        const double x = value.get<double>();
        if (const auto m = s.find("minimum"); m != s.end() && x < m->get<double>())
            return fail(QStringLiteral("below the minimum %1").arg(QString::fromStdString(m->dump())));
        if (const auto m = s.find("maximum"); m != s.end() && x > m->get<double>())
            return fail(QStringLiteral("above the maximum %1").arg(QString::fromStdString(m->dump())));
    } else if (value.is_string()) {
        const std::size_t n = codePoints(value.get_ref<const std::string &>());
        if (n < countOf(s, "minLength", 0))
            return fail(QStringLiteral("shorter than minLength"));
        if (n > countOf(s, "maxLength", UINT64_MAX))
            return fail(QStringLiteral("longer than maxLength"));
    } else if (value.is_array()) {
        if (value.size() < countOf(s, "minItems", 0))
            return fail(QStringLiteral("fewer items than minItems"));
        if (value.size() > countOf(s, "maxItems", UINT64_MAX))
            return fail(QStringLiteral("more items than maxItems"));
        if (const auto items = s.find("items"); items != s.end()) {
            for (std::size_t i = 0; i < value.size(); ++i) {
                if (QString v = schemaViolation(*items, value[i], path + QStringLiteral("[%1]").arg(i)); !v.isEmpty())
                    return v;
            }
        }
    } else if (value.is_object()) {
        const auto properties = s.find("properties");
        if (const auto required = s.find("required"); required != s.end()) {
            for (const Json &name : *required) {
                if (!value.contains(name.get_ref<const std::string &>()))
                    return fail(QStringLiteral("required property '%1' is missing")
                                    .arg(QString::fromStdString(name.get<std::string>())));
            }
        }
        const auto additional = s.find("additionalProperties");
        for (const auto &[name, member] : value.items()) {
            const QString at = path + QLatin1Char('.') + QString::fromStdString(name);
            if (properties != s.end() && properties->contains(name)) {
                if (QString v = schemaViolation(properties->at(name), member, at); !v.isEmpty())
                    return v;
            } else if (additional != s.end()) {
                if (QString v = schemaViolation(*additional, member, at); !v.isEmpty())
                    return additional->is_boolean()
                               ? fail(QStringLiteral("property '%1' is not allowed").arg(QString::fromStdString(name)))
                               : v;
            }
        }
    }
    return {};
}

} // namespace

std::optional<JsonSchema> JsonSchema::compile(const nlohmann::json &schema, QString *why)
{
    SchemaCheck check;
    if (!check.check(schema, QString(), 0)) {
        if (why)
            *why = check.why.startsWith(QLatin1Char(':')) ? QStringLiteral("schema") + check.why : check.why;
        return std::nullopt;
    }
    return JsonSchema(schema);
}

QString JsonSchema::violation(const nlohmann::json &value) const
{
    return schemaViolation(m_schema, value, QStringLiteral("$"));
}

} // namespace tb
