#include "config/runconfig.h"

#include "config/configfield.h"
#include "config/inputfile.h"
#include "config/jsonreader.h"
#include "config/runconfig_p.h"

#include <QSaveFile>

#include <cmath>
#include <limits>
#include <set>
#include <utility>

namespace tb {

namespace {

constexpr int kFormatVersion = 1;

/// The object or array under `key`; null when it is absent, or, told to `r`, when it is not one
/// (`mustBe` says what it must be) or holds more than `most` items (`items` names them).
const nlohmann::json *boundedList(JsonReader &r, const char *key, bool (nlohmann::json::*is)() const noexcept,
                                  const QString &mustBe, int most, const QString &items)
{
    const auto *value = r.find(key);
    if (!value)
        return nullptr;
    if (!(value->*is)())
        r.fail(r.field(key), mustBe);
    else if (value->size() > std::size_t(most))
        r.fail(r.field(key), QStringLiteral("%1 %2; at most %3").arg(value->size()).arg(items).arg(most));
    else
        return value;
    return nullptr;
}

nlohmann::json durationToJson(qint64 ms)
{
    return ms > 0 ? nlohmann::json(toStd(formatDuration(ms))) : nlohmann::json();
}

/// First pass over JSON text, before a tree is built: checks nesting (nlohmann's parser itself is
/// iterative, but copying, comparing or dumping a deep tree recurses), naming the key where it is
/// too deep by its first two levels ("target.extra_body"), and refuses a key given twice in one
/// object, which the tree would keep only the last of, naming its path ("load.stages[1].name").
class ShapeCheck final : public nlohmann::json_sax<nlohmann::json>
{
public:
    QString error;

    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t &) override { return value(); }
    bool string(string_t &) override { return value(); }
    bool binary(binary_t &) override { return value(); }
    bool start_object(std::size_t) override { return value() && enter(false); }
    bool end_object() override { return leave(); }
    bool start_array(std::size_t) override { return value() && enter(true); }
    bool end_array() override { return leave(); }
    bool key(string_t &key) override
    {
        Level &object = m_levels.back();
        object.key = key;
        if (!object.keys.insert(key).second) {
            QString path = this->path();
            if (path.size() > 120)
                path = path.left(119) + QChar(0x2026);
            error = QStringLiteral("%1: given twice; a key may appear once in an object").arg(path);
            return false;
        }
        return true;
    }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &e) override
    {
        // The parser's own words say where it stopped; drop its "[json.exception…] " prefix.
        QString why = QString::fromUtf8(e.what());
        error = QStringLiteral("not valid JSON: %1").arg(why.mid(why.indexOf(QStringLiteral("] ")) + 2));
        return false;
    }

private:
    struct Level {
        bool array = false;
        qint64 index = -1;          ///< an array's element being read
        std::string key;            ///< an object's key being read
        std::set<std::string> keys; ///< an object's keys so far
    };

    /// A value starts: the next element of an array.
    bool value()
    {
        if (!m_levels.empty() && m_levels.back().array)
            ++m_levels.back().index;
        return true;
    }
    bool enter(bool array)
    {
        if (int(m_levels.size()) >= limits::kMaxJsonDepth) {
            QStringList path;
            for (const Level &level : m_levels) {
                if (!level.key.empty() && path.size() < 2)
                    path << fromStd(level.key);
            }
            error = (path.isEmpty() ? QString() : path.join(QLatin1Char('.')) + QStringLiteral(": ")) +
                    QStringLiteral("nests deeper than %1 levels").arg(limits::kMaxJsonDepth);
            return false;
        }
        m_levels.push_back(Level{array, -1, {}, {}});
        return true;
    }
    bool leave()
    {
        m_levels.pop_back();
        return true;
    }
    QString path() const
    {
        QString path;
        for (const Level &level : m_levels) {
            if (level.array)
                path += QStringLiteral("[%1]").arg(level.index);
            else
                path += (path.isEmpty() ? QString() : QStringLiteral(".")) + fromStd(level.key);
        }
        return path;
    }

    std::vector<Level> m_levels;
};

} // namespace

nlohmann::json toJson(const TargetConfig &target)
{
    RunConfig c;
    c.target = redacted(target);
    const TargetConfig &t = c.target;
    nlohmann::json headers = nlohmann::json::object();
    for (const Header &h : t.headers)
        headers[toStd(h.name)] = toStd(h.value);
    nlohmann::json json = {
        {"replicas", toJson(t.replicas)},
        {"headers", headers},
        {"extra_body", t.extraBody},
        {"pricing", nlohmann::json::object()},
    };
    writeConfigFields(c, "target", json);
    writeConfigFields(c, "target.pricing", json["pricing"]);
    return json;
}

nlohmann::json toJson(const RunConfig &c)
{
    nlohmann::json variables = nlohmann::json::object();
    for (auto it = c.prompt.variables.cbegin(); it != c.prompt.variables.cend(); ++it)
        variables[toStd(it.key())] = toStd(it.value());
    nlohmann::json stages = nlohmann::json::array();
    for (const StageConfig &s : c.load.stages) {
        stages.push_back({{"name", toStd(s.name)},
                          {"mode", toStd(loadModeName(s.mode))},
                          {"level", s.level},
                          {"duration", durationToJson(s.durationMs)},
                          {"requests", s.requests}});
        if (s.promptTokens > 0)
            stages.back()["prompt_tokens"] = s.promptTokens;
    }
    nlohmann::json json = {
        {"format", "tokenbench-config"},
        {"version", kFormatVersion},
        {"target", toJson(c.target)},
        {"request", nlohmann::json::object()},
        {"prompt",
         {{"dataset_prompt_len", toStd(formatLengthRange(c.prompt.promptLenMin, c.prompt.promptLenMax))},
          {"dataset_output_len", toStd(formatLengthRange(c.prompt.outputLenMin, c.prompt.outputLenMax))},
          {"variables", variables}}},
        {"load",
         {{"stages", stages},
          {"think_time", c.load.thinkTimeMs > 0
                             ? nlohmann::json(toStd(formatThinkTime(c.load.thinkTimeMs, c.load.thinkTimeExponential)))
                             : nlohmann::json()}}},
        {"slo", nlohmann::json::object()},
        {"quality", nlohmann::json::object()},
    };
    for (const char *section : {"request", "prompt", "load", "slo", "quality"})
        writeConfigFields(c, section, json[section]);
    writeConfigFields(c, "", json);
    return json;
}

std::optional<TargetConfig> targetFromJson(const nlohmann::json &json, QString *error)
{
    RunConfig c;
    TargetConfig &t = c.target;
    JsonReader r(json, QStringLiteral("target"), error);
    readConfigFields(r, "target", c, [&](const ConfigField &f) {
        switch (f.id) {
        case ConfigFieldId::TargetReplicas:
            r.stringList(f.key, t.replicas);
            break;
        case ConfigFieldId::TargetHeaders:
            if (const auto *headers = boundedList(r, f.key, &nlohmann::json::is_object,
                                                  QStringLiteral("must be an object of \"Name\": \"value\" pairs"),
                                                  limits::kMaxHeaders, QStringLiteral("headers"))) {
                for (auto it = headers->begin(); it != headers->end(); ++it) {
                    if (!it->is_string()) {
                        r.fail(r.field(f.key) + QLatin1Char('.') + fromStd(it.key()),
                               QStringLiteral("must be a string"));
                        break;
                    }
                    t.headers.append({fromStd(it.key()), fromStd(it->get<std::string>())});
                }
            }
            break;
        case ConfigFieldId::TargetExtraBody:
            if (const auto *extra = r.find(f.key)) {
                if (extra->is_object())
                    t.extraBody = *extra;
                else
                    r.fail(r.field(f.key), QStringLiteral("must be a JSON object"));
            }
            break;
        default: // the typed-in key: refused below
            break;
        }
    });
    if (const auto *pricing = r.find("pricing"); pricing && r.ok()) {
        JsonReader p(*pricing, r.field("pricing"), error);
        readConfigFields(p, "target.pricing", c);
        if (!p.finish())
            return std::nullopt;
    }
    // A key in a config file would be a secret on disk: refuse it and say where keys go.
    if (r.find("api_key"))
        r.fail(r.field("api_key"),
               QStringLiteral(
                   "API keys are never read from files; set api_key_env to the name of an environment variable"));
    if (!r.finish())
        return std::nullopt;
    return t;
}

std::optional<RunConfig> runConfigFromJson(const nlohmann::json &json, QString *error)
{
    RunConfig c;
    JsonReader top(json, QString(), error, QStringLiteral("configuration"));
    QString format;
    top.string("format", format);
    if (!format.isEmpty() && format != QLatin1String("tokenbench-config"))
        top.fail(QStringLiteral("format"),
                 QStringLiteral("'%1' is not a TokenBench configuration (expected \"tokenbench-config\")").arg(format));
    int version = kFormatVersion;
    top.integer("version", version);
    if (version > kFormatVersion)
        top.fail(QStringLiteral("version"),
                 QStringLiteral("written by a newer TokenBench (format %1; this one reads up to %2)")
                     .arg(version)
                     .arg(kFormatVersion));
    if (const auto *target = top.find("target"); target && top.ok()) {
        if (auto t = targetFromJson(*target, error))
            c.target = *t;
        else
            return std::nullopt;
    }
    if (const auto *request = top.find("request"); request && top.ok()) {
        JsonReader r(*request, QStringLiteral("request"), error);
        readConfigFields(r, "request", c);
        // Before tokenizers were per target, request.tokenizer could say "approx".
        QString legacy;
        r.string("tokenizer", legacy);
        if (!legacy.isEmpty() && legacy != QLatin1String("approx"))
            r.fail(r.field("tokenizer"), QStringLiteral("'%1': set target.tokenizer instead").arg(legacy));
        else if (c.target.tokenizer.isEmpty())
            c.target.tokenizer = legacy;
        if (!r.finish())
            return std::nullopt;
    }
    if (const auto *prompt = top.find("prompt"); prompt && top.ok()) {
        JsonReader r(*prompt, QStringLiteral("prompt"), error);
        const auto range = [&](const char *key, int &min, int &max) {
            QString text, why;
            r.string(key, text);
            if (text.isEmpty())
                return;
            if (const auto parsed = parseLengthRange(text, &why))
                std::tie(min, max) = *parsed;
            else
                r.fail(r.field(key), why);
        };
        readConfigFields(r, "prompt", c, [&](const ConfigField &f) {
            if (f.id == ConfigFieldId::DatasetPromptLen)
                range(f.key, c.prompt.promptLenMin, c.prompt.promptLenMax);
            else if (f.id == ConfigFieldId::DatasetOutputLen)
                range(f.key, c.prompt.outputLenMin, c.prompt.outputLenMax);
            else if (const auto *vars = f.id == ConfigFieldId::Variables ? r.find(f.key) : nullptr) {
                if (!vars->is_object())
                    r.fail(r.field(f.key), QStringLiteral("must be an object of \"name\": \"value\" pairs"));
                else {
                    for (auto it = vars->begin(); it != vars->end(); ++it) {
                        if (it->is_string())
                            c.prompt.variables.insert(fromStd(it.key()), fromStd(it->get<std::string>()));
                        else
                            c.prompt.variables.insert(fromStd(it.key()), fromStd(it->dump()));
                    }
                }
            }
        });
        if (!r.finish())
            return std::nullopt;
    }
    if (const auto *load = top.find("load"); load && top.ok()) {
        JsonReader r(*load, QStringLiteral("load"), error);
        const QString modes = loadModeNames();
        readConfigFields(r, "load", c, [&](const ConfigField &f) {
            if (f.id == ConfigFieldId::Stages) {
                if (const auto *stages =
                        boundedList(r, f.key, &nlohmann::json::is_array, QStringLiteral("must be an array of stages"),
                                    limits::kMaxStages, QStringLiteral("stages"))) {
                    for (size_t i = 0; i < stages->size() && r.ok(); ++i) {
                        StageConfig s;
                        // A stage's problem is the reader's: nothing more is read.
                        JsonReader sr(r, (*stages)[i], QStringLiteral("load.stages[%1]").arg(i));
                        sr.string("name", s.name);
                        sr.enumeration("mode", s.mode, &loadModeFromName, modes);
                        sr.real("level", s.level);
                        sr.duration("duration", s.durationMs, true);
                        sr.integer("requests", s.requests, qint64(0), limits::kMaxRequests);
                        sr.integer("prompt_tokens", s.promptTokens, 0, limits::kMaxPromptTokens);
                        if (!sr.finish())
                            return;
                        c.load.stages << s;
                    }
                }
            } else if (f.id == ConfigFieldId::ThinkTime) {
                if (const auto *think = r.find(f.key)) {
                    const auto parsed =
                        think->is_string() ? parseThinkTime(fromStd(think->get<std::string>())) : std::nullopt;
                    if (parsed && parsed->ms <= limits::kMaxDurationMs) {
                        c.load.thinkTimeMs = parsed->ms;
                        c.load.thinkTimeExponential = parsed->exponential;
                    } else {
                        r.fail(r.field(f.key),
                               QStringLiteral(
                                   "must be a duration such as \"2s\", or \"exp:2s\" for exponential think times with "
                                   "that mean, at most %1 (got %2)")
                                   .arg(formatDuration(limits::kMaxDurationMs), JsonReader::shown(*think)));
                    }
                }
            }
        });
        if (!r.finish())
            return std::nullopt;
    }
    for (const char *section : {"slo", "quality"}) {
        if (const auto *object = top.find(section); object && top.ok()) {
            JsonReader r(*object, QLatin1String(section), error);
            readConfigFields(r, section, c);
            if (!r.finish())
                return std::nullopt;
        }
    }
    readConfigFields(top, "", c);
    c.outDir = withHomeExpanded(c.outDir);
    if (!top.finish())
        return std::nullopt;
    return c;
}

std::optional<RunConfig> loadRunConfig(const QString &path, QString *error)
{
    QString why;
    const auto bytes = readInputFile(path, kMaxConfigFileBytes, &why);
    if (!bytes) {
        if (error)
            *error = QStringLiteral("cannot read '%1': %2").arg(path, why);
        return std::nullopt;
    }
    const auto json = parseJsonBounded(*bytes, &why);
    if (!json) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, why);
        return std::nullopt;
    }
    auto config = runConfigFromJson(*json, &why);
    if (!config && error)
        *error = QStringLiteral("%1: %2").arg(path, why);
    return config;
}

std::optional<nlohmann::json> parseJsonBounded(const QByteArray &text, QString *error)
{
    ShapeCheck check;
    if (!nlohmann::json::sax_parse(text.constData(), text.constData() + text.size(), &check)) {
        if (error)
            *error = check.error;
        return std::nullopt;
    }
    return nlohmann::json::parse(text.constData(), text.constData() + text.size());
}

bool saveRunConfig(const RunConfig &config, const QString &path, QString *error)
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error)
            *error = QStringLiteral("cannot write '%1': %2").arg(path, file.errorString());
        return false;
    }
    const std::string text = toJson(config).dump(2) + "\n";
    file.write(text.data(), qint64(text.size()));
    if (!file.commit()) {
        if (error)
            *error = QStringLiteral("cannot write '%1': %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

} // namespace tb
