// A real Prometheus (Debian's prometheus 2.42, started by this test on 127.0.0.1, scraping every
// second) reads tokenbench-cli run's --metrics-listen and the simulator's /metrics while an 8 s run
// goes; its HTTP API's answers are checked against the run's own summary.json: request counters by
// status and HTTP code and token counters exactly, histogram_quantile over TokenBench's buckets
// within the buckets' resolution, the simulator's counters as Prometheus stored them, and every
// PromQL expression of the Grafana dashboard in packaging/grafana (issue 31).
#include "support/prometheusserver.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <map>

using nlohmann::json;

namespace {

/// How long the run offers load, and how long the CLI serves its final figures after it: long
/// enough for the checks below, which end the wait with SIGTERM.
constexpr int kRunSeconds = 8;
constexpr int kLingerSeconds = 60;
/// The exporter reads its buckets off the summary's log histograms: a value within 0.5% of a bound
/// may be counted on either side of it (docs/metrics.md).
constexpr double kBucketEdge = 0.005;

json readJson(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return json();
    const QByteArray text = file.readAll();
    return json::parse(text.constBegin(), text.constEnd(), nullptr, false);
}

/// "a=1 b=2": a map the test compares, readable when the comparison fails.
QString text(const std::map<std::string, double> &values)
{
    QStringList parts;
    for (const auto &[key, value] : values)
        parts << QStringLiteral("%1=%2").arg(QString::fromStdString(key)).arg(value, 0, 'g', 12);
    return parts.join(QLatin1Char(' '));
}

/// The `result` of an instant query as label set → value; fails the test on an error.
std::map<std::string, double> byLabel(const PrometheusServer &prometheus, const QString &expr, const char *label,
                                      QString *why)
{
    std::map<std::string, double> out;
    const auto data = prometheus.query(expr, why);
    if (!data)
        return out;
    for (const json &series : data->value("result", json::array()))
        out[series["metric"].value(label, std::string())] = std::stod(series["value"][1].get<std::string>());
    return out;
}

} // namespace

class TestPrometheusScrape : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    ServerProcess m_sim;
    PrometheusServer m_prometheus;
    QProcess m_cli; ///< the run, then its wait for scrapers (--metrics-linger)
    json m_summary;
    QDateTime m_origin; ///< run.json's clock.wall_origin: the load's start

    QString outDir() const { return m_dir.filePath(QStringLiteral("run")); }

    /// One number from an instant query that must answer with exactly one series; NaN otherwise.
    double scalar(const QString &expr)
    {
        QString why;
        const auto data = m_prometheus.query(expr, &why);
        if (!data) {
            qWarning("%s", qPrintable(why));
            return std::nan("");
        }
        const json &result = (*data)["result"];
        if (result.size() != 1) // none yet, while a QTRY waits for the first scrape
            return std::nan("");
        return std::stod(result[0]["value"][1].get<std::string>());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QString why;
        // Requests queue for the 4 batch slots, so first tokens spread over several buckets
        // (30 ms … about 180 ms); one in ten is answered 500.
        const quint16 simPort = ServerProcess::freePort();
        QVERIFY2(m_sim.start(QStringLiteral(TOKENBENCH_CLI),
                             {QStringLiteral("sim"), QStringLiteral("--preset"), QStringLiteral("fast"),
                              QStringLiteral("--port"), QString::number(simPort), QStringLiteral("--ttft-ms"),
                              QStringLiteral("30"), QStringLiteral("--step-ms"), QStringLiteral("6"),
                              QStringLiteral("--max-batch"), QStringLiteral("4"), QStringLiteral("--output-tokens"),
                              QStringLiteral("20"), QStringLiteral("--output-dist"), QStringLiteral("exponential"),
                              QStringLiteral("--output-min"), QStringLiteral("1"), QStringLiteral("--error-rate"),
                              QStringLiteral("0.1")},
                             {simPort}, QString(), &why),
                 qPrintable(why));
        // A port picked free may be taken before Prometheus binds it (other tests connect meanwhile).
        const quint16 metricsPort = ServerProcess::freePort();
        bool started = false;
        for (int attempt = 0; attempt < 3 && !started; ++attempt)
            started = m_prometheus.start(
                QStringLiteral(TOKENBENCH_PROMETHEUS), m_dir.filePath(QStringLiteral("prometheus%1").arg(attempt)),
                {{QStringLiteral("tokenbench"), QStringLiteral("127.0.0.1:%1").arg(metricsPort)},
                 {QStringLiteral("simulator"), QStringLiteral("127.0.0.1:%1").arg(simPort)}},
                &why);
        QVERIFY2(started, qPrintable(why));
        // Prometheus syncs its first targets about 5 s after it is ready: the run starts once it
        // scrapes, or its first seconds would go unseen.
        QTRY_COMPARE_WITH_TIMEOUT(scalar(QStringLiteral("up{job=\"simulator\"}")), 1.0, 20000);

        m_cli.start(QStringLiteral(TOKENBENCH_CLI),
                    {QStringLiteral("run"), QStringLiteral("--url"),
                     QStringLiteral("http://127.0.0.1:%1/v1").arg(simPort), QStringLiteral("--model"),
                     QStringLiteral("fast"), QStringLiteral("--concurrency"), QStringLiteral("8"),
                     QStringLiteral("--duration"), QStringLiteral("%1s").arg(kRunSeconds),
                     QStringLiteral("--prompt-tokens"), QStringLiteral("50"), QStringLiteral("--metrics-listen"),
                     QStringLiteral("127.0.0.1:%1").arg(metricsPort), QStringLiteral("--metrics-linger"),
                     QStringLiteral("%1s").arg(kLingerSeconds), QStringLiteral("--out"), outDir()});
        QVERIFY(m_cli.waitForStarted());
        // summary.json is written (whole, by a rename) as the run ends, before the wait begins.
        const QString summaryFile = QDir(outDir()).filePath(QStringLiteral("summary.json"));
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(summaryFile) || m_cli.state() == QProcess::NotRunning,
                                 (kRunSeconds + 30) * 1000);
        if (m_cli.state() != QProcess::Running)
            QFAIL(qPrintable(QStringLiteral("the run ended before its wait: exit %1, %2")
                                 .arg(m_cli.exitCode())
                                 .arg(QString::fromLocal8Bit(m_cli.readAllStandardError().right(2000)))));
        m_summary = readJson(summaryFile);
        QVERIFY(m_summary.is_object());
        m_origin = QDateTime::fromString(
            QString::fromStdString(readJson(QDir(outDir()).filePath(QStringLiteral("run.json")))["clock"].value(
                "wall_origin", std::string())),
            Qt::ISODateWithMs);
        QVERIFY(m_origin.isValid());
        // Prometheus has the final figures once it has scraped the lingering endpoint.
        double requests = double(m_summary["requests"]["ok"].get<qint64>());
        for (const auto &[error, n] : m_summary["requests"]["by_error"].items())
            requests += double(n.get<qint64>());
        QVERIFY(requests > 100);
        QTRY_COMPARE_WITH_TIMEOUT(scalar(QStringLiteral("sum(tokenbench_requests_total)")), requests, 10000);
    }

    void bothJobsAreUp()
    {
        QString why;
        const auto up = byLabel(m_prometheus, QStringLiteral("up"), "job", &why);
        QVERIFY2(why.isEmpty(), qPrintable(why));
        QCOMPARE(text(up), QStringLiteral("simulator=1 tokenbench=1"));
    }

    // The request counters by status, and the responses by HTTP code, are the summary's exactly:
    // Prometheus saw the run's end (the CLI used to exit with it, and a scraper missed up to one
    // interval of the run; now --metrics-linger keeps serving the final figures).
    void requestCountersMatchSummary()
    {
        QString why;
        std::map<std::string, double> expected{{"ok", double(m_summary["requests"]["ok"].get<qint64>())}};
        for (const auto &[error, n] : m_summary["requests"]["by_error"].items())
            expected[error] = double(n.get<qint64>());
        QVERIFY2(expected.size() >= 2, "the simulator's 500s were to give an error class");
        QCOMPARE(
            text(byLabel(m_prometheus, QStringLiteral("sum by (status) (tokenbench_requests_total)"), "status", &why)),
            text(expected));
        QVERIFY2(why.isEmpty(), qPrintable(why));
        std::map<std::string, double> codes;
        for (const auto &[code, n] : m_summary["requests"]["by_status"].items())
            codes[code] = double(n.get<qint64>());
        QCOMPARE(text(byLabel(m_prometheus, QStringLiteral("sum by (code) (tokenbench_http_responses_total)"), "code",
                              &why)),
                 text(codes));
        QVERIFY2(why.isEmpty(), qPrintable(why));
    }

    void tokenCountersMatchSummary()
    {
        QString why;
        const json &tokens = m_summary["tokens"];
        const std::map<std::string, double> expected{{"cached", double(tokens["cached"].get<qint64>())},
                                                     {"input", double(tokens["input"].get<qint64>())},
                                                     {"output", double(tokens["output"].get<qint64>())}};
        QCOMPARE(text(byLabel(m_prometheus, QStringLiteral("sum by (kind) (tokenbench_tokens_total)"), "kind", &why)),
                 text(expected));
        QVERIFY2(why.isEmpty(), qPrintable(why));
        QVERIFY(expected.at("output") > 0);
    }

    void quantileWithinBucketOfSummary_data()
    {
        QTest::addColumn<QString>("family");
        QTest::addColumn<QString>("summaryKey");
        QTest::addColumn<double>("q");
        QTest::addColumn<QString>("percentile");
        for (const auto &[family, key] :
             {std::pair{"tokenbench_ttft_seconds", "ttft"}, std::pair{"tokenbench_itl_seconds", "itl"},
              std::pair{"tokenbench_e2e_seconds", "e2e"}}) {
            for (const auto &[q, p] : {std::pair{0.5, "p50"}, std::pair{0.9, "p90"}, std::pair{0.99, "p99"}})
                QTest::addRow("%s %s", key, p)
                    << QString::fromLatin1(family) << QString::fromLatin1(key) << q << QString::fromLatin1(p);
        }
    }

    // histogram_quantile interpolates within the bucket where the quantile's rank falls, which is
    // the bucket the true value lies in. The rule: with (lo, hi] the bucket of Prometheus'
    // estimate, the summary's percentile lies in [lo, hi] (up to the next bound when the estimate
    // is hi itself), each bound widened by the 0.5% within which a value may count on either side
    // of it.
    void quantileWithinBucketOfSummary()
    {
        QFETCH(QString, family);
        QFETCH(QString, summaryKey);
        QFETCH(double, q);
        QFETCH(QString, percentile);
        const double truth =
            m_summary["latency_ms"][summaryKey.toStdString()][percentile.toStdString()].get<double>() / 1000.0;
        const double estimate =
            scalar(QStringLiteral("histogram_quantile(%1, sum by (le) (%2_bucket))").arg(q).arg(family));
        QVERIFY2(std::isfinite(estimate), qPrintable(family));
        QString why;
        std::vector<double> bounds{0};
        for (const auto &[le, n] :
             byLabel(m_prometheus, QStringLiteral("sum by (le) (%1_bucket)").arg(family), "le", &why)) {
            if (le != "+Inf")
                bounds.push_back(std::stod(le));
        }
        QVERIFY2(why.isEmpty(), qPrintable(why));
        std::sort(bounds.begin(), bounds.end());
        QVERIFY(bounds.size() > 10);
        const auto hi = std::lower_bound(bounds.begin(), bounds.end(), estimate);
        QVERIFY2(hi != bounds.end() && hi != bounds.begin(), qPrintable(QString::number(estimate)));
        const double lo = *(hi - 1);
        // An estimate on a bound is a rank that ends its bucket: the value of that rank may be the
        // next one up, in the bucket above.
        const double upper = estimate == *hi && hi + 1 != bounds.end() ? *(hi + 1) : *hi;
        QVERIFY2(truth >= lo * (1 - kBucketEdge) && truth <= upper * (1 + kBucketEdge),
                 qPrintable(QStringLiteral("summary %1 s, Prometheus %2 s in bucket (%3, %4]")
                                .arg(truth)
                                .arg(estimate)
                                .arg(lo)
                                .arg(*hi)));
        qInfo("summary %.4f s, Prometheus %.4f s in bucket (%g, %g]", truth, estimate, lo, *hi);
        // The count is exact: the summary's whole run.
        QCOMPARE(scalar(QStringLiteral("sum(%1_count)").arg(family)),
                 double(m_summary["latency_ms"][summaryKey.toStdString()]["count"].get<qint64>()));
    }

    // The simulator's own counters, as Prometheus stored them, agree with what the client counted.
    // (The simulator keeps serving after the run: its last counts come with its next scrape.)
    void simulatorSeriesMatchSummary()
    {
        const double ok = double(m_summary["requests"]["ok"].get<qint64>());
        QTRY_COMPARE_WITH_TIMEOUT(scalar(QStringLiteral("sum(vllm:request_success_total)")), ok, 5000);
        QCOMPARE(scalar(QStringLiteral("vllm:generation_tokens_total")),
                 double(m_summary["tokens"]["output"].get<qint64>()));
        QCOMPARE(scalar(QStringLiteral("sum(vllm:e2e_request_latency_seconds_count)")), ok);
    }

    void dashboardExpressionsAnswer_data()
    {
        QTest::addColumn<QString>("expr");
        const json dashboard =
            readJson(QStringLiteral(TOKENBENCH_SOURCE_DIR "/packaging/grafana/tokenbench-dashboard.json"));
        QVERIFY(dashboard.is_object());
        // Grafana's value of each variable with "All" picked: its allValue (a regex).
        std::map<QString, QString> values{{QStringLiteral("__rate_interval"), QStringLiteral("5s")}};
        for (const json &variable : dashboard["templating"]["list"]) {
            if (variable.value("type", std::string()) == "query")
                values[QString::fromStdString(variable["name"].get<std::string>())] =
                    QString::fromStdString(variable.value("allValue", std::string()));
        }
        int panels = 0;
        const auto addTargets = [&](const json &panel) {
            for (const json &target : panel.value("targets", json::array())) {
                QString expr = QString::fromStdString(target["expr"].get<std::string>());
                // $name and ${name}, longest names first ($__rate_interval before a $__rate).
                static const QRegularExpression variable(QStringLiteral(R"(\$\{?(\w+)\}?)"));
                QString substituted;
                qsizetype last = 0;
                for (const QRegularExpressionMatch &m : variable.globalMatch(expr)) {
                    const auto found = values.find(m.captured(1));
                    QVERIFY2(found != values.end(),
                             qPrintable(QStringLiteral("%1: no value for $%2 in %3")
                                            .arg(QString::fromStdString(panel["title"].get<std::string>()),
                                                 m.captured(1), expr)));
                    substituted += expr.mid(last, m.capturedStart() - last) + found->second;
                    last = m.capturedEnd();
                }
                QTest::addRow("%s: %s", panel["title"].get<std::string>().c_str(),
                              target["refId"].get<std::string>().c_str())
                    << substituted + expr.mid(last);
            }
            ++panels;
        };
        for (const json &panel : dashboard["panels"]) {
            addTargets(panel);
            for (const json &inner : panel.value("panels", json::array())) // a collapsed row's
                addTargets(inner);
        }
        QVERIFY(panels >= 10);
    }

    // Every expression of the dashboard, its variables as Grafana fills them with "All" picked,
    // parses and answers with at least one series with a number, 6 s into the run's load.
    void dashboardExpressionsAnswer()
    {
        QFETCH(QString, expr);
        QString why;
        const auto data = m_prometheus.query(expr, &why, m_origin.addSecs(kRunSeconds - 2));
        QVERIFY2(data, qPrintable(why));
        const json &result = (*data)["result"];
        QVERIFY2(!result.empty(), qPrintable(expr));
        for (const json &series : result) {
            const double v = std::stod(series["value"][1].get<std::string>());
            QVERIFY2(std::isfinite(v), qPrintable(expr + QStringLiteral(": ") + QString::fromStdString(series.dump())));
        }
    }

    // The dashboard's variables are label_values(SERIES, LABEL): each offers a value.
    void dashboardVariablesOfferValues()
    {
        const json dashboard =
            readJson(QStringLiteral(TOKENBENCH_SOURCE_DIR "/packaging/grafana/tokenbench-dashboard.json"));
        static const QRegularExpression labelValues(QStringLiteral(R"(^label_values\(([^,]+),\s*(\w+)\)$)"));
        int variables = 0;
        for (const json &variable : dashboard["templating"]["list"]) {
            if (variable.value("type", std::string()) != "query")
                continue;
            const QString definition = QString::fromStdString(variable["definition"].get<std::string>());
            const QRegularExpressionMatch m = labelValues.match(definition);
            QVERIFY2(m.hasMatch(), qPrintable(definition));
            QString why;
            const auto values = m_prometheus.labelValues(m.captured(2), m.captured(1), &why);
            QVERIFY2(values, qPrintable(why));
            QVERIFY2(!values->empty(), qPrintable(definition));
            ++variables;
        }
        QCOMPARE(variables, 2);
    }

    // The wait after the run ends at SIGTERM (not after its 60 s) with the run's exit code.
    void lingerEndsAtSignalWithRunExitCode()
    {
        QCOMPARE(m_cli.state(), QProcess::Running);
        m_cli.terminate();
        QVERIFY(m_cli.waitForFinished(10000));
        QCOMPARE(m_cli.exitStatus(), QProcess::NormalExit);
        QCOMPARE(m_cli.exitCode(), 0);
        QVERIFY(m_cli.readAllStandardError().contains("serving the final figures at http://127.0.0.1:"));
    }

    void cleanupTestCase()
    {
        if (m_cli.state() != QProcess::NotRunning) {
            m_cli.kill();
            m_cli.waitForFinished();
        }
    }
};

QTEST_GUILESS_MAIN(TestPrometheusScrape)
#include "tst_prometheusscrape.moc"
