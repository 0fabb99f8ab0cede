#include "api/toolset.h"

#include "api/documentreader.h"
#include "config/inputfile.h"

#include <QByteArray>

#include <algorithm>
#include <cctype>

namespace tb {

namespace {

bool isToolName(const std::string &name)
{
    return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    });
}

/// How bad a check is: the worst of a response's calls wins.
int severity(ToolCallCheck check)
{
    switch (check) {
    case ToolCallCheck::InvalidJson:
        return 3;
    case ToolCallCheck::SchemaMismatch:
        return 2;
    case ToolCallCheck::Valid:
        return 1;
    default:
        return 0;
    }
}

} // namespace

std::optional<ToolSet> ToolSet::fromJson(const nlohmann::json &json, QString *why)
{
    const auto refuse = [why](const QString &problem) {
        if (why)
            *why = problem;
        return std::nullopt;
    };
    if (!json.is_array() || json.empty())
        return refuse(QStringLiteral("not a non-empty array of tools"));
    if (json.size() > kMaxTools)
        return refuse(QStringLiteral("%1 tools, more than %2").arg(json.size()).arg(kMaxTools));
    ToolSet set;
    for (std::size_t i = 0; i < json.size(); ++i) {
        const QString at = QStringLiteral("[%1]").arg(i);
        const nlohmann::json &entry = json[i];
        if (!entry.is_object() || entry.value("type", nlohmann::json()) != "function")
            return refuse(at + QStringLiteral(": not {\"type\": \"function\", \"function\": {…}}"));
        const auto fn = entry.find("function");
        if (fn == entry.end() || !fn->is_object())
            return refuse(at + QStringLiteral(".function: not an object"));
        Tool tool;
        const auto name = fn->find("name");
        if (name == fn->end() || !name->is_string() || !isToolName(name->get<std::string>()))
            return refuse(at + QStringLiteral(".function.name: not 1 to 64 letters, digits, '_' or '-'"));
        tool.name = name->get<std::string>();
        if (set.find(tool.name))
            return refuse(at + QStringLiteral(".function.name: '%1' is given twice").arg(fromStd(tool.name)));
        if (const auto description = fn->find("description"); description != fn->end()) {
            if (!description->is_string())
                return refuse(at + QStringLiteral(".function.description: not a string"));
            tool.description = description->get<std::string>();
        }
        const auto parameters = fn->find("parameters");
        tool.parameters = parameters == fn->end() ? nlohmann::json{{"type", "object"}} : *parameters;
        if (!tool.parameters.is_object())
            return refuse(at + QStringLiteral(".function.parameters: not a JSON Schema object"));
        QString problem;
        auto schema = JsonSchema::compile(tool.parameters, &problem);
        if (!schema)
            return refuse(at + QStringLiteral(".function.parameters: ") + problem);
        tool.schema = std::make_shared<const JsonSchema>(std::move(*schema));
        set.m_tools.push_back(std::move(tool));
    }
    return set;
}

std::optional<ToolSet> ToolSet::load(const QString &path, const ToolChoice &choice, QString *why)
{
    QString problem;
    const auto bytes = readInputFile(path, kMaxFileBytes, &problem);
    const auto json = bytes ? parseJsonBounded(*bytes, &problem) : std::nullopt;
    auto set = json ? fromJson(*json, &problem) : std::nullopt;
    if (!set) {
        if (why)
            *why = QStringLiteral("%1: %2").arg(path, problem);
        return std::nullopt;
    }
    if (choice.kind == ToolChoice::Kind::Named && !set->find(choice.name)) {
        if (why)
            *why = QStringLiteral("tool_choice '%1' is not a tool of %2").arg(fromStd(choice.name), path);
        return std::nullopt;
    }
    set->m_choice = choice;
    return set;
}

const ToolSet::Tool *ToolSet::find(std::string_view name) const
{
    const auto it = std::find_if(m_tools.begin(), m_tools.end(), [name](const Tool &t) { return t.name == name; });
    return it == m_tools.end() ? nullptr : &*it;
}

ToolCallCheck ToolSet::check(const ToolCallTexts &calls) const
{
    if (calls.cut)
        return ToolCallCheck::NotChecked;
    if (calls.calls.empty())
        return m_choice.kind == ToolChoice::Kind::Required || m_choice.kind == ToolChoice::Kind::Named
                   ? ToolCallCheck::Missing
                   : ToolCallCheck::None;
    ToolCallCheck worst = ToolCallCheck::Valid;
    for (const ToolCallText &call : calls.calls) {
        ToolCallCheck check = ToolCallCheck::Valid;
        // A key given twice counts as not JSON, as a structured output's does.
        const auto args =
            parseJsonBounded(QByteArray::fromRawData(call.arguments.data(), qsizetype(call.arguments.size())), nullptr);
        const Tool *tool = find(call.name);
        if (!args)
            check = ToolCallCheck::InvalidJson;
        else if (!tool || !tool->schema->violation(*args).isEmpty())
            check = ToolCallCheck::SchemaMismatch;
        if (severity(check) > severity(worst))
            worst = check;
    }
    return worst;
}

} // namespace tb
