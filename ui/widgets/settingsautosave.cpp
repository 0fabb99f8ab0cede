#include "widgets/settingsautosave.h"

#include <QEvent>
#include <QWidget>

#include <utility>

namespace tb {

SettingsAutosave::SettingsAutosave(std::function<void()> write, QObject *parent)
    : QObject(parent)
    , m_write(std::move(write))
{
    m_timer.setSingleShot(true);
    m_timer.setInterval(kDelayMs);
    connect(&m_timer, &QTimer::timeout, this, [this] { m_write(); });
}

void SettingsAutosave::watchWidget(QWidget *widget)
{
    widget->installEventFilter(this);
}

void SettingsAutosave::changed()
{
    // Not restarted by later changes: steady typing or dragging still gets written every kDelayMs.
    if (!m_timer.isActive())
        m_timer.start();
}

void SettingsAutosave::flush()
{
    m_timer.stop();
    m_write();
}

bool SettingsAutosave::eventFilter(QObject *watched, QEvent *event)
{
    switch (event->type()) {
    case QEvent::Move:
    case QEvent::Resize:
    case QEvent::ShowToParent:
    case QEvent::HideToParent:
    case QEvent::WindowStateChange:
        changed();
        break;
    default:
        break;
    }
    return QObject::eventFilter(watched, event);
}

} // namespace tb
