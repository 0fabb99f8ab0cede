#include "metrics/requestrecord.h"

#include <array>
#include <utility>

namespace tb {

namespace {

constexpr std::array<std::pair<RequestStatus, const char *>, 8> kStatusNames{{
    {RequestStatus::Ok, "ok"},
    {RequestStatus::Http, "http"},
    {RequestStatus::Timeout, "timeout"},
    {RequestStatus::Connect, "connect"},
    {RequestStatus::Tls, "tls"},
    {RequestStatus::Protocol, "protocol"},
    {RequestStatus::StreamTruncated, "stream-truncated"},
    {RequestStatus::Cancelled, "cancelled"},
}};

constexpr std::array<std::pair<TokenSource, const char *>, 3> kSourceNames{{
    {TokenSource::Usage, "usage"},
    {TokenSource::Tokenizer, "tokenizer"},
    {TokenSource::Chunks, "chunks"},
}};

template<typename Enum, std::size_t N>
const char *nameOf(const std::array<std::pair<Enum, const char *>, N> &names, Enum value)
{
    for (const auto &[v, name] : names) {
        if (v == value)
            return name;
    }
    return "";
}

template<typename Enum, std::size_t N>
std::optional<Enum> valueOf(const std::array<std::pair<Enum, const char *>, N> &names, const QString &name)
{
    for (const auto &[v, n] : names) {
        if (name == QLatin1String(n))
            return v;
    }
    return std::nullopt;
}

} // namespace

const char *statusName(RequestStatus status)
{
    return nameOf(kStatusNames, status);
}

std::optional<RequestStatus> statusFromName(const QString &name)
{
    return valueOf(kStatusNames, name);
}

const char *tokenSourceName(TokenSource source)
{
    return nameOf(kSourceNames, source);
}

std::optional<TokenSource> tokenSourceFromName(const QString &name)
{
    return valueOf(kSourceNames, name);
}

} // namespace tb
