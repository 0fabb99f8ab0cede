#include "support/nginxgateway.h"

#include <QDir>
#include <QFile>

bool NginxGateway::start(const QString &nginx, const QString &dir, const QUrl &upstream, const QList<Site> &sites,
                         QString *why)
{
    m_dir = dir;
    QString servers;
    QList<quint16> ports;
    for (const Site &site : sites) {
        ports << site.port;
        servers +=
            QStringLiteral(R"(
    server {
        listen 127.0.0.1:%1 ssl%2;
        ssl_certificate %3;
        ssl_certificate_key %4;
        ssl_protocols TLSv1.2 TLSv1.3;%5
        location / {
            proxy_pass %6;
            proxy_http_version 1.1;
            proxy_buffering off;
        }
    })")
                .arg(site.port)
                .arg(site.http2Only ? QStringLiteral(" http2") : QString(), site.certificate, site.key,
                     site.http2Only ? QStringLiteral("\n        if ($server_protocol != \"HTTP/2.0\") { return 444; }")
                                    : QString(),
                     upstream.toString(QUrl::RemovePath));
    }
    const QString config = QStringLiteral(R"(daemon off;
master_process off;
worker_processes 1;
pid %1/nginx.pid;
error_log %1/error.log info;
events { worker_connections 1024; }
http {
    log_format ports '$server_port $server_protocol $request_method $uri $status';
    access_log %1/access.log ports;
    client_body_temp_path %1/body;
    proxy_temp_path %1/proxy;
    fastcgi_temp_path %1/fastcgi;
    uwsgi_temp_path %1/uwsgi;
    scgi_temp_path %1/scgi;%2
}
)")
                               .arg(dir, servers);
    QFile file(QDir(dir).filePath(QStringLiteral("nginx.conf")));
    if (!file.open(QIODevice::WriteOnly) || file.write(config.toUtf8()) < 0) {
        *why = QStringLiteral("cannot write %1").arg(file.fileName());
        return false;
    }
    file.close();
    const QString log = QDir(dir).filePath(QStringLiteral("error.log"));
    // -e: the log for what comes before the configuration is read (the default is /var/log).
    return m_process.start(
        nginx, {QStringLiteral("-p"), dir, QStringLiteral("-c"), file.fileName(), QStringLiteral("-e"), log}, ports,
        log, why);
}

QByteArrayList NginxGateway::accessLog() const
{
    QFile file(QDir(m_dir).filePath(QStringLiteral("access.log")));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll().split('\n');
}

bool NginxGateway::makeCertificate(const QString &openssl, const QString &dir, const QString &name,
                                   const QString &subjectAltName, QString *why)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.setWorkingDirectory(dir);
    p.start(openssl, {QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"), QStringLiteral("ec"),
                      QStringLiteral("-pkeyopt"), QStringLiteral("ec_paramgen_curve:prime256v1"),
                      QStringLiteral("-nodes"), QStringLiteral("-days"), QStringLiteral("2"), QStringLiteral("-subj"),
                      QStringLiteral("/CN=") + subjectAltName.section(QLatin1Char(':'), 1), QStringLiteral("-addext"),
                      QStringLiteral("subjectAltName=") + subjectAltName, QStringLiteral("-keyout"),
                      name + QStringLiteral(".key"), QStringLiteral("-out"), name + QStringLiteral(".crt")});
    if (p.waitForFinished(30000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0)
        return true;
    *why = QStringLiteral("openssl req for %1 failed: %2").arg(subjectAltName, QString::fromLocal8Bit(p.readAll()));
    return false;
}
