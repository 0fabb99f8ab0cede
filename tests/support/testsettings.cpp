#include "support/testsettings.h"

#include <QCoreApplication>
#include <QSettings>

namespace tb::test {

void isolateSettings(const QString &directory, const QString &applicationName)
{
    QCoreApplication::setOrganizationName(QStringLiteral("TokenBenchTest"));
    QCoreApplication::setApplicationName(applicationName);
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, directory);
}

} // namespace tb::test
