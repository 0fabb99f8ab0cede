// JsonCursor: no crash or over-read on any text; reading a document through the typed functions
// (object, array, string, integer, null) accepts exactly what skip() accepts; decodedSize() is the
// size decode() writes; integer() reads every whole number that fits in 64 bits exactly, however
// it is written (5e2, 500.0).
#include "fuzzinput.h"
#include "net/jsoncursor.h"

#include <charconv>
#include <cstdlib>
#include <limits>
#include <string>

namespace {

void checkString(std::string_view raw)
{
    std::string decoded;
    tb::JsonCursor::decode(raw, decoded);
    if (decoded.size() != tb::JsonCursor::decodedSize(raw))
        tb::fuzz::violated("decodedSize() differs from the size decode() wrote");
}

/// Reads one value with the function made for its type. The cursor offers no peek, so each is
/// tried on a copy: a wrong guess fails at the first character.
bool value(tb::JsonCursor &c)
{
    tb::JsonCursor probe = c;
    if (probe.null()) {
        c = probe;
        return true;
    }
    probe = c;
    std::string_view raw;
    if (probe.string(&raw)) {
        checkString(raw);
        c = probe;
        return true;
    }
    probe = c;
    if (probe.object([&probe](std::string_view key) {
            checkString(key);
            return value(probe);
        })) {
        c = probe;
        return true;
    }
    probe = c;
    if (probe.array([&probe] { return value(probe); })) {
        c = probe;
        return true;
    }
    probe = c;
    std::int64_t n = 0;
    if (probe.integer(&n)) {
        c = probe;
        return true;
    }
    return c.skip(); // true/false, or a number integer() refused
}

/// A document that is one number: what integer() accepts must be the number's value exactly.
/// long double holds every int64 exactly, and strtold rounds correctly: a text whose value is n
/// reads as n (a value near n may too, so a refusal is not checked this way).
void checkInteger(std::string_view text)
{
    static_assert(std::numeric_limits<long double>::digits >= 64);
    tb::JsonCursor c(text);
    std::int64_t n = 0;
    if (!c.integer(&n) || !c.atEnd())
        return;
    const std::string copy(text);
    if (std::strtold(copy.c_str(), nullptr) != static_cast<long double>(n))
        tb::fuzz::violated("integer() accepted a number whose value it misread");
    // A plain integer that fits in 64 bits is read as from_chars reads it.
    const std::size_t begin = copy.find_first_not_of(" \t\r\n");
    const std::size_t end = copy.find_first_of(".eE \t\r\n", begin);
    const std::string_view digits = text.substr(begin, end == std::string_view::npos ? end : end - begin);
    std::int64_t expected = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), expected);
    const bool plain = copy.find_first_of(".eE") == std::string::npos;
    if (plain && ec == std::errc() && ptr == digits.data() + digits.size() && n != expected)
        tb::fuzz::violated("integer() misread an integer that fits in 64 bits");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size > tb::fuzz::kMaxInput)
        return 0;
    const std::string_view text = tb::fuzz::text(data, size);
    tb::JsonCursor skipped(text);
    const bool skipOk = skipped.skip() && skipped.atEnd();
    tb::JsonCursor typed(text);
    const bool typedOk = value(typed) && typed.atEnd();
    if (skipOk != typedOk)
        tb::fuzz::violated(skipOk ? "skip() accepts a document the typed functions refuse"
                                  : "the typed functions accept a document skip() refuses");
    checkInteger(text);
    return 0;
}
