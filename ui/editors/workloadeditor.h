#pragma once

#include "config/runconfig.h"
#include "editors/promptestimate.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
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
class WorkloadEditor : public QWidget
{
    Q_OBJECT

public:
    /// Index order of the prompt source combo box.
    enum class Source { Synthetic, Template, File };

    explicit WorkloadEditor(FieldValidator *validator, QWidget *parent = nullptr);
    ~WorkloadEditor() override;

    /// Reads config.request and config.prompt. The source follows the config's precedence: a prompt
    /// file, else a synthetic size, else the templates.
    void setConfig(const RunConfig &config);
    /// Writes config.request and config.prompt. Fields of the sources not chosen are kept, as long
    /// as they do not take precedence over the chosen one.
    void applyTo(RunConfig &config) const;

    Source source() const;
    void setSource(Source source);
    /// The estimate line shown under the prompt settings.
    QString estimateText() const;
    VariablesModel *variables() const { return m_variables; }

    /// Problems the config cannot express, in "json.path: reason" form.
    QStringList problems() const;

Q_SIGNALS:
    void edited();

private:
    void changed();
    void showSourcePage();
    void browsePromptFile();
    void addMissingVariables();
    QStringList undefinedVariables() const;
    void updateEstimate();

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
    QLabel *m_estimateLabel;
    QSpinBox *m_maxTokens;
    OptionalSpinBox *m_temperature;
    OptionalSpinBox *m_topP;
    QCheckBox *m_stream;
    QComboBox *m_tokenizer;

    /// The last estimate and what it was computed for: a prompt file is read only when the prompt
    /// settings change, not on every edit elsewhere.
    std::optional<PromptConfig> m_estimatedFor;
    PromptEstimate m_estimated;
};

} // namespace tb
