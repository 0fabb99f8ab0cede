#include "signalwatcher.h"

#include <QSocketNotifier>

namespace tb::cli {

SignalWatcher::SignalWatcher(QObject *parent)
    : QObject(parent)
{
    if (m_signals.socket() == kNoSocket)
        return;
    m_notifier = new QSocketNotifier(m_signals.socket(), QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, [this] {
        if (const int signum = m_signals.take())
            Q_EMIT terminationRequested(signum, ++m_count);
    });
}

SignalWatcher::~SignalWatcher()
{
    // The notifier goes before m_signals closes the socket it watches.
    delete m_notifier;
    m_notifier = nullptr;
}

} // namespace tb::cli
