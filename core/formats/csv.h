#pragma once

// RFC 4180 CSV: the run directory's requests.csv and timeseries.csv, and comparison exports.

#include <QByteArray>
#include <QByteArrayView>

#include <string>
#include <string_view>
#include <vector>

namespace tb {

/// RFC 4180 ends records with CRLF; readers accept LF too.
inline constexpr std::string_view kCsvLineEnd = "\r\n";

/// Appends `field` to `line`, after a comma unless `first`; quoted (quotes doubled) when it holds a
/// comma, a quote, CR or LF.
void appendCsvField(std::string &line, std::string_view field, bool first = false);
/// Appends text from outside — a server's error text, response id or finish reason, a name from a
/// configuration — as a field a spreadsheet will not run. Excel and LibreOffice take a cell that
/// begins with =, +, -, @, a tab or CR for a formula (=1+2, =HYPERLINK(…)); such a cell gets a
/// leading ' as OWASP advises, and so does one that begins with ' itself, so that csvText() gives
/// every text back as it was. Numbers we write go through appendCsvField.
void appendCsvText(std::string &line, std::string_view text, bool first = false);
/// A field appendCsvText() wrote, read back: the text without the ' it added.
std::string_view csvText(std::string_view field);
/// A whole record: fields joined, then CRLF.
void appendCsvRecord(std::string &out, const std::vector<std::string> &fields);

/// Reads CSV text record by record, reusing the caller's field strings (no allocation per field
/// once they have grown).
class CsvReader
{
public:
    explicit CsvReader(QByteArrayView text)
        : m_text(text.data(), std::size_t(text.size()))
    {}

    /// The next record into `fields`; false at the end. A last record with no line end — a write
    /// cut short by a crash — is not returned; tornTail() then says so.
    bool next(std::vector<std::string> &fields);
    bool tornTail() const { return m_torn; }
    /// 1-based line on which the record last returned began.
    int line() const { return m_recordLine; }

private:
    std::string_view m_text;
    std::size_t m_pos = 0;
    int m_line = 1;
    int m_recordLine = 0;
    bool m_torn = false;
};

} // namespace tb
