#include "tokenize/tokenizer.h"
#include "workload/workloadfile.h"

#include <QDateTime>
#include <QTemporaryDir>
#include <QTest>
#include <QTimeZone>

#include "support/testfiles.h"

using namespace tb;
using tb::test::writeFile;

namespace {

QString fixture(const char *name)
{
    return QStringLiteral(TOKENBENCH_TESTDATA "/workload/") + QLatin1String(name);
}

std::int64_t tokens(const std::string &s)
{
    return ApproxTokenizer::countUtf8(s.data(), s.size());
}

} // namespace

Q_DECLARE_METATYPE(tb::WorkloadRole)

class TestWorkloadFile : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void formatsParse_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<WorkloadRole>("role");
        QTest::addColumn<QString>("format");
        QTest::addColumn<QList<qint64>>("outputs"); ///< each kept entry's output length (-1: none)
        QTest::addColumn<QList<qint64>>("timesMs"); ///< trace arrival offsets; empty when not a trace
        QTest::addColumn<qint64>("noPrompt");
        const QList<qint64> none;
        QTest::newRow("sharegpt json array") << fixture("sharegpt.json") << WorkloadRole::Dataset << "sharegpt"
                                             << QList<qint64>{-2, -2, -1} << none << qint64(1);
        QTest::newRow("sharegpt jsonl") << fixture("sharegpt.jsonl") << WorkloadRole::Dataset << "sharegpt"
                                        << QList<qint64>{-2, -2} << none << qint64(1);
        QTest::newRow("sharegpt messages variant") << fixture("messages.jsonl") << WorkloadRole::Dataset << "messages"
                                                   << QList<qint64>{-2, -2} << none << qint64(0);
        QTest::newRow("prompt lines with lengths") << fixture("prompts-lengths.jsonl") << WorkloadRole::PromptFile
                                                   << "prompts" << QList<qint64>{12, 40, -1, 7} << none << qint64(0);
        QTest::newRow("mooncake trace") << fixture("mooncake.jsonl") << WorkloadRole::Trace << "mooncake"
                                        << QList<qint64>{5, 6, 4, 3} << QList<qint64>{0, 250, 260, 1800} << qint64(0);
        QTest::newRow("azure trace csv") << fixture("azure.csv") << WorkloadRole::Trace << "azure-csv"
                                         << QList<qint64>{44, 109, 1, 20} << QList<qint64>{0, 100, 519, 3319}
                                         << qint64(0);
        QTest::newRow("prompt lines with timestamps")
            << fixture("trace-prompts.jsonl") << WorkloadRole::Trace << "prompts" << QList<qint64>{-1, -1, 3}
            << QList<qint64>{0, 120, 300} << qint64(0);
    }

    void formatsParse()
    {
        QFETCH(QString, file);
        QFETCH(WorkloadRole, role);
        QFETCH(QString, format);
        QFETCH(QList<qint64>, outputs);
        QFETCH(QList<qint64>, timesMs);
        QFETCH(qint64, noPrompt);
        QString error;
        const auto w = WorkloadFile::load(file, role, {}, &error);
        QVERIFY2(w, qPrintable(error));
        QCOMPARE(w->stats().format, format);
        QCOMPARE(w->stats().noPrompt, noPrompt);
        QCOMPARE(qsizetype(w->entries().size()), outputs.size());
        for (qsizetype i = 0; i < outputs.size(); ++i) {
            const WorkloadEntry &e = w->entries()[std::size_t(i)];
            QVERIFY(e.promptTokens > 0);
            if (outputs[i] == -2) // a recorded reply: its length in approx tokens
                QVERIFY2(e.outputTokens > 0 && !e.outputIsCap, qPrintable(QString::number(i)));
            else
                QCOMPARE(e.outputTokens, outputs[i]);
            if (!timesMs.isEmpty())
                QCOMPARE((e.timeNs - w->entries().front().timeNs) / 1'000'000, timesMs[i]);
        }
    }

    /// Each format's smallest valid file: the reader its first bytes pick reads it as that format,
    /// to the one prompt it holds.
    void smallestFileOfEachFormat_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<WorkloadRole>("role");
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("prompt"); ///< the text sent; a chat: its messages as JSON; "": synthetic
        QTest::addColumn<qint64>("promptTokens");
        QTest::addColumn<qint64>("outputTokens");
        QTest::addColumn<qint64>("timeNs"); ///< in the trace's clock; -1: not a trace
        const qint64 hi = tokens("Hi");
        QTest::newRow("prompts") << QByteArray("{\"prompt\": \"Hi\"}") << WorkloadRole::PromptFile << "prompts"
                                 << "Hi" << hi << qint64(-1) << qint64(-1);
        QTest::newRow("messages") << QByteArray("{\"messages\": [{\"role\": \"user\", \"content\": \"Hi\"}]}")
                                  << WorkloadRole::PromptFile << "messages"
                                  << R"([{"content":"Hi","role":"user"}])" << hi << qint64(-1) << qint64(-1);
        QTest::newRow("sharegpt jsonl") << QByteArray("{\"conversations\": [{\"from\": \"human\", \"value\": \"Hi\"}]}")
                                        << WorkloadRole::Dataset << "sharegpt"
                                        << "Hi" << hi << qint64(-1) << qint64(-1);
        QTest::newRow("sharegpt json array")
            << QByteArray("\xEF\xBB\xBF[{\"conversations\": [{\"from\": \"human\", \"value\": \"Hi\"}]}]")
            << WorkloadRole::Dataset << "sharegpt"
            << "Hi" << hi << qint64(-1) << qint64(-1);
        QTest::newRow("mooncake") << QByteArray("{\"timestamp\": 0, \"input_length\": 7, \"output_length\": 3}")
                                  << WorkloadRole::Trace << "mooncake"
                                  << "" << qint64(7) << qint64(3) << qint64(0);
        const qint64 azureTime =
            QDateTime(QDate(2023, 11, 16), QTime(18, 15, 46), QTimeZone::utc()).toMSecsSinceEpoch();
        QTest::newRow("azure-csv") << QByteArray("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,7,3")
                                   << WorkloadRole::Trace << "azure-csv"
                                   << "" << qint64(7) << qint64(3) << azureTime * 1'000'000;
        QTest::newRow("prompts with a timestamp")
            << QByteArray("{\"timestamp\": 5, \"prompt\": \"Hi\"}") << WorkloadRole::Trace << "prompts"
            << "Hi" << hi << qint64(-1) << qint64(5'000'000);
    }

    void smallestFileOfEachFormat()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(WorkloadRole, role);
        QFETCH(QString, format);
        QFETCH(QString, prompt);
        QFETCH(qint64, promptTokens);
        QFETCH(qint64, outputTokens);
        QFETCH(qint64, timeNs);
        QTemporaryDir dir;
        const QString path = writeFile(dir, QStringLiteral("smallest"), bytes);
        QString error;
        const auto w = WorkloadFile::load(path, role, {}, &error);
        QVERIFY2(w, qPrintable(error));
        QCOMPARE(w->stats().format, format);
        QCOMPARE(w->stats().read, qint64(1));
        QCOMPARE(w->entries().size(), std::size_t(1));
        const WorkloadEntry &e = w->entries().front();
        QCOMPARE(e.line, format == QLatin1String("azure-csv") ? 2 : 1); // under the CSV's header
        const std::string sent = e.messages.is_null() ? e.user : e.messages.dump();
        QCOMPARE(QString::fromStdString(sent), prompt);
        QCOMPARE(e.synthetic, prompt.isEmpty());
        QCOMPARE(e.promptTokens, promptTokens);
        QCOMPARE(e.outputTokens, outputTokens);
        QCOMPARE(e.timeNs, timeNs);
    }

    void shareGptTakesTheFirstHumanTurnAndItsReply()
    {
        const auto w = WorkloadFile::load(fixture("sharegpt.json"), WorkloadRole::Dataset, {}, nullptr);
        QVERIFY(w);
        const WorkloadEntry &first = w->entries()[0];
        QCOMPARE(first.user, std::string("How do I measure the time to first token of a streaming API?"));
        QCOMPARE(first.outputTokens,
                 tokens("Stamp the request when it is sent and again when the first chunk with content arrives; the "
                        "difference is the time to first token."));
        QCOMPARE(first.line, 2);
        const WorkloadEntry &withSystem = w->entries()[1];
        QCOMPARE(withSystem.system, std::string("You are terse."));
        QCOMPARE(withSystem.promptTokens, tokens("You are terse.") + tokens("Name a queue."));
        QCOMPARE(withSystem.outputTokens, tokens("FIFO."));

        // The role/content variant: the messages up to the first user turn are the prompt.
        const auto m = WorkloadFile::load(fixture("messages.jsonl"), WorkloadRole::Dataset, {}, nullptr);
        QVERIFY(m);
        QCOMPARE(m->entries()[0].messages.size(), std::size_t(2));
        QCOMPARE(m->entries()[0].outputTokens, tokens("Reused computation for a repeated prompt start."));
        // From a prompt file the same line is a conversation sent whole.
        const auto whole = WorkloadFile::load(fixture("messages.jsonl"), WorkloadRole::PromptFile, {}, nullptr);
        QVERIFY(whole);
        QCOMPARE(whole->entries()[0].messages.size(), std::size_t(4));
        QCOMPARE(whole->entries()[0].outputTokens, std::int64_t(-1));
    }

    void mooncakeKeepsHashIdsAndAsksForTheOutputLength()
    {
        const auto w = WorkloadFile::load(fixture("mooncake.jsonl"), WorkloadRole::Trace, {}, nullptr);
        QVERIFY(w);
        const WorkloadEntry &e = w->entries()[1];
        QVERIFY(e.synthetic);
        QCOMPARE(e.promptTokens, std::int64_t(1300));
        QCOMPARE(e.hashIds, (std::vector<std::uint64_t>{0, 1, 3}));
        QVERIFY(e.outputIsCap);
        QVERIFY(w->entries()[3].hashIds.empty());
    }

    void badLinesAreNamed_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<WorkloadRole>("role");
        QTest::addColumn<QString>("refusal");     ///< the error without --skip-bad-lines
        QTest::addColumn<QList<int>>("badLines"); ///< skipped with it
        QTest::addColumn<qint64>("kept");
        QTest::newRow("jsonl") << fixture("broken.jsonl") << WorkloadRole::PromptFile
                               << QStringLiteral("broken.jsonl' line 3: not a JSON object") << QList<int>{3, 5}
                               << qint64(3);
        QTest::newRow("json array") << fixture("broken-array.json") << WorkloadRole::Dataset
                                    << QStringLiteral("broken-array.json' line 4: conversations[0] needs")
                                    << QList<int>{4} << qint64(3);
        QTest::newRow("csv") << fixture("broken-trace.csv") << WorkloadRole::Trace
                             << QStringLiteral("broken-trace.csv' line 3: TIMESTAMP is not") << QList<int>{3, 4}
                             << qint64(2);
        QTest::newRow("mooncake line without timestamp")
            << fixture("prompts-lengths.jsonl") << WorkloadRole::Trace
            << QStringLiteral("prompts-lengths.jsonl' line 1: no \"timestamp\"") << QList<int>{1, 2, 3, 4} << qint64(0);
    }

    void badLinesAreNamed()
    {
        QFETCH(QString, file);
        QFETCH(WorkloadRole, role);
        QFETCH(QString, refusal);
        QFETCH(QList<int>, badLines);
        QFETCH(qint64, kept);
        QString error;
        QVERIFY(!WorkloadFile::load(file, role, {}, &error));
        QVERIFY2(error.contains(refusal), qPrintable(error));

        WorkloadOptions skip;
        skip.skipBadLines = true;
        error.clear();
        const auto w = WorkloadFile::load(file, role, skip, &error);
        if (kept == 0) { // nothing left is still a refusal, which says what was skipped
            QVERIFY(!w);
            QVERIFY2(error.contains(QStringLiteral("%1 bad lines skipped").arg(badLines.size())), qPrintable(error));
            return;
        }
        QVERIFY2(w, qPrintable(error));
        QCOMPARE(w->stats().badLines, qint64(badLines.size()));
        QCOMPARE(w->stats().badLineNumbers, badLines);
        QCOMPARE(w->stats().kept, kept);
        QVERIFY(w->stats().describe().contains(QStringLiteral("bad lines skipped")));
    }

    void hostileInputIsRefused_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<WorkloadRole>("role");
        QTest::addColumn<QString>("problem");
        QTest::newRow("absurd max_tokens") << QByteArray("{\"prompt\": \"x\", \"max_tokens\": 1e30}")
                                           << WorkloadRole::PromptFile << "\"max_tokens\" must be a whole number";
        QTest::newRow("absurd input_length") << QByteArray("{\"timestamp\": 0, \"input_length\": 99999999999}")
                                             << WorkloadRole::Trace << "\"input_length\" must be a whole number";
        QTest::newRow("more hash ids than blocks")
            << QByteArray("{\"timestamp\": 0, \"input_length\": 10, \"hash_ids\": [1, 2, 3]}") << WorkloadRole::Trace
            << "\"hash_ids\" must be an array of at most";
        QTest::newRow("negative timestamp") << QByteArray("{\"timestamp\": -5, \"input_length\": 10}")
                                            << WorkloadRole::Trace << "\"timestamp\" must be milliseconds";
        QTest::newRow("deep nesting") << QByteArray(1000, '[') << WorkloadRole::Dataset << "nests deeper than";
        QTest::newRow("unterminated array")
            << QByteArray("[{\"prompt\": \"x\"}, {\"prompt\": \"y") << WorkloadRole::Dataset << "does not end";
        QTest::newRow("csv without the columns")
            << QByteArray("a,b,c\n1,2,3\n") << WorkloadRole::Trace << "header must name TIMESTAMP";
        QTest::newRow("empty") << QByteArray("\n\n") << WorkloadRole::Dataset << "no prompts";
    }

    void hostileInputIsRefused()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(WorkloadRole, role);
        QFETCH(QString, problem);
        QTemporaryDir dir;
        const QString path = writeFile(dir, QStringLiteral("hostile"), bytes);
        QString error;
        QVERIFY(!WorkloadFile::load(path, role, {}, &error));
        QVERIFY2(error.contains(problem), qPrintable(error));
    }

    /// Found by fuzz_workloadfile: a date far from the epoch overflowed the nanoseconds (signed
    /// overflow, then a wrapped time), and dates centuries apart overflowed the offsets replayed.
    void azureTimestampsOutsideTheNanosecondRangeAreRefused_data()
    {
        QTest::addColumn<QByteArray>("rows");
        QTest::addColumn<QString>("problem");
        const QString years =
            QStringLiteral("line 3: TIMESTAMP is not 'YYYY-MM-DD HH:MM:SS[.fraction]' from year 1970 to 2199");
        QTest::newRow("year 1011") << QByteArray("1011-11-16 18:15:47.2000000,100,5\n") << years;
        QTest::newRow("year 2262, past int64 nanoseconds") << QByteArray("2262-04-12 00:00:00,100,5\n") << years;
        QTest::newRow("year 9999") << QByteArray("9999-12-31 23:59:59.9999999,100,5\n") << years;
        QTest::newRow("first and last years read, two centuries apart")
            << QByteArray("1970-01-01 00:00:00,10,1\n2199-12-31 23:59:59,10,1\n")
            << "the trace spans more than 365 days (line 3 to line 4)";
        QTest::newRow("a year and a second apart")
            << QByteArray("2024-11-16 18:15:47.6805900,100,5\n") << "the trace spans more than 365 days";
    }

    void azureTimestampsOutsideTheNanosecondRangeAreRefused()
    {
        QFETCH(QByteArray, rows);
        QFETCH(QString, problem);
        QTemporaryDir dir;
        const QString path =
            writeFile(dir, QStringLiteral("trace.csv"),
                      "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n" + rows);
        QString error;
        QVERIFY(!WorkloadFile::load(path, WorkloadRole::Trace, {}, &error));
        QVERIFY2(error.contains(problem), qPrintable(error));
    }

    void anAzureTraceSpanningAYearLoads()
    {
        QTemporaryDir dir;
        const QString path = writeFile(dir, QStringLiteral("trace.csv"),
                                       "TIMESTAMP,ContextTokens,GeneratedTokens\n2024-01-01 00:00:00,374,44\n"
                                       "2024-12-31 00:00:00,10,1\n");
        QString error;
        const auto trace = WorkloadFile::load(path, WorkloadRole::Trace, {}, &error);
        QVERIFY2(trace, qPrintable(error));
        QCOMPARE(trace->entries().back().timeNs - trace->entries().front().timeNs, 365LL * 24 * 3600 * 1'000'000'000);
    }

    void timestampOutsideATraceIsRefusedEvenWhenSkipping()
    {
        WorkloadOptions skip;
        skip.skipBadLines = true;
        QString error;
        QVERIFY(!WorkloadFile::load(fixture("trace-prompts.jsonl"), WorkloadRole::PromptFile, skip, &error));
        QVERIFY2(error.contains(QStringLiteral("line 1: has a \"timestamp\": give a timed file with --trace")),
                 qPrintable(error));
    }

    void sampleAndFiltersAreDeterministic_data()
    {
        QTest::addColumn<qint64>("sample");
        QTest::addColumn<int>("minPrompt");
        QTest::addColumn<int>("maxPrompt");
        QTest::addColumn<int>("minOutput");
        QTest::newRow("sample only") << qint64(20) << 0 << 0 << 0;
        QTest::newRow("prompt filter") << qint64(0) << 10 << 40 << 0;
        QTest::newRow("both filters and a sample") << qint64(15) << 10 << 0 << 30;
    }

    void sampleAndFiltersAreDeterministic()
    {
        QFETCH(qint64, sample);
        QFETCH(int, minPrompt);
        QFETCH(int, maxPrompt);
        QFETCH(int, minOutput);
        // 200 prompts of 1..50 words, half with an output length.
        QByteArray bytes;
        for (int i = 0; i < 200; ++i) {
            QByteArray text;
            for (int w = 0; w <= i % 50; ++w)
                text += "word ";
            bytes += "{\"prompt\": \"" + text.trimmed() + "\"" +
                     (i % 2 ? ", \"output_len\": " + QByteArray::number(i) : QByteArray()) + "}\n";
        }
        QTemporaryDir dir;
        const QString path = writeFile(dir, QStringLiteral("many.jsonl"), bytes);
        WorkloadOptions options;
        options.sample = sample;
        options.promptLen = {minPrompt, maxPrompt};
        options.outputLen = {minOutput, 0};
        options.seed = 5;
        const auto a = WorkloadFile::load(path, WorkloadRole::PromptFile, options, nullptr);
        const auto b = WorkloadFile::load(path, WorkloadRole::PromptFile, options, nullptr);
        QVERIFY(a && b);
        options.seed = 6;
        const auto other = WorkloadFile::load(path, WorkloadRole::PromptFile, options, nullptr);
        QVERIFY(other);
        const auto lines = [](const WorkloadFile &w) {
            QList<int> out;
            for (const WorkloadEntry &e : w.entries())
                out << e.line;
            return out;
        };
        QCOMPARE(lines(*a), lines(*b));
        if (sample > 0) {
            QCOMPARE(a->stats().kept, sample);
            QVERIFY(lines(*a) != lines(*other));
            const QList<int> drawn = lines(*a);
            QVERIFY(std::is_sorted(drawn.begin(), drawn.end())); // file order
        }
        for (const WorkloadEntry &e : a->entries()) {
            QVERIFY(e.promptTokens >= minPrompt && (maxPrompt == 0 || e.promptTokens <= maxPrompt));
            if (minOutput > 0)
                QVERIFY(e.outputTokens >= minOutput);
        }
        QCOMPARE(a->stats().kept + a->stats().filteredOut + a->stats().sampledOut, qint64(200));
        QVERIFY(minPrompt == 0 || a->stats().filteredOut > 0);
    }
};

QTEST_GUILESS_MAIN(TestWorkloadFile)
#include "tst_workloadfile.moc"
