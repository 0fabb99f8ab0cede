#include "platform/ephemeralports.h"

namespace tb {

// Windows' dynamic port range (49152–65535 by default) is read with 'netsh int ipv4 show
// dynamicport tcp', not through an API a program can call cheaply; a run there is not checked
// against it (connects beyond it fail, counted as errors).

std::optional<PortRange> ephemeralPortRange()
{
    return std::nullopt;
}

QString ephemeralPortRangeHint()
{
    // Never shown while ephemeralPortRange() has no range to report; true should that change.
    return QStringLiteral("the dynamic port range; widen it with 'netsh int ipv4 set dynamicport tcp'");
}

} // namespace tb
