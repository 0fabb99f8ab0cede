#include "workload/jsonworkloadreader.h"

#include "config/inputfile.h"
#include "config/modelmix.h"
#include "config/runconfig.h"
#include "tokenize/tokenizer.h"
#include "workload/mooncakereader.h"
#include "workload/promptsreader.h"
#include "workload/sharegptreader.h"
#include "workload/workloadlimits.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <cmath>

namespace tb {

namespace {

/// The entry kinds, in the order they are asked: the first that takes an entry reads it.
const JsonEntryReader *const kEntryReaders[] = {&kShareGptReader, &kMooncakeReader, &kPromptsReader};

/// An integer field in [min, max]; false with *why when it is there but not such a number.
bool integerField(const nlohmann::json &j, const char *key, std::int64_t min, std::int64_t max,
                  std::optional<std::int64_t> &out, QString &why)
{
    const auto it = j.find(key);
    if (it == j.end() || it->is_null())
        return true;
    double v = 0;
    if (it->is_number_unsigned())
        v = double(it->get<std::uint64_t>());
    else if (it->is_number())
        v = it->get<double>();
    else {
        why = QStringLiteral("\"%1\" must be a number").arg(QLatin1String(key));
        return false;
    }
    if (!(v >= double(min) && v <= double(max)) || v != std::floor(v)) {
        why = QStringLiteral("\"%1\" must be a whole number from %2 to %3 (got %4)")
                  .arg(QLatin1String(key))
                  .arg(min)
                  .arg(max)
                  .arg(fromStd(it->dump()).left(32));
        return false;
    }
    out = std::int64_t(v);
    return true;
}

/// The media type a file's first bytes say it is, of the image kinds vision models take; empty
/// for anything else.
const char *imageMediaType(const QByteArray &bytes)
{
    if (bytes.startsWith("\x89PNG\r\n\x1a\n"))
        return "image/png";
    if (bytes.startsWith("\xFF\xD8\xFF"))
        return "image/jpeg";
    if (bytes.startsWith("GIF87a") || bytes.startsWith("GIF89a"))
        return "image/gif";
    if (bytes.size() >= 12 && bytes.startsWith("RIFF") && bytes.mid(8, 4) == "WEBP")
        return "image/webp";
    return "";
}

} // namespace

std::int64_t approxTokens(std::string_view text)
{
    return ApproxTokenizer::countUtf8(text.data(), text.size());
}

bool JsonWorkloadReader::read(std::string_view data)
{
    const std::size_t first = data.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && data[first] == '[')
        return readArray(data, first);
    return readLines(data);
}

std::shared_ptr<const PromptImage> JsonWorkloadReader::image(const std::string &text, QString &why)
{
    if (text.starts_with("data:")) {
        // Sent as written: the server judges its data; only its form and size are the file's to keep.
        const std::size_t marker = text.find(";base64,");
        if (marker == std::string::npos || !text.starts_with("data:image/")) {
            why = QStringLiteral("an image's data URL must be data:image/…;base64,…");
            return nullptr;
        }
        const qint64 base64 = qint64(text.size() - marker - 8);
        if (base64 > (limits::kMaxImageFileBytes + 2) / 3 * 4) {
            why =
                QStringLiteral("an image's data URL holds more than %1").arg(byteSizeText(limits::kMaxImageFileBytes));
            return nullptr;
        }
        auto image = std::make_shared<PromptImage>();
        image->url = text;
        image->bytes = base64 / 4 * 3 - (text.ends_with("==") ? 2 : text.ends_with('=') ? 1 : 0);
        return image;
    }
    // A path: relative to the workload file's folder, and inside it, so that a dataset from
    // elsewhere cannot make a run read (and send to a server) any file the user can read.
    const QString name = fromStd(text);
    if (name.isEmpty() || QDir::isAbsolutePath(name) || name.startsWith(QLatin1Char('~')) ||
        QDir::cleanPath(name).startsWith(QLatin1String("..")) || name.contains(QLatin1Char('\0'))) {
        why = QStringLiteral("image '%1': give a data URL or a path relative to the workload file's folder, inside it")
                  .arg(name.left(80));
        return nullptr;
    }
    const QString file = QFileInfo(path()).dir().filePath(QDir::cleanPath(name));
    if (const auto known = m_imageFiles.constFind(file); known != m_imageFiles.cend())
        return *known;
    QString problem;
    const auto bytes = readInputFile(file, limits::kMaxImageFileBytes, &problem);
    if (!bytes) {
        why = QStringLiteral("image '%1': %2").arg(name.left(80), problem);
        return nullptr;
    }
    const char *type = imageMediaType(*bytes);
    if (!*type) {
        why = QStringLiteral("image '%1': not a PNG, JPEG, GIF or WebP file").arg(name.left(80));
        return nullptr;
    }
    if (m_imageFileBytes + bytes->size() > workloadlimits::kMaxImageFilesBytes) {
        why = QStringLiteral("image '%1': the file's images together are more than %2")
                  .arg(name.left(80), byteSizeText(workloadlimits::kMaxImageFilesBytes));
        return nullptr;
    }
    m_imageFileBytes += bytes->size();
    auto image = std::make_shared<PromptImage>();
    image->bytes = bytes->size();
    image->url = std::string("data:") + type + ";base64,";
    image->url += bytes->toBase64().toStdString();
    m_imageFiles.insert(file, image);
    return image;
}

bool JsonWorkloadReader::readImages(const nlohmann::json &j, WorkloadEntry &e, QString &why)
{
    const auto many = j.find("images");
    const auto one = j.find("image");
    const bool hasMany = many != j.end() && !many->is_null();
    if (!hasMany && (one == j.end() || !one->is_string()))
        return true;
    const nlohmann::json list = hasMany ? *many : nlohmann::json::array({*one});
    if (!list.is_array() || list.size() > std::size_t(limits::kMaxImages)) {
        why = QStringLiteral("\"images\" must be an array of at most %1 data URLs or paths").arg(limits::kMaxImages);
        return false;
    }
    for (const nlohmann::json &item : list) {
        if (!item.is_string()) {
            why = QStringLiteral("\"images\" must hold strings: data URLs or paths");
            return false;
        }
        auto image = this->image(item.get_ref<const std::string &>(), why);
        if (!image)
            return false;
        e.images.push_back(std::move(image));
    }
    return true;
}

Parsed JsonWorkloadReader::entry(const nlohmann::json &j, WorkloadEntry &e, QString &why, const char *&kind)
{
    if (!j.is_object()) {
        why = QStringLiteral("not a JSON object");
        return Parsed::Bad;
    }
    EntryFields fields;
    if (!integerField(j, "max_tokens", 1, limits::kMaxTokens, fields.maxTokens, why) ||
        !integerField(j, "output_len", 0, limits::kMaxTokens, fields.outputLen, why) ||
        (!fields.outputLen && !integerField(j, "output_length", 0, limits::kMaxTokens, fields.outputLen, why)) ||
        !integerField(j, "input_length", 1, limits::kMaxPromptTokens, fields.inputLen, why))
        return Parsed::Bad;

    const JsonEntryReader *reader = nullptr;
    for (const JsonEntryReader *candidate : kEntryReaders) {
        if (const char *k = candidate->kindOf(j, fields)) {
            kind = k;
            reader = candidate;
            break;
        }
    }
    if (!reader) {
        why = QStringLiteral("expected {\"prompt\": …}, {\"messages\": […]}, a ShareGPT {\"conversations\": […]} or a "
                             "trace line {\"input_length\": …}");
        return Parsed::Bad;
    }
    if (const Parsed parsed = reader->read(j, m_role, fields, e, why); parsed != Parsed::Ok)
        return parsed;
    if (const auto s = j.find("system"); s != j.end() && s->is_string() && !e.synthetic) {
        e.system = s->get<std::string>();
        e.promptTokens += approxTokens(e.system);
    }
    if (!e.synthetic && !readImages(j, e, why))
        return Parsed::Bad;
    if (fields.outputLen && e.outputTokens < 0)
        e.outputTokens = *fields.outputLen;
    if (fields.maxTokens) {
        e.outputTokens = *fields.maxTokens;
        e.outputIsCap = true;
    }
    if (const auto m = j.find("model"); m != j.end() && !m->is_null()) {
        // Sent as the request's model and shown on the console: bounded and checked like --model's.
        const QString name = m->is_string() ? fromStd(m->get<std::string>()) : QString();
        const QString problem = m->is_string() ? ModelMix::nameProblem(name) : QStringLiteral("is not a string");
        if (!problem.isEmpty()) {
            why = QStringLiteral("\"model\" %1").arg(problem);
            return Parsed::Bad;
        }
        e.model = name.toStdString();
    }
    if (const auto t = j.find("timestamp"); t != j.end()) {
        if (m_role != WorkloadRole::Trace) {
            why = QStringLiteral("has a \"timestamp\": give a timed file with --trace FILE to replay it at its times");
            return Parsed::Fatal;
        }
        if (!t->is_number() || !(t->get<double>() >= 0 && t->get<double>() <= double(limits::kMaxDurationMs))) {
            why = QStringLiteral("\"timestamp\" must be milliseconds from 0 to %1").arg(limits::kMaxDurationMs);
            return Parsed::Bad;
        }
        e.timeNs = std::llround(t->get<double>() * 1e6);
    } else if (m_role == WorkloadRole::Trace) {
        why = QStringLiteral("no \"timestamp\" (milliseconds): every line of a trace needs one");
        return Parsed::Bad;
    }
    return Parsed::Ok;
}

bool JsonWorkloadReader::object(const char *begin, const char *end, int line)
{
    QString why;
    const auto json = parseJsonBounded(QByteArray::fromRawData(begin, qsizetype(end - begin)), &why);
    if (!json)
        return bad(line, QStringLiteral("not a JSON object (%1)").arg(why.left(120)));
    WorkloadEntry e;
    e.line = line;
    const char *kind = "";
    const Parsed parsed = entry(*json, e, why, kind);
    if (stats.format.isEmpty() && *kind)
        stats.format = QLatin1String(kind); // what the first entry is: the file's kind
    switch (parsed) {
    case Parsed::Ok:
        return add(std::move(e));
    case Parsed::NoPrompt:
        ++stats.noPrompt;
        return true;
    case Parsed::Bad:
        return bad(line, why);
    case Parsed::Fatal:
        return fail(line, why);
    }
    return true;
}

bool JsonWorkloadReader::readLines(std::string_view data)
{
    return forEachLine(data, [&](int line, std::string_view text) {
        if (qint64(text.size()) > workloadlimits::kMaxLineBytes)
            return bad(line, QStringLiteral("longer than %1 MiB").arg(workloadlimits::kMaxLineBytes >> 20));
        const std::size_t b = text.find_first_not_of(" \t\r");
        if (b == std::string_view::npos)
            return true;
        text = text.substr(b, text.find_last_not_of(" \t\r") - b + 1);
        return object(text.data(), text.data() + text.size(), line);
    });
}

/// Each element is found by a scan of brackets and strings and parsed on its own, so a broken
/// element is named by its line and the whole file never becomes one tree.
bool JsonWorkloadReader::readArray(std::string_view data, std::size_t at)
{
    int line = 1 + int(std::count(data.begin(), data.begin() + qsizetype(at), '\n'));
    ++at; // '['
    const auto skipSpace = [&] {
        while (at < data.size() && (data[at] == ' ' || data[at] == '\t' || data[at] == '\r' || data[at] == '\n')) {
            line += data[at] == '\n';
            ++at;
        }
    };
    skipSpace();
    if (at < data.size() && data[at] == ']')
        return true;
    while (at < data.size()) {
        skipSpace();
        const std::size_t start = at;
        const int startLine = line;
        int depth = 0;
        bool inString = false;
        for (; at < data.size(); ++at) {
            const char c = data[at];
            if (c == '\n')
                ++line;
            if (inString) {
                if (c == '\\')
                    ++at;
                else if (c == '"')
                    inString = false;
            } else if (c == '"') {
                inString = true;
            } else if (c == '{' || c == '[') {
                if (++depth > limits::kMaxJsonDepth)
                    return fail(startLine, QStringLiteral("nests deeper than %1 levels").arg(limits::kMaxJsonDepth));
            } else if (c == '}' || c == ']') {
                if (depth == 0)
                    break;
                --depth;
            } else if (c == ',' && depth == 0) {
                break;
            }
        }
        if (at >= data.size())
            return fail(startLine, QStringLiteral("the JSON array does not end (a missing ']' or '\"')"));
        if (qint64(at - start) > workloadlimits::kMaxLineBytes) {
            if (!bad(startLine, QStringLiteral("entry longer than %1 MiB").arg(workloadlimits::kMaxLineBytes >> 20)))
                return false;
        } else if (!object(data.data() + start, data.data() + at, startLine)) {
            return false;
        }
        if (data[at] == ']')
            break;
        ++at; // ','
    }
    return true;
}

} // namespace tb
