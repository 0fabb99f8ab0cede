// The Kubernetes manifests in packaging/k8s/ (there is no cluster in CI): read with a small reader
// of the plain block YAML they are written in, checked for the keys an Indexed Job run needs, and
// the command lines they run handed to the real tokenbench-cli with --dry-run.
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QTest>

#include <nlohmann/json.hpp>

#include "support/clirunner.h"

using json = nlohmann::json;

namespace {

/// Block YAML as the manifests use it: mappings and sequences by indentation, "- " items (scalars
/// or mappings), plain/"double"/'single'-quoted scalars, [flow, lists] of scalars, # comments.
/// Anything else (anchors, multi-line strings, documents) is an error, so a manifest cannot slip
/// past this reader by using YAML it does not understand.
class PlainYaml
{
public:
    static std::optional<json> parse(const QString &text, QString *error)
    {
        PlainYaml y;
        for (const QString &raw : text.split(QLatin1Char('\n'))) {
            const QString line = stripComment(raw);
            if (line.trimmed().isEmpty())
                continue;
            int indent = 0;
            while (indent < line.size() && line[indent] == QLatin1Char(' '))
                ++indent;
            y.m_lines.push_back({indent, line.trimmed(), ++y.m_count});
        }
        std::size_t at = 0;
        json doc = y.block(at, 0);
        if (y.m_error.isEmpty() && at != y.m_lines.size())
            y.fail(y.m_lines[at].number, QStringLiteral("unexpected indentation"));
        if (!y.m_error.isEmpty()) {
            *error = y.m_error;
            return std::nullopt;
        }
        return doc;
    }

private:
    struct Line {
        int indent;
        QString text;
        int number;
    };

    static QString stripComment(const QString &line)
    {
        QChar quote;
        for (int i = 0; i < line.size(); ++i) {
            const QChar c = line[i];
            if (!quote.isNull()) {
                if (c == quote)
                    quote = QChar();
            } else if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
                quote = c;
            } else if (c == QLatin1Char('#') && (i == 0 || line[i - 1] == QLatin1Char(' '))) {
                return line.left(i);
            }
        }
        return line;
    }

    void fail(int line, const QString &why)
    {
        if (m_error.isEmpty())
            m_error = QStringLiteral("line %1: %2").arg(line).arg(why);
    }

    json scalar(const QString &text, int line)
    {
        const QString t = text.trimmed();
        if (t.size() >= 2 && (t.front() == QLatin1Char('"') || t.front() == QLatin1Char('\'')) && t.back() == t.front())
            return t.mid(1, t.size() - 2).toStdString();
        if (t.startsWith(QLatin1Char('[')) && t.endsWith(QLatin1Char(']'))) {
            json list = json::array();
            for (const QString &item : t.mid(1, t.size() - 2).split(QLatin1Char(','), Qt::SkipEmptyParts))
                list.push_back(scalar(item, line));
            return list;
        }
        if (t.startsWith(QLatin1Char('&')) || t.startsWith(QLatin1Char('*')) || t.startsWith(QLatin1Char('|')) ||
            t.startsWith(QLatin1Char('>')) || t.startsWith(QLatin1Char('{'))) {
            fail(line, QStringLiteral("YAML beyond plain block style: %1").arg(t));
            return {};
        }
        bool isInt = false;
        const qlonglong n = t.toLongLong(&isInt);
        if (isInt)
            return n;
        return t.toStdString();
    }

    /// "key: value" → {key, value}; no colon-space → not a mapping entry.
    static std::optional<std::pair<QString, QString>> entry(const QString &text)
    {
        const int colon = text.indexOf(QStringLiteral(": "));
        if (text.endsWith(QLatin1Char(':')) && (colon < 0 || colon == text.size() - 1))
            return std::pair{text.chopped(1), QString()};
        if (colon <= 0 || text.front() == QLatin1Char('"') || text.front() == QLatin1Char('['))
            return std::nullopt;
        return std::pair{text.left(colon), text.mid(colon + 2)};
    }

    json block(std::size_t &at, int indent)
    {
        if (at >= m_lines.size())
            return {};
        const bool sequence =
            m_lines[at].text.startsWith(QStringLiteral("- ")) || m_lines[at].text == QLatin1String("-");
        json node = sequence ? json::array() : json::object();
        while (at < m_lines.size() && m_error.isEmpty() && m_lines[at].indent == indent) {
            const Line line = m_lines[at];
            if (sequence) {
                if (!line.text.startsWith(QStringLiteral("- ")))
                    break; // the mapping that holds the sequence goes on
                const QString rest = line.text.mid(2);
                if (entry(rest)) {
                    // "- key: value" opens a mapping whose other keys sit two columns further in.
                    m_lines[at] = {indent + 2, rest, line.number};
                    node.push_back(block(at, indent + 2));
                } else {
                    ++at;
                    node.push_back(scalar(rest, line.number));
                }
                continue;
            }
            const auto kv = entry(line.text);
            if (!kv) {
                fail(line.number, QStringLiteral("expected 'key: value'"));
                break;
            }
            ++at;
            const std::string key = kv->first.toStdString();
            if (node.contains(key))
                fail(line.number, QStringLiteral("duplicate key %1").arg(kv->first));
            if (!kv->second.isEmpty())
                node[key] = scalar(kv->second, line.number);
            else if (at < m_lines.size() &&
                     (m_lines[at].indent > indent ||
                      (m_lines[at].indent == indent && m_lines[at].text.startsWith(QStringLiteral("- ")))))
                node[key] = block(at, m_lines[at].indent);
            else
                node[key] = nullptr;
        }
        if (at < m_lines.size() && m_lines[at].indent > indent && m_error.isEmpty())
            fail(m_lines[at].number, QStringLiteral("unexpected indentation"));
        return node;
    }

    std::vector<Line> m_lines;
    int m_count = 0;
    QString m_error;
};

QString manifestPath(const char *name)
{
    return QDir(QStringLiteral(TOKENBENCH_SOURCE_DIR)).filePath(QStringLiteral("packaging/k8s/") + QLatin1String(name));
}

json manifest(const char *name)
{
    QFile file(manifestPath(name));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QString why;
    const auto doc = PlainYaml::parse(QString::fromUtf8(file.readAll()), &why);
    if (!doc)
        qWarning("%s: %s", name, qPrintable(why));
    return doc.value_or(json());
}

QString str(const json &j)
{
    return j.is_string() ? QString::fromStdString(j.get<std::string>()) : QString();
}

/// envsubst's ${VAR}, as docs/user-guide.md applies the manifests.
QString envsubst(QString text, const QMap<QString, QString> &values)
{
    for (auto it = values.cbegin(); it != values.cend(); ++it)
        text.replace(QStringLiteral("${%1}").arg(it.key()), it.value());
    return text;
}

/// Kubernetes' $(VAR) expansion in args, from the container's env (values and the completion index).
QStringList containerArgs(const json &container, const QMap<QString, QString> &placeholders, int index)
{
    QMap<QString, QString> env;
    for (const json &e : container["env"]) {
        if (e.contains("value"))
            env[str(e["name"])] = envsubst(str(e["value"]), placeholders);
        else if (str(e["valueFrom"]["fieldRef"]["fieldPath"]).contains(QLatin1String("job-completion-index")))
            env[str(e["name"])] = QString::number(index);
    }
    QStringList args;
    for (const json &a : container["args"]) {
        QString arg = envsubst(str(a), placeholders);
        for (auto it = env.cbegin(); it != env.cend(); ++it)
            arg.replace(QStringLiteral("$(%1)").arg(it.key()), it.value());
        args << arg;
    }
    return args;
}

QString argAfter(const QStringList &args, const QString &flag)
{
    const int at = int(args.indexOf(flag));
    return at >= 0 && at + 1 < args.size() ? args[at + 1] : QString();
}

QMap<QString, QString> placeholders()
{
    return {{QStringLiteral("RUN_ID"), QStringLiteral("ci")},
            {QStringLiteral("IMAGE"), QStringLiteral("tokenbench:test")},
            {QStringLiteral("START_AT"), QDateTime::currentDateTimeUtc().addSecs(120).toString(Qt::ISODate)}};
}

/// The pod's volume mounted at /runs is the shared claim.
void checkRunsVolume(const json &pod, const QString &claim)
{
    const json &container = pod["containers"][0];
    QString volume;
    for (const json &m : container["volumeMounts"]) {
        if (str(m["mountPath"]) == QLatin1String("/runs"))
            volume = str(m["name"]);
    }
    QVERIFY2(!volume.isEmpty(), "no volume mounted at /runs");
    bool found = false;
    for (const json &v : pod["volumes"]) {
        if (str(v["name"]) == volume) {
            QCOMPARE(str(v["persistentVolumeClaim"]["claimName"]), claim);
            found = true;
        }
    }
    QVERIFY2(found, qPrintable(QStringLiteral("volume %1 not defined").arg(volume)));
}

} // namespace

class TestK8s : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readerRefusesYamlItDoesNotUnderstand_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("ok");
        QTest::newRow("plain") << QStringLiteral("a: 1\nb:\n  - x\n  - y: 2\n    z: \"3\"\n") << true;
        QTest::newRow("sequence at the key's indent") << QStringLiteral("a:\n- x\n- y\n") << true;
        QTest::newRow("anchor") << QStringLiteral("a: &x 1\n") << false;
        QTest::newRow("block string") << QStringLiteral("a: |\n  text\n") << false;
        QTest::newRow("duplicate key") << QStringLiteral("a: 1\na: 2\n") << false;
        QTest::newRow("bad indentation") << QStringLiteral("a: 1\n   b: 2\n") << false;
    }
    void readerRefusesYamlItDoesNotUnderstand()
    {
        QFETCH(QString, text);
        QFETCH(bool, ok);
        QString why;
        const auto doc = PlainYaml::parse(text, &why);
        QCOMPARE(bool(doc), ok);
        if (ok && text.startsWith(QLatin1String("a: 1")))
            QCOMPARE(str((*doc)["b"][1]["z"]), QStringLiteral("3"));
    }

    void pvcIsSharedReadWriteMany()
    {
        const json pvc = manifest("pvc.yaml");
        QCOMPARE(str(pvc["apiVersion"]), QStringLiteral("v1"));
        QCOMPARE(str(pvc["kind"]), QStringLiteral("PersistentVolumeClaim"));
        QVERIFY(pvc["spec"]["accessModes"].is_array());
        QCOMPARE(str(pvc["spec"]["accessModes"][0]), QStringLiteral("ReadWriteMany"));
    }

    void jobIsAnIndexedJobOfTheImage()
    {
        const json job = manifest("job.yaml");
        QCOMPARE(str(job["apiVersion"]), QStringLiteral("batch/v1"));
        QCOMPARE(str(job["kind"]), QStringLiteral("Job"));
        const json &spec = job["spec"];
        QCOMPARE(str(spec["completionMode"]), QStringLiteral("Indexed"));
        QVERIFY(spec["completions"].is_number_integer() && spec["completions"].get<int>() > 1);
        QVERIFY(spec["parallelism"].is_number_integer());
        QCOMPARE(spec["parallelism"].get<int>(), spec["completions"].get<int>());
        const json &pod = spec["template"]["spec"];
        QCOMPARE(str(pod["restartPolicy"]), QStringLiteral("Never"));
        const json &container = pod["containers"][0];
        QCOMPARE(str(container["image"]), QStringLiteral("${IMAGE}"));
        QCOMPARE(str(container["command"][0]), QStringLiteral("tokenbench-cli"));
        checkRunsVolume(pod, str(manifest("pvc.yaml")["metadata"]["name"]));
    }

    void jobCommandLineIsAcceptedForEveryIndex_data()
    {
        QTest::addColumn<int>("index");
        const int shards = manifest("job.yaml")["spec"]["completions"].get<int>();
        QTest::newRow("first") << 0;
        QTest::newRow("last") << shards - 1;
    }
    void jobCommandLineIsAcceptedForEveryIndex()
    {
        QFETCH(int, index);
        const json job = manifest("job.yaml");
        const int shards = job["spec"]["completions"].get<int>();
        const QStringList args = containerArgs(job["spec"]["template"]["spec"]["containers"][0], placeholders(), index);
        QCOMPARE(args.value(0), QStringLiteral("run"));
        QCOMPARE(argAfter(args, QStringLiteral("--shards")), QString::number(shards)); // as many shards as pods
        QCOMPARE(argAfter(args, QStringLiteral("--out")), QStringLiteral("/runs/ci/shard-%1").arg(index));

        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("JOB_COMPLETION_INDEX"), QString::number(index));
        const CliResult r = runCli(args + QStringList{QStringLiteral("--dry-run")}, env, 60000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("shard     %1 of %2").arg(index).arg(shards)), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("/runs/ci/shard-%1").arg(index)), qPrintable(r.out));
    }

    void mergeJobMergesEveryShardOfTheJob()
    {
        const json job = manifest("job.yaml");
        const json merge = manifest("merge-job.yaml");
        QCOMPARE(str(merge["apiVersion"]), QStringLiteral("batch/v1"));
        QCOMPARE(str(merge["kind"]), QStringLiteral("Job"));
        const json &pod = merge["spec"]["template"]["spec"];
        QCOMPARE(str(pod["containers"][0]["image"]), QStringLiteral("${IMAGE}"));
        checkRunsVolume(pod, str(manifest("pvc.yaml")["metadata"]["name"]));
        const QStringList args = containerArgs(pod["containers"][0], placeholders(), 0);
        QCOMPARE(args.value(0), QStringLiteral("merge"));
        const int shards = job["spec"]["completions"].get<int>();
        QStringList expected;
        for (int k = 0; k < shards; ++k)
            expected << QStringLiteral("/runs/ci/shard-%1").arg(k);
        QCOMPARE(args.mid(1, shards), expected);
        QCOMPARE(argAfter(args, QStringLiteral("--out")), QStringLiteral("/runs/ci/merged"));
        // Accepted by the parser: it gets as far as looking for the (absent) shard directories,
        // which are refused as compare and report refuse them (exit 2).
        const CliResult r = runCli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("/runs/ci/shard-0: no such directory")), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestK8s)
#include "tst_k8s.moc"
