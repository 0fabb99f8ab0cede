#pragma once

#include "config/runconfig.h"
#include "editors/configfieldwidgets.h"
#include "editors/configform.h"
#include "editors/promptestimate.h"

#include <limits>
#include <optional>
#include <utility>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableView;

namespace tb {

class FieldValidator;
class OptionalSpinBox;
class VariablesModel;

/// What each request sends and asks for: the prompt source (synthetic prompts of a given size,
/// system + user templates with {{variables}}, or a JSONL file), max tokens, temperature, top_p,
/// streaming, local token counting; with a live estimate of the prompt tokens, computed by the
/// engine's own prompt builder.
class WorkloadEditor : public ConfigForm
{
    Q_OBJECT

public:
    /// Index order of the prompt source combo box.
    enum class Source { Synthetic, Template, File };
    /// Index order of the file kind combo box: --prompt-file, --dataset, --trace.
    enum class FileKind { Prompts, Dataset, Trace };

    explicit WorkloadEditor(FieldValidator *validator, QWidget *parent = nullptr);
    ~WorkloadEditor() override;

    /// Reads config.request and config.prompt. The source follows the config's precedence: a prompt
    /// file, else a synthetic size, else the templates.
    void setConfig(const RunConfig &config) override;
    /// Writes config.request and config.prompt. Fields of the sources not chosen are kept, as long
    /// as they do not take precedence over the chosen one.
    void applyTo(RunConfig &config) const override;

    Source source() const;
    void setSource(Source source);
    /// The estimate line shown under the prompt settings.
    QString estimateText() const;
    /// A workload file's request count and what reading it dropped, shown above its length chart.
    QString fileSummaryText() const;
    /// What the prompt settings give: for a workload file, its stats and length histograms.
    const PromptEstimate &estimate() const { return m_estimated; }
    /// A widget shown under the file's request count (the main window puts the length chart there:
    /// editors draw no charts). The editor takes ownership.
    void setFilePreview(QWidget *preview);
    VariablesModel *variables() const { return m_variables; }

    /// Problems the config cannot express, in "json.path: reason" form; and what the run would
    /// stop on in the schema and tools files, as the command line says it.
    QStringList problems() const override;

    /// The target's API: the rows it does not use are disabled, with the reason as their tool tip
    /// (tools and images for embeddings, the batch size for chat). setConfig() sets it too.
    void setApi(ApiKind api);

Q_SIGNALS:
    /// The prompt settings changed what estimate() holds (e.g. another workload file was read).
    void estimated(const tb::PromptEstimate &estimate);

private:
    void changed();
    void showSourcePage();
    void browsePromptFile();
    /// A file chooser for `edit`, titled `title`, starting at its file's folder.
    void browseFile(QLineEdit *edit, const QString &title, const QString &filter, const QString &objectName);
    void updateUsedRows();
    QString responseFormat() const;
    void setResponseFormat(const QString &format);
    void addMissingVariables();
    QStringList undefinedVariables() const;
    void updateEstimate();
    void updateFileSummary();

    /// The rows made from the configuration table: the token counts, max tokens, the trace's time
    /// scale and the check boxes. Declared first: the members below are made by it.
    ConfigFieldWidgets m_fields;
    QComboBox *m_source;
    QWidget *m_syntheticPage;
    QWidget *m_templatePage;
    QWidget *m_filePage;
    QSpinBox *m_promptTokens;
    QSpinBox *m_systemTokens;
    QSpinBox *m_sharedPrefix;
    QPlainTextEdit *m_systemTemplate;
    QPlainTextEdit *m_userTemplate;
    VariablesModel *m_variables;
    QTableView *m_variablesView;
    QPushButton *m_addMissing;
    QLineEdit *m_promptFile;
    QComboBox *m_fileKind;
    QSpinBox *m_sample;
    QCheckBox *m_maxFromDataset;
    QCheckBox *m_skipBadLines;
    QDoubleSpinBox *m_timeScale;
    QLabel *m_fileSummary;
    QLabel *m_estimateLabel;
    QSpinBox *m_maxTokens;
    OptionalSpinBox *m_temperature;
    OptionalSpinBox *m_topP;
    QCheckBox *m_stream;
    QCheckBox *m_calibrate;
    QCheckBox *m_repeat;
    QSpinBox *m_batchSize;
    QSpinBox *m_images;
    QLineEdit *m_imageSize;
    QComboBox *m_responseFormat; ///< free text | any JSON | a schema (+ one item for a value not understood)
    QWidget *m_schemaBox;        ///< the schema file's row, under the format, when it is a schema
    QLineEdit *m_schemaFile;
    QLineEdit *m_tools;
    QComboBox *m_toolChoice; ///< editable: auto, required, none or a tool's name; empty: not sent
    ApiKind m_api = ApiKind::OpenAIChat;

    /// The last estimate and what it was computed for: a prompt file is read only when the prompt
    /// settings change, not on every edit elsewhere.
    std::optional<std::pair<PromptConfig, QString>> m_estimatedFor; ///< the prompts and the trace
    PromptEstimate m_estimated;
    /// The last check of the schema and tools files and what it was for (their names, times and
    /// the tool choice): problems() runs on every edit, the files are read when they change.
    mutable std::optional<std::pair<QString, QString>> m_filesCheckedFor;
};

} // namespace tb
