// The documentation kept true: docs/SPEC.md's flag table of each tokenbench-cli command names
// exactly the flags its --help lists (names only: help wording may change freely), every relative
// link in README.md, DEVELOPERS.md and docs/*.md reaches a file (and its heading, for an anchor),
// and the folders of core/ and ui/ are the ones the README's source tree and ARCHITECTURE.md's rank
// table show.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

#include "support/clirunner.h"

namespace {

const QString kSource = QStringLiteral(TOKENBENCH_SOURCE_DIR);

QString readText(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

QString sortedList(QSet<QString> names)
{
    QStringList list(names.begin(), names.end());
    list.sort();
    return list.join(QStringLiteral(", "));
}

/// The long flags of `tokenbench-cli <command> --help`: Qt's help puts each option at two spaces
/// of indentation and wraps its description further in, so a flag named inside a description is
/// not taken for an option. Qt's own --help and --help-all are every command's and left out.
QSet<QString> helpFlags(const QString &help)
{
    static const QRegularExpression option(QStringLiteral("^  (?:-\\w, )?(--[\\w-]+)"));
    QSet<QString> flags;
    bool inOptions = false;
    for (const QString &line : help.split(QLatin1Char('\n'))) {
        if (!line.startsWith(QLatin1Char(' ')))
            inOptions = line.startsWith(QLatin1String("Options:"));
        const auto m = option.match(line);
        if (inOptions && m.hasMatch())
            flags.insert(m.captured(1));
    }
    flags.remove(QStringLiteral("--help"));
    flags.remove(QStringLiteral("--help-all"));
    return flags;
}

/// The flags in the first column of SPEC.md's table under "### `tokenbench-cli <command>` flags".
QSet<QString> specFlags(const QString &spec, const QString &command)
{
    static const QRegularExpression row(QStringLiteral("^\\| `(--[\\w-]+)`"));
    const QString heading = QStringLiteral("### `tokenbench-cli %1` flags").arg(command);
    QSet<QString> flags;
    bool inSection = false;
    for (const QString &line : spec.split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1Char('#')))
            inSection = line == heading;
        const auto m = row.match(line);
        if (inSection && m.hasMatch())
            flags.insert(m.captured(1));
    }
    return flags;
}

/// The text without fenced code blocks and inline code, where a bracket is no link.
QString proseOf(const QString &markdown)
{
    QStringList kept;
    bool fenced = false;
    for (const QString &line : markdown.split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1String("```"))) {
            fenced = !fenced;
            continue;
        }
        if (!fenced)
            kept << line;
    }
    static const QRegularExpression code(QStringLiteral("`[^`]*`"));
    return kept.join(QLatin1Char('\n')).remove(code);
}

/// The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces as
/// hyphens, "-1", "-2" … after a repeated one.
QSet<QString> anchorsOf(const QString &markdown)
{
    QSet<QString> anchors;
    QHash<QString, int> seen;
    bool fenced = false;
    for (const QString &line : markdown.split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1String("```")))
            fenced = !fenced;
        if (fenced || !line.startsWith(QLatin1Char('#')))
            continue;
        const QString title = line.mid(line.indexOf(QLatin1Char(' ')) + 1).trimmed().toLower();
        QString anchor;
        for (const QChar c : title) {
            if (c.isLetterOrNumber() || c == QLatin1Char('-') || c == QLatin1Char('_'))
                anchor += c;
            else if (c == QLatin1Char(' '))
                anchor += QLatin1Char('-');
        }
        const int n = seen.value(anchor, 0);
        seen[anchor] = n + 1;
        anchors.insert(n == 0 ? anchor : anchor + QLatin1Char('-') + QString::number(n));
    }
    return anchors;
}

QStringList documentationFiles()
{
    QStringList files{QStringLiteral("README.md"), QStringLiteral("DEVELOPERS.md")};
    const QStringList docs = QDir(kSource + QStringLiteral("/docs")).entryList({QStringLiteral("*.md")}, QDir::Files);
    for (const QString &name : docs)
        files << QStringLiteral("docs/") + name;
    return files;
}

/// The rooms of core/ and ui/: their folders.
QStringList roomFolders()
{
    QStringList rooms;
    for (const QString &tree : {QStringLiteral("core"), QStringLiteral("ui")}) {
        const QStringList folders =
            QDir(kSource + QLatin1Char('/') + tree).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        for (const QString &folder : folders)
            rooms << tree + QLatin1Char('/') + folder;
    }
    return rooms;
}

} // namespace

class TestDocs : public QObject
{
    Q_OBJECT

private slots:
    void specFlagTableMatchesHelp_data()
    {
        QTest::addColumn<QString>("command");
        for (const char *command : {"run", "sim", "compare", "report", "merge", "export-trace", "export-report"})
            QTest::newRow(command) << QString::fromLatin1(command);
    }

    void specFlagTableMatchesHelp()
    {
        QFETCH(QString, command);
        const CliResult help = runCli({command, QStringLiteral("--help")});
        QCOMPARE(help.exitCode, 0);
        const QSet<QString> inHelp = helpFlags(help.out);
        QVERIFY2(!inHelp.isEmpty(), qPrintable(QStringLiteral("no flags read from `%1 --help`").arg(command)));
        const QString spec = readText(kSource + QStringLiteral("/docs/SPEC.md"));
        const QSet<QString> inSpec = specFlags(spec, command);
        QSet<QString> notInSpec = inHelp;
        notInSpec.subtract(inSpec);
        QSet<QString> notInHelp = inSpec;
        notInHelp.subtract(inHelp);
        QStringList problems;
        if (!notInSpec.isEmpty())
            problems << QStringLiteral("%1 in --help but not in docs/SPEC.md's flag table").arg(sortedList(notInSpec));
        if (!notInHelp.isEmpty())
            problems << QStringLiteral("%1 in docs/SPEC.md's flag table but not in --help").arg(sortedList(notInHelp));
        QVERIFY2(problems.isEmpty(),
                 qPrintable(QStringLiteral("tokenbench-cli %1: ").arg(command) + problems.join(QStringLiteral("; "))));
        qInfo("%s: %lld flags, the same in --help and docs/SPEC.md", qPrintable(command),
              static_cast<long long>(inHelp.size()));
    }

    // The table reader must see a flag that only one side has, or the comparison above could
    // never fail.
    void specFlagsReadsOnlyItsCommandsTable()
    {
        const QString spec = QStringLiteral("### `tokenbench-cli sim` flags\n\n| flag | value | what |\n"
                                            "| --- | --- | --- |\n| `--port` | `N` | the port |\n\n"
                                            "### `tokenbench-cli merge` flags\n\n| `--out` | `DIR` | x |\n");
        QCOMPARE(specFlags(spec, QStringLiteral("sim")), QSet<QString>{QStringLiteral("--port")});
        QCOMPARE(specFlags(spec, QStringLiteral("merge")), QSet<QString>{QStringLiteral("--out")});
        const QString help = QStringLiteral("Usage: x\n\nOptions:\n  -h, --help  help\n  --port <N>  the\n"
                                            "              --not-an-option here\n\nArguments:\n  --dir  x\n");
        QCOMPARE(helpFlags(help), QSet<QString>{QStringLiteral("--port")});
    }

    void relativeLinksResolve_data()
    {
        QTest::addColumn<QString>("file");
        for (const QString &file : documentationFiles())
            QTest::newRow(qPrintable(file)) << file;
    }

    void relativeLinksResolve()
    {
        QFETCH(QString, file);
        const QString path = kSource + QLatin1Char('/') + file;
        const QString text = readText(path);
        QVERIFY2(!text.isEmpty(), qPrintable(file + QStringLiteral(" is missing or empty")));
        static const QRegularExpression link(QStringLiteral("\\]\\(([^)\\s]+)\\)"));
        static const QRegularExpression external(QStringLiteral("^[a-z][a-z0-9+.-]*:"));
        QStringList broken;
        int checked = 0;
        auto it = link.globalMatch(proseOf(text));
        while (it.hasNext()) {
            const QString target = it.next().captured(1);
            if (external.match(target).hasMatch())
                continue;
            ++checked;
            const qsizetype hash = target.indexOf(QLatin1Char('#'));
            const QString targetPath = target.left(hash < 0 ? target.size() : hash);
            const QString anchor = hash < 0 ? QString() : target.mid(hash + 1);
            const QString resolved = targetPath.isEmpty() ? path : QFileInfo(path).dir().absoluteFilePath(targetPath);
            if (!QFileInfo::exists(resolved)) {
                broken << target + QStringLiteral(" (no such file)");
                continue;
            }
            if (!anchor.isEmpty() && resolved.endsWith(QLatin1String(".md")) &&
                !anchorsOf(readText(resolved)).contains(anchor))
                broken << target + QStringLiteral(" (no such heading)");
        }
        QVERIFY2(broken.isEmpty(), qPrintable(file + QStringLiteral(": ") + broken.join(QStringLiteral("; "))));
        qInfo("%s: %d relative links resolve", qPrintable(file), checked);
    }

    void anchorsFollowGitHub_data()
    {
        QTest::addColumn<QString>("markdown");
        QTest::addColumn<QString>("anchor");
        QTest::newRow("punctuation") << QStringLiteral("## Transports: native and qnam")
                                     << QStringLiteral("transports-native-and-qnam");
        QTest::newRow("code and apostrophe") << QStringLiteral("## Ground truth: `/sim/stats` and llama.cpp's")
                                             << QStringLiteral("ground-truth-simstats-and-llamacpps");
        QTest::newRow("repeated") << QStringLiteral("# Metrics\n## Metrics") << QStringLiteral("metrics-1");
        QTest::newRow("not in a code block")
            << QStringLiteral("```\n# comment\n```\n## Real") << QStringLiteral("real");
    }

    void anchorsFollowGitHub()
    {
        QFETCH(QString, markdown);
        QFETCH(QString, anchor);
        QVERIFY2(anchorsOf(markdown).contains(anchor), qPrintable(sortedList(anchorsOf(markdown))));
        QVERIFY(!anchorsOf(markdown).contains(QStringLiteral("comment")));
    }

    void everyRoomIsShown_data()
    {
        QTest::addColumn<QString>("room");
        for (const QString &room : roomFolders())
            QTest::newRow(qPrintable(room)) << room;
    }

    // A folder missing from the README's source tree or from ARCHITECTURE.md's rank table is a
    // room nobody is told of.
    void everyRoomIsShown()
    {
        QFETCH(QString, room);
        const QString readme = readText(kSource + QStringLiteral("/README.md"));
        const QString folder = room.mid(room.indexOf(QLatin1Char('/')) + 1);
        QVERIFY2(readme.contains(QRegularExpression(QStringLiteral("\\s%1/").arg(QRegularExpression::escape(folder)))),
                 qPrintable(room + QStringLiteral(" is not in README.md's source tree")));
        const QString architecture = readText(kSource + QStringLiteral("/docs/ARCHITECTURE.md"));
        QVERIFY2(architecture.contains(
                     QRegularExpression(QStringLiteral("^\\|[^\\n]*`%1`").arg(QRegularExpression::escape(room)),
                                        QRegularExpression::MultilineOption)),
                 qPrintable(room + QStringLiteral(" is not in docs/ARCHITECTURE.md's rank table")));
    }

    // ...and a room in the rank table must still be a folder.
    void rankTableNamesOnlyFolders()
    {
        const QString architecture = readText(kSource + QStringLiteral("/docs/ARCHITECTURE.md"));
        static const QRegularExpression room(QStringLiteral("`((?:core|ui)/\\w+)`"));
        const QStringList folders = roomFolders();
        QStringList gone;
        for (const QString &line : architecture.split(QLatin1Char('\n'))) {
            if (!line.startsWith(QLatin1String("| ")) ||
                !line.contains(QRegularExpression(QStringLiteral("^\\| \\d+ \\|"))))
                continue;
            auto it = room.globalMatch(line);
            while (it.hasNext()) {
                const QString name = it.next().captured(1);
                if (!folders.contains(name))
                    gone << name;
            }
        }
        QVERIFY2(gone.isEmpty(), qPrintable(gone.join(QStringLiteral(", "))));
    }
};

QTEST_GUILESS_MAIN(TestDocs)
#include "tst_docs.moc"
