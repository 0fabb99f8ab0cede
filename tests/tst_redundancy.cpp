// Output redundancy (docs/metrics.md "Output redundancy"): the trigram rule on texts whose values
// are worked out by hand, words against tokens, the examined text's cap, and end to end — the
// simulator's --repeat-share against what `run` measures, and --save-outputs' outputs.jsonl.
#include "metrics/outputredundancy.h"
#include "results/rundirectory.h"
#include "sim/simconfig.h"
#include "sim/simulatorhost.h"
#include "tokenize/tokenizer.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include "support/clirunner.h"
#include "support/testfiles.h"
#include "support/testsimulator.h"

#include <nlohmann/json.hpp>

#include <map>

using namespace tb;
using tb::test::testFile;

namespace {

/// -1 for "no redundancy" (fewer than 3 units), so that rows can name it.
double valueOf(const std::optional<double> &redundancy)
{
    return redundancy.value_or(-1);
}

} // namespace

class TestRedundancy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void words_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<double>("expected");
        // 7 trigrams: abc bca cab abc bca cab abc; from the 4th on each was seen before.
        QTest::newRow("a b c a b c a b c: 4 of 7") << QByteArray("a b c a b c a b c") << 4.0 / 7;
        QTest::newRow("one trigram: 0 of 1") << QByteArray("a b c") << 0.0;
        QTest::newRow("two words: none") << QByteArray("a b") << -1.0;
        QTest::newRow("white space only: none") << QByteArray(" \t\n ") << -1.0;
        QTest::newRow("empty: none") << QByteArray() << -1.0;
        // aaa aaa: the second repeats the first.
        QTest::newRow("a a a a: 1 of 2") << QByteArray("a a a a") << 0.5;
        // xyz yzx zxy xyz: any ASCII white space separates, runs of it count once.
        QTest::newRow("tabs, newlines, double spaces: 1 of 4") << QByteArray("x y z\n\tx  y\r\nz") << 0.25;
        // The cat sat / cat sat the / sat the cat / the cat sat: "The" is not "the".
        QTest::newRow("case counts: 0 of 4") << QByteArray("The cat sat the cat sat") << 0.0;
        // "hello," is one word: (hello, world hello,) (world hello, world) (hello, world hello,).
        QTest::newRow("punctuation stays on its word: 1 of 3")
            << QByteArray("hello, world hello, world hello,") << 1.0 / 3;
        // Ten trigrams, none repeated although words are.
        QTest::newRow("repeated words, new trigrams: 0 of 10") << QByteArray("a b c d a c b d a d c b") << 0.0;
    }

    void words()
    {
        QFETCH(QByteArray, text);
        QFETCH(double, expected);
        const std::string_view view(text.constData(), std::size_t(text.size()));
        QCOMPARE(valueOf(OutputRedundancy::ofWords(view)), expected);
        QCOMPARE(valueOf(OutputRedundancy::measure(view, nullptr)), expected); // no tokenizer: words
    }

    void tokens_data()
    {
        QTest::addColumn<QString>("tokenizer");
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<double>("wordsExpected");
        QTest::addColumn<double>("tokensExpected");
        // The approximation's pieces: "abcd" "efgh" " abcd" "efgh" " abcd" "efgh" (four letters a
        // token, the space with the token after it): 4 trigrams, the last repeats the second.
        // Three words: one trigram, no repeat.
        QTest::newRow("approx: long words split")
            << QStringLiteral("approx") << QByteArray("abcdefgh abcdefgh abcdefgh") << 0.0 << 0.25;
        // Pieces "a" " b" " c" " a" " b" " c": the first "a" has no space before it, so the
        // trigram " a b c" (the 4th) is not "a b c" (the 1st): 0 of 4; as words, 1 of 4.
        QTest::newRow("approx: the first token has no space")
            << QStringLiteral("approx") << QByteArray("a b c a b c") << 0.25 << 0.0;
        // A byte-level BPE file (ids, not pieces) with 7 merges (tests/data): it has none for "Ġb",
        // so " b" is two tokens, Ġ and b: a Ġ b Ġ c Ġ a Ġ b Ġ c, 9 trigrams, the last 3 repeat.
        QTest::newRow("tokenizer.json: spaces are tokens")
            << testFile("tiny-bytelevel-tokenizer.json") << QByteArray("a b c a b c") << 0.25 << 1.0 / 3;
        // Merged: hello Ġwor l d Ġ hello Ġwor l d Ġ hello Ġwor l d (its merges make "hello" and
        // "Ġwor"), 12 trigrams, the 6th on repeat: 7/12; as words, 2 of 4.
        QTest::newRow("tokenizer.json: merged tokens")
            << testFile("tiny-bytelevel-tokenizer.json") << QByteArray("hello world hello world hello world") << 0.5
            << 7.0 / 12;
    }

    void tokens()
    {
        QFETCH(QString, tokenizer);
        QFETCH(QByteArray, text);
        QFETCH(double, wordsExpected);
        QFETCH(double, tokensExpected);
        QString why;
        const std::shared_ptr<const Tokenizer> t = Tokenizer::load(tokenizer, &why);
        QVERIFY2(t, qPrintable(why));
        const std::string_view view(text.constData(), std::size_t(text.size()));
        QCOMPARE(valueOf(OutputRedundancy::ofWords(view)), wordsExpected);
        QCOMPARE(valueOf(OutputRedundancy::measure(view, t.get())), tokensExpected);
    }

    /// Only the first kMaxExaminedBytes count, cut before a character that straddles the cap.
    void examinedCap()
    {
        constexpr std::size_t cap = OutputRedundancy::kMaxExaminedBytes;
        std::string text(cap - 1, 'a');
        text += "\xc3\xa9"; // é, its second byte past the cap
        QCOMPARE(OutputRedundancy::examined(text).size(), cap - 1);

        // Distinct words up to the cap, then one phrase repeated: past the cap, it is not seen.
        std::string distinct;
        for (int i = 0; distinct.size() < cap; ++i) {
            distinct += 'w';
            distinct += std::to_string(i);
            distinct += ' ';
        }
        const std::string head = std::string(OutputRedundancy::examined(distinct));
        const std::string repeated = distinct + "a b c a b c a b c a b c";
        QCOMPARE(valueOf(OutputRedundancy::ofWords(repeated)), valueOf(OutputRedundancy::ofWords(head)));
        QCOMPARE(valueOf(OutputRedundancy::ofWords(head)), 0.0);
    }

    /// The simulator repeats a set share of word trigrams; `run` measures it per request (over
    /// words: no tokenizer), and with --save-outputs writes texts whose redundancy, recomputed,
    /// is the one requests.csv holds. Without the flag there is no outputs.jsonl.
    void endToEnd_data()
    {
        QTest::addColumn<double>("share");
        QTest::addColumn<bool>("save");
        QTest::addColumn<double>("tolerance");
        // 128 words a response: the simulator keeps ⌈r·126⌉ of 126 trigrams repeated, give or
        // take a copy's first two words at either end (0.397 to 0.413 at r = 0.4, mean 0.400);
        // at r = 0 only chance repeats (64 words: about 126/2^19 = 0.0002).
        QTest::newRow("share 0, saved") << 0.0 << true << 0.01;
        QTest::newRow("share 0.4, saved") << 0.4 << true << 0.02;
        QTest::newRow("share 0.4, not saved") << 0.4 << false << 0.02;
    }

    void endToEnd()
    {
        QFETCH(double, share);
        QFETCH(bool, save);
        QFETCH(double, tolerance);
        sim::SimConfig config = *sim::SimConfig::preset(QStringLiteral("fast"));
        config.outputTokens = 128;
        config.repeatShare = share;
        const auto host = test::startSimulator(config);
        QVERIFY(host);
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("run"));
        QStringList args{QStringLiteral("run"),
                         QStringLiteral("--url"),
                         host->baseUrl().toString(),
                         QStringLiteral("--model"),
                         host->config().model,
                         QStringLiteral("--quiet"),
                         QStringLiteral("--requests"),
                         QStringLiteral("24"),
                         QStringLiteral("--concurrency"),
                         QStringLiteral("8"),
                         QStringLiteral("--redundancy-threshold"),
                         QStringLiteral("0.3"),
                         QStringLiteral("--out"),
                         out};
        if (save)
            args << QStringLiteral("--save-outputs");
        const CliResult cli = runCli(args);
        QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));

        QString error;
        const std::optional<RunData> run = RunReader::load(out, &error, RunReader::Records);
        QVERIFY2(run, qPrintable(error));
        QCOMPARE(run->summary.total.requests.ok, 24);
        const auto &redundancy = run->summary.total.redundancy;
        QVERIFY(redundancy);
        QCOMPARE(redundancy->requests, 24);
        QCOMPARE(redundancy->unit, QStringLiteral("words"));
        QCOMPARE(redundancy->threshold, 0.3);
        qInfo("repeat share %.2f: mean %.4f, p50 %.4f, p90 %.4f, above 0.3: %lld of %lld", share, redundancy->mean,
              redundancy->p50, redundancy->p90, qlonglong(redundancy->above), qlonglong(redundancy->requests));
        QVERIFY2(std::abs(redundancy->mean - share) <= tolerance, qPrintable(QString::number(redundancy->mean)));
        // Every response is near the share: all above 0.3 at 0.4, none at 0.
        QCOMPARE(redundancy->above, share > 0.3 ? 24 : 0);

        std::map<std::uint64_t, double> fromCsv;
        for (const RequestRecord &r : run->records) {
            QVERIFY(r.redundancy >= 0);
            fromCsv[r.id] = r.redundancy;
        }
        QFile outputs(QDir(out).filePath(QStringLiteral("outputs.jsonl")));
        QCOMPARE(outputs.exists(), save);
        if (!save)
            return;
        QVERIFY(outputs.open(QIODevice::ReadOnly));
        int lines = 0;
        while (!outputs.atEnd()) {
            const QByteArray line = outputs.readLine();
            const nlohmann::json j = nlohmann::json::parse(line.toStdString());
            const auto id = j.at("id").get<std::uint64_t>();
            const std::string text = j.at("text").get<std::string>();
            QVERIFY(fromCsv.count(id));
            // requests.csv keeps 6 decimals.
            QVERIFY(std::abs(valueOf(OutputRedundancy::ofWords(text)) - fromCsv[id]) < 1e-6);
            ++lines;
        }
        QCOMPARE(lines, 24);
    }
};

QTEST_GUILESS_MAIN(TestRedundancy)
#include "tst_redundancy.moc"
