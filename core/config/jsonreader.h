#pragma once

// The one strict reader of JSON objects from outside (a configuration, a run's summary.json):
// typed field reads whose errors name the field's path ("load.concurrency: must be ..."),
// wrong types and out-of-range numbers refused, never coerced.

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

namespace tb {

/// Reads one JSON object. Fields are read one of two ways:
/// - optional: `string(key, out)` and its siblings leave `out` as it is when the key is absent or
///   null, and finish() reports any key none of them asked for (a hand-written configuration);
/// - required: `string(key)` and its siblings return the value, and an absent key is a problem
///   ("missing"); object() reads a nested object (a file this tool wrote, such as summary.json).
/// The first problem of a reader and of the readers made from it (object(), the child
/// constructor) goes to `*error` as "path.key: what"; after it nothing more is read.
class JsonReader
{
public:
    /// `path` prefixes the fields in messages ("load"); an empty path (the document itself) is
    /// called `document` when the value is not an object.
    JsonReader(const nlohmann::json &json, QString path, QString *error,
               const QString &document = QStringLiteral("document"));
    /// A nested object whose first problem is `parent`'s.
    JsonReader(const JsonReader &parent, const nlohmann::json &json, QString path);
    JsonReader(const JsonReader &) = delete;
    JsonReader &operator=(const JsonReader &) = delete;

    /// No problem so far.
    bool ok() const { return !m_problem->found; }
    const nlohmann::json &value() const { return m_json; }
    bool has(const char *key) const { return m_json.is_object() && m_json.contains(key); }
    /// Present and not null.
    bool hasValue(const char *key) const { return has(key) && !m_json[key].is_null(); }
    /// The path of `key` in messages.
    QString field(const char *key) const;
    void fail(const QString &field, const QString &problem) const;
    /// A JSON value quoted in a message: short, whatever was written.
    static QString shown(const nlohmann::json &value);

    // Optional fields.

    /// The key's value; null when it is absent or null, or after a problem.
    const nlohmann::json *find(const char *key);
    void string(const char *key, QString &out);
    void boolean(const char *key, bool &out);
    /// A whole number in [minimum, maximum]; anything else (a fraction, a value the type cannot
    /// hold) is an error, never a wrapped-around value.
    template<typename Int>
    void integer(const char *key, Int &out, Int minimum = std::numeric_limits<Int>::min(),
                 Int maximum = std::numeric_limits<Int>::max());
    void real(const char *key, double &out);
    void optionalReal(const char *key, std::optional<double> &out);
    /// Durations: "30s"-style strings or a number of seconds, at most limits::kMaxDurationMs;
    /// `positive`: 0 is refused (null is how "not set" is written).
    void duration(const char *key, qint64 &out, bool positive);
    void stringList(const char *key, QStringList &out);
    template<typename Enum>
    void enumeration(const char *key, Enum &out, std::optional<Enum> (*parse)(const QString &),
                     const QString &accepted);
    /// Call last: reports the first key nobody asked for. Returns ok().
    bool finish();

    // Required fields (0 or empty after a problem).

    /// An absent or mistyped object reads as an empty one (its problem already reported).
    JsonReader object(const char *key) const;
    const nlohmann::json *array(const char *key) const;
    std::int64_t integer(const char *key) const;
    double number(const char *key) const;
    /// The key must be present; null means "none".
    std::optional<double> optionalNumber(const char *key) const;
    QString string(const char *key) const;
    /// A value of a type that reads itself (`static std::optional<T> T::fromJson(const
    /// nlohmann::json &, QString *why)`); its problem is reported as this field's.
    template<typename T> std::optional<T> nested(const char *key) const;

private:
    struct Problem {
        QString *error = nullptr;
        bool found = false;
    };

    const nlohmann::json *require(const char *key, bool (nlohmann::json::*is)() const noexcept, const char *kind) const;

    const nlohmann::json &m_json;
    QString m_path;
    Problem m_own;      ///< a reader made from none
    Problem *m_problem; ///< m_own, or its first ancestor's
    mutable QStringList m_seen;
};

template<typename Int> void JsonReader::integer(const char *key, Int &out, Int minimum, Int maximum)
{
    const auto *v = find(key);
    if (!v)
        return;
    // Integers are read as integers: a 64-bit seed does not survive a trip through double.
    std::optional<Int> value;
    if (v->is_number_unsigned()) {
        if (const auto u = v->get<std::uint64_t>(); std::in_range<Int>(u))
            value = Int(u);
    } else if (v->is_number_integer()) {
        if (const auto i = v->get<std::int64_t>(); std::in_range<Int>(i))
            value = Int(i);
    } else if (v->is_number_float()) {
        // Beyond 2^53 a double is no longer the number that was written.
        const double d = v->get<double>();
        if (std::floor(d) == d && std::abs(d) <= 9007199254740992.0 && std::in_range<Int>(std::int64_t(d)))
            value = Int(std::int64_t(d));
    }
    if (value && *value >= minimum && *value <= maximum)
        out = *value;
    else
        fail(field(key),
             QStringLiteral("must be a whole number from %1 to %2 (got %3)").arg(minimum).arg(maximum).arg(shown(*v)));
}

template<typename T> std::optional<T> JsonReader::nested(const char *key) const
{
    m_seen << QLatin1String(key);
    if (!ok())
        return std::nullopt;
    if (!has(key)) {
        fail(field(key), QStringLiteral("missing"));
        return std::nullopt;
    }
    QString why;
    std::optional<T> value = T::fromJson(m_json[key], &why);
    if (!value)
        fail(field(key), why);
    return value;
}

template<typename Enum>
void JsonReader::enumeration(const char *key, Enum &out, std::optional<Enum> (*parse)(const QString &),
                             const QString &accepted)
{
    if (const auto *v = find(key)) {
        std::optional<Enum> parsed;
        if (v->is_string())
            parsed = parse(QString::fromStdString(v->get<std::string>()));
        if (parsed)
            out = *parsed;
        else
            fail(field(key),
                 QStringLiteral("unknown value %1 (accepted: %2)").arg(QString::fromStdString(v->dump()), accepted));
    }
}

} // namespace tb
