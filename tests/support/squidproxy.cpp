#include "support/squidproxy.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <pwd.h>
#include <unistd.h>

bool SquidProxy::start(const QString &squid, const QString &dir, const QMap<QString, QString> &hosts, QString *why)
{
    m_dir = dir;
    m_port = ServerProcess::freePort();
    if (!QDir().mkpath(dir)) {
        *why = QStringLiteral("cannot make %1").arg(dir);
        return false;
    }
    QString user;
    if (::geteuid() == 0) {
        const passwd *nobody = ::getpwnam("nobody");
        if (!nobody || ::chown(QFile::encodeName(dir).constData(), nobody->pw_uid, nobody->pw_gid) != 0) {
            *why = QStringLiteral("squid will not run as root, and %1 cannot be given to nobody").arg(dir);
            return false;
        }
        // nobody passes through the test's private folder to its own.
        const QString parent = QFileInfo(dir).absolutePath();
        QFile::setPermissions(parent, QFile::permissions(parent) | QFile::ExeOther);
        user = QStringLiteral("cache_effective_user nobody\n");
    }
    QString hostsText;
    for (auto it = hosts.cbegin(); it != hosts.cend(); ++it)
        hostsText += it.value() + QLatin1Char(' ') + it.key() + QLatin1Char('\n');
    const QString config = QStringLiteral(R"(http_port 127.0.0.1:%1
pid_filename %2/squid.pid
cache_log %2/cache.log
logformat requests %rm %ru %>Hs
access_log stdio:%2/access.log requests
coredump_dir %2
hosts_file %2/hosts
netdb_filename none
pinger_enable off
cache deny all
shutdown_lifetime 0 seconds
acl loopback dst 127.0.0.0/8
http_access allow localhost loopback
http_access deny all
%3)")
                               .arg(m_port)
                               .arg(dir, user);
    for (const auto &[name, text] :
         {std::pair{QStringLiteral("squid.conf"), config}, {QStringLiteral("hosts"), hostsText}}) {
        QFile file(QDir(dir).filePath(name));
        if (!file.open(QIODevice::WriteOnly) || file.write(text.toUtf8()) < 0) {
            *why = QStringLiteral("cannot write %1").arg(file.fileName());
            return false;
        }
    }
    // -N: no daemon; -n: a service name of its own (letters and digits), which names its shared
    // memory segments, so that squids of tests running at once do not collide.
    const QString service = QStringLiteral("tb%1p%2").arg(QCoreApplication::applicationPid()).arg(m_port);
    return m_process.start(squid,
                           {QStringLiteral("-N"), QStringLiteral("-n"), service, QStringLiteral("-f"),
                            QDir(dir).filePath(QStringLiteral("squid.conf"))},
                           {m_port}, QDir(dir).filePath(QStringLiteral("cache.log")), why);
}

QString SquidProxy::url() const
{
    return QStringLiteral("http://127.0.0.1:%1").arg(m_port);
}

QByteArrayList SquidProxy::accessLog() const
{
    QFile file(QDir(m_dir).filePath(QStringLiteral("access.log")));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll().split('\n');
}
