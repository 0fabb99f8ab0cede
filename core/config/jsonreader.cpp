#include "config/jsonreader.h"

#include "config/runconfig.h"

#include <algorithm>

namespace tb {

namespace {

const nlohmann::json &emptyObject()
{
    static const nlohmann::json empty = nlohmann::json::object();
    return empty;
}

} // namespace

JsonReader::JsonReader(const nlohmann::json &json, QString path, QString *error, const QString &document)
    : m_json(json)
    , m_path(std::move(path))
    , m_own{error}
    , m_problem(&m_own)
{
    if (!json.is_object())
        fail(m_path.isEmpty() ? document : m_path, QStringLiteral("must be a JSON object"));
}

JsonReader::JsonReader(const JsonReader &parent, const nlohmann::json &json, QString path)
    : m_json(json)
    , m_path(std::move(path))
    , m_problem(parent.m_problem)
{
    if (!json.is_object())
        fail(m_path, QStringLiteral("must be a JSON object"));
}

QString JsonReader::field(const char *key) const
{
    return m_path.isEmpty() ? QLatin1String(key) : m_path + QLatin1Char('.') + QLatin1String(key);
}

void JsonReader::fail(const QString &field, const QString &problem) const
{
    if (!m_problem->found && m_problem->error)
        *m_problem->error = field + QStringLiteral(": ") + problem;
    m_problem->found = true;
}

QString JsonReader::shown(const nlohmann::json &value)
{
    QString text = fromStd(value.dump());
    if (text.size() > 40)
        text = text.left(39) + QChar(0x2026);
    return text;
}

const nlohmann::json *JsonReader::find(const char *key)
{
    m_seen << QLatin1String(key);
    if (!ok() || !m_json.is_object())
        return nullptr;
    auto it = m_json.find(key);
    if (it == m_json.end() || it->is_null())
        return nullptr;
    return &*it;
}

void JsonReader::string(const char *key, QString &out)
{
    if (const auto *v = find(key)) {
        if (v->is_string())
            out = fromStd(v->get<std::string>());
        else
            fail(field(key), QStringLiteral("must be a string"));
    }
}

void JsonReader::boolean(const char *key, bool &out)
{
    if (const auto *v = find(key)) {
        if (v->is_boolean())
            out = v->get<bool>();
        else
            fail(field(key), QStringLiteral("must be true or false"));
    }
}

void JsonReader::real(const char *key, double &out)
{
    if (const auto *v = find(key)) {
        if (v->is_number() && std::isfinite(v->get<double>()))
            out = v->get<double>();
        else
            fail(field(key), QStringLiteral("must be a finite number (got %1)").arg(shown(*v)));
    }
}

void JsonReader::optionalReal(const char *key, std::optional<double> &out)
{
    out.reset();
    if (const auto *v = find(key)) {
        if (v->is_number() && std::isfinite(v->get<double>()))
            out = v->get<double>();
        else
            fail(field(key), QStringLiteral("must be a finite number or null (got %1)").arg(shown(*v)));
    }
}

void JsonReader::duration(const char *key, qint64 &out, bool positive)
{
    if (const auto *v = find(key)) {
        std::optional<qint64> ms;
        if (v->is_number()) {
            const double s = v->get<double>();
            if (s >= 0 && s * 1000.0 <= double(limits::kMaxDurationMs))
                ms = qint64(std::llround(s * 1000.0));
        } else if (v->is_string()) {
            ms = parseDurationMs(fromStd(v->get<std::string>()));
        }
        if (ms && (!positive || *ms > 0))
            out = *ms;
        else
            fail(field(key),
                 QStringLiteral("must be a duration such as \"500ms\", \"30s\", \"5m\" or a number of seconds, "
                                "%1at most %2 (got %3)")
                     .arg(positive ? QStringLiteral("above 0 and ") : QString(), formatDuration(limits::kMaxDurationMs),
                          shown(*v)));
    }
}

void JsonReader::stringList(const char *key, QStringList &out)
{
    if (const auto *v = find(key)) {
        const bool strings =
            v->is_array() && std::all_of(v->begin(), v->end(), [](const nlohmann::json &e) { return e.is_string(); });
        if (!strings) {
            fail(field(key), QStringLiteral("must be an array of strings"));
            return;
        }
        out.clear();
        for (const nlohmann::json &e : *v)
            out << fromStd(e.get<std::string>());
    }
}

bool JsonReader::finish()
{
    if (ok() && m_json.is_object()) {
        for (auto it = m_json.begin(); it != m_json.end(); ++it) {
            if (!m_seen.contains(fromStd(it.key()))) {
                fail(field(it.key().c_str()),
                     QStringLiteral("unknown key (accepted: %1)").arg(m_seen.join(QStringLiteral(", "))));
                break;
            }
        }
    }
    return ok();
}

const nlohmann::json *JsonReader::require(const char *key, bool (nlohmann::json::*is)() const noexcept,
                                          const char *kind) const
{
    m_seen << QLatin1String(key);
    if (!ok() || !m_json.is_object())
        return nullptr;
    const auto it = m_json.find(key);
    if (it == m_json.end()) {
        fail(field(key), QStringLiteral("missing"));
        return nullptr;
    }
    if (!((*it).*is)()) {
        fail(field(key), QStringLiteral("must be %1").arg(QLatin1String(kind)));
        return nullptr;
    }
    return &*it;
}

JsonReader JsonReader::object(const char *key) const
{
    const nlohmann::json *v = require(key, &nlohmann::json::is_object, "a JSON object");
    return JsonReader(*this, v ? *v : emptyObject(), field(key));
}

const nlohmann::json *JsonReader::array(const char *key) const
{
    return require(key, &nlohmann::json::is_array, "an array");
}

std::int64_t JsonReader::integer(const char *key) const
{
    const nlohmann::json *v = require(key, &nlohmann::json::is_number_integer, "an integer");
    return v ? v->get<std::int64_t>() : 0;
}

double JsonReader::number(const char *key) const
{
    const nlohmann::json *v = require(key, &nlohmann::json::is_number, "a number");
    return v ? v->get<double>() : 0;
}

std::optional<double> JsonReader::optionalNumber(const char *key) const
{
    if (has(key) && m_json[key].is_null())
        return std::nullopt;
    return number(key);
}

QString JsonReader::string(const char *key) const
{
    const nlohmann::json *v = require(key, &nlohmann::json::is_string, "a string");
    return v ? fromStd(v->get<std::string>()) : QString();
}

} // namespace tb
