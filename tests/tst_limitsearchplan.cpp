// The limit search's decisions (run/limitsearchplan.h) against made-up servers: which levels are
// tried, how often, their verdicts, why the search stops and what it answers.
#include "run/limitsearchplan.h"

#include <QTest>

#include <map>

using namespace tb;

namespace {

/// A made-up server: "8=1000/1000 16=99/100,1000/1000 *=0/100" — up to 8 every run counts 1000
/// good of 1000, up to 16 the first run 99 of 100 and later runs 1000 of 1000, above 0 of 100.
class Server
{
public:
    explicit Server(const QString &rules)
    {
        for (const QString &rule : rules.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
            const QString upTo = rule.section(QLatin1Char('='), 0, 0);
            std::vector<std::pair<qint64, qint64>> runs;
            for (const QString &run : rule.section(QLatin1Char('='), 1).split(QLatin1Char(',')))
                runs.emplace_back(run.section(QLatin1Char('/'), 0, 0).toLongLong(),
                                  run.section(QLatin1Char('/'), 1).toLongLong());
            m_rules[upTo == QLatin1String("*") ? std::numeric_limits<double>::infinity() : upTo.toDouble()] = runs;
        }
    }
    /// good, attempted of the `run`-th run (1-based) at `level`.
    std::pair<qint64, qint64> answer(double level, int run) const
    {
        const auto &runs = m_rules.lower_bound(level)->second;
        return runs[std::min<std::size_t>(std::size_t(run - 1), runs.size() - 1)];
    }

private:
    std::map<double, std::vector<std::pair<qint64, qint64>>> m_rules;
};

/// "c=8x3+~": the level, its runs when more than one, + pass / - fail / ! stopped, ~ within noise.
QString trail(const LimitSearchPlan &plan)
{
    QStringList parts;
    for (const SearchLevel &l : plan.levels()) {
        QString part = plan.spec().levelName(l.level);
        if (l.runs.size() > 1)
            part += QStringLiteral("x%1").arg(l.runs.size());
        part += l.verdict == LevelVerdict::Pass      ? QStringLiteral("+")
                : l.verdict == LevelVerdict::Fail    ? QStringLiteral("-")
                : l.verdict == LevelVerdict::Stopped ? QStringLiteral("!")
                                                     : QStringLiteral("?");
        if (l.withinNoise)
            part += QLatin1Char('~');
        parts << part;
    }
    return parts.join(QLatin1Char(' '));
}

LimitSearchPlan searched(const QString &specText, double target, const Server &server)
{
    const auto spec = LimitSearchSpec::parse(specText, nullptr);
    LimitSearchPlan plan(*spec, target);
    for (int i = 0; i < 100 && !plan.isDone(); ++i) {
        const auto [good, attempted] = server.answer(plan.nextLevel(), plan.nextRun());
        plan.addRun(QStringLiteral("run-%1").arg(i), attempted, good);
    }
    return plan;
}

QString jsonText(const nlohmann::json &value)
{
    return value.is_null() ? QStringLiteral("null") : QString::fromStdString(value.dump());
}

} // namespace

class TestLimitSearchPlan : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void search_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<double>("target");
        QTest::addColumn<QString>("server");
        QTest::addColumn<QString>("levels");
        QTest::addColumn<QString>("stop");
        QTest::addColumn<QString>("holds");
        QTest::addColumn<QString>("failsAt");

        // Bracketing doubles from 1; bisection stops when the gap is 1 user.
        QTest::newRow("capacity 8 users") << "c" << 0.99 << "8=1000/1000 *=0/1000"
                                          << "c=1+ c=2+ c=4+ c=8+ c=16- c=12- c=10- c=9-"
                                          << "resolved"
                                          << "8"
                                          << "9";
        // Above 20 users a fail within 5% of the pass is adjacent: 50 ≤ 48 × 1.05.
        QTest::newRow("capacity 48 users, 5% above 20")
            << "c" << 0.99 << "48=1000/1000 *=900/1000"
            << "c=1+ c=2+ c=4+ c=8+ c=16+ c=32+ c=64- c=48+ c=56- c=52- c=50-"
            << "resolved"
            << "48"
            << "50";
        // Rates bisect to three digits and stop within 5%: 38 ≤ 37 × 1.05.
        QTest::newRow("rate capacity 37/s") << "r" << 0.9 << "37=1000/1000 *=0/1000"
                                            << "r=1+ r=2+ r=4+ r=8+ r=16+ r=32+ r=64- r=48- r=40- r=36+ r=38- r=37+"
                                            << "resolved"
                                            << "37.0"
                                            << "38.0";
        QTest::newRow("first level fails") << "c=4..64" << 0.99 << "2=1000/1000 *=0/1000"
                                           << "c=4-"
                                           << "first-level-fails"
                                           << "null"
                                           << "4";
        QTest::newRow("max level passes") << "c=1..100" << 0.99 << "*=1000/1000"
                                          << "c=1+ c=2+ c=4+ c=8+ c=16+ c=32+ c=64+ c=100+"
                                          << "max-level-passed"
                                          << "100"
                                          << "null";
        // Doubling from 1e-5 would need 37 levels to reach 1e6: the cap stops it at 16.
        QTest::newRow("level cap") << "r=0.00001..1000000" << 0.99 << "*=1000/1000"
                                   << "r=1e-05+ r=2e-05+ r=4e-05+ r=8e-05+ r=0.00016+ r=0.00032+ r=0.00064+ "
                                      "r=0.00128+ r=0.00256+ r=0.00512+ r=0.01024+ r=0.02048+ r=0.04096+ "
                                      "r=0.08192+ r=0.16384+ r=0.32768+"
                                   << "level-cap"
                                   << "0.32768"
                                   << "null";
        // 99 of 100 cannot tell 99% from the target: three runs pooled (297/300 = 0.99) pass,
        // marked within noise; 980/1000 is below its interval's reach of 0.99 and fails at once.
        QTest::newRow("within noise: three runs, judged by the point value")
            << "c=4..16" << 0.99 << "4=1000/1000 8=99/100 *=980/1000"
            << "c=4+ c=8x3+~ c=16- c=12- c=10- c=9-"
            << "resolved"
            << "8"
            << "9";
        QTest::newRow("within noise: a second run decides")
            << "c=4..16" << 0.99 << "4=1000/1000 8=99/100,1000/1000 *=0/1000"
            << "c=4+ c=8x2+ c=16- c=12- c=10- c=9-"
            << "resolved"
            << "8"
            << "9";
        QTest::newRow("within noise below the target fails") << "c=8..8" << 0.99 << "*=98/100"
                                                             << "c=8x3-~"
                                                             << "first-level-fails"
                                                             << "null"
                                                             << "8";
        // A level where no request reached a verdict says nothing: run again, then failed.
        QTest::newRow("nothing attempted") << "c=2..2" << 0.5 << "*=0/0"
                                           << "c=2x3-~"
                                           << "first-level-fails"
                                           << "null"
                                           << "2";
    }
    void search()
    {
        QFETCH(QString, spec);
        QFETCH(double, target);
        QFETCH(QString, server);
        QFETCH(QString, levels);
        QFETCH(QString, stop);
        QFETCH(QString, holds);
        QFETCH(QString, failsAt);
        const LimitSearchPlan plan = searched(spec, target, Server(server));
        QCOMPARE(trail(plan), levels);
        SloConfig slo;
        slo.ttftMs = 500;
        const nlohmann::json json = plan.toJson(slo);
        QCOMPARE(QString::fromStdString(json.at("stop_reason").get<std::string>()), stop);
        QCOMPARE(jsonText(json.at("answer").at("holds")), holds);
        QCOMPARE(jsonText(json.at("answer").at("fails_at")), failsAt);
        QCOMPARE(json.at("levels").size(), plan.levels().size());
    }

    void wilson_data()
    {
        QTest::addColumn<qint64>("good");
        QTest::addColumn<qint64>("n");
        QTest::addColumn<double>("low");
        QTest::addColumn<double>("high");
        // Reference values of the 95% Wilson score interval (z = 1.96).
        QTest::newRow("none of 10") << qint64(0) << qint64(10) << 0.0 << 0.2775;
        QTest::newRow("all of 10") << qint64(10) << qint64(10) << 0.7225 << 1.0;
        QTest::newRow("half of 100") << qint64(50) << qint64(100) << 0.4038 << 0.5962;
        QTest::newRow("99 of 100") << qint64(99) << qint64(100) << 0.9455 << 0.9982;
        QTest::newRow("no attempts") << qint64(0) << qint64(0) << 0.0 << 1.0;
    }
    void wilson()
    {
        QFETCH(qint64, good);
        QFETCH(qint64, n);
        QFETCH(double, low);
        QFETCH(double, high);
        const WilsonInterval w = WilsonInterval::of(good, n);
        QVERIFY2(std::abs(w.low - low) < 5e-5, qPrintable(QString::number(w.low, 'f', 6)));
        QVERIFY2(std::abs(w.high - high) < 5e-5, qPrintable(QString::number(w.high, 'f', 6)));
    }

    void parse_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("parsed"); ///< "mode start max", or the error's start
        QTest::newRow("users") << "c"
                               << "c 1 1024";
        QTest::newRow("rate") << "r"
                              << "r 1 1000";
        QTest::newRow("users range") << " c=8..512 "
                                     << "c 8 512";
        QTest::newRow("rate range") << "r=0.5..200"
                                    << "r 0.5 200";
        QTest::newRow("fraction of a user") << "c=1.5..8"
                                            << "'c=1.5..8': users are whole numbers";
        QTest::newRow("zero users") << "c=0..8"
                                    << "'c=0..8': users are whole numbers";
        QTest::newRow("too many users") << "c=1..100001"
                                        << "'c=1..100001': users are whole numbers";
        QTest::newRow("rate too high") << "r=1..2000000"
                                       << "'r=1..2000000': rates are from";
        QTest::newRow("not a number") << "r=1..inf"
                                      << "'r=1..inf' is not";
        QTest::newRow("start above max") << "c=64..8"
                                         << "'c=64..8': START is above MAX";
        QTest::newRow("unknown kind") << "p=1..8"
                                      << "'p=1..8' is not c, r";
        QTest::newRow("empty") << ""
                               << "'' is not c, r";
    }
    void parse()
    {
        QFETCH(QString, text);
        QFETCH(QString, parsed);
        QString why;
        const auto spec = LimitSearchSpec::parse(text, &why);
        const QString got = spec ? QStringLiteral("%1 %2 %3")
                                       .arg(QChar(spec->mode == LoadMode::Concurrency ? u'c' : u'r'))
                                       .arg(spec->start)
                                       .arg(spec->max)
                                 : why;
        QVERIFY2(got.startsWith(parsed), qPrintable(got));
    }

    /// Stop while a level runs: that run is recorded, its level not judged; Stop between runs drops
    /// the level not yet begun.
    void stop_data()
    {
        QTest::addColumn<bool>("inRun");
        QTest::addColumn<QString>("levels");
        QTest::newRow("during a run") << true << "c=1+ c=2+ c=4!";
        QTest::newRow("between runs") << false << "c=1+ c=2+";
    }
    void stop()
    {
        QFETCH(bool, inRun);
        QFETCH(QString, levels);
        LimitSearchPlan plan(*LimitSearchSpec::parse(QStringLiteral("c"), nullptr), 0.9);
        plan.addRun(QStringLiteral("a"), 100, 100);
        plan.addRun(QStringLiteral("b"), 100, 100);
        QCOMPARE(plan.nextLevel(), 4.0);
        if (inRun)
            plan.stopRun(QStringLiteral("c"), 10, 10);
        else
            plan.stop();
        QCOMPARE(trail(plan), levels);
        QCOMPARE(plan.stopReason(), SearchStop::Stopped);
        QCOMPARE(plan.answerLine(), QStringLiteral("holds at least 2 users (passes at c=2, nothing above it tried; "
                                                   "goodput 100.0%, 95% interval 96.3%–100.0%)"));
    }
};

QTEST_GUILESS_MAIN(TestLimitSearchPlan)
#include "tst_limitsearchplan.moc"
