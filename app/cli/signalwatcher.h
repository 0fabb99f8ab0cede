#pragma once

#include "platform/terminationsignals.h"

#include <QObject>

class QSocketNotifier;

namespace tb::cli {

/// Turns SIGINT and SIGTERM (on Windows the console's Ctrl-C, Ctrl-Break and closing) into a Qt
/// signal on the main thread: the platform's TerminationSignals writes a byte a signal to a
/// socket this watches. One instance per process.
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
    TerminationSignals m_signals;
    QSocketNotifier *m_notifier = nullptr;
    int m_count = 0;
};

} // namespace tb::cli
