#include "tokenbench/version.h"

#include <QtGlobal>

namespace tb {

QString version()
{
    return QString::fromLatin1(kVersion);
}

QString versionBanner()
{
    return QStringLiteral("%1 %2 (Qt %3 runtime, built with Qt %4)")
        .arg(QLatin1String(kToolName), version(), QLatin1String(qVersion()), QLatin1String(QT_VERSION_STR));
}

} // namespace tb
