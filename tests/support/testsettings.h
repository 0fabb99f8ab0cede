#pragma once

#include <QString>

namespace tb::test {

/// Points QSettings (INI format) at `directory` under the organisation "TokenBenchTest" and
/// application `applicationName`, so a test never reads or writes the user's own settings.
void isolateSettings(const QString &directory, const QString &applicationName);

} // namespace tb::test
