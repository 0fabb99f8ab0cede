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

    /// Problems the config cannot express, in "json.path: reason" form.
    QStringList problems() const override;

Q_SIGNALS:
    /// The prompt settings changed what estimate() holds (e.g. another workload file was read).
    void estimated(const tb::PromptEstimate &estimate);

private:
    void changed();
    void showSourcePage();
    void browsePromptFile();
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

    /// The last estimate and what it was computed for: a prompt file is read only when the prompt
    /// settings change, not on every edit elsewhere.
    std::optional<std::pair<PromptConfig, QString>> m_estimatedFor; ///< the prompts and the trace
    PromptEstimate m_estimated;
};

} // namespace tb
