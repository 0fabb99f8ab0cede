#pragma once

#include <QObject>

class QSocketNotifier;

namespace tb::cli {

/// Turns SIGINT and SIGTERM into a Qt signal on the main thread (self-pipe: the handler only
/// writes a byte, which is async-signal-safe). One instance per process.
class SignalWatcher : public QObject
{
    Q_OBJECT

public:
    explicit SignalWatcher(QObject *parent = nullptr);
    ~SignalWatcher() override;

Q_SIGNALS:
    /// signum is SIGINT or SIGTERM; `count` is how many termination signals arrived so far.
    void terminationRequested(int signum, int count);

private:
    QSocketNotifier *m_notifier = nullptr;
    int m_count = 0;
};

} // namespace tb::cli
