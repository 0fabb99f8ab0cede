#include "config/runconfig.h"
#include "net/proxyresolver.h"

#include <QtTest>

using namespace Qt::Literals::StringLiterals;

using namespace tb;

Q_DECLARE_METATYPE(QProcessEnvironment)

namespace {

QProcessEnvironment environment(const QStringList &assignments)
{
    QProcessEnvironment env;
    for (const QString &a : assignments)
        env.insert(a.section(QLatin1Char('='), 0, 0), a.section(QLatin1Char('='), 1));
    return env;
}

} // namespace

class TestProxyResolver : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void bypasses_data();
    void bypasses();
    void resolve_data();
    void resolve();
    void systemProxyUsedOnlyWithoutEnvironment();
    void badProxyNamesItsSourceWithoutCredentials_data();
    void badProxyNamesItsSourceWithoutCredentials();
    void credentialsBecomeBasicAuthorization();
    void proxyPasswordIsASecretAndNeverWritten();
};

void TestProxyResolver::bypasses_data()
{
    QTest::addColumn<QString>("noProxy");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<bool>("bypassed");

    QTest::newRow("empty") << ""
                           << "example.com" << 443 << false;
    QTest::newRow("star") << "*"
                          << "example.com" << 443 << true;
    QTest::newRow("star in a list") << "foo,*"
                                    << "example.com" << 443 << true;
    QTest::newRow("star-prefix glob is not all") << "*.internal"
                                                 << "example.com" << 443 << false;
    QTest::newRow("exact") << "example.com"
                           << "example.com" << 443 << true;
    QTest::newRow("subdomain") << "example.com"
                               << "api.example.com" << 443 << true;
    QTest::newRow("not a suffix of a label") << "example.com"
                                             << "myexample.com" << 443 << false;
    QTest::newRow("not a prefix") << "example.com"
                                  << "example.com.org" << 443 << false;
    QTest::newRow("leading dot matches the domain") << ".example.com"
                                                    << "example.com" << 443 << true;
    QTest::newRow("leading dot matches below") << ".example.com"
                                               << "a.b.example.com" << 443 << true;
    QTest::newRow("star-dot like dot") << "*.example.com"
                                       << "api.example.com" << 443 << true;
    QTest::newRow("case-insensitive") << "Example.COM"
                                      << "API.example.com" << 80 << true;
    QTest::newRow("trailing dot on host") << "example.com"
                                          << "example.com." << 80 << true;
    QTest::newRow("list with spaces") << "foo.org, example.com ,bar"
                                      << "example.com" << 80 << true;
    QTest::newRow("list, none match") << "foo.org,bar.net"
                                      << "example.com" << 80 << false;
    QTest::newRow("port matches") << "example.com:8443"
                                  << "example.com" << 8443 << true;
    QTest::newRow("port differs") << "example.com:8443"
                                  << "example.com" << 443 << false;
    QTest::newRow("ipv4 exact") << "127.0.0.1"
                                << "127.0.0.1" << 8000 << true;
    QTest::newRow("ipv4 other") << "127.0.0.1"
                                << "127.0.0.2" << 8000 << false;
    QTest::newRow("ipv4 with port") << "127.0.0.1:8000"
                                    << "127.0.0.1" << 8000 << true;
    QTest::newRow("ipv4 with other port") << "127.0.0.1:8000"
                                          << "127.0.0.1" << 9000 << false;
    QTest::newRow("ipv4 is no suffix") << "0.0.1"
                                       << "127.0.0.1" << 80 << false;
    QTest::newRow("cidr in") << "10.0.0.0/8"
                             << "10.20.30.40" << 80 << true;
    QTest::newRow("cidr out") << "10.0.0.0/8"
                              << "11.0.0.1" << 80 << false;
    QTest::newRow("address entry, name host") << "127.0.0.1"
                                              << "localhost" << 80 << false;
    QTest::newRow("ipv6 bare") << "::1"
                               << "::1" << 80 << true;
    QTest::newRow("ipv6 host in brackets") << "::1"
                                           << "[::1]" << 80 << true;
    QTest::newRow("ipv6 bracketed with port") << "[::1]:8000"
                                              << "::1" << 8000 << true;
    QTest::newRow("ipv6 bracketed other port") << "[::1]:8000"
                                               << "::1" << 80 << false;
    QTest::newRow("ipv6 cidr") << "fd00::/8"
                               << "fd12::5" << 80 << true;
}

void TestProxyResolver::bypasses()
{
    QFETCH(QString, noProxy);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(bool, bypassed);
    QCOMPARE(ProxyResolver::bypasses(noProxy, host, port), bypassed);
}

void TestProxyResolver::resolve_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("setting");
    QTest::addColumn<QStringList>("env");
    QTest::addColumn<QString>("described"); // ProxyChoice::describe()
    QTest::addColumn<QString>("source");

    const QString https = QStringLiteral("https://api.example.com/v1");
    const QString http = QStringLiteral("http://10.1.2.3:8000/v1");
    QTest::newRow("nothing: direct") << https << "" << QStringList{} << "none"
                                     << "none";
    QTest::newRow("https_proxy for https") << https << u""_s << QStringList{u"HTTPS_PROXY=http://proxy:3128"_s}
                                           << u"http://proxy:3128 (HTTPS_PROXY)"_s << u"environment"_s;
    QTest::newRow("http_proxy not for https")
        << https << u""_s << QStringList{u"HTTP_PROXY=http://proxy:3128"_s} << u"none"_s << u"none"_s;
    QTest::newRow("http_proxy for http") << http << u""_s << QStringList{u"http_proxy=proxy:3128"_s}
                                         << "http://proxy:3128 (http_proxy)"
                                         << "environment";
    QTest::newRow("lower case first") << http << u""_s
                                      << QStringList{u"http_proxy=http://low:1"_s, u"HTTP_PROXY=http://up:2"_s}
                                      << "http://low:1 (http_proxy)"
                                      << "environment";
    QTest::newRow("scheme variable before all_proxy")
        << https << u""_s << QStringList{u"ALL_PROXY=http://all:1"_s, u"https_proxy=http://sec:2"_s}
        << "http://sec:2 (https_proxy)"
        << "environment";
    QTest::newRow("all_proxy fallback") << http << u""_s << QStringList{u"ALL_PROXY=http://all:1"_s}
                                        << "http://all:1 (ALL_PROXY)"
                                        << "environment";
    QTest::newRow("empty variable is unset")
        << http << u""_s << QStringList{u"http_proxy="_s, u"HTTP_PROXY=http://up:2"_s} << u"http://up:2 (HTTP_PROXY)"_s
        << u"environment"_s;
    QTest::newRow("default port 1080") << http << u""_s << QStringList{u"http_proxy=http://proxy"_s}
                                       << "http://proxy:1080 (http_proxy)"
                                       << "environment";
    QTest::newRow("NO_PROXY exempts") << http << u""_s
                                      << QStringList{u"http_proxy=http://proxy:3128"_s, u"NO_PROXY=10.0.0.0/8"_s}
                                      << "none (NO_PROXY)"
                                      << "environment";
    QTest::newRow("no_proxy before NO_PROXY")
        << http << u""_s << QStringList{u"http_proxy=http://proxy:3128"_s, u"no_proxy=foo"_s, u"NO_PROXY=*"_s}
        << "http://proxy:3128 (http_proxy)"
        << "environment";
    QTest::newRow("loopback is proxied unless exempt")
        << u"http://127.0.0.1:8000/v1"_s << u""_s << QStringList{u"http_proxy=http://127.0.0.1:3128"_s}
        << u"http://127.0.0.1:3128 (http_proxy)"_s << u"environment"_s;
    QTest::newRow("setting wins over environment")
        << https << u"http://mine:8080"_s << QStringList{u"HTTPS_PROXY=http://theirs:3128"_s}
        << "http://mine:8080 (target.proxy)"
        << "config";
    QTest::newRow("NO_PROXY exempts the setting's proxy too")
        << https << u"http://mine:8080"_s << QStringList{u"NO_PROXY=.example.com"_s} << u"none (NO_PROXY)"_s
        << u"environment"_s;
    QTest::newRow("none ignores everything")
        << https << u"none"_s << QStringList{u"HTTPS_PROXY=http://theirs:3128"_s, u"ALL_PROXY=x:1"_s}
        << u"none (target.proxy)"_s << u"config"_s;
    QTest::newRow("ipv6 proxy shown in brackets")
        << http << "http://[fd00::1]:3128" << QStringList{} << "http://[fd00::1]:3128 (target.proxy)"
        << "config";
}

void TestProxyResolver::resolve()
{
    QFETCH(QString, target);
    QFETCH(QString, setting);
    QFETCH(QStringList, env);
    QFETCH(QString, described);
    QFETCH(QString, source);
    QString error;
    const auto choice = ProxyResolver::resolve(QUrl(target), setting, environment(env), {}, &error);
    QVERIFY2(choice, qPrintable(error));
    QCOMPARE(choice->describe(), described);
    QCOMPARE(QString::fromLatin1(proxySourceName(choice->source)), source);
    QCOMPARE(choice->direct, described.startsWith(QLatin1String("none")));
}

void TestProxyResolver::systemProxyUsedOnlyWithoutEnvironment()
{
    int asked = 0;
    const ProxyResolver::SystemLookup system = [&asked](const QUrl &) {
        ++asked;
        return QList<QNetworkProxy>{QNetworkProxy(QNetworkProxy::Socks5Proxy, QStringLiteral("socks"), 1080),
                                    QNetworkProxy(QNetworkProxy::HttpProxy, QStringLiteral("corp"), 8080)};
    };
    const QUrl target(QStringLiteral("https://api.example.com/v1"));
    auto choice = ProxyResolver::resolve(target, {}, environment({}), system, nullptr);
    QVERIFY(choice);
    QCOMPARE(asked, 1);
    QCOMPARE(choice->describe(), QStringLiteral("http://corp:8080 (system)")); // the SOCKS one is skipped
    QCOMPARE(choice->source, ProxySource::System);

    choice = ProxyResolver::resolve(target, {}, environment({u"NO_PROXY=example.com"_s}), system, nullptr);
    QVERIFY(choice);
    QVERIFY(choice->direct);

    asked = 0;
    choice = ProxyResolver::resolve(target, {}, environment({u"HTTPS_PROXY=http://env:1"_s}), system, nullptr);
    QVERIFY(choice);
    QCOMPARE(asked, 0);
    QCOMPARE(choice->host, QStringLiteral("env"));
    choice = ProxyResolver::resolve(target, QStringLiteral("none"), environment({}), system, nullptr);
    QCOMPARE(asked, 0);
}

void TestProxyResolver::badProxyNamesItsSourceWithoutCredentials_data()
{
    QTest::addColumn<QString>("setting");
    QTest::addColumn<QStringList>("env");
    QTest::addColumn<QString>("named");

    QTest::newRow("socks setting") << "socks5://user:hunter22@proxy:1080" << QStringList{} << "target.proxy (--proxy)";
    QTest::newRow("https proxy env") << u""_s << QStringList{u"HTTPS_PROXY=https://user:hunter22@proxy:443"_s}
                                     << "HTTPS_PROXY";
    QTest::newRow("path in env") << u""_s << QStringList{u"https_proxy=http://user:hunter22@proxy:3128/x"_s}
                                 << u"https_proxy"_s;
    QTest::newRow("no host") << "http://user:hunter22@:3128" << QStringList{} << "target.proxy";
    QTest::newRow("bad port") << "http://user:hunter22@proxy:99999" << QStringList{} << "target.proxy";
}

void TestProxyResolver::badProxyNamesItsSourceWithoutCredentials()
{
    QFETCH(QString, setting);
    QFETCH(QStringList, env);
    QFETCH(QString, named);
    QString error;
    QVERIFY(!ProxyResolver::resolve(QUrl(QStringLiteral("https://api.example.com")), setting, environment(env), {},
                                    &error));
    QVERIFY2(error.contains(named), qPrintable(error));
    QVERIFY2(!error.contains(QLatin1String("hunter22")), qPrintable(error));
    if (!setting.isEmpty()) {
        QVERIFY(!ProxyResolver::settingProblem(setting).isEmpty());
        QVERIFY(!ProxyResolver::settingProblem(setting).contains(QLatin1String("hunter22")));
    }
}

void TestProxyResolver::credentialsBecomeBasicAuthorization()
{
    const auto choice =
        ProxyResolver::resolve(QUrl(QStringLiteral("http://10.0.0.1/v1")),
                               QStringLiteral("http://al%40ice:p%3Ass@proxy:3128"), environment({}), {}, nullptr);
    QVERIFY(choice);
    QCOMPARE(choice->user, QStringLiteral("al@ice"));
    QCOMPARE(choice->password, QStringLiteral("p:ss"));
    QCOMPARE(choice->authorization(), QByteArray("Basic ") + QByteArray("al@ice:p:ss").toBase64());
    QVERIFY(!choice->describe().contains(QLatin1String("ice")));
    QCOMPARE(choice->networkProxy().user(), QStringLiteral("al@ice"));
    QCOMPARE(choice->networkProxy().port(), quint16(3128));
    QVERIFY(ProxyResolver::resolve(QUrl(QStringLiteral("http://10.0.0.1/v1")), QStringLiteral("http://proxy:3128"),
                                   environment({}), {}, nullptr)
                ->authorization()
                .isEmpty());
    QCOMPARE(ProxyChoice{}.networkProxy().type(), QNetworkProxy::NoProxy);
}

void TestProxyResolver::proxyPasswordIsASecretAndNeverWritten()
{
    TargetConfig target;
    target.url = QStringLiteral("http://127.0.0.1:8000/v1");
    target.model = QStringLiteral("m");
    target.proxy = QStringLiteral("http://bob:s3cretpw@proxy:3128");
    qputenv("HTTPS_PROXY", "envuser:envsecret@proxy2:3128");
    const QStringList secrets = secretsOf(target);
    qunsetenv("HTTPS_PROXY");
    QVERIFY(secrets.contains(QStringLiteral("s3cretpw")));
    QVERIFY(secrets.contains(QStringLiteral("envsecret")));
    QVERIFY(secrets.contains(QString::fromLatin1(QByteArray("bob:s3cretpw").toBase64())));

    const std::string written = toJson(target).dump();
    QVERIFY(written.find("s3cretpw") == std::string::npos);
    QVERIFY(written.find("proxy:3128") != std::string::npos);
    QCOMPARE(redacted(target).proxy, QStringLiteral("http://proxy:3128"));

    QString error;
    target.followRedirects = true;
    const auto back = targetFromJson(toJson(target), &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(back->proxy, QStringLiteral("http://proxy:3128"));
    QVERIFY(back->followRedirects);
}

QTEST_GUILESS_MAIN(TestProxyResolver)
#include "tst_proxyresolver.moc"
