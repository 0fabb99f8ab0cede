#include "editors/workloadeditor.h"

#include "editors/fieldvalidator.h"
#include "models/variablesmodel.h"
#include "widgets/formstyle.h"
#include "widgets/optionalspinbox.h"

#include "api/requestbuilder.h"
#include "workload/promptsource.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

namespace tb {

namespace {

constexpr int kVariableRows = 4;

/// A token count's spin box from the table, with thousands separators and fast steps.
QSpinBox *tokenSpin(ConfigFieldWidgets &fields, ConfigFieldId id, const QString &objectName, QWidget *parent)
{
    QSpinBox *spin = fields.spinBox(id, parent);
    spin->setObjectName(objectName);
    spin->setGroupSeparatorShown(true);
    spin->setAccelerated(true);
    setCompact(spin);
    return spin;
}

QFormLayout *pageForm(QWidget *page)
{
    auto *form = new QFormLayout(page);
    form->setContentsMargins(0, 0, 0, 0);
    form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    return form;
}

} // namespace

WorkloadEditor::WorkloadEditor(FieldValidator *validator, QWidget *parent)
    : ConfigForm(parent)
    , m_source(new QComboBox(this))
    , m_syntheticPage(new QWidget(this))
    , m_templatePage(new QWidget(this))
    , m_filePage(new QWidget(this))
    , m_promptTokens(tokenSpin(m_fields, ConfigFieldId::PromptTokens, QStringLiteral("promptTokens"), this))
    , m_systemTokens(tokenSpin(m_fields, ConfigFieldId::SystemTokens, QStringLiteral("systemTokens"), this))
    , m_sharedPrefix(tokenSpin(m_fields, ConfigFieldId::SharedPrefixTokens, QStringLiteral("sharedPrefixTokens"), this))
    , m_systemTemplate(new QPlainTextEdit(this))
    , m_userTemplate(new QPlainTextEdit(this))
    , m_variables(new VariablesModel(this))
    , m_variablesView(new QTableView(this))
    , m_addMissing(new QPushButton(tr("Add missing"), this))
    , m_promptFile(new QLineEdit(this))
    , m_fileKind(new QComboBox(this))
    , m_sample(new QSpinBox(this))
    , m_maxFromDataset(
          m_fields.checkBox(ConfigFieldId::MaxTokensFromDataset, tr("Recorded output lengths as max tokens"), this))
    , m_skipBadLines(m_fields.checkBox(ConfigFieldId::SkipBadLines, tr("Skip broken lines (counted)"), this))
    // From the least value three decimals show: a spin box cannot leave out its minimum, the
    // table's 0 (a scale must be above it).
    , m_timeScale(m_fields.doubleSpinBox(ConfigFieldId::TimeScale, 3, this, {.minimum = 0.001}))
    , m_fileSummary(new QLabel(this))
    , m_estimateLabel(new QLabel(this))
    // From 0, under the table's 1: a file's 0 shows as 0 and is marked, not raised to 1 unseen.
    , m_maxTokens(m_fields.spinBox(ConfigFieldId::MaxTokens, this, {.minimum = 0}))
    , m_temperature(new OptionalSpinBox(tr("server default"), this))
    , m_topP(new OptionalSpinBox(tr("server default"), this))
    , m_stream(m_fields.checkBox(ConfigFieldId::Stream, tr("Stream tokens (server-sent events)"), this))
    , m_calibrate(m_fields.checkBox(ConfigFieldId::Calibrate, tr("Calibrate prompt sizes against the target"), this))
    , m_repeat(m_fields.checkBox(ConfigFieldId::Repeat, tr("Repeat prompts (a prefix-cache test)"), this))
    , m_batchSize(m_fields.spinBox(ConfigFieldId::BatchSize, this))
    , m_images(m_fields.spinBox(ConfigFieldId::Images, this))
    , m_imageSize(m_fields.lineEdit(ConfigFieldId::ImageSize, this))
    , m_responseFormat(new QComboBox(this))
    , m_schemaBox(new QWidget(this))
    , m_schemaFile(new QLineEdit(this))
    , m_tools(m_fields.lineEdit(ConfigFieldId::Tools, this))
    , m_toolChoice(new QComboBox(this))
{
    m_source->setObjectName(QStringLiteral("promptSource"));
    m_systemTemplate->setObjectName(QStringLiteral("systemTemplate"));
    m_userTemplate->setObjectName(QStringLiteral("userTemplate"));
    m_variablesView->setObjectName(QStringLiteral("variables"));
    m_addMissing->setObjectName(QStringLiteral("addMissingVariables"));
    m_promptFile->setObjectName(QStringLiteral("promptFile"));
    m_fileKind->setObjectName(QStringLiteral("fileKind"));
    m_sample->setObjectName(QStringLiteral("datasetSample"));
    m_maxFromDataset->setObjectName(QStringLiteral("maxTokensFromDataset"));
    m_skipBadLines->setObjectName(QStringLiteral("skipBadLines"));
    m_timeScale->setObjectName(QStringLiteral("timeScale"));
    m_fileSummary->setObjectName(QStringLiteral("workloadFileSummary"));
    m_estimateLabel->setObjectName(QStringLiteral("promptEstimate"));
    m_maxTokens->setObjectName(QStringLiteral("maxTokens"));
    m_temperature->setObjectName(QStringLiteral("temperature"));
    m_topP->setObjectName(QStringLiteral("topP"));
    m_stream->setObjectName(QStringLiteral("stream"));
    m_calibrate->setObjectName(QStringLiteral("calibrate"));
    m_repeat->setObjectName(QStringLiteral("repeatPrompts"));
    m_batchSize->setObjectName(QStringLiteral("batchSize"));
    m_images->setObjectName(QStringLiteral("images"));
    m_imageSize->setObjectName(QStringLiteral("imageSize"));
    m_responseFormat->setObjectName(QStringLiteral("responseFormat"));
    m_schemaFile->setObjectName(QStringLiteral("schemaFile"));
    m_tools->setObjectName(QStringLiteral("tools"));
    m_toolChoice->setObjectName(QStringLiteral("toolChoice"));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    QFormLayout *form = nullptr;
    layout->addWidget(createFormGroup(tr("Prompts"), this, &form));
    m_source->addItem(tr("Synthetic, of a given size"));
    m_source->addItem(tr("Template with {{variables}}"));
    m_source->addItem(tr("File: prompts, dataset or trace"));
    validator->addRow(
        form, tr("Source:"), m_source,
        tr("Where prompts come from: generated text of a set size, your templates, or a file of prompts."));

    // One row holds the source's page: a form with hidden rows mislays its other rows once a row
    // grows with its width (Qt 6.4 keeps a hidden row's old place in its height-for-width pass, and
    // the row that now has that place is drawn 0 px high: "Synthetic system" went missing).
    auto *pages = new QWidget(this);
    auto *pagesLayout = new QVBoxLayout(pages);
    pagesLayout->setContentsMargins(0, 0, 0, 0);
    pagesLayout->setSpacing(form->verticalSpacing());
    pagesLayout->addWidget(m_syntheticPage);
    pagesLayout->addWidget(m_templatePage);
    pagesLayout->addWidget(m_filePage);
    form->addRow(pages);

    // Synthetic prompts.
    QFormLayout *page = pageForm(m_syntheticPage);
    validator->addRow(page, tr("Prompt:"), m_promptTokens, ConfigFieldId::PromptTokens,
                      tr("Size of the generated user prompt (--prompt-tokens)."));
    validator->addRow(page, tr("Shared prefix:"), m_sharedPrefix, ConfigFieldId::SharedPrefixTokens,
                      tr("Leading tokens identical in every prompt, to exercise the server's prefix cache "
                         "(prompt.shared_prefix_tokens)."));

    // Applies to every source, so it sits outside the pages, under them.
    m_systemTokens->setSpecialValueText(tr("none"));
    validator->addRow(form, tr("Synthetic system:"), m_systemTokens, ConfigFieldId::SystemTokens,
                      tr("A generated system prompt of this size in every request, whatever the source; it replaces "
                         "the system template (--system-tokens)."));
    validator->addRow(form, tr("Repetition:"), m_repeat, ConfigFieldId::Repeat,
                      tr("Send prompts as written, the same for every request of an entry, so the server's prefix "
                         "cache serves the repeats (--prompt-repeat). Off: each request's prompt is its own — a salt "
                         "tag at the start of its first user message — and only the system prompt and shared prefix "
                         "are shared."));
    m_batchSize->setSpecialValueText(tr("1 input"));
    setCompact(m_batchSize);
    validator->addRow(form, tr("Batch:"), m_batchSize, ConfigFieldId::BatchSize,
                      ConfigFieldWidgets::toolTip(ConfigFieldId::BatchSize));
    m_images->setSpecialValueText(tr("none"));
    setCompact(m_images);
    validator->addRow(form, tr("Images:"), m_images, ConfigFieldId::Images,
                      ConfigFieldWidgets::toolTip(ConfigFieldId::Images));
    m_imageSize->setPlaceholderText(QStringLiteral("512x512"));
    setCompact(m_imageSize);
    validator->addRow(form, tr("Image size:"), m_imageSize, ConfigFieldId::ImageSize,
                      ConfigFieldWidgets::toolTip(ConfigFieldId::ImageSize));

    // Templates.
    page = pageForm(m_templatePage);
    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_systemTemplate->setPlaceholderText(tr("You are a concise assistant."));
    setVisibleLines(m_systemTemplate, 2);
    validator->addRow(page, tr("System:"), m_systemTemplate, ConfigFieldId::SystemTemplate,
                      tr("System message; {{name}} is replaced by the variable's value (prompt.system)."));
    m_userTemplate->setPlaceholderText(tr("Summarise the history of {{topic}} in three paragraphs."));
    setVisibleLines(m_userTemplate, 4);
    validator->addRow(page, tr("User:"), m_userTemplate, ConfigFieldId::UserTemplate,
                      tr("User message; {{name}} is replaced by the variable's value (prompt.user)."));
    auto *variablesBox = new QWidget(m_templatePage);
    auto *variablesLayout = new QHBoxLayout(variablesBox);
    variablesLayout->setContentsMargins(0, 0, 0, 0);
    m_variablesView->setModel(m_variables);
    m_variablesView->horizontalHeader()->setStretchLastSection(true);
    m_variablesView->verticalHeader()->hide();
    m_variablesView->verticalHeader()->setDefaultSectionSize(m_variablesView->fontMetrics().height() + 8);
    m_variablesView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_variablesView->setFixedHeight(m_variablesView->verticalHeader()->defaultSectionSize() * (kVariableRows + 1) + 4);
    variablesLayout->addWidget(m_variablesView, 1);
    auto *buttons = new QVBoxLayout;
    auto *add = new QPushButton(tr("Add"), variablesBox);
    auto *remove = new QPushButton(tr("Remove"), variablesBox);
    m_addMissing->setToolTip(tr("Add a row for each {{variable}} the templates use but the table lacks."));
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addWidget(m_addMissing);
    buttons->addStretch(1);
    variablesLayout->addLayout(buttons);
    QLabel *variablesMessage = validator->addRow(page, tr("Variables:"), variablesBox, ConfigFieldId::Variables,
                                                 tr("Values for the templates' {{variables}} (prompt.variables)."));
    validator->addField(ConfigFieldId::Variables, m_variablesView, variablesMessage);

    // Prompt file.
    page = pageForm(m_filePage);
    auto *fileBox = new QWidget(m_filePage);
    auto *fileLayout = new QHBoxLayout(fileBox);
    fileLayout->setContentsMargins(0, 0, 0, 0);
    m_promptFile->setPlaceholderText(tr("one {\"prompt\": …} or {\"messages\": […]} per line"));
    m_promptFile->setClearButtonEnabled(true);
    fileLayout->addWidget(m_promptFile, 1);
    auto *browse = new QPushButton(tr("Browse…"), fileBox);
    browse->setObjectName(QStringLiteral("browsePromptFile"));
    fileLayout->addWidget(browse);
    QLabel *fileMessage = validator->addRow(page, tr("File:"), fileBox, ConfigFieldId::PromptFile,
                                            tr("A JSONL file of prompts, used in turn (--prompt-file)."));
    validator->addField(ConfigFieldId::PromptFile, m_promptFile, fileMessage);
    m_fileKind->addItem(tr("Prompt lines, in turn"));
    m_fileKind->addItem(tr("Dataset: ShareGPT, or prompts with lengths"));
    m_fileKind->addItem(tr("Trace, replayed at its timestamps"));
    validator->addRow(
        page, tr("Read as:"), m_fileKind,
        tr("--prompt-file: JSONL {\"prompt\"} / {\"messages\"} lines. --dataset: ShareGPT JSON or JSONL (the "
           "first human turn is the prompt). --trace: Mooncake JSONL or the Azure trace CSV, each request "
           "sent at its time (it replaces the load profile)."));
    m_sample->setRange(0, std::numeric_limits<int>::max());
    m_sample->setSpecialValueText(tr("all"));
    m_sample->setSuffix(tr(" entries"));
    m_sample->setGroupSeparatorShown(true);
    setCompact(m_sample);
    validator->addRow(page, tr("Sample:"), m_sample, ConfigFieldId::DatasetSample,
                      tr("Use this many entries drawn at random, seeded by the load's seed (--dataset-sample)."));
    m_timeScale->setSingleStep(0.1);
    m_timeScale->setPrefix(tr("× "));
    setCompact(m_timeScale);
    validator->addRow(page, tr("Time scale:"), m_timeScale, ConfigFieldId::TimeScale,
                      tr("Trace time multiplier: 0.5 replays twice as fast (--time-scale)."));
    page->addRow(QString(), m_maxFromDataset);
    page->addRow(QString(), m_skipBadLines);
    m_maxFromDataset->setToolTip(tr("Each entry's recorded reply length is its max_tokens (--max-tokens dataset); "
                                    "a line's own max_tokens and a trace's output length are always sent."));
    m_fileSummary->setWordWrap(true);
    page->addRow(tr("Requests:"), m_fileSummary);

    m_estimateLabel->setWordWrap(true);
    m_estimateLabel->setToolTip(tr("Counted with TokenBench's approximate tokenizer (about 4 characters a token), "
                                   "as written: each request's salt tag adds a few tokens, and the server's own count "
                                   "may differ."));
    form->addRow(tr("Estimate:"), m_estimateLabel);

    layout->addWidget(createFormGroup(tr("Generation"), this, &form));
    m_maxTokens->setGroupSeparatorShown(true);
    setCompact(m_maxTokens);
    setCompact(m_temperature);
    setCompact(m_topP);
    validator->addRow(form, tr("Max tokens:"), m_maxTokens, ConfigFieldId::MaxTokens,
                      tr("Upper bound on output tokens per request (--max-tokens)."));
    m_temperature->spinBox()->setRange(0, 2);
    m_temperature->spinBox()->setSingleStep(0.1);
    m_temperature->spinBox()->setDecimals(2);
    QLabel *message =
        validator->addRow(form, tr("Temperature:"), m_temperature, ConfigFieldId::Temperature,
                          tr("Sampling temperature, 0–2; unticked: the server's default (--temperature)."));
    validator->addField(ConfigFieldId::Temperature, m_temperature->spinBox(), message);
    m_topP->spinBox()->setRange(0, 1);
    m_topP->spinBox()->setSingleStep(0.05);
    m_topP->spinBox()->setDecimals(2);
    message = validator->addRow(form, tr("Top-p:"), m_topP, ConfigFieldId::TopP,
                                tr("Nucleus sampling, (0, 1]; unticked: the server's default (--top-p)."));
    validator->addField(ConfigFieldId::TopP, m_topP->spinBox(), message);
    validator->addRow(
        form, tr("Streaming:"), m_stream, ConfigFieldId::Stream,
        tr("Stream the answer to measure time to first token and inter-token latency (--stream / --no-stream)."));
    validator->addRow(form, tr("Prompt sizes:"), m_calibrate, ConfigFieldId::Calibrate,
                      tr("Before the run, a few max_tokens=1 requests (or the target's /tokenize) measure how the "
                         "target counts, chat template included, so synthetic prompts have the requested size in its "
                         "tokens (--calibrate). Not needed with an exact tokenizer file on the target."));

    // Structured output: the schema file sits under the format in the same row (a form row that
    // hides mislays its neighbours, see the source's pages above).
    m_responseFormat->addItem(tr("Free text, not checked"), QString());
    m_responseFormat->addItem(tr("Any JSON object"), QStringLiteral("json_object"));
    m_responseFormat->addItem(tr("JSON valid for a schema"), QStringLiteral("json_schema:"));
    auto *formatBox = new QWidget(this);
    auto *formatLayout = new QVBoxLayout(formatBox);
    formatLayout->setContentsMargins(0, 0, 0, 0);
    formatLayout->setSpacing(2);
    formatLayout->addWidget(m_responseFormat);
    auto *schemaLayout = new QHBoxLayout(m_schemaBox);
    schemaLayout->setContentsMargins(0, 0, 0, 0);
    m_schemaFile->setPlaceholderText(tr("a JSON Schema file"));
    m_schemaFile->setClearButtonEnabled(true);
    schemaLayout->addWidget(m_schemaFile, 1);
    auto *browseSchema = new QPushButton(tr("Browse…"), m_schemaBox);
    browseSchema->setObjectName(QStringLiteral("browseSchemaFile"));
    schemaLayout->addWidget(browseSchema);
    formatLayout->addWidget(m_schemaBox);
    // The mark goes on the choice; the message line under it says what is wrong with a schema file.
    message = validator->addRow(form, tr("Output:"), formatBox, ConfigFieldId::ResponseFormat,
                                ConfigFieldWidgets::toolTip(ConfigFieldId::ResponseFormat));
    validator->addField(ConfigFieldId::ResponseFormat, m_responseFormat, message);

    layout->addWidget(createFormGroup(tr("Tool calling"), this, &form));
    auto *toolsBox = new QWidget(this);
    auto *toolsLayout = new QHBoxLayout(toolsBox);
    toolsLayout->setContentsMargins(0, 0, 0, 0);
    m_tools->setPlaceholderText(tr("none: no tools offered"));
    m_tools->setClearButtonEnabled(true);
    toolsLayout->addWidget(m_tools, 1);
    auto *browseTools = new QPushButton(tr("Browse…"), toolsBox);
    browseTools->setObjectName(QStringLiteral("browseTools"));
    toolsLayout->addWidget(browseTools);
    message = validator->addRow(form, tr("Tools:"), toolsBox, ConfigFieldId::Tools,
                                ConfigFieldWidgets::toolTip(ConfigFieldId::Tools));
    validator->addField(ConfigFieldId::Tools, m_tools, message);
    m_toolChoice->setEditable(true);
    m_toolChoice->setInsertPolicy(QComboBox::NoInsert);
    m_toolChoice->addItems({QString(), QStringLiteral("auto"), QStringLiteral("required"), QStringLiteral("none")});
    m_toolChoice->lineEdit()->setPlaceholderText(tr("server default (auto)"));
    setCompact(m_toolChoice);
    validator->addRow(form, tr("Tool choice:"), m_toolChoice, ConfigFieldId::ToolChoice,
                      ConfigFieldWidgets::toolTip(ConfigFieldId::ToolChoice));
    layout->addStretch(1);

    connect(m_source, &QComboBox::currentIndexChanged, this, [this] {
        showSourcePage();
        changed();
    });
    m_fields.onEdited(this, [this] { changed(); });
    connect(m_systemTemplate, &QPlainTextEdit::textChanged, this, &WorkloadEditor::changed);
    connect(m_userTemplate, &QPlainTextEdit::textChanged, this, &WorkloadEditor::changed);
    connectModelEdits(m_variables, this, [this] { changed(); });
    connect(add, &QPushButton::clicked, this, [this] {
        const int row = m_variables->addVariable(QString());
        m_variablesView->setCurrentIndex(m_variables->index(row, VariablesModel::NameColumn));
        m_variablesView->edit(m_variablesView->currentIndex());
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        if (m_variablesView->currentIndex().isValid())
            m_variables->removeRows(m_variablesView->currentIndex().row(), 1);
    });
    connect(m_addMissing, &QPushButton::clicked, this, &WorkloadEditor::addMissingVariables);
    connect(m_promptFile, &QLineEdit::textChanged, this, &WorkloadEditor::changed);
    connect(m_fileKind, &QComboBox::currentIndexChanged, this, [this] {
        showSourcePage();
        changed();
    });
    connect(m_sample, &QSpinBox::valueChanged, this, &WorkloadEditor::changed);
    connect(browse, &QPushButton::clicked, this, &WorkloadEditor::browsePromptFile);
    connect(m_temperature, &OptionalSpinBox::valueChanged, this, &WorkloadEditor::changed);
    connect(m_topP, &OptionalSpinBox::valueChanged, this, &WorkloadEditor::changed);
    connect(m_responseFormat, &QComboBox::currentIndexChanged, this, [this] {
        m_schemaBox->setVisible(responseFormat().startsWith(QLatin1String("json_schema:")));
        changed();
    });
    connect(m_schemaFile, &QLineEdit::textChanged, this, &WorkloadEditor::changed);
    connect(m_toolChoice, &QComboBox::currentTextChanged, this, &WorkloadEditor::changed);
    connect(browseSchema, &QPushButton::clicked, this, [this] {
        browseFile(m_schemaFile, tr("JSON Schema"), tr("JSON (*.json);;All files (*)"), QStringLiteral("schemaDialog"));
    });
    connect(browseTools, &QPushButton::clicked, this, [this] {
        browseFile(m_tools, tr("Tools"), tr("JSON (*.json);;All files (*)"), QStringLiteral("toolsDialog"));
    });
    // The tools' text is the table's row, which reports user edits only: a chosen file counts too.
    connect(m_tools, &QLineEdit::textChanged, this, &WorkloadEditor::changed);

    // Tab follows the rows top to bottom, not the order the widgets were made in ("Synthetic
    // system" went up to "Shared prefix"); the Generation rows after Max tokens are in order.
    const QList<QWidget *> tabChain{
        m_source,    m_promptTokens, m_sharedPrefix,   m_systemTemplate, m_userTemplate, m_variablesView,
        add,         remove,         m_addMissing,     m_promptFile,     browse,         m_fileKind,
        m_sample,    m_timeScale,    m_maxFromDataset, m_skipBadLines,   m_systemTokens, m_repeat,
        m_batchSize, m_images,       m_imageSize,      m_maxTokens};
    for (qsizetype i = 1; i < tabChain.size(); ++i)
        setTabOrder(tabChain.at(i - 1), tabChain.at(i));

    setConfig(RunConfig());
}

WorkloadEditor::~WorkloadEditor() = default;

void WorkloadEditor::setConfig(const RunConfig &config)
{
    const PromptConfig &p = config.prompt;
    {
        // One edited() for the whole load, not one per field.
        const QSignalBlocker block(this);
        m_fields.setConfig(config);
        m_systemTemplate->setPlainText(p.systemTemplate);
        m_userTemplate->setPlainText(p.userTemplate);
        m_variables->setVariables(p.variables);
        const FileKind kind = !config.load.trace.isEmpty() ? FileKind::Trace
                              : !p.dataset.isEmpty()       ? FileKind::Dataset
                                                           : FileKind::Prompts;
        m_fileKind->setCurrentIndex(int(kind));
        m_promptFile->setText(kind == FileKind::Trace     ? config.load.trace
                              : kind == FileKind::Dataset ? p.dataset
                                                          : p.promptFile);
        m_sample->setValue(int(std::min<qint64>(p.datasetSample, std::numeric_limits<int>::max())));
        m_temperature->setValue(config.request.temperature);
        m_topP->setValue(config.request.topP);
        setResponseFormat(config.request.responseFormat);
        m_toolChoice->setCurrentText(config.request.toolChoice);
        setApi(config.target.api);
        setSource(!m_promptFile->text().isEmpty() ? Source::File
                  : p.promptTokens > 0            ? Source::Synthetic
                                                  : Source::Template);
    }
    changed();
}

void WorkloadEditor::applyTo(RunConfig &config) const
{
    m_fields.applyTo(config);
    config.request.temperature = m_temperature->value();
    config.request.topP = m_topP->value();
    config.request.responseFormat = responseFormat();
    config.request.toolChoice = m_toolChoice->currentText().trimmed();

    PromptConfig &p = config.prompt;
    const Source s = source();
    const QString file = s == Source::File ? m_promptFile->text().trimmed() : QString();
    const FileKind kind = FileKind(m_fileKind->currentIndex());
    p.promptFile = kind == FileKind::Prompts ? file : QString();
    p.dataset = kind == FileKind::Dataset ? file : QString();
    config.load.trace = kind == FileKind::Trace ? file : QString();
    p.datasetSample = m_sample->value();
    // Templates make their own prompts: the synthetic size the form keeps is not theirs.
    if (s == Source::Template)
        p.promptTokens = 0;
    p.systemTemplate = m_systemTemplate->toPlainText();
    p.userTemplate = m_userTemplate->toPlainText();
    p.variables = m_variables->variables();
}

WorkloadEditor::Source WorkloadEditor::source() const
{
    return Source(m_source->currentIndex());
}

void WorkloadEditor::setSource(Source source)
{
    m_source->setCurrentIndex(int(source));
    // currentIndexChanged does not fire for the index already shown; the pages must still match.
    showSourcePage();
}

void WorkloadEditor::showSourcePage()
{
    const Source s = source();
    m_syntheticPage->setVisible(s == Source::Synthetic);
    m_templatePage->setVisible(s == Source::Template);
    m_filePage->setVisible(s == Source::File);
    const bool trace = FileKind(m_fileKind->currentIndex()) == FileKind::Trace;
    // The row's field is the validator's box around the spin box.
    QWidget *field = m_timeScale;
    while (field->parentWidget() && field->parentWidget() != m_filePage)
        field = field->parentWidget();
    if (auto *page = qobject_cast<QFormLayout *>(m_filePage->layout()))
        page->setRowVisible(field, trace);
}

QString WorkloadEditor::estimateText() const
{
    return m_estimateLabel->text();
}

QStringList WorkloadEditor::problems() const
{
    QStringList problems;
    switch (source()) {
    case Source::Synthetic:
        if (m_promptTokens->value() < 1)
            problems << QStringLiteral(
                "prompt.prompt_tokens (--prompt-tokens): a synthetic prompt needs at least 1 token");
        break;
    case Source::Template:
        if (m_userTemplate->toPlainText().trimmed().isEmpty())
            problems << QStringLiteral("prompt.user: write the user prompt, or choose another prompt source");
        for (const QString &name : undefinedVariables())
            problems << QStringLiteral("prompt.variables: {{%1}} has no value").arg(name);
        problems << m_variables->problems();
        break;
    case Source::File:
        if (m_promptFile->text().trimmed().isEmpty())
            problems << QStringLiteral(
                "prompt.prompt_file (--prompt-file): choose a file of prompts, a dataset or a trace");
        else if (QFileInfo(m_promptFile->text().trimmed()).isReadable() && !m_estimated.error.isEmpty())
            problems << QStringLiteral("prompt.prompt_file (--prompt-file): %1")
                            .arg(m_estimated.error); // unreadable: validate() says so
        break;
    }
    // What the run would stop on when it reads the schema and the tools: checked here, so that Run
    // is refused with the command line's message instead. Read again only when a file changes.
    RunConfig config;
    applyTo(config);
    const auto stamp = [](const QString &path) {
        return QFileInfo(withHomeExpanded(path)).lastModified().toString(Qt::ISODateWithMs);
    };
    const auto format = parseResponseFormat(config.request.responseFormat);
    const QString key = QStringList{config.request.responseFormat, format ? stamp(format->schemaFile) : QString(),
                                    config.request.tools, stamp(config.request.tools), config.request.toolChoice}
                            .join(QChar(0));
    if (!m_filesCheckedFor || m_filesCheckedFor->first != key)
        m_filesCheckedFor = std::pair{key, RequestBuilder::requestFilesProblem(config.request)};
    if (!m_filesCheckedFor->second.isEmpty())
        problems << m_filesCheckedFor->second;
    return problems;
}

void WorkloadEditor::setApi(ApiKind api)
{
    m_api = api;
    updateUsedRows();
}

void WorkloadEditor::updateUsedRows()
{
    const QString name = apiKindName(m_api);
    const bool generates = apiGenerates(m_api);
    const bool messages = apiTakesMessages(m_api);
    const QString noText =
        generates ? QString()
                  : tr("Not used: --api %1 generates no text (it answers with vectors or scores).").arg(name);
    for (QWidget *field :
         std::initializer_list<QWidget *>{m_maxTokens, m_temperature, m_topP, m_stream, m_responseFormat})
        setRowUnused(field, noText);
    // A value the API refuses keeps its row open, so that it can be taken out where it is marked.
    setRowUnused(m_batchSize, generates && m_batchSize->value() == 1
                                  ? tr("Not used: only --api openai-embeddings, rerank and score send several inputs "
                                       "in one request; %1 sends one prompt a request.")
                                        .arg(name)
                                  : QString());
    const QString noMessages =
        messages ? QString()
                 : tr("Not used: the %1 API takes no chat messages; images and tools need openai-chat, "
                      "openai-responses or anthropic-messages.")
                       .arg(name);
    setRowUnused(m_images, m_images->value() == 0 ? noMessages : QString());
    setRowUnused(m_imageSize, m_images->value() == 0
                                  ? noMessages.isEmpty() ? tr("Not used: no images are sent.") : noMessages
                                  : QString());
    setRowUnused(m_tools, m_tools->text().trimmed().isEmpty() ? noMessages : QString());
    setRowUnused(m_toolChoice, !m_toolChoice->currentText().trimmed().isEmpty() ? QString()
                               : !noMessages.isEmpty()                          ? noMessages
                               : m_tools->text().trimmed().isEmpty()
                                   ? tr("Not used: the tool choice chooses among the tools offered; choose a tools "
                                        "file first.")
                                   : QString());
}

QString WorkloadEditor::responseFormat() const
{
    const QString format = m_responseFormat->currentData().toString();
    return format == QLatin1String("json_schema:") ? format + m_schemaFile->text().trimmed() : format;
}

void WorkloadEditor::setResponseFormat(const QString &format)
{
    // A value the form has no item for (a file's typo) is shown as written, so that it is marked
    // and kept rather than replaced unseen.
    while (m_responseFormat->count() > 3)
        m_responseFormat->removeItem(3);
    const QString schema = QStringLiteral("json_schema:");
    if (format.startsWith(schema)) {
        m_responseFormat->setCurrentIndex(2);
        m_schemaFile->setText(format.mid(schema.size()));
    } else if (const int index = m_responseFormat->findData(format); index >= 0) {
        m_responseFormat->setCurrentIndex(index);
    } else {
        m_responseFormat->addItem(format, format);
        m_responseFormat->setCurrentIndex(3);
    }
    m_schemaBox->setVisible(format.startsWith(schema));
}

void WorkloadEditor::changed()
{
    updateEstimate();
    updateUsedRows();
    m_addMissing->setEnabled(!undefinedVariables().isEmpty());
    Q_EMIT edited();
}

void WorkloadEditor::browseFile(QLineEdit *edit, const QString &title, const QString &filter, const QString &objectName)
{
    // open(), not exec(): no nested event loop.
    auto *dialog = new QFileDialog(this, title, QFileInfo(edit->text()).absolutePath(), filter);
    dialog->setObjectName(objectName);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setFileMode(QFileDialog::ExistingFile);
    connect(dialog, &QFileDialog::fileSelected, edit, &QLineEdit::setText);
    dialog->open();
}

void WorkloadEditor::browsePromptFile()
{
    browseFile(m_promptFile, tr("Prompt file"), tr("JSON Lines (*.jsonl *.ndjson *.json);;All files (*)"),
               QStringLiteral("promptFileDialog"));
}

void WorkloadEditor::addMissingVariables()
{
    for (const QString &name : undefinedVariables())
        m_variables->addVariable(name);
}

QStringList WorkloadEditor::undefinedVariables() const
{
    const QStringList defined = m_variables->names();
    QStringList missing;
    for (const QString &name : PromptSource::templateVariables(m_systemTemplate->toPlainText() + QLatin1Char('\n') +
                                                               m_userTemplate->toPlainText())) {
        if (!defined.contains(name))
            missing << name;
    }
    return missing;
}

QString WorkloadEditor::fileSummaryText() const
{
    return m_fileSummary->text();
}

void WorkloadEditor::updateFileSummary()
{
    const PromptEstimate &e = m_estimated;
    m_fileSummary->setText(e.workload ? e.workload->describe() : e.error.isEmpty() ? tr("no file read yet") : e.error);
    Q_EMIT estimated(e);
}

void WorkloadEditor::setFilePreview(QWidget *preview)
{
    if (auto *page = qobject_cast<QFormLayout *>(m_filePage->layout()))
        page->addRow(preview);
}

void WorkloadEditor::updateEstimate()
{
    RunConfig config;
    applyTo(config);
    if (!m_estimatedFor || m_estimatedFor->first != config.prompt || m_estimatedFor->second != config.load.trace) {
        m_estimatedFor = std::pair{config.prompt, config.load.trace};
        m_estimated = estimatePrompts(config.prompt, 1000, config.load.trace);
        updateFileSummary();
    }
    const PromptEstimate &e = m_estimated;
    if (!e.error.isEmpty()) {
        m_estimateLabel->setText(tr("no prompts to estimate yet"));
        return;
    }
    const QLocale locale;
    const qint64 mean = qRound64(e.meanTokens);
    QString text = tr("≈ %1 prompt tokens per request").arg(locale.toString(mean));
    if (source() == Source::File)
        text += e.sampled ? tr(" on average over the first %1 prompts").arg(locale.toString(e.prompts))
                          : tr(" on average over %1 prompts").arg(locale.toString(e.prompts));
    else if (e.systemTokens > 0)
        text +=
            tr(" (system %1 + user %2)").arg(locale.toString(e.systemTokens), locale.toString(mean - e.systemTokens));
    if (source() == Source::Synthetic && m_sharedPrefix->value() > 0)
        text += tr("; the first %1 are the same in every request").arg(locale.toString(m_sharedPrefix->value()));
    m_estimateLabel->setText(text);
}

} // namespace tb
