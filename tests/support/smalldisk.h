#pragma once

// A disk that really fills up, for the full-disk tests: a small tmpfs mounted on a temporary
// directory, so every file on it — temporary ones included — fails with ENOSPC when it is full.

#include <QByteArray>
#include <QString>
#include <QTemporaryDir>

#include <cerrno>
#include <cstring>

#include <sys/mount.h>
#include <unistd.h>

class SmallDisk
{
public:
    /// Mounting needs root (CAP_SYS_ADMIN); without it skipReason() says why, for QSKIP.
    explicit SmallDisk(qint64 bytes)
    {
        if (::geteuid() != 0) {
            m_skipReason = "mounting a small tmpfs needs root";
            return;
        }
        if (!m_mountPoint.isValid()) {
            m_skipReason = "no temporary directory to mount on";
            return;
        }
        const QByteArray options = "size=" + QByteArray::number(bytes) + ",mode=0700";
        if (::mount("tokenbench-test", m_mountPoint.path().toLocal8Bit().constData(), "tmpfs", MS_NOSUID | MS_NODEV,
                    options.constData()) != 0) {
            m_skipReason = QByteArray("mount -t tmpfs failed: ") + std::strerror(errno);
            return;
        }
        m_mounted = true;
    }
    ~SmallDisk()
    {
        // Detached, so a file a failed test left open does not keep the mount.
        if (m_mounted)
            ::umount2(m_mountPoint.path().toLocal8Bit().constData(), MNT_DETACH);
    }
    SmallDisk(const SmallDisk &) = delete;
    SmallDisk &operator=(const SmallDisk &) = delete;

    bool isMounted() const { return m_mounted; }
    const char *skipReason() const { return m_skipReason.constData(); }
    QString filePath(const QString &name) const { return m_mountPoint.filePath(name); }

private:
    QTemporaryDir m_mountPoint;
    bool m_mounted = false;
    QByteArray m_skipReason;
};
