#include "platform/ephemeralports.h"

#include <QFile>

namespace tb {

#if defined(__linux__)

namespace {

/// Two port numbers and blanks: a longer file is not the one we know.
constexpr qint64 kMaxRangeFileBytes = 64;

} // namespace

std::optional<PortRange> ephemeralPortRange()
{
    QFile file(QStringLiteral("/proc/sys/net/ipv4/ip_local_port_range"));
    if (!file.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QByteArray text = file.read(kMaxRangeFileBytes + 1);
    if (text.size() > kMaxRangeFileBytes)
        return std::nullopt;
    return parsePortRange(std::string_view(text.constData(), std::size_t(text.size())));
}

QString ephemeralPortRangeHint()
{
    return QStringLiteral("net.ipv4.ip_local_port_range; widen it with 'sysctl -w net.ipv4.ip_local_port_range=\"1024 "
                          "65535\"'");
}

#else

// macOS keeps its range in the sysctls net.inet.ip.portrange.first/last; not read yet, so a run
// there is not checked against it (connects beyond it fail with EADDRNOTAVAIL, counted as errors).
std::optional<PortRange> ephemeralPortRange()
{
    return std::nullopt;
}

QString ephemeralPortRangeHint()
{
    // Never shown while ephemeralPortRange() has no range to report; true should that change.
    return QStringLiteral("net.inet.ip.portrange.first and .last");
}

#endif

} // namespace tb
