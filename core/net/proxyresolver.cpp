#include "net/proxyresolver.h"

#include "config/runconfig.h"

#include <QHostAddress>
#include <QNetworkProxyFactory>
#include <QNetworkProxyQuery>
#include <QRegularExpression>

namespace tb {

namespace {

constexpr qsizetype kMaxProxyUrl = 2048;
constexpr qsizetype kMaxNoProxy = 64 * 1024;
constexpr quint16 kDefaultProxyPort = 1080; // curl's

/// The first of `names` set to a non-empty value in `environment`: {name, value}.
std::pair<QString, QString> firstSet(const QProcessEnvironment &environment, std::initializer_list<const char *> names)
{
    for (const char *name : names) {
        const QString value = environment.value(QLatin1String(name)).trimmed();
        if (!value.isEmpty())
            return {QLatin1String(name), value};
    }
    return {};
}

/// The proxy the URL `text` names, chosen from `source` (`origin` says which setting or variable);
/// nullopt with *error (what `where` names, then what is wrong) when it is not a proxy URL.
std::optional<ProxyChoice> namedProxy(const QString &text, ProxySource source, const QString &origin,
                                      const QString &where, QString *error)
{
    QString why;
    auto choice = ProxyResolver::parseProxyUrl(text, &why);
    if (!choice) {
        if (error)
            *error = where + QStringLiteral(": ") + why;
        return std::nullopt;
    }
    choice->source = source;
    choice->origin = origin;
    return choice;
}

struct NoProxyEntry {
    QString host;
    int port = -1;
};

/// "name", "name:port", "1.2.3.4:80", "::1", "[::1]:80", "10.0.0.0/8".
NoProxyEntry splitEntry(const QString &entry)
{
    NoProxyEntry e;
    if (entry.startsWith(QLatin1Char('['))) {
        const qsizetype close = entry.indexOf(QLatin1Char(']'));
        if (close < 0)
            return {entry, -1};
        const QString rest = entry.mid(close + 1);
        e.host = entry.mid(1, close - 1);
        if (rest.startsWith(QLatin1Char(':')))
            e.port = rest.mid(1).toInt();
        return e;
    }
    // More than one colon: an IPv6 address without brackets (curl's spelling), no port.
    if (entry.count(QLatin1Char(':')) == 1) {
        const qsizetype colon = entry.indexOf(QLatin1Char(':'));
        bool ok = false;
        const int port = entry.mid(colon + 1).toInt(&ok);
        e.host = entry.left(colon);
        e.port = ok ? port : 0; // a bad port matches no port
        return e;
    }
    e.host = entry;
    return e;
}

bool entryMatches(const NoProxyEntry &entry, const QString &host, const QHostAddress &hostAddress)
{
    QString pattern = entry.host.toLower();
    if (pattern.contains(QLatin1Char('/')) ||
        QHostAddress(pattern).protocol() != QAbstractSocket::UnknownNetworkLayerProtocol) {
        // An address or a block of them: compared as addresses (an address-named host only).
        if (hostAddress.isNull())
            return false;
        const auto subnet = QHostAddress::parseSubnet(pattern);
        if (!subnet.first.isNull())
            return hostAddress.isInSubnet(subnet);
        return QHostAddress(pattern).isEqual(hostAddress, QHostAddress::TolerantConversion);
    }
    // A leading "." (and the common "*." spelling) means the same as none: the domain and below.
    if (pattern.startsWith(QLatin1String("*.")))
        pattern.remove(0, 2);
    else if (pattern.startsWith(QLatin1Char('.')))
        pattern.remove(0, 1);
    while (pattern.endsWith(QLatin1Char('.')))
        pattern.chop(1);
    if (pattern.isEmpty())
        return false;
    return host == pattern || (host.endsWith(pattern) && host.at(host.size() - pattern.size() - 1) == QLatin1Char('.'));
}

} // namespace

const char *proxySourceName(ProxySource source)
{
    switch (source) {
    case ProxySource::None:
        return "none";
    case ProxySource::Setting:
        return "config";
    case ProxySource::Environment:
        return "environment";
    case ProxySource::System:
        return "system";
    }
    return "none";
}

QString ProxyChoice::url() const
{
    if (direct)
        return {};
    const QString shownHost = host.contains(QLatin1Char(':')) ? QLatin1Char('[') + host + QLatin1Char(']') : host;
    return QStringLiteral("http://%1:%2").arg(shownHost).arg(port);
}

QString ProxyChoice::describe() const
{
    const QString what = direct ? QStringLiteral("none") : url();
    return origin.isEmpty() ? what : QStringLiteral("%1 (%2)").arg(what, origin);
}

QByteArray ProxyChoice::authorization() const
{
    if (direct || (user.isEmpty() && password.isEmpty()))
        return {};
    return "Basic " + (user + QLatin1Char(':') + password).toUtf8().toBase64();
}

QNetworkProxy ProxyChoice::networkProxy() const
{
    if (direct)
        return QNetworkProxy(QNetworkProxy::NoProxy);
    return QNetworkProxy(QNetworkProxy::HttpProxy, host, port, user, password);
}

QList<QNetworkProxy> ProxyResolver::systemLookup(const QUrl &target)
{
    return QNetworkProxyFactory::systemProxyForQuery(QNetworkProxyQuery(target));
}

std::optional<ProxyChoice> ProxyResolver::parseProxyUrl(const QString &text, QString *error)
{
    const auto fail = [&](const QString &why) {
        if (error)
            *error = QStringLiteral("'%1' %2").arg(withoutUserInfo(text).left(200), why);
        return std::nullopt;
    };
    if (text.size() > kMaxProxyUrl)
        return fail(QStringLiteral("is longer than %1 characters").arg(kMaxProxyUrl));
    static const QRegularExpression scheme(QStringLiteral("^[A-Za-z][A-Za-z0-9+.-]*://"));
    const QString full = scheme.match(text).hasMatch() ? text : QStringLiteral("http://") + text;
    const QUrl url(full, QUrl::StrictMode);
    if (!url.isValid() || url.host().isEmpty())
        return fail(QStringLiteral("is not a proxy URL (http://[user:password@]host[:port])"));
    if (url.scheme().toLower() != QLatin1String("http"))
        return fail(
            QStringLiteral("is a %1:// proxy; only http:// proxies are supported (https targets go through them "
                           "with CONNECT)")
                .arg(url.scheme()));
    if ((!url.path().isEmpty() && url.path() != QLatin1String("/")) || url.hasQuery() || url.hasFragment())
        return fail(QStringLiteral("has a path; a proxy URL is http://host:port"));
    ProxyChoice choice;
    choice.direct = false;
    choice.host = url.host();
    choice.port = quint16(url.port(kDefaultProxyPort));
    if (choice.port == 0)
        return fail(QStringLiteral("has port 0"));
    choice.user = url.userName(QUrl::FullyDecoded);
    choice.password = url.password(QUrl::FullyDecoded);
    return choice;
}

QString ProxyResolver::settingProblem(const QString &setting)
{
    if (setting.isEmpty() || setting == QLatin1String("none"))
        return {};
    QString why;
    if (!parseProxyUrl(setting, &why))
        return QStringLiteral("target.proxy (--proxy): %1; or \"none\", or empty for the environment").arg(why);
    return {};
}

bool ProxyResolver::bypasses(const QString &noProxy, const QString &host, int port)
{
    if (noProxy.size() > kMaxNoProxy)
        return false;
    QString name = host.toLower();
    if (name.startsWith(QLatin1Char('[')) && name.endsWith(QLatin1Char(']')))
        name = name.mid(1, name.size() - 2);
    while (name.endsWith(QLatin1Char('.')))
        name.chop(1);
    const QHostAddress address(name);
    static const QRegularExpression separators(QStringLiteral("[,\\s]+"));
    for (const QString &item : noProxy.split(separators, Qt::SkipEmptyParts)) {
        if (item == QLatin1String("*"))
            return true;
        const NoProxyEntry entry = splitEntry(item);
        if (entry.port >= 0 && entry.port != port)
            continue;
        if (entryMatches(entry, name, address))
            return true;
    }
    return false;
}

std::optional<ProxyChoice> ProxyResolver::resolve(const QUrl &target, const QString &setting,
                                                  const QProcessEnvironment &environment, const SystemLookup &system,
                                                  QString *error)
{
    const bool https = target.scheme() == QLatin1String("https");
    const int port = target.port(https ? 443 : 80);

    ProxyChoice choice;
    if (setting == QLatin1String("none")) {
        choice.source = ProxySource::Setting;
        choice.origin = QStringLiteral("target.proxy");
        return choice;
    }
    if (!setting.isEmpty()) {
        const auto named = namedProxy(setting, ProxySource::Setting, QStringLiteral("target.proxy"),
                                      QStringLiteral("target.proxy (--proxy)"), error);
        if (!named)
            return std::nullopt;
        choice = *named;
    } else {
        const auto [name, value] = https
                                       ? firstSet(environment, {"https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"})
                                       : firstSet(environment, {"http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"});
        if (!name.isEmpty()) {
            const auto named =
                namedProxy(value, ProxySource::Environment, name, name + QStringLiteral(" (environment)"), error);
            if (!named)
                return std::nullopt;
            choice = *named;
        } else if (system) {
            for (const QNetworkProxy &p : system(target)) {
                // The system may name a SOCKS or FTP proxy: only an HTTP one can carry CONNECT.
                if (p.type() == QNetworkProxy::HttpProxy && !p.hostName().isEmpty() && p.port() != 0) {
                    choice.direct = false;
                    choice.host = p.hostName();
                    choice.port = p.port();
                    choice.user = p.user();
                    choice.password = p.password();
                    choice.source = ProxySource::System;
                    choice.origin = QStringLiteral("system");
                    break;
                }
                if (p.type() == QNetworkProxy::NoProxy || p.type() == QNetworkProxy::DefaultProxy)
                    break;
            }
        }
    }
    if (choice.direct)
        return choice;
    const auto [noName, noValue] = firstSet(environment, {"no_proxy", "NO_PROXY"});
    if (!noName.isEmpty() && bypasses(noValue, target.host(), port)) {
        ProxyChoice bypassed;
        bypassed.source = ProxySource::Environment;
        bypassed.origin = noName;
        return bypassed;
    }
    return choice;
}

std::optional<ProxyChoice> ProxyResolver::resolve(const QUrl &target, const QString &setting, QString *error)
{
    return resolve(target, setting, QProcessEnvironment::systemEnvironment(), &ProxyResolver::systemLookup, error);
}

} // namespace tb
