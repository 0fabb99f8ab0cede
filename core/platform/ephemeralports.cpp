#include "platform/ephemeralports.h"

#include <charconv>

namespace tb {

namespace {

constexpr int kHighestPort = 65535;

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/// The next whole number of `text` from `at` after blanks, moving `at` past it.
std::optional<int> readPort(std::string_view text, std::size_t &at)
{
    while (at < text.size() && isSpace(text[at]))
        ++at;
    int value = 0;
    const auto [end, error] = std::from_chars(text.data() + at, text.data() + text.size(), value);
    if (error != std::errc() || value < 1 || value > kHighestPort)
        return std::nullopt;
    at = std::size_t(end - text.data());
    return value;
}

} // namespace

std::optional<PortRange> parsePortRange(std::string_view text)
{
    std::size_t at = 0;
    const auto first = readPort(text, at);
    if (!first || at >= text.size() || !isSpace(text[at]))
        return std::nullopt;
    const auto last = readPort(text, at);
    if (!last || *last < *first)
        return std::nullopt;
    while (at < text.size() && isSpace(text[at]))
        ++at;
    if (at != text.size())
        return std::nullopt;
    return PortRange{*first, *last};
}

} // namespace tb
