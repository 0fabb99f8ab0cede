#pragma once

#include <QString>

#include <optional>
#include <string_view>

namespace tb {

/// The local ports the OS picks from when a socket connects without binding one. Each connection
/// to one server (address and port) needs a port of its own, so they bound how many connections a
/// run can hold to one server, however many descriptors it may open.
struct PortRange {
    int first = 0;
    int last = 0;
    qint64 count() const { return qint64(last) - qint64(first) + 1; }
};

/// This machine's range; nullopt where the OS cannot tell (nothing can then be checked against it).
/// Linux: /proc/sys/net/ipv4/ip_local_port_range. Other OSes: nullopt.
std::optional<PortRange> ephemeralPortRange();

/// Where the range comes from and how a user widens it, for a message that says a run needs more
/// ("net.ipv4.ip_local_port_range; widen it with …").
QString ephemeralPortRangeHint();

/// The range in Linux's notation, two port numbers apart ("32768\t60999\n"); nullopt unless both
/// are ports (1–65535) and the first is not above the second.
std::optional<PortRange> parsePortRange(std::string_view text);

} // namespace tb
