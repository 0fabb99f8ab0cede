#pragma once

#include <QByteArray>
#include <QList>
#include <QNetworkProxy>
#include <QProcessEnvironment>
#include <QString>
#include <QUrl>

#include <functional>
#include <optional>

namespace tb {

/// Where a ProxyChoice came from.
enum class ProxySource {
    None,        ///< nothing configured anywhere: direct
    Setting,     ///< the target's own setting (target.proxy, --proxy, --no-proxy)
    Environment, ///< HTTPS_PROXY, HTTP_PROXY, ALL_PROXY or NO_PROXY (either case)
    System,      ///< QNetworkProxyFactory::systemProxyForQuery
};
const char *proxySourceName(ProxySource source); ///< "none" | "config" | "environment" | "system"

/// The proxy one target's connections go through, or none, and why. Holds the proxy's credentials
/// (sent as Proxy-Authorization); url() and describe() never show them.
struct ProxyChoice {
    bool direct = true;
    QString host;
    quint16 port = 0;
    QString user;     ///< percent-decoded
    QString password; ///< percent-decoded
    ProxySource source = ProxySource::None;
    /// What decided: the variable's name ("HTTPS_PROXY", "no_proxy"), "target.proxy" or "system".
    QString origin;

    /// "http://host:port" without userinfo; empty when direct.
    QString url() const;
    /// "http://host:port (HTTPS_PROXY)", "none (NO_PROXY)", "none": for consoles and run files.
    QString describe() const;
    /// "Basic …" for Proxy-Authorization; empty without credentials.
    QByteArray authorization() const;
    /// The same proxy for QNetworkAccessManager (NoProxy when direct).
    QNetworkProxy networkProxy() const;
    bool operator==(const ProxyChoice &) const = default;
};

/// Decides which proxy carries a target's connections, the way curl does:
/// - the setting "none" means direct; a URL means that proxy; "" means the environment: for an
///   https target https_proxy, else for http http_proxy, else all_proxy (lower case first, then
///   upper case), and when none of these is set the system configuration;
/// - NO_PROXY (no_proxy first) then exempts hosts, whichever way the proxy was chosen (see
///   bypasses()).
/// Only http:// proxies are accepted (a URL without a scheme is taken as http://): https targets
/// go through them with CONNECT.
class ProxyResolver
{
public:
    using SystemLookup = std::function<QList<QNetworkProxy>(const QUrl &target)>;

    /// The system configuration for `target` (QNetworkProxyFactory::systemProxyForQuery).
    static QList<QNetworkProxy> systemLookup(const QUrl &target);

    /// nullopt with *error (naming the setting or variable, never its credentials) when the proxy
    /// named cannot be used.
    static std::optional<ProxyChoice> resolve(const QUrl &target, const QString &setting,
                                              const QProcessEnvironment &environment, const SystemLookup &system,
                                              QString *error);
    /// With this process's environment and the system configuration.
    static std::optional<ProxyChoice> resolve(const QUrl &target, const QString &setting, QString *error);

    /// curl's NO_PROXY rules: a comma (or space) separated list; "*" alone exempts every host;
    /// a name exempts itself and its subdomains ("example.com" and ".example.com" both match
    /// example.com and api.example.com, not myexample.com), case-insensitively; an IP address
    /// exempts that address and a CIDR block ("10.0.0.0/8", "::1") the addresses in it (names are
    /// not resolved); an entry with ":port" ("example.com:8443", "[::1]:8000") exempts only that
    /// port.
    static bool bypasses(const QString &noProxy, const QString &host, int port);

    /// A proxy URL: "http://[user:password@]host[:port]" or "host[:port]" (port 1080 when absent,
    /// like curl). nullopt with *error (without the credentials) otherwise.
    static std::optional<ProxyChoice> parseProxyUrl(const QString &text, QString *error);

    /// Empty, or what is wrong with a target.proxy setting: "", "none" or a proxy URL.
    static QString settingProblem(const QString &setting);
};

} // namespace tb
