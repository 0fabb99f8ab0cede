#include "editors/simulatorcontroller.h"

#include "sim/simulatorhost.h"

namespace tb {

SimulatorController::SimulatorController(QObject *parent)
    : QObject(parent)
{}

SimulatorController::~SimulatorController() = default;

QStringList SimulatorController::presetNames()
{
    return sim::SimConfig::presetNames();
}

QString SimulatorController::presetDescription(const QString &preset)
{
    return sim::SimConfig::presetDescription(preset);
}

QString SimulatorController::defaultPreset()
{
    return QStringLiteral("default");
}

bool SimulatorController::start(const QString &preset)
{
    const auto config = sim::SimConfig::preset(preset);
    if (!config) {
        m_error = tr("unknown simulator preset '%1' (known: %2)").arg(preset, presetNames().join(QStringLiteral(", ")));
        Q_EMIT stateChanged();
        return false;
    }
    // A restart keeps the port when it can, so a URL already copied elsewhere stays good.
    const quint16 port = m_host ? m_host->port() : 0;
    m_host.reset(); // stops the old server and joins its thread
    auto host = std::make_unique<sim::SimulatorHost>(*config);
    QString error;
    bool started = host->start(QHostAddress(QHostAddress::LocalHost), port, &error);
    if (!started && port != 0)
        started = host->start(QHostAddress(QHostAddress::LocalHost), 0, &error);
    m_preset = preset;
    if (started) {
        m_host = std::move(host);
        m_error.clear();
    } else {
        m_error = error;
    }
    Q_EMIT stateChanged();
    return started;
}

void SimulatorController::stop()
{
    m_host.reset();
    Q_EMIT stateChanged();
}

bool SimulatorController::isRunning() const
{
    return m_host && m_host->isRunning();
}

QUrl SimulatorController::baseUrl() const
{
    return isRunning() ? m_host->baseUrl() : QUrl();
}

} // namespace tb
