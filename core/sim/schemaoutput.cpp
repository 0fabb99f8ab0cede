#include "sim/schemaoutput.h"

#include "sim/requestplan.h"

#include <algorithm>
#include <cmath>

namespace tb::sim {

namespace {

using Json = nlohmann::json;

/// One generation's state: the random stream and what has been written.
struct SchemaWriter {
    quint64 state;
    int values = 0;

    quint64 draw()
    {
        state = splitmix64(state);
        return state;
    }

    std::string word(quint64 minLength, quint64 maxLength)
    {
        const quint64 wanted = 3 + draw() % 8;
        const quint64 length = std::min(std::max(wanted, minLength), std::min(maxLength, kMaxWordLength));
        std::string w;
        for (quint64 i = 0; i < length; ++i)
            w += char('a' + draw() % 26);
        return w;
    }

    /// The first type a schema allows, "null" only when it allows nothing else; inferred from its
    /// keywords when it names none.
    static std::string typeOf(const Json &s)
    {
        const auto type = s.find("type");
        if (type != s.end() && type->is_string())
            return type->get<std::string>();
        if (type != s.end() && type->is_array()) {
            for (const Json &t : *type) {
                if (t.is_string() && t != "null")
                    return t.get<std::string>();
            }
            return "null";
        }
        if (s.contains("properties") || s.contains("required"))
            return "object";
        return s.contains("items") ? "array" : "string";
    }

    static double bound(const Json &s, const char *key, double otherwise)
    {
        const auto it = s.find(key);
        return it != s.end() && it->is_number() ? it->get<double>() : otherwise;
    }

    static quint64 count(const Json &s, const char *key, quint64 otherwise)
    {
        const auto it = s.find(key);
        return it != s.end() && it->is_number_unsigned() ? it->get<quint64>() : otherwise;
    }

    Json value(const Json &s, int depth)
    {
        ++values;
        if (depth >= SchemaOutput::kMaxDepth || s.is_boolean() || !s.is_object())
            return depth >= SchemaOutput::kMaxDepth ? Json() : Json(word(0, UINT64_MAX));
        if (const auto c = s.find("const"); c != s.end())
            return *c;
        if (const auto e = s.find("enum"); e != s.end() && e->is_array() && !e->empty())
            return (*e)[draw() % e->size()];
        const std::string type = typeOf(s);
        if (type == "object")
            return object(s, depth);
        if (type == "array")
            return array(s, depth);
        if (type == "integer" || type == "number") {
            // Whole numbers in [minimum, maximum] (100 wide when open), which "number" takes too.
            const double low = std::ceil(std::clamp(bound(s, "minimum", 0), -1e15, 1e15));
            const double high = std::floor(std::clamp(bound(s, "maximum", low + 100), -1e15, 1e15));
            if (high < low)
                return low;
            return std::int64_t(low) + std::int64_t(draw() % quint64(high - low + 1));
        }
        if (type == "boolean")
            return draw() % 2 == 0;
        if (type == "null")
            return nullptr;
        return word(count(s, "minLength", 0), count(s, "maxLength", UINT64_MAX));
    }

    Json object(const Json &s, int depth)
    {
        Json out = Json::object();
        if (const auto properties = s.find("properties"); properties != s.end() && properties->is_object()) {
            for (const auto &[name, sub] : properties->items())
                out[name] = value(sub, depth + 1);
        }
        if (const auto required = s.find("required"); required != s.end() && required->is_array()) {
            for (const Json &name : *required) {
                if (name.is_string() && !out.contains(name.get<std::string>()))
                    out[name.get<std::string>()] = word(0, UINT64_MAX);
            }
        }
        return out;
    }

    Json array(const Json &s, int depth)
    {
        const quint64 minItems = std::min(count(s, "minItems", 0), SchemaOutput::kMaxItems);
        const quint64 maxItems = std::max(count(s, "maxItems", minItems + 3), minItems);
        quint64 n = std::clamp(1 + draw() % 3, minItems, maxItems);
        if (values >= SchemaOutput::kMaxValues)
            n = minItems;
        const auto items = s.find("items");
        Json out = Json::array();
        for (quint64 i = 0; i < n; ++i)
            out.push_back(items != s.end() ? value(*items, depth + 1) : Json(word(0, UINT64_MAX)));
        return out;
    }

    static constexpr quint64 kMaxWordLength = 4096;
};

} // namespace

std::string SchemaOutput::generate(const nlohmann::json &schema, quint64 seed)
{
    SchemaWriter writer{seed};
    if (schema.is_null()) {
        Json out = Json::object();
        out["answer"] = writer.word(0, UINT64_MAX);
        out["score"] = writer.draw() % 100;
        return out.dump();
    }
    return writer.value(schema, 0).dump();
}

void SchemaOutput::breakJson(std::string &text)
{
    if (!text.empty() && (text.back() == '}' || text.back() == ']' || text.back() == '"'))
        text.pop_back();
    else
        text += ',';
}

bool SchemaOutput::brokenAt(quint64 k, double rate)
{
    if (k == 0 || !(rate > 0))
        return false;
    // The nudge keeps k·rate from landing just below a whole number (0.29 · 100 = 28.999…).
    const auto passed = [rate](quint64 n) { return std::floor(double(n) * rate + 1e-9); };
    return passed(k) > passed(k - 1);
}

} // namespace tb::sim
