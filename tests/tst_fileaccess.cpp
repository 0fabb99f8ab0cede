// The platform seam's file calls (platform/fileaccess.h), as config/inputfile and config/outputfile
// rely on them: the kind and size of what was opened, no wait on a FIFO, no write through a final
// symbolic link, a new file that must not exist, a rename over an existing file. Written on the
// neutral header only, so that it runs as it is on Windows.

#include "platform/fileaccess.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include "support/testfiles.h"

#include <utility>

using namespace tb;

class TestFileAccess : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aRegularFileSaysItsKindAndSizeAndQFileReadsIt()
    {
        QTemporaryDir dir;
        const QString path = test::writeFile(dir, QStringLiteral("a.json"), "{\"a\":1}");
        QVERIFY(!path.isEmpty());
        FileError error;
        FileHandle handle = openForReading(path, &error);
        QVERIFY2(handle.isOpen(), qPrintable(error.text));
        FileKind kind = FileKind::Other;
        qint64 size = -1;
        QVERIFY2(handle.status(&kind, &size, &error), qPrintable(error.text));
        QCOMPARE(kind, FileKind::Regular);
        QCOMPARE(size, 7);
        QFile file;
        QString why;
        QVERIFY2(handle.handTo(file, QIODevice::ReadOnly, &why), qPrintable(why));
        QVERIFY(!handle.isOpen()); // QFile owns it now
        QCOMPARE(file.readAll(), QByteArray("{\"a\":1}"));
    }

    void aDirectoryOpensForReadingAndSaysSo()
    {
        QTemporaryDir dir;
        FileError error;
        FileHandle handle = openForReading(dir.path(), &error);
        QVERIFY2(handle.isOpen(), qPrintable(error.text));
        FileKind kind = FileKind::Other;
        qint64 size = 0;
        QVERIFY2(handle.status(&kind, &size, &error), qPrintable(error.text));
        QCOMPARE(kind, FileKind::Directory);
    }

    /// A FIFO with no writer: the open must not wait for one (POSIX only: mkfifo).
    void aFifoIsOpenedWithoutWaitingAndNamed()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("fifo"));
        if (!test::makeUnreadableFile(path, QStringLiteral("fifo")))
            QSKIP("no FIFOs here");
        QElapsedTimer timer;
        timer.start();
        FileError error;
        FileHandle handle = openForReading(path, &error);
        QVERIFY2(handle.isOpen(), qPrintable(error.text));
        QVERIFY(timer.elapsed() < 5000);
        FileKind kind = FileKind::Other;
        qint64 size = 0;
        QVERIFY(handle.status(&kind, &size, &error));
        QCOMPARE(kind, FileKind::Fifo);
    }

    void aMissingFileFailsWithTheSystemsWords()
    {
        QTemporaryDir dir;
        FileError error;
        const FileHandle handle = openForReading(dir.filePath(QStringLiteral("absent")), &error);
        QVERIFY(!handle.isOpen());
        QCOMPARE(error.cause, FileError::Cause::Other);
        QVERIFY(!error.text.isEmpty());
    }

    void writingOpensWithoutEmptyingUntilTruncated()
    {
        QTemporaryDir dir;
        const QString path = test::writeFile(dir, QStringLiteral("out.csv"), "abc");
        FileError error;
        FileHandle handle = openForWriting(path, &error);
        QVERIFY2(handle.isOpen(), qPrintable(error.text));
        FileKind kind = FileKind::Other;
        qint64 size = -1;
        QVERIFY(handle.status(&kind, &size, &error));
        QCOMPARE(kind, FileKind::Regular);
        QCOMPARE(size, 3);
        QVERIFY2(handle.truncate(&error), qPrintable(error.text));
        QVERIFY(handle.status(&kind, &size, &error));
        QCOMPARE(size, 0);
        QVERIFY2(handle.writeAll("xyz!", &error), qPrintable(error.text));
        QVERIFY2(handle.close(&error), qPrintable(error.text));
        QCOMPARE(test::readFile(path), QByteArray("xyz!"));
    }

    /// A link at the end of the name is refused, its target left as it was; a link on the way
    /// (a directory's) is followed as any name is.
    void writingRefusesAFinalSymbolicLink()
    {
        QTemporaryDir dir;
        const QString target = test::writeFile(dir, QStringLiteral("target"), "keep");
        const QString link = dir.filePath(QStringLiteral("link"));
        if (!QFile::link(target, link) || !QFileInfo(link).isSymbolicLink())
            QSKIP("no symbolic links here (Windows without the privilege to make one)");
        QVERIFY(isSymbolicLink(link));
        QVERIFY(!isSymbolicLink(target));
        FileError error;
        const FileHandle handle = openForWriting(link, &error);
        QVERIFY(!handle.isOpen());
        QCOMPARE(error.cause, FileError::Cause::SymbolicLink);
        QCOMPARE(test::readFile(target), QByteArray("keep"));
        // A new file may not be made under the link's name either: it exists, as a link.
        const FileHandle created = createNewFile(link, &error);
        QVERIFY(!created.isOpen());
        QCOMPARE(error.cause, FileError::Cause::Exists);
        QCOMPARE(test::readFile(target), QByteArray("keep"));
    }

    void aNewFileIsWrittenSyncedAndRenamedOverTheOldOne()
    {
        QTemporaryDir dir;
        const QString path = test::writeFile(dir, QStringLiteral("session.json"), "old");
        const QString temporary = dir.filePath(QStringLiteral("session.json.tmp"));
        FileError error;
        FileHandle handle = createNewFile(temporary, &error);
        QVERIFY2(handle.isOpen(), qPrintable(error.text));
        QVERIFY2(handle.writeAll("new content", &error), qPrintable(error.text));
        QVERIFY2(handle.sync(&error), qPrintable(error.text));
        QVERIFY2(handle.close(&error), qPrintable(error.text));
        QVERIFY(!handle.isOpen());
        QVERIFY2(replaceFile(temporary, path, &error), qPrintable(error.text));
        QCOMPARE(test::readFile(path), QByteArray("new content"));
        QVERIFY(!QFileInfo::exists(temporary));
        // The name is taken now: a second new file under it is refused, the first left alone.
        const FileHandle again = createNewFile(path, &error);
        QVERIFY(!again.isOpen());
        QCOMPARE(error.cause, FileError::Cause::Exists);
        QVERIFY(!error.text.isEmpty());
        QCOMPARE(test::readFile(path), QByteArray("new content"));
    }

    void aMovedHandleClosesOnce()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("moved"));
        FileError error;
        FileHandle first = createNewFile(path, &error);
        QVERIFY(first.isOpen());
        FileHandle second = std::move(first);
        QVERIFY(!first.isOpen()); // NOLINT(bugprone-use-after-move): what a move leaves is the point
        QVERIFY(second.isOpen());
        QVERIFY(second.writeAll("x", &error));
        QVERIFY(second.close(&error));
        QCOMPARE(test::readFile(path), QByteArray("x"));
    }
};

QTEST_GUILESS_MAIN(TestFileAccess)
#include "tst_fileaccess.moc"
