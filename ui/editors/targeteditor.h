#pragma once

#include "config/runconfig.h"
#include "editors/configfieldwidgets.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;

namespace tb {

class FieldValidator;
class ModelLister;
class OptionalSpinBox;

/// The form for one endpoint profile (tb::TargetConfig): name, API kind, base URL, model, where the
/// key comes from, extra headers and extra body JSON, and "Test connection", which lists the
/// server's models so one can be picked. For the built-in simulator, the URL follows the server and
/// the model is the simulator preset.
class TargetEditor : public QWidget
{
    Q_OBJECT

public:
    explicit TargetEditor(FieldValidator *validator, QWidget *parent = nullptr);
    ~TargetEditor() override;

    /// Shows a target; `builtin` switches to the simulator's form. Clears the last connection test.
    void setTarget(const TargetConfig &target, bool builtin);
    TargetConfig target() const;
    bool isBuiltin() const { return m_builtin; }

    /// The presets offered as the simulator's models: (name, description) pairs.
    void setSimulatorPresets(const QList<std::pair<QString, QString>> &presets);
    /// The simulator's URL and a line saying whether it runs, without touching the other fields.
    void setSimulatorState(const QString &url, const QString &status, bool running);

    /// Problems in the fields that the config cannot hold: malformed header lines, extra body that
    /// is not a JSON object, a name reserved for the simulator. In "json.path: reason" form.
    QStringList problems() const;

public Q_SLOTS:
    /// Lists the server's models (GET {url}/models) without blocking; the result shows under Model.
    void testConnection();

Q_SIGNALS:
    void edited();

private:
    void showModels(const QStringList &models, qint64 elapsedMs);
    void showConnectionError(const QString &error);
    /// The last listing's line under Model, saying whether the model box's name is among it.
    void showListing();
    void updateKeyState();
    void fillPresets();
    void browseTokenizer();
    QList<Header> headers(QStringList *problems) const;
    QStringList replicas() const; ///< the non-empty lines of the replicas field
    std::optional<nlohmann::json> extraBody(QString *problem) const;
    void setPricing(const Pricing &pricing);
    Pricing pricing() const;

    ModelLister *m_lister;
    bool m_builtin = false;
    ConfigFieldWidgets m_fields; ///< the plain rows, made from the configuration table
    QLineEdit *m_name;
    QComboBox *m_api;
    QLineEdit *m_url;
    QLabel *m_simulatorState;
    QPlainTextEdit *m_replicas;
    QComboBox *m_balance;
    QComboBox *m_model;
    QPushButton *m_test;
    QLabel *m_connection;
    QListWidget *m_models;
    QString m_connected; ///< "Connected over HTTP/1.1 in 12 ms" of the last listing; empty before one
    QLineEdit *m_keyEnv;
    QLabel *m_keyState;
    QLineEdit *m_key;
    QPlainTextEdit *m_headers;
    QPlainTextEdit *m_extraBody;
    QCheckBox *m_tlsVerify;
    QComboBox *m_transport;
    QComboBox *m_httpVersion;
    QLineEdit *m_caCert;
    QComboBox *m_proxyMode; ///< from the environment | none | the URL in m_proxyUrl
    QLineEdit *m_proxyUrl;
    QCheckBox *m_followRedirects;
    QComboBox *m_pricePreset;
    OptionalSpinBox *m_priceInput;
    OptionalSpinBox *m_priceCached;
    OptionalSpinBox *m_priceOutput;
    QLineEdit *m_gpuMetrics;     ///< a DCGM exporter's /metrics (--gpu-metrics)
    OptionalSpinBox *m_priceKwh; ///< electricity, USD per kWh (--price-kwh): the GPUs' energy cost
    QString m_priceSource;       ///< Pricing::source of the prices shown
    QComboBox *m_tokenizer;      ///< editable: approx, server, or a file path
    QList<std::pair<QString, QString>> m_presets;
};

} // namespace tb
