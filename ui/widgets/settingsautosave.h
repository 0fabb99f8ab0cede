#pragma once

#include <QObject>
#include <QTimer>

#include <functional>

class QWidget;

namespace tb {

/// Writes a window's settings soon after they change, not only on a clean quit: a process that is
/// killed loses at most the last kDelayMs of changes. Changes within that time are written together
/// (a word typed, a splitter dragged: one write, not one a key or a pixel). What counts as a change:
/// the signals watch() names, and a watched widget moved, resized, shown, hidden, maximised.
class SettingsAutosave : public QObject
{
    Q_OBJECT

public:
    static constexpr int kDelayMs = 500;

    /// `write` stores everything (it may decline, e.g. in a scripted session).
    SettingsAutosave(std::function<void()> write, QObject *parent);

    /// Each emission of `signal` is a change.
    template<typename Sender, typename Signal> void watch(const Sender *sender, Signal signal)
    {
        connect(sender, signal, this, &SettingsAutosave::changed);
    }
    /// `widget`'s geometry and visibility are settings.
    void watchWidget(QWidget *widget);

    /// Something was changed: written within kDelayMs.
    void changed();
    /// Writes now (on quit), and nothing is left pending.
    void flush();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    std::function<void()> m_write;
    QTimer m_timer;
};

} // namespace tb
