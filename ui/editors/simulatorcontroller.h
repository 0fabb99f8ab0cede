#pragma once

#include <QObject>
#include <QStringList>
#include <QUrl>

#include <memory>

namespace tb {

namespace sim {
class SimulatorHost;
}

/// The GUI's built-in target: a simulated LLM server running in this process on a free loopback
/// port, so Run works on first start with no model and no network. Switching the preset restarts
/// the server (on the same port when it is still free).
class SimulatorController : public QObject
{
    Q_OBJECT

public:
    explicit SimulatorController(QObject *parent = nullptr);
    ~SimulatorController() override;

    static QStringList presetNames();
    /// One line about what a preset mimics.
    static QString presetDescription(const QString &preset);
    static QString defaultPreset();

    /// Starts, or restarts with another preset. On failure errorString() says why.
    bool start(const QString &preset);
    void stop();

    bool isRunning() const;
    QString preset() const { return m_preset; }
    /// http://127.0.0.1:PORT/v1 while running.
    QUrl baseUrl() const;
    QString errorString() const { return m_error; }

Q_SIGNALS:
    /// Started, stopped or restarted (the URL may have changed).
    void stateChanged();

private:
    std::unique_ptr<sim::SimulatorHost> m_host;
    QString m_preset;
    QString m_error;
};

} // namespace tb
