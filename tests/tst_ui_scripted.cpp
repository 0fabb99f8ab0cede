// The scripted mode of the tokenbench binary, as documentation builds and scripts use it:
// `tokenbench --config FILE --autorun --screenshot OUT.png --quit-when-done` runs a benchmark on the
// built-in simulator, saves a picture of the window and exits 0, leaving the user's settings alone;
// `tokenbench RUN_DIR --screenshot OUT.png --quit-when-done` opens a saved run; bad input exits 2
// (usage, configuration) or 1 (a run directory that cannot be read) with a message.
#include "config/runconfig.h"

#include <QDir>
#include <QDirIterator>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace tb;

namespace {

constexpr int kTimeoutMs = 180000;

struct Result {
    int exitCode = -1;
    QString stderrText;
};

/// Pixels that differ from white and from the window's grey: what was drawn.
double inkFraction(const QImage &image)
{
    const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
    qint64 ink = 0;
    for (int y = 0; y < rgb.height(); ++y) {
        const auto *line = reinterpret_cast<const QRgb *>(rgb.constScanLine(y));
        for (int x = 0; x < rgb.width(); ++x)
            ink += qGray(line[x]) < 200;
    }
    return double(ink) / double(rgb.width() * rgb.height());
}

} // namespace

class TestUiScripted : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_home; ///< the child's settings and data folders: never the user's

    Result tokenbench(const QStringList &args)
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_home.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.filePath(QStringLiteral("data")));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(TOKENBENCH_GUI), args);
        if (!p.waitForFinished(kTimeoutMs)) {
            p.kill();
            p.waitForFinished();
            return {};
        }
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                QString::fromUtf8(p.readAllStandardError())};
    }

    QString writeConfig(const QString &outDir)
    {
        RunConfig c;
        c.target.name = QStringLiteral("Built-in simulator");
        c.target.model = QStringLiteral("fast");
        c.prompt.promptTokens = 128;
        c.request.maxTokens = 32;
        c.load.stages = *parseStages(QStringLiteral("c=2:1s,c=4:1s"), nullptr);
        c.outDir = outDir;
        const QString path = m_home.filePath(QStringLiteral("bench.json"));
        QString error;
        if (!saveRunConfig(c, path, &error))
            qFatal("%s", qPrintable(error));
        return path;
    }

    int settingsFiles() const
    {
        int n = 0;
        QDirIterator it(m_home.filePath(QStringLiteral("config")), QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            it.next();
            ++n;
        }
        return n;
    }

private Q_SLOTS:
    void autorunScreenshotAndQuit()
    {
        const QString run = m_home.filePath(QStringLiteral("runs/scripted"));
        const QString shot = m_home.filePath(QStringLiteral("shot.png"));
        const Result r = tokenbench({QStringLiteral("--config"), writeConfig(run), QStringLiteral("--autorun"),
                                     QStringLiteral("--screenshot"), shot, QStringLiteral("--quit-when-done"),
                                     QStringLiteral("--size"), QStringLiteral("1280x800")});
        QVERIFY2(r.exitCode == 0, qPrintable(QStringLiteral("exit %1: %2").arg(r.exitCode).arg(r.stderrText)));
        QVERIFY(QFile::exists(QDir(run).filePath(QStringLiteral("summary.json"))));
        const QImage image(shot);
        QCOMPARE(image.size(), QSize(1280, 800));
        QVERIFY2(inkFraction(image) > 0.03, qPrintable(QString::number(inkFraction(image))));
        QCOMPARE(settingsFiles(), 0); // a scripted session leaves the stored settings alone
    }

    void opensASavedRun()
    {
        const QString run = m_home.filePath(QStringLiteral("runs/to-open"));
        QCOMPARE(tokenbench({QStringLiteral("--config"), writeConfig(run), QStringLiteral("--autorun"),
                             QStringLiteral("--quit-when-done")})
                     .exitCode,
                 0);
        const QString shot = m_home.filePath(QStringLiteral("opened.png"));
        const Result r = tokenbench({run, QStringLiteral("--screenshot"), shot, QStringLiteral("--quit-when-done")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.stderrText));
        QVERIFY(!QImage(shot).isNull());
    }

    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing config") << QStringList{"--config", "/nonexistent/x.json", "--autorun",
                                                       "--quit-when-done"}
                                        << 2 << "x.json";
        QTest::newRow("nothing to wait for") << QStringList{"--quit-when-done"} << 2 << "--autorun";
        QTest::newRow("bad size") << QStringList{"--screenshot",     "x.png",    "--size", "big",
                                                 "--quit-when-done", "--autorun"}
                                  << 2 << "--size";
        QTest::newRow("not a run") << QStringList{"/nonexistent-run-dir", "--quit-when-done"} << 1
                                   << "nonexistent-run-dir";
    }

    void badInput()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, message);
        const Result r = tokenbench(args);
        QCOMPARE(r.exitCode, exitCode);
        QVERIFY2(r.stderrText.contains(message), qPrintable(r.stderrText));
    }
};

QTEST_MAIN(TestUiScripted)
#include "tst_ui_scripted.moc"
