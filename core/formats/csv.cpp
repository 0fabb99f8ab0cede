#include "formats/csv.h"

namespace tb {

void appendCsvField(std::string &line, std::string_view field, bool first)
{
    if (!first)
        line += ',';
    if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
        line += field;
        return;
    }
    line += '"';
    for (const char c : field) {
        if (c == '"')
            line += '"';
        line += c;
    }
    line += '"';
}

namespace {

/// What a cell from outside may not begin with unguarded: a formula's first character to a
/// spreadsheet, and the guard itself.
bool needsGuard(std::string_view text)
{
    return !text.empty() && std::string_view("=+-@\t\r'").find(text.front()) != std::string_view::npos;
}

} // namespace

void appendCsvText(std::string &line, std::string_view text, bool first)
{
    if (!needsGuard(text)) {
        appendCsvField(line, text, first);
        return;
    }
    std::string guarded;
    guarded.reserve(text.size() + 1);
    guarded += '\'';
    guarded += text;
    appendCsvField(line, guarded, first);
}

std::string_view csvText(std::string_view field)
{
    if (field.size() >= 2 && field.front() == '\'' && needsGuard(field.substr(1)))
        field.remove_prefix(1);
    return field;
}

void appendCsvRecord(std::string &out, const std::vector<std::string> &fields)
{
    for (std::size_t i = 0; i < fields.size(); ++i)
        appendCsvField(out, fields[i], i == 0);
    out += kCsvLineEnd;
}

bool CsvReader::next(std::vector<std::string> &fields)
{
    const int startLine = m_line;
    if (m_pos >= m_text.size())
        return false;
    std::size_t count = 0;
    const auto field = [&]() -> std::string & {
        if (count == fields.size())
            fields.emplace_back();
        std::string &f = fields[count++];
        f.clear();
        return f;
    };
    std::string *current = &field();
    bool quoted = false;
    while (m_pos < m_text.size()) {
        const char c = m_text[m_pos++];
        if (quoted) {
            if (c == '"') {
                if (m_pos < m_text.size() && m_text[m_pos] == '"') {
                    *current += '"';
                    ++m_pos;
                } else {
                    quoted = false;
                }
            } else {
                if (c == '\n')
                    ++m_line;
                *current += c;
            }
        } else if (c == '"' && current->empty()) {
            quoted = true;
        } else if (c == ',') {
            current = &field();
        } else if (c == '\n' || (c == '\r' && m_pos < m_text.size() && m_text[m_pos] == '\n')) {
            if (c == '\r')
                ++m_pos;
            ++m_line;
            fields.resize(count);
            m_recordLine = startLine;
            return true;
        } else {
            *current += c;
        }
    }
    // The text ended inside a record: a torn write. Leave it unread.
    m_torn = true;
    m_pos = m_text.size();
    m_line = startLine;
    return false;
}

} // namespace tb
