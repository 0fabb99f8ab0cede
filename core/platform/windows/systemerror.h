#pragma once

// Private to the Windows layer of the platform seam.

#include <QString>

namespace tb {

/// The system's words for a Win32 or Winsock error code (FormatMessageW), without the line break
/// it ends them with; "error N" when it has none.
QString systemErrorText(unsigned long code);

} // namespace tb
