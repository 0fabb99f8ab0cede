#include "metrics/requestrecord.h"

#include "config/enumnames.h"

namespace tb {

namespace {

constexpr EnumName<RequestStatus> kRequestStatusNames[] = {
    {RequestStatus::Ok, "ok"},
    {RequestStatus::Http, "http"},
    {RequestStatus::Timeout, "timeout"},
    {RequestStatus::Connect, "connect"},
    {RequestStatus::Tls, "tls"},
    {RequestStatus::Protocol, "protocol"},
    {RequestStatus::StreamTruncated, "stream-truncated"},
    {RequestStatus::ServerError, "server-error"},
    {RequestStatus::Cancelled, "cancelled"},
    {RequestStatus::Proxy, "proxy"},
    {RequestStatus::Abandoned, "abandoned"},
};

constexpr EnumName<TokenSource> kSourceNames[] = {
    {TokenSource::Usage, "usage"},
    {TokenSource::Tokenizer, "tokenizer"},
    {TokenSource::Chunks, "chunks"},
    {TokenSource::Estimate, "estimate"},
};

constexpr EnumName<CacheSource> kCacheSourceNames[] = {
    {CacheSource::None, ""},
    {CacheSource::Usage, "usage"},
    {CacheSource::Timings, "timings"},
};

constexpr EnumName<OutputCheck> kOutputCheckNames[] = {
    {OutputCheck::None, ""},
    {OutputCheck::NotChecked, "not_checked"},
    {OutputCheck::NotJson, "invalid_json"},
    {OutputCheck::SchemaInvalid, "schema_invalid"},
    {OutputCheck::Valid, "valid"},
};

constexpr EnumName<ToolCallCheck> kToolCallCheckNames[] = {
    {ToolCallCheck::NotAsked, ""},
    {ToolCallCheck::None, "none"},
    {ToolCallCheck::NotChecked, "not_checked"},
    {ToolCallCheck::InvalidJson, "invalid_json"},
    {ToolCallCheck::SchemaMismatch, "schema_mismatch"},
    {ToolCallCheck::Valid, "valid"},
    {ToolCallCheck::Missing, "missing"},
};

} // namespace

const char *statusName(RequestStatus status)
{
    return enumCName(kRequestStatusNames, status);
}

std::optional<RequestStatus> statusFromName(const QString &name)
{
    return enumFromName<RequestStatus>(kRequestStatusNames, name);
}

const char *tokenSourceName(TokenSource source)
{
    return enumCName(kSourceNames, source);
}

std::optional<TokenSource> tokenSourceFromName(const QString &name)
{
    return enumFromName<TokenSource>(kSourceNames, name);
}

const char *cacheSourceName(CacheSource source)
{
    return enumCName(kCacheSourceNames, source);
}

std::optional<CacheSource> cacheSourceFromName(const QString &name)
{
    return enumFromName<CacheSource>(kCacheSourceNames, name);
}

const char *outputCheckName(OutputCheck check)
{
    return enumCName(kOutputCheckNames, check);
}

std::optional<OutputCheck> outputCheckFromName(const QString &name)
{
    return enumFromName<OutputCheck>(kOutputCheckNames, name);
}

const char *toolCallCheckName(ToolCallCheck check)
{
    return enumCName(kToolCallCheckNames, check);
}

std::optional<ToolCallCheck> toolCallCheckFromName(const QString &name)
{
    return enumFromName<ToolCallCheck>(kToolCallCheckNames, name);
}

} // namespace tb
