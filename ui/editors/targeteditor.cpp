#include "editors/targeteditor.h"

#include "api/apidialect.h"
#include "config/pricepresets.h"
#include "editors/fieldvalidator.h"
#include "editors/modellister.h"
#include "models/targetlistmodel.h"
#include "widgets/formstyle.h"
#include "widgets/optionalspinbox.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace tb {

namespace {

constexpr int kModelListRows = 6;

} // namespace

TargetEditor::TargetEditor(FieldValidator *validator, QWidget *parent)
    : QWidget(parent)
    , m_lister(new ModelLister(this))
    , m_name(m_fields.lineEdit(ConfigFieldId::TargetName, this))
    , m_api(new QComboBox(this))
    , m_url(m_fields.lineEdit(ConfigFieldId::TargetUrl, this))
    , m_simulatorState(new QLabel(this))
    , m_replicas(new QPlainTextEdit(this))
    , m_balance(new QComboBox(this))
    , m_model(new QComboBox(this))
    , m_test(new QPushButton(tr("Test connection"), this))
    , m_connection(new QLabel(this))
    , m_models(new QListWidget(this))
    , m_keyEnv(m_fields.lineEdit(ConfigFieldId::TargetApiKeyEnv, this))
    , m_keyState(new QLabel(this))
    , m_key(new QLineEdit(this))
    , m_headers(new QPlainTextEdit(this))
    , m_extraBody(new QPlainTextEdit(this))
    , m_tlsVerify(
          m_fields.checkBox(ConfigFieldId::TargetTlsVerify, tr("Check the server's certificate and host name"), this))
    , m_transport(new QComboBox(this))
    , m_httpVersion(new QComboBox(this))
    , m_caCert(m_fields.lineEdit(ConfigFieldId::TargetCaCert, this))
    , m_proxyMode(new QComboBox(this))
    , m_proxyUrl(new QLineEdit(this))
    , m_followRedirects(m_fields.checkBox(ConfigFieldId::TargetFollowRedirects,
                                          tr("Follow redirects (up to %1)").arg(limits::kMaxRedirects), this))
    , m_pricePreset(new QComboBox(this))
    , m_priceInput(new OptionalSpinBox(tr("no price"), this))
    , m_priceCached(new OptionalSpinBox(tr("the input price"), this))
    , m_priceOutput(new OptionalSpinBox(tr("no price"), this))
    , m_gpuMetrics(m_fields.lineEdit(ConfigFieldId::TargetGpuMetricsUrl, this))
    , m_priceKwh(new OptionalSpinBox(tr("no price"), this))
    , m_tokenizer(new QComboBox(this))
{
    m_name->setObjectName(QStringLiteral("targetName"));
    m_api->setObjectName(QStringLiteral("targetApi"));
    m_url->setObjectName(QStringLiteral("targetUrl"));
    m_model->setObjectName(QStringLiteral("targetModel"));
    m_replicas->setObjectName(QStringLiteral("replicas"));
    m_balance->setObjectName(QStringLiteral("balance"));
    m_test->setObjectName(QStringLiteral("testConnection"));
    m_connection->setObjectName(QStringLiteral("connectionStatus"));
    m_models->setObjectName(QStringLiteral("modelList"));
    m_keyEnv->setObjectName(QStringLiteral("apiKeyEnv"));
    m_key->setObjectName(QStringLiteral("apiKey"));
    m_headers->setObjectName(QStringLiteral("headers"));
    m_extraBody->setObjectName(QStringLiteral("extraBody"));
    m_tlsVerify->setObjectName(QStringLiteral("tlsVerify"));
    m_transport->setObjectName(QStringLiteral("transport"));
    m_httpVersion->setObjectName(QStringLiteral("httpVersion"));
    m_caCert->setObjectName(QStringLiteral("caCert"));
    m_proxyMode->setObjectName(QStringLiteral("proxyMode"));
    m_proxyUrl->setObjectName(QStringLiteral("proxyUrl"));
    m_followRedirects->setObjectName(QStringLiteral("followRedirects"));
    m_tokenizer->setObjectName(QStringLiteral("tokenizer"));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    QFormLayout *form = nullptr;
    layout->addWidget(createFormGroup(tr("Endpoint"), this, &form));
    m_name->setPlaceholderText(tr("defaults to the model name"));
    validator->addRow(form, tr("Name:"), m_name, ConfigFieldId::TargetName,
                      tr("A name for this endpoint in lists and reports (target.name)."));
    for (const ApiDialect *dialect : apiDialects())
        m_api->addItem(QCoreApplication::translate("tb::ApiDialect", dialect->label()), dialect->name());
    validator->addRow(form, tr("API:"), m_api, ConfigFieldId::TargetApi,
                      tr("The request format the server speaks (--api)."));

    auto *urlBox = new QWidget(this);
    auto *urlLayout = new QVBoxLayout(urlBox);
    urlLayout->setContentsMargins(0, 0, 0, 0);
    urlLayout->setSpacing(2);
    m_url->setPlaceholderText(QStringLiteral("http://127.0.0.1:8000/v1"));
    urlLayout->addWidget(m_url);
    m_simulatorState->setObjectName(QStringLiteral("simulatorState"));
    m_simulatorState->setWordWrap(true);
    m_simulatorState->hide();
    urlLayout->addWidget(m_simulatorState);
    QLabel *urlMessage =
        validator->addRow(form, tr("Base URL:"), urlBox, ConfigFieldId::TargetUrl,
                          tr("The API's base URL; requests go to {url}/chat/completions etc. (--url)."));
    // The row registered the box; the red border belongs on the line edit itself.
    validator->addField(ConfigFieldId::TargetUrl, m_url, urlMessage);

    auto *modelBox = new QWidget(this);
    auto *modelRow = new QHBoxLayout;
    modelRow->setContentsMargins(0, 0, 0, 0);
    m_model->setEditable(true);
    m_model->setInsertPolicy(QComboBox::NoInsert);
    m_model->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    modelRow->addWidget(m_model, 1);
    m_test->setToolTip(tr("Ask the server for its models (GET {url}/models with the key and headers below)."));
    modelRow->addWidget(m_test);
    auto *modelLayout = new QVBoxLayout(modelBox);
    modelLayout->setContentsMargins(0, 0, 0, 0);
    modelLayout->setSpacing(2);
    modelLayout->addLayout(modelRow);
    m_connection->setWordWrap(true);
    m_connection->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_connection->hide();
    modelLayout->addWidget(m_connection);
    m_models->setToolTip(tr("Click a model to use it."));
    m_models->setMaximumHeight(m_models->fontMetrics().height() * (kModelListRows + 1));
    m_models->hide();
    modelLayout->addWidget(m_models);
    QLabel *modelMessage = validator->addRow(
        form, tr("Model:"), modelBox, ConfigFieldId::TargetModel,
        tr("The model name sent in each request, or a mix: a:0.7,b:0.3 asks each request for one, in those "
           "shares, and the run is reported per model (--model); Test connection lists what the server "
           "has."));
    validator->addField(ConfigFieldId::TargetModel, m_model, modelMessage);

    layout->addWidget(createFormGroup(tr("Load balancing"), this, &form));
    m_replicas->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_replicas->setPlaceholderText(tr("none: requests go to the base URL\nhttp://10.0.0.2:8000/v1"));
    m_replicas->setLineWrapMode(QPlainTextEdit::NoWrap);
    setVisibleLines(m_replicas, 2);
    validator->addRow(form, tr("Replicas:"), m_replicas, ConfigFieldId::TargetReplicas,
                      tr("More base URLs serving the same model, one per line (--url, repeated): requests are "
                         "spread over the base URL and these, and the results show each instance."));
    m_balance->addItem(tr("Round robin"), balanceName(Balance::RoundRobin));
    m_balance->addItem(tr("Least in flight (least connections)"), balanceName(Balance::LeastInFlight));
    m_balance->addItem(tr("Random"), balanceName(Balance::Random));
    m_balance->setEnabled(false);
    validator->addRow(form, tr("Balance:"), m_balance, ConfigFieldId::TargetBalance,
                      tr("How requests are spread over the instances (--balance): in turn; to the one with the "
                         "fewest requests in flight; or at random."));
    m_transport->addItem(tr("Auto (native; qnam for h2c through a proxy)"), transportKindName(TransportKind::Auto));
    m_transport->addItem(tr("Native (TokenBench's HTTP/1.1 and HTTP/2 client)"),
                         transportKindName(TransportKind::Native));
    m_transport->addItem(tr("qnam (Qt's QNetworkAccessManager)"), transportKindName(TransportKind::Qnam));
    validator->addRow(form, tr("Transport:"), m_transport, ConfigFieldId::TargetTransport,
                      tr("The HTTP client that carries the requests (--transport)."));
    m_httpVersion->addItem(tr("Auto (h2 or HTTP/1.1 over https, as the server picks)"),
                           httpVersionName(HttpVersion::Auto));
    m_httpVersion->addItem(tr("HTTP/1.1"), httpVersionName(HttpVersion::Http1));
    m_httpVersion->addItem(tr("HTTP/2 (https: h2 by ALPN; http: h2c)"), httpVersionName(HttpVersion::Http2));
    validator->addRow(form, tr("HTTP version:"), m_httpVersion, ConfigFieldId::TargetHttpVersion,
                      tr("Auto offers h2 and HTTP/1.1 over https and uses what the server picks; HTTP/2 "
                         "(--http2) forces it. Both transports, direct or through a proxy (h2c through a proxy: "
                         "qnam)."));

    layout->addWidget(createFormGroup(tr("Authentication"), this, &form));
    auto *envBox = new QWidget(this);
    auto *envRow = new QHBoxLayout(envBox);
    envRow->setContentsMargins(0, 0, 0, 0);
    envRow->addWidget(m_keyEnv, 1);
    m_keyState->setObjectName(QStringLiteral("apiKeyEnvState"));
    envRow->addWidget(m_keyState);
    QLabel *envMessage =
        validator->addRow(form, tr("Key variable:"), envBox, ConfigFieldId::TargetApiKeyEnv,
                          tr("Environment variable that holds the API key (--api-key-env); only its name is saved."));
    validator->addField(ConfigFieldId::TargetApiKeyEnv, m_keyEnv, envMessage);
    m_key->setEchoMode(QLineEdit::Password);
    m_key->setPlaceholderText(tr("or type one (never saved)"));
    m_key->setClearButtonEnabled(true);
    validator->addRow(
        form, tr("API key:"), m_key, ConfigFieldId::TargetApiKey,
        tr("A key typed here is used instead of the variable; it stays in memory and is never written to a file."));
    m_tlsVerify->setChecked(true);
    validator->addRow(form, tr("HTTPS:"), m_tlsVerify, ConfigFieldId::TargetTlsVerify,
                      tr("Unchecked, any certificate is accepted, for any host name (--insecure): self-signed "
                         "test servers, directly or through a proxy; keep it checked otherwise."));
    m_caCert->setPlaceholderText(tr("none: the system's CAs only"));
    m_caCert->setClearButtonEnabled(true);
    QLabel *caMessage =
        validator->addRow(form, tr("Extra CA file:"), m_caCert, ConfigFieldId::TargetCaCert,
                          tr("PEM file of CA certificates to trust as well, for self-hosted servers (--ca-cert)."));
    validator->addField(ConfigFieldId::TargetCaCert, m_caCert, caMessage);
    auto *tokenizerBox = new QWidget(this);
    auto *tokenizerRow = new QHBoxLayout(tokenizerBox);
    tokenizerRow->setContentsMargins(0, 0, 0, 0);
    m_tokenizer->setEditable(true);
    m_tokenizer->setInsertPolicy(QComboBox::NoInsert);
    m_tokenizer->addItems({QString(), QStringLiteral("approx"), QStringLiteral("server")});
    m_tokenizer->lineEdit()->setPlaceholderText(tr("none: one token per chunk"));
    m_tokenizer->lineEdit()->setClearButtonEnabled(true);
    tokenizerRow->addWidget(m_tokenizer, 1);
    auto *browseTokenizer = new QPushButton(tr("Browse…"), tokenizerBox);
    browseTokenizer->setObjectName(QStringLiteral("browseTokenizer"));
    tokenizerRow->addWidget(browseTokenizer);
    QLabel *tokenizerMessage = validator->addRow(
        form, tr("Tokenizer:"), tokenizerBox, ConfigFieldId::TargetTokenizer,
        tr("The model's tokenizer.json or .tiktoken file (or its folder): prompts get their exact size and text is "
           "counted when the server reports no usage. approx: TokenBench's estimate; server: the target's /tokenize "
           "for calibration (--tokenizer)."));
    validator->addField(ConfigFieldId::TargetTokenizer, m_tokenizer->lineEdit(), tokenizerMessage);

    auto *proxyBox = new QWidget(this);
    auto *proxyRow = new QHBoxLayout(proxyBox);
    proxyRow->setContentsMargins(0, 0, 0, 0);
    // Data: what target.proxy holds for the choice; the URL choice takes the line edit's text.
    m_proxyMode->addItem(tr("From the environment"), QString());
    m_proxyMode->addItem(tr("None"), QStringLiteral("none"));
    m_proxyMode->addItem(tr("This proxy:"), QStringLiteral("url"));
    proxyRow->addWidget(m_proxyMode);
    m_proxyUrl->setPlaceholderText(QStringLiteral("http://proxy.example.com:3128"));
    m_proxyUrl->setEnabled(false);
    proxyRow->addWidget(m_proxyUrl, 1);
    validator->addRow(form, tr("Proxy:"), proxyBox, ConfigFieldId::TargetProxy,
                      tr("From the environment: HTTPS_PROXY, HTTP_PROXY, ALL_PROXY and NO_PROXY as curl reads them, "
                         "else the system's setting. None: direct (--no-proxy). Or an http:// proxy (--proxy)."));
    validator->addRow(form, tr("Redirects:"), m_followRedirects, ConfigFieldId::TargetFollowRedirects,
                      tr("Unchecked, a 301/302/303/307/308 answer is recorded as an error (--follow-redirects)."));

    layout->addWidget(createFormGroup(tr("Request extras"), this, &form));
    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_headers->setFont(fixed);
    m_headers->setPlaceholderText(QStringLiteral("X-Team: perf\nX-Trace: on"));
    m_headers->setLineWrapMode(QPlainTextEdit::NoWrap);
    setVisibleLines(m_headers, 3);
    validator->addRow(form, tr("Headers:"), m_headers, ConfigFieldId::TargetHeaders,
                      tr("Extra request headers, one 'Name: value' per line (--header)."));
    m_extraBody->setFont(fixed);
    m_extraBody->setPlaceholderText(QStringLiteral("{\"top_k\": 40, \"repetition_penalty\": 1.05}"));
    setVisibleLines(m_extraBody, 4);
    validator->addRow(
        form, tr("Extra body:"), m_extraBody, ConfigFieldId::TargetExtraBody,
        tr("A JSON object merged into every request body: server-specific sampling parameters (target.extra_body)."));

    // Prices: a preset fills them in; they stay editable (the presets are dated list prices).
    layout->addWidget(createFormGroup(tr("Cost"), this, &form));
    m_pricePreset->setObjectName(QStringLiteral("pricePreset"));
    m_pricePreset->addItem(tr("Fill in from a preset…"));
    for (const PricePreset &p : pricePresets())
        m_pricePreset->addItem(tr("%1 (list price as of %2)").arg(p.name, p.asOf), p.name);
    validator->addRow(
        form, tr("Prices:"), m_pricePreset,
        tr("Example list prices on the date shown; check the provider's and edit them (--price-preset)."));
    const std::tuple<OptionalSpinBox *, QString, QString, ConfigFieldId> prices[] = {
        {m_priceInput, QStringLiteral("priceInput"), tr("Input / 1M:"), ConfigFieldId::PriceInput},
        {m_priceCached, QStringLiteral("priceCachedInput"), tr("Cached input / 1M:"), ConfigFieldId::PriceCachedInput},
        {m_priceOutput, QStringLiteral("priceOutput"), tr("Output / 1M:"), ConfigFieldId::PriceOutput},
    };
    for (const auto &[spin, name, label, id] : prices) {
        spin->setObjectName(name);
        spin->spinBox()->setRange(0, kMaxPricePerM);
        spin->spinBox()->setDecimals(4);
        spin->spinBox()->setPrefix(QStringLiteral("$"));
        validator->addRow(
            form, label, spin, id,
            id == ConfigFieldId::PriceCachedInput
                ? tr("USD per 1M prompt tokens the server reports as cached; not set: the input price.")
                : tr("USD per 1M tokens; the run's cost goes in the summary, the comparison and the report."));
    }
    // The GPUs' telemetry and what their energy costs: the dashboard's GPU card, the summary's gpu block.
    layout->addWidget(createFormGroup(tr("GPU energy"), this, &form));
    m_gpuMetrics->setObjectName(QStringLiteral("gpuMetricsUrl"));
    m_gpuMetrics->setPlaceholderText(tr("none; e.g. http://gpu-node:9400/metrics"));
    m_gpuMetrics->setClearButtonEnabled(true);
    validator->addRow(form, tr("DCGM exporter:"), m_gpuMetrics, ConfigFieldId::TargetGpuMetricsUrl,
                      tr("NVIDIA dcgm-exporter's /metrics, scraped once a second during the run: the GPUs' power "
                         "and utilisation beside latency, and energy per output token (--gpu-metrics). The "
                         "simulator answers at its /dcgm."));
    m_priceKwh->setObjectName(QStringLiteral("pricePerKwh"));
    m_priceKwh->spinBox()->setRange(0, kMaxPricePerKwh);
    m_priceKwh->spinBox()->setDecimals(4);
    m_priceKwh->spinBox()->setPrefix(QStringLiteral("$"));
    validator->addRow(form, tr("Electricity / kWh:"), m_priceKwh, ConfigFieldId::PricePerKwh,
                      tr("USD per kWh: with a DCGM exporter the GPUs' energy cost goes in the summary (--price-kwh)."));
    layout->addStretch(1);

    const auto changed = [this] { Q_EMIT edited(); };
    // Before onEdited(): the key's state is up to date when the edit is reported.
    connect(m_keyEnv, &QLineEdit::textEdited, this, &TargetEditor::updateKeyState);
    m_fields.onEdited(this, changed);
    connect(m_api, &QComboBox::currentIndexChanged, this, [this] {
        updateKeyState();
        Q_EMIT edited();
    });
    connect(m_model, &QComboBox::currentTextChanged, this, changed);
    connect(m_model, &QComboBox::currentTextChanged, this, &TargetEditor::showListing);
    connect(m_key, &QLineEdit::textEdited, this, [this] {
        updateKeyState();
        Q_EMIT edited();
    });
    connect(m_replicas, &QPlainTextEdit::textChanged, this, [this] {
        m_balance->setEnabled(!m_builtin && !replicas().isEmpty());
        Q_EMIT edited();
    });
    connect(m_balance, &QComboBox::currentIndexChanged, this, changed);
    connect(m_headers, &QPlainTextEdit::textChanged, this, changed);
    connect(m_extraBody, &QPlainTextEdit::textChanged, this, changed);
    connect(m_transport, &QComboBox::currentIndexChanged, this, changed);
    connect(m_httpVersion, &QComboBox::currentIndexChanged, this, changed);
    connect(m_proxyMode, &QComboBox::currentIndexChanged, this, [this] {
        m_proxyUrl->setEnabled(m_proxyMode->currentData().toString() == QLatin1String("url"));
        Q_EMIT edited();
    });
    connect(m_proxyUrl, &QLineEdit::textEdited, this, changed);
    connect(m_pricePreset, &QComboBox::activated, this, [this](int index) {
        if (index <= 0)
            return;
        if (const auto preset = findPricePreset(m_pricePreset->itemData(index).toString()))
            setPricing(preset->pricing);
        m_pricePreset->setCurrentIndex(0);
        Q_EMIT edited();
    });
    for (OptionalSpinBox *spin : {m_priceInput, m_priceCached, m_priceOutput}) {
        connect(spin, &OptionalSpinBox::valueChanged, this, [this] {
            // Edited by hand: no longer the preset's prices as they were.
            if (!m_priceSource.isEmpty() && !m_priceSource.endsWith(QLatin1String(", edited")))
                m_priceSource += QStringLiteral(", edited");
            Q_EMIT edited();
        });
    }
    connect(m_priceKwh, &OptionalSpinBox::valueChanged, this, changed);
    connect(m_tokenizer, &QComboBox::currentTextChanged, this, changed);
    connect(browseTokenizer, &QPushButton::clicked, this, &TargetEditor::browseTokenizer);
    connect(m_test, &QPushButton::clicked, this, &TargetEditor::testConnection);
    connect(m_models, &QListWidget::itemClicked, this, [this](QListWidgetItem *item) {
        if (m_builtin)
            m_model->setCurrentIndex(m_model->findText(item->text()));
        else
            m_model->setCurrentText(item->text());
    });
    connect(m_lister, &ModelLister::modelsListed, this, &TargetEditor::showModels);
    connect(m_lister, &ModelLister::listFailed, this, &TargetEditor::showConnectionError);
    updateKeyState();
}

TargetEditor::~TargetEditor() = default;

void TargetEditor::browseTokenizer()
{
    // open(), not exec(): no nested event loop.
    auto *dialog = new QFileDialog(this, tr("Tokenizer file"), QFileInfo(m_tokenizer->currentText()).absolutePath(),
                                   tr("Tokenizers (tokenizer.json *.tiktoken);;All files (*)"));
    dialog->setObjectName(QStringLiteral("tokenizerDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::ExistingFile);
    connect(dialog, &QFileDialog::fileSelected, m_tokenizer, &QComboBox::setCurrentText);
    dialog->open();
}

void TargetEditor::setTarget(const TargetConfig &target, bool builtin)
{
    const QSignalBlocker blocks[] = {
        QSignalBlocker(m_api),       QSignalBlocker(m_model),     QSignalBlocker(m_headers),
        QSignalBlocker(m_extraBody), QSignalBlocker(m_tlsVerify), QSignalBlocker(m_replicas),
        QSignalBlocker(m_balance),   QSignalBlocker(m_proxyMode), QSignalBlocker(m_followRedirects),
        QSignalBlocker(m_tokenizer), QSignalBlocker(m_transport), QSignalBlocker(m_httpVersion)};
    m_lister->cancel();
    m_builtin = builtin;
    m_fields.setTarget(target);
    m_name->setReadOnly(builtin);
    m_api->setCurrentIndex(m_api->findData(apiKindName(target.api)));
    m_url->setReadOnly(builtin);
    m_simulatorState->setVisible(false);
    // The built-in simulator is one instance; replicas are other servers' addresses.
    m_replicas->setPlainText(target.replicas.join(QLatin1Char('\n')));
    m_replicas->setReadOnly(builtin);
    m_balance->setCurrentIndex(m_balance->findData(balanceName(target.balance)));
    m_balance->setEnabled(!builtin && !target.replicas.isEmpty());
    m_url->setPlaceholderText(builtin ? tr("set when the simulator starts")
                                      : QStringLiteral("http://127.0.0.1:8000/v1"));
    m_model->clear();
    m_model->setEditable(!builtin);
    if (builtin)
        fillPresets();
    m_model->setCurrentText(target.model);
    m_model->setToolTip(
        builtin ? tr("The simulator preset: a serving model that mimics a real deployment.")
                : tr("The model name sent in each request, or a mix: a:0.7,b:0.3 asks each request for one, in those "
                     "shares, and the run is reported per model (--model); Test connection lists what the server "
                     "has."));
    m_key->setText(target.apiKey);
    QStringList lines;
    for (const Header &h : target.headers)
        lines << h.name + QStringLiteral(": ") + h.value;
    m_headers->setPlainText(lines.join(QLatin1Char('\n')));
    m_extraBody->setPlainText(
        target.extraBody.is_object() && target.extraBody.empty() ? QString() : fromStd(target.extraBody.dump(2)));
    m_transport->setCurrentIndex(m_transport->findData(transportKindName(target.transport)));
    m_httpVersion->setCurrentIndex(m_httpVersion->findData(httpVersionName(target.httpVersion)));
    const bool proxyUrl = !target.proxy.isEmpty() && target.proxy != QLatin1String("none");
    m_proxyMode->setCurrentIndex(m_proxyMode->findData(proxyUrl ? QStringLiteral("url") : target.proxy));
    m_proxyUrl->setText(proxyUrl ? target.proxy : QString());
    m_proxyUrl->setEnabled(proxyUrl);
    setPricing(target.pricing);
    {
        const QSignalBlocker block(m_priceKwh);
        m_priceKwh->setValue(target.energyPricePerKwh);
    }
    m_tokenizer->setCurrentText(target.tokenizer);
    m_connected.clear();
    m_connection->hide();
    m_models->clear();
    m_models->hide();
    m_test->setEnabled(true);
    updateKeyState();
}

QStringList TargetEditor::replicas() const
{
    QStringList urls;
    for (const QString &line : m_replicas->toPlainText().split(QLatin1Char('\n'))) {
        if (!line.trimmed().isEmpty())
            urls << line.trimmed();
    }
    return urls;
}

TargetConfig TargetEditor::target() const
{
    TargetConfig t;
    m_fields.applyTo(t);
    t.api = apiKindFromName(m_api->currentData().toString()).value_or(ApiKind::OpenAIChat);
    t.replicas = replicas();
    t.balance = balanceFromName(m_balance->currentData().toString()).value_or(Balance::RoundRobin);
    t.model = m_model->currentText();
    t.apiKey = m_key->text();
    t.headers = headers(nullptr);
    if (auto body = extraBody(nullptr))
        t.extraBody = *body;
    t.transport = transportKindFromName(m_transport->currentData().toString()).value_or(TransportKind::Auto);
    t.httpVersion = httpVersionFromName(m_httpVersion->currentData().toString()).value_or(HttpVersion::Auto);
    const QString proxyMode = m_proxyMode->currentData().toString();
    t.proxy = proxyMode == QLatin1String("url") ? m_proxyUrl->text().trimmed() : proxyMode;
    t.pricing = pricing();
    t.energyPricePerKwh = m_priceKwh->value();
    t.tokenizer = m_tokenizer->currentText().trimmed();
    return t;
}

void TargetEditor::setPricing(const Pricing &pricing)
{
    const QSignalBlocker blocks[] = {QSignalBlocker(m_priceInput), QSignalBlocker(m_priceCached),
                                     QSignalBlocker(m_priceOutput)};
    m_priceInput->setValue(pricing.inputPerM);
    m_priceCached->setValue(pricing.cachedInputPerM);
    m_priceOutput->setValue(pricing.outputPerM);
    m_priceSource = pricing.source;
}

Pricing TargetEditor::pricing() const
{
    Pricing p{m_priceInput->value(), m_priceCached->value(), m_priceOutput->value(), {}};
    if (p.isSet())
        p.source = m_priceSource;
    return p;
}

void TargetEditor::setSimulatorPresets(const QList<std::pair<QString, QString>> &presets)
{
    m_presets = presets;
    if (m_builtin) {
        const QSignalBlocker block(m_model);
        const QString current = m_model->currentText();
        fillPresets();
        m_model->setCurrentText(current);
    }
}

void TargetEditor::fillPresets()
{
    m_model->clear();
    for (const auto &[name, description] : std::as_const(m_presets)) {
        m_model->addItem(name);
        m_model->setItemData(m_model->count() - 1, description, Qt::ToolTipRole);
    }
}

void TargetEditor::setSimulatorState(const QString &url, const QString &status, bool running)
{
    if (!m_builtin)
        return;
    m_url->setText(url);
    // While it is down, the URL field's problem line says why; one line is enough.
    m_simulatorState->setText(status);
    m_simulatorState->setVisible(running);
    setTone(m_simulatorState, Tone::Hint);
}

QStringList TargetEditor::problems() const
{
    QStringList problems;
    headers(&problems);
    QString bodyProblem;
    if (!extraBody(&bodyProblem))
        problems << bodyProblem;
    if (!m_builtin && m_name->text().trimmed() == TargetListModel::builtinName())
        problems << QStringLiteral("target.name: '%1' is reserved for the simulator; choose another name")
                        .arg(TargetListModel::builtinName());
    return problems;
}

void TargetEditor::testConnection()
{
    m_connected.clear();
    m_models->clear();
    m_models->hide();
    setTone(m_connection, Tone::Hint);
    m_connection->setText(tr("Asking %1 …").arg(ModelLister::modelsUrl(m_url->text()).toString()));
    m_connection->show();
    m_test->setEnabled(false);
    m_lister->list(target());
}

void TargetEditor::showModels(const QStringList &models, qint64 elapsedMs)
{
    m_test->setEnabled(true);
    const QString through = tr(" over %1").arg(m_lister->protocol()) +
                            (m_lister->proxy().isEmpty() ? QString() : tr(" through proxy %1").arg(m_lister->proxy()));
    m_connected = tr("Connected%1 in %2 ms").arg(through).arg(elapsedMs);
    m_models->addItems(models);
    m_models->setVisible(!models.isEmpty());
    if (!m_builtin) {
        // Offer the listed names in the model box too, keeping what is typed.
        const QSignalBlocker block(m_model);
        const QString current = m_model->currentText();
        m_model->clear();
        m_model->addItems(models);
        m_model->setCurrentText(current);
    }
    showListing();
}

void TargetEditor::showListing()
{
    if (m_connected.isEmpty())
        return;
    const int count = m_models->count();
    const QString model = m_model->currentText();
    const auto matches = m_models->findItems(model, Qt::MatchExactly);
    // A connection that works is no run that works: every request for a model the server does not
    // have fails (404), so the line says so before the run, as a field's problem would.
    const bool missing = count > 0 && matches.isEmpty();
    setTone(m_connection, missing ? Tone::Bad : Tone::Good);
    if (count == 0)
        m_connection->setText(tr("%1, but the server lists no models.").arg(m_connected));
    else if (missing && count == 1)
        m_connection->setText(
            tr("%1 · 1 model, and model '%2' is not it; its requests would fail — click it to use it:")
                .arg(m_connected, model));
    else if (missing)
        m_connection->setText(
            tr("%1 · model '%2' is not among the server's %3 models; its requests would fail — click one to use it:")
                .arg(m_connected, model, QString::number(count)));
    else if (count == 1)
        m_connection->setText(tr("%1 · 1 model — click it to use it:").arg(m_connected));
    else
        m_connection->setText(tr("%1 · %2 models — click one to use it:").arg(m_connected).arg(count));
    if (matches.isEmpty())
        m_models->clearSelection();
    else
        m_models->setCurrentItem(matches.first());
}

void TargetEditor::showConnectionError(const QString &error)
{
    m_test->setEnabled(true);
    setTone(m_connection, Tone::Bad);
    m_connection->setText(error);
}

void TargetEditor::updateKeyState()
{
    const TargetConfig t = target();
    const QString var = t.apiKeyVariable();
    m_keyEnv->setPlaceholderText(defaultApiKeyEnv(t.api));
    if (!t.apiKey.isEmpty()) {
        m_keyState->setText(tr("typed key used"));
        setTone(m_keyState, Tone::Hint);
    } else if (qEnvironmentVariableIsEmpty(var.toLocal8Bit().constData())) {
        m_keyState->setText(tr("not set"));
        setTone(m_keyState, Tone::Hint);
    } else {
        m_keyState->setText(tr("✓ set"));
        setTone(m_keyState, Tone::Good);
    }
}

QList<Header> TargetEditor::headers(QStringList *problems) const
{
    QList<Header> headers;
    const QStringList lines = m_headers->toPlainText().split(QLatin1Char('\n'));
    for (int i = 0; i < lines.size(); ++i) {
        if (lines.at(i).trimmed().isEmpty())
            continue;
        QString error;
        if (auto h = parseHeader(lines.at(i), &error))
            headers << *h;
        else if (problems)
            *problems << QStringLiteral("target.headers: line %1: %2").arg(i + 1).arg(error);
    }
    return headers;
}

std::optional<nlohmann::json> TargetEditor::extraBody(QString *problem) const
{
    const QByteArray text = m_extraBody->toPlainText().toUtf8();
    if (text.trimmed().isEmpty())
        return nlohmann::json::object();
    QString why;
    auto json = parseJsonBounded(text, &why);
    if (json && json->is_object())
        return json;
    if (problem)
        *problem = QStringLiteral("target.extra_body: ") +
                   (json ? QStringLiteral("must be a JSON object, e.g. {\"top_k\": 40}") : why);
    return std::nullopt;
}

} // namespace tb
