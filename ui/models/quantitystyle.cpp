#include "models/quantitystyle.h"

#include <QGuiApplication>
#include <QHash>
#include <QObject>
#include <QPalette>

#include <array>
#include <utility>

namespace tb::chartstyle {

namespace {

/// Light and dark counterparts; no colour is in both columns, so a colour maps back unambiguously.
constexpr std::array<std::pair<QRgb, QRgb>, 26> kCounterparts{{
    {0x1f2937, 0xe8eaee}, // primary text
    {0x111827, 0xf3f4f6}, // tile values
    {0x4b5563, 0xaeb5c1}, // muted text
    {0x6b7280, 0x9aa1ad}, // quieter text
    {0x9ca3af, 0x5c6370}, // stage boundaries
    {0xe5e7eb, 0x353a42}, // grid, card borders
    {0xc7ccd4, 0x4a505a}, // axis lines
    {0xffffff, 0x23272d}, // surface
    {0xf4f5f7, 0x181a1e}, // the dashboard's page
    {0x15803d, 0x4ade80}, // better
    {0xb91c1c, 0xf87171}, // worse
    {0xb7791f, 0xfbbf24}, // the winner's star
    {0xc62828, 0xf28b82}, // error notes (a deeper red is under 4.5:1 on the dark cards)
    {0x2e7d32, 0x66bb6a}, // changes for the better
    {0x34495e, 0x8da4bf}, // in flight: navy is lost on a dark surface
    {0x6d4c41, 0xb48b7d}, // out/in: so is dark brown
    {0xb45309, 0xf5b14c}, // warnings and notes in amber
    {0xfff8eb, 0x3a2e1c}, // the comparison's notes banner
    {0xd97706, 0xe0a040}, // its edge
    {0xfdecea, 0x3d2224}, // a request's error box
    {0x8a1c1c, 0xfca5a5}, // its text
    {0xf5c2c0, 0x7a3434}, // its border
    {0xf1f5fb, 0x27303c}, // the comparison's baseline column
    {0x1d4ed8, 0x93c5fd}, // running (a session's status)
    {0x1f5fae, 0x2f6fd0}, // selection
    {0x5f6672, 0x8b93a0}, // placeholders and hints
}};

QColor pick(QRgb light, Theme theme)
{
    return themed(QColor(light), theme);
}

} // namespace

Theme themeOf(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < palette.color(QPalette::Text).lightness() ? Theme::Dark
                                                                                                   : Theme::Light;
}

Theme screenTheme()
{
    return themeOf(QGuiApplication::palette());
}

QColor themed(const QColor &color, Theme theme)
{
    const QRgb rgb = color.rgb() & RGB_MASK;
    for (const auto &[light, dark] : kCounterparts) {
        if (rgb == light || rgb == dark) {
            QColor mapped(theme == Theme::Light ? light : dark);
            mapped.setAlpha(color.alpha());
            return mapped;
        }
    }
    return color;
}

QColor mutedText(Theme theme)
{
    return pick(0x4b5563, theme);
}

QColor primaryText(Theme theme)
{
    return pick(0x1f2937, theme);
}

QColor surface(Theme theme)
{
    return pick(0xffffff, theme);
}

QColor gridLine(Theme theme)
{
    return pick(0xe5e7eb, theme);
}

QColor axisLine(Theme theme)
{
    return pick(0xc7ccd4, theme);
}

namespace {

QColor lightColor(Quantity quantity)
{
    switch (quantity) {
    case Quantity::Ttft:
        return QColor(0x1f, 0x6f, 0xd1);
    case Quantity::E2e:
        return QColor(0xe8, 0x71, 0x0a);
    case Quantity::Tpot:
        return QColor(0x1a, 0x9e, 0x5a);
    case Quantity::Itl:
        return QColor(0x8e, 0x44, 0xad);
    case Quantity::Requests:
        return QColor(0x0f, 0x8b, 0x8d);
    case Quantity::OutputTokens:
        return QColor(0xc2, 0x18, 0x5b);
    case Quantity::InputTokens:
        return QColor(0x8a, 0x94, 0xa6);
    case Quantity::CachedTokens:
    case Quantity::CacheHitRatio:
        return QColor(0x00, 0xa0, 0xc6);
    case Quantity::InFlight:
        return QColor(0x34, 0x49, 0x5e);
    case Quantity::Target:
        return QColor(0x7f, 0x8c, 0x8d);
    case Quantity::Errors:
        return QColor(0xd6, 0x27, 0x28);
    case Quantity::OutInRatio:
        return QColor(0x6d, 0x4c, 0x41);
    case Quantity::GpuPower:
        return QColor(0xb4, 0x53, 0x09);
    case Quantity::GpuUtil:
        return QColor(0x2e, 0x7d, 0x32);
    }
    return mutedText(Theme::Light);
}

} // namespace

QColor color(Quantity quantity)
{
    return themed(lightColor(quantity), screenTheme());
}

QColor color(Metric metric)
{
    switch (metric) {
    case Metric::Ttft:
    case Metric::Ttfo:
    case Metric::TtftFromSchedule:
        return color(Quantity::Ttft);
    case Metric::E2e:
    case Metric::E2eFromSchedule:
        return color(Quantity::E2e);
    case Metric::Tpot:
        return color(Quantity::Tpot);
    case Metric::Itl:
    case Metric::Icl:
        return color(Quantity::Itl);
    default:
        return mutedText();
    }
}

QColor errorColor(const QString &label)
{
    static const QHash<QString, QColor> known = {
        {QStringLiteral("429"), QColor(0xf0, 0xa3, 0x0a)},
        {QStringLiteral("500"), QColor(0xd6, 0x27, 0x28)},
        {QStringLiteral("502"), QColor(0xe3, 0x5d, 0x6a)},
        {QStringLiteral("503"), QColor(0xa5, 0x1d, 0x2d)},
        {QStringLiteral("504"), QColor(0xff, 0x7b, 0x7b)},
        {QStringLiteral("timeout"), QColor(0x7b, 0x24, 0x1c)},
        {QStringLiteral("connect"), QColor(0x6c, 0x34, 0x83)},
        {QStringLiteral("tls"), QColor(0x4a, 0x23, 0x5a)},
        {QStringLiteral("protocol"), QColor(0xb0, 0x3a, 0x2e)},
        {QStringLiteral("stream-truncated"), QColor(0xe6, 0x7e, 0x22)},
        {QStringLiteral("server-error"), QColor(0xc0, 0x39, 0x2b)},
        {QStringLiteral("cancelled"), QColor(0x95, 0xa5, 0xa6)},
    };
    if (const auto it = known.constFind(label); it != known.constEnd())
        return *it;
    // Other statuses: warm reds that stay apart from the known ones, the same for a label every time.
    const int hue = int(qHash(label) % 40u);
    return QColor::fromHsv(hue < 20 ? hue : 340 + hue - 20, 170, 200);
}

QColor gpuColor(int index)
{
    // Blues, purples and pinks: clear of the sum's amber and the utilisation's green, which the GPU
    // chart draws beside them.
    static const std::array<QColor, 8> colors = {
        QColor(0x1f, 0x77, 0xb4), QColor(0x94, 0x67, 0xbd), QColor(0x17, 0xbe, 0xcf), QColor(0xe3, 0x77, 0xc2),
        QColor(0x7f, 0x7f, 0x7f), QColor(0x39, 0x49, 0xab), QColor(0x00, 0x89, 0x7b), QColor(0xad, 0x14, 0x57),
    };
    return themed(colors[std::size_t(index < 0 ? 0 : index) % colors.size()], screenTheme());
}

QString describe(Quantity quantity)
{
    switch (quantity) {
    case Quantity::Ttft:
        return describe(Metric::Ttft);
    case Quantity::E2e:
        return describe(Metric::E2e);
    case Quantity::Tpot:
        return describe(Metric::Tpot);
    case Quantity::Itl:
        return describe(Metric::Itl);
    case Quantity::Requests:
        return QObject::tr("Successful requests completed per second");
    case Quantity::OutputTokens:
        return QObject::tr("Output tokens streamed by successful requests");
    case Quantity::InputTokens:
        return QObject::tr("Prompt tokens sent per successful request");
    case Quantity::CachedTokens:
        return QObject::tr("Prompt tokens the server took from its prefix cache, per request");
    case Quantity::InFlight:
        return QObject::tr("Requests sent and not yet finished (the peak within each second)");
    case Quantity::Target:
        return QObject::tr("The concurrency the load profile asks for in each stage");
    case Quantity::Errors:
        return QObject::tr("Failed requests per second, by HTTP status or error class");
    case Quantity::OutInRatio:
        return QObject::tr("Output tokens per prompt token (Σ completion / Σ prompt)");
    case Quantity::CacheHitRatio:
        return QObject::tr("Share of prompt tokens served from the prefix cache (Σ cached / Σ prompt)");
    case Quantity::GpuPower:
        return QObject::tr("Power drawn by the GPUs, W: their sum at each scrape of the DCGM exporter");
    case Quantity::GpuUtil:
        return QObject::tr("GPU utilisation, %: the mean over the GPUs at each scrape of the DCGM exporter");
    }
    return {};
}

QString describe(Metric metric)
{
    switch (metric) {
    case Metric::Ttft:
        return QObject::tr("Time to first token: request sent → first generated token");
    case Metric::Ttfo:
        return QObject::tr(
            "Time to first output: request sent → first visible (non-reasoning) token; hidden thinking is inside it");
    case Metric::TtftFromSchedule:
        return QObject::tr("Time to first token as the user waited: from the scheduled send time (open loop) or "
                           "from when the user was ready (closed loop), queueing and connecting included");
    case Metric::Ttfb:
        return QObject::tr("Time to first byte: request sent → response headers");
    case Metric::E2e:
        return QObject::tr("End-to-end latency: request sent → last token");
    case Metric::E2eFromSchedule:
        return QObject::tr("End-to-end latency as the user waited: from the scheduled send time (open loop) or from "
                           "when the user was ready (closed loop)");
    case Metric::Tpot:
        return QObject::tr("Time per output token after the first: (last − first token) / (streamed tokens − 1)");
    case Metric::Itl:
        return QObject::tr("Inter-token latency: each gap between chunks divided over the tokens it brought");
    case Metric::Icl:
        return QObject::tr("Inter-chunk latency: raw gaps between streamed chunks");
    case Metric::QueueDelay:
        return QObject::tr("Queue delay: scheduled send time → actually sent");
    case Metric::DecodeSpeed:
        return QObject::tr("Decode speed: tokens per second after the first token, per request");
    case Metric::TokensPerChunk:
        return QObject::tr("Tokens carried by each streamed chunk");
    case Metric::RetryAfter:
        return QObject::tr("Retry-After the server asked for on failed requests");
    case Metric::Blocked:
        return QObject::tr("Blocked: ready to go (scheduled, or the user ready) → its connect began or its bytes "
                           "began to go out (a stale kept-alive connection's attempt included)");
    case Metric::Connect:
        return QObject::tr("Connect: TCP connect, name lookup and a proxy's tunnel included; 0 on a kept-alive "
                           "connection");
    case Metric::Tls:
        return QObject::tr("TLS: the handshake; 0 in clear or on a kept-alive connection");
    case Metric::Sending:
        return QObject::tr("Sending: the request's bytes going out");
    case Metric::Waiting:
        return QObject::tr("Waiting: request sent → response headers, the server's turn (TTFB)");
    case Metric::Receiving:
        return QObject::tr("Receiving: response headers → the response complete");
    }
    return {};
}

} // namespace tb::chartstyle
