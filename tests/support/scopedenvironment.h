#pragma once

// The proxy variables of this process for one test (tst_proxyengine, tst_tlsgateway).

#include <QByteArray>
#include <QHash>
#include <QStringList>

/// The process environment for one test: every proxy variable cleared and `assignments`
/// ("HTTPS_PROXY=http://…") set on construction, restored on destruction.
class ScopedEnvironment
{
public:
    explicit ScopedEnvironment(const QStringList &assignments)
    {
        for (const char *name : {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
                                 "no_proxy", "NO_PROXY"}) {
            if (qEnvironmentVariableIsSet(name))
                m_saved.insert(QByteArray(name), qgetenv(name));
            qunsetenv(name);
        }
        for (const QString &a : assignments)
            qputenv(a.section(QLatin1Char('='), 0, 0).toLatin1().constData(), a.section(QLatin1Char('='), 1).toUtf8());
        m_set = assignments;
    }
    ~ScopedEnvironment()
    {
        for (const QString &a : std::as_const(m_set))
            qunsetenv(a.section(QLatin1Char('='), 0, 0).toLatin1().constData());
        for (auto it = m_saved.cbegin(); it != m_saved.cend(); ++it)
            qputenv(it.key().constData(), it.value());
    }
    ScopedEnvironment(const ScopedEnvironment &) = delete;
    ScopedEnvironment &operator=(const ScopedEnvironment &) = delete;

private:
    QStringList m_set;
    QHash<QByteArray, QByteArray> m_saved;
};
