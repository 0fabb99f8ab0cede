// The scripted mode of the tokenbench binary, as documentation builds and scripts use it:
// `tokenbench --config FILE --autorun --screenshot OUT.png --quit-when-done` runs a benchmark on the
// built-in simulator, saves a picture of the window and exits 0, leaving the user's settings alone;
// `tokenbench RUN_DIR --screenshot OUT.png --quit-when-done` opens a saved run; bad input exits 2
// (usage, configuration) or 1 (a run directory that cannot be read) with a message.
#include "config/runconfig.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QImage>
#include <QMap>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::Literals::StringLiterals;

using namespace tb;

namespace {

constexpr int kTimeoutMs = 180000;

struct Result {
    int exitCode = -1;
    QString stderrText;
    QString stdoutText;
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

    Result tokenbench(const QStringList &args, const QMap<QString, QString> &extraEnv = {})
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        for (auto it = extraEnv.begin(); it != extraEnv.end(); ++it) {
            if (it.value().isNull())
                env.remove(it.key());
            else
                env.insert(it.key(), it.value());
        }
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), m_home.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_home.filePath(QStringLiteral("data")));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(TOKENBENCH_GUI), args);
        if (!p.waitForFinished(kTimeoutMs)) {
            p.kill();
            p.waitForFinished();
            return {};
        }
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardError()),
                QString::fromUtf8(p.readAllStandardOutput())};
    }

    /// An offscreen "monitor" of the given size (Qt's offscreen platform reads it from a file).
    QString screenConfig(int width, int height)
    {
        const QString path = m_home.filePath(QStringLiteral("screen-%1x%2.json").arg(width).arg(height));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(path));
        f.write(QStringLiteral(R"({"screens": [{"name": "laptop", "x": 0, "y": 0, "width": %1, "height": %2,
                                  "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})")
                    .arg(width)
                    .arg(height)
                    .toUtf8());
        return path;
    }

    QString writeConfig(const QString &outDir, const QString &url = {})
    {
        RunConfig c;
        c.target.name = QStringLiteral("Built-in simulator");
        c.target.model = QStringLiteral("fast");
        if (!url.isEmpty()) {
            c.target.name = QStringLiteral("nobody");
            c.target.url = url;
            c.load.requests = 10;
        }
        c.prompt.promptTokens = 128;
        c.request.maxTokens = 32;
        if (url.isEmpty())
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

    // The window used to open at 1280×820 on a 1280×800 screen (status bar off-screen) and at
    // 1920×1230 at 1.5× scale: it must fit the screen it opens on.
    void windowFitsTheScreen_data()
    {
        QTest::addColumn<QSize>("screen");
        QTest::addColumn<QString>("scale");
        QTest::newRow("1280x800") << QSize(1280, 800) << "1";
        QTest::newRow("1280x800 at 1.5x") << QSize(1280, 800) << "1.5";
        QTest::newRow("1600x1000") << QSize(1600, 1000) << "1";
    }

    void windowFitsTheScreen()
    {
        QFETCH(QSize, screen);
        QFETCH(QString, scale);
        const QString run =
            m_home.filePath(QStringLiteral("runs/fit-%1x%2-%3").arg(screen.width()).arg(screen.height()).arg(scale));
        const QString shot = run + QStringLiteral(".png");
        const Result r =
            tokenbench({QStringLiteral("--config"), writeConfig(run), QStringLiteral("--autorun"),
                        QStringLiteral("--screenshot"), shot, QStringLiteral("--quit-when-done")},
                       {{QStringLiteral("QT_QPA_PLATFORM"),
                         QStringLiteral("offscreen:configfile=%1").arg(screenConfig(screen.width(), screen.height()))},
                        {QStringLiteral("QT_SCALE_FACTOR"), scale}});
        QVERIFY2(r.exitCode == 0, qPrintable(r.stderrText));
        const QImage image(shot); // device pixels
        QVERIFY(!image.isNull());
        QVERIFY2(image.width() <= screen.width() && image.height() <= screen.height(),
                 qPrintable(QStringLiteral("%1x%2 on a %3x%4 screen")
                                .arg(image.width())
                                .arg(image.height())
                                .arg(screen.width())
                                .arg(screen.height())));
        // …and uses it: not a postage stamp.
        QVERIFY2(image.width() >= screen.width() * 0.8, qPrintable(QString::number(image.width())));
    }

    // Every request refused used to end in "Run finished; results saved" and exit 0.
    void allFailedRunExitsOne()
    {
        const QString run = m_home.filePath(QStringLiteral("runs/dead-target"));
        const Result r =
            tokenbench({QStringLiteral("--config"), writeConfig(run, QStringLiteral("http://127.0.0.1:9/v1")),
                        QStringLiteral("--autorun"), QStringLiteral("--quit-when-done")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.stderrText.contains(QStringLiteral("Run failed: 10 of 10 requests failed")),
                 qPrintable(r.stderrText));
        QVERIFY(QFile::exists(QDir(run).filePath(QStringLiteral("summary.json")))); // saved all the same
    }

    void helpWithoutDisplay_data()
    {
        QTest::addColumn<QString>("value"); // a null QString unsets the variable
        QTest::newRow("unset") << QString();
        QTest::newRow("empty") << QStringLiteral("");
    }

    // `tokenbench --help` on a machine without a display printed Qt's platform-plugin error.
    void helpWithoutDisplay()
    {
        QFETCH(QString, value);
        const QMap<QString, QString> noDisplay{{QStringLiteral("QT_QPA_PLATFORM"), value},
                                               {QStringLiteral("DISPLAY"), value},
                                               {QStringLiteral("WAYLAND_DISPLAY"), value}};
        const Result help = tokenbench({QStringLiteral("--help")}, noDisplay);
        QCOMPARE(help.exitCode, 0);
        QVERIFY2(help.stdoutText.contains(QStringLiteral("--screenshot")),
                 qPrintable(help.stdoutText + help.stderrText));
        const Result run = tokenbench({}, noDisplay);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.stderrText.contains(QStringLiteral("no display")), qPrintable(run.stderrText));
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

    // `tokenbench A B --size 1280x800 --screenshot` wrote a 1289×796 picture of A's dashboard: two
    // runs open on their comparison, at the size asked for; the start screen can be taken too.
    void screenshotsAreTheSizeAsked_data()
    {
        QTest::addColumn<int>("runs");
        QTest::newRow("start") << 0;
        QTest::newRow("a comparison") << 2;
    }

    void screenshotsAreTheSizeAsked()
    {
        QFETCH(int, runs);
        QStringList args;
        for (int i = 0; i < runs; ++i) {
            const QString run = m_home.filePath(QStringLiteral("runs/compared-%1").arg(i));
            if (!QFile::exists(QDir(run).filePath(QStringLiteral("summary.json"))))
                QCOMPARE(tokenbench({QStringLiteral("--config"), writeConfig(run), QStringLiteral("--autorun"),
                                     QStringLiteral("--quit-when-done")})
                             .exitCode,
                         0);
            args << run;
        }
        const QString shot = m_home.filePath(QStringLiteral("sized-%1.png").arg(runs));
        const Result r = tokenbench(args + QStringList{QStringLiteral("--screenshot"), shot, QStringLiteral("--size"),
                                                       QStringLiteral("1280x800"), QStringLiteral("--quit-when-done")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.stderrText));
        QCOMPARE(QImage(shot).size(), QSize(1280, 800));
    }

    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing config") << QStringList{u"--config"_s, u"/nonexistent/x.json"_s, u"--autorun"_s,
                                                       u"--quit-when-done"_s}
                                        << 2 << "x.json";
        QTest::newRow("nothing to wait for") << QStringList{u"--quit-when-done"_s} << 2 << u"--autorun"_s;
        QTest::newRow("bad size") << QStringList{u"--screenshot"_s,     u"x.png"_s,    u"--size"_s, u"big"_s,
                                                 u"--quit-when-done"_s, u"--autorun"_s}
                                  << 2 << "--size";
        QTest::newRow("not a run") << QStringList{u"/nonexistent-run-dir"_s, u"--quit-when-done"_s} << 1
                                   << u"nonexistent-run-dir"_s;
        QTest::newRow("bad theme") << QStringList{u"--theme"_s, u"purple"_s, u"--quit-when-done"_s, u"--autorun"_s} << 2
                                   << u"--theme: expected system, light or dark"_s;
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
