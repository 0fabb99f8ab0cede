#include "editors/configeditor.h"

#include "editors/loadeditor.h"
#include "editors/simulatorcontroller.h"
#include "editors/targeteditor.h"
#include "editors/workloadeditor.h"
#include "models/targetlistmodel.h"
#include "widgets/apptheme.h"
#include "widgets/formstyle.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QEvent>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace tb {

namespace {

constexpr int kTargetRows = 4;

/// A form that scrolls vertically only: with no horizontal scroll bar the area must be as wide
/// as its form, or the fields at the right are cut off (the Shape box's arrow, "no count"). Its
/// minimum width follows the form as rows come and go.
class FormScrollArea : public QScrollArea
{
public:
    using QScrollArea::QScrollArea;

    QSize minimumSizeHint() const override
    {
        QSize hint = QScrollArea::minimumSizeHint();
        if (widget())
            hint.setWidth(std::max(hint.width(), widget()->minimumSizeHint().width() +
                                                     verticalScrollBar()->sizeHint().width() + 2 * frameWidth()));
        return hint;
    }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (watched == widget() && event->type() == QEvent::LayoutRequest)
            updateGeometry();
        return QScrollArea::eventFilter(watched, event);
    }
};

QScrollArea *scrolling(QWidget *content, QWidget *parent)
{
    auto *area = new FormScrollArea(parent);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    content->setContentsMargins(8, 8, 8, 8);
    // A panel narrower than label and field side by side puts the field under its label, rather
    // than widening the panel past its share of a laptop's window.
    for (QFormLayout *form : content->findChildren<QFormLayout *>())
        form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    // A text box keeps room for a URL or a sweep: squeezed below that, its row wraps instead.
    for (QLineEdit *edit : content->findChildren<QLineEdit *>()) {
        if (!qobject_cast<QAbstractSpinBox *>(edit->parentWidget()) &&
            !qobject_cast<QComboBox *>(edit->parentWidget()) && edit->maximumWidth() == QWIDGETSIZE_MAX)
            edit->setMinimumWidth(edit->sizeHint().width());
    }
    area->setWidget(content);
    return area;
}

} // namespace

ConfigEditor::ConfigEditor(SimulatorController *simulator, QWidget *parent)
    : QWidget(parent)
    , m_simulator(simulator)
    , m_targets(new TargetListModel(this))
    , m_targetList(new QTableView(this))
    , m_duplicate(new QPushButton(tr("Duplicate"), this))
    , m_remove(new QPushButton(tr("Delete"), this))
    , m_tabs(new QTabWidget(this))
    , m_targetEditor(new TargetEditor(&m_validator, this))
    , m_workload(new WorkloadEditor(&m_validator, this))
    , m_load(new LoadEditor(&m_validator, this))
    , m_forms{m_workload, m_load}
    , m_otherProblems(FieldValidator::createMessageLabel(this))
{
    AppTheme::setStyleSheet(this, validationStyleSheet());
    m_targetList->setObjectName(QStringLiteral("targetList"));
    m_tabs->setObjectName(QStringLiteral("configTabs"));
    m_duplicate->setObjectName(QStringLiteral("duplicateTarget"));
    m_remove->setObjectName(QStringLiteral("deleteTarget"));
    m_otherProblems->setObjectName(QStringLiteral("otherProblems"));

    auto *targetPage = new QWidget(this);
    auto *targetLayout = new QVBoxLayout(targetPage);
    targetLayout->setContentsMargins(0, 0, 0, 0);
    m_targetList->setModel(m_targets);
    m_targetList->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_targetList->setSelectionMode(QAbstractItemView::SingleSelection);
    m_targetList->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_targetList->setAlternatingRowColors(true);
    m_targetList->setWordWrap(false);
    m_targetList->verticalHeader()->hide();
    m_targetList->verticalHeader()->setDefaultSectionSize(m_targetList->fontMetrics().height() + 8);
    for (int column : {TargetListModel::NameColumn, TargetListModel::ApiColumn, TargetListModel::ModelColumn})
        m_targetList->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    m_targetList->horizontalHeader()->setStretchLastSection(true);
    m_targetList->setFixedHeight(m_targetList->verticalHeader()->defaultSectionSize() * (kTargetRows + 1) + 4);
    m_targetList->setToolTip(tr("Endpoint profiles; the selected one is the run's target."));
    targetLayout->addWidget(m_targetList);
    auto *buttons = new QHBoxLayout;
    auto *add = new QPushButton(tr("Add"), this);
    add->setObjectName(QStringLiteral("addTarget"));
    add->setToolTip(tr("Add an endpoint profile."));
    m_duplicate->setToolTip(tr("Copy the selected profile, e.g. to compare two models on one server."));
    m_remove->setToolTip(tr("Delete the selected profile (the built-in simulator stays)."));
    buttons->addWidget(add);
    buttons->addWidget(m_duplicate);
    buttons->addWidget(m_remove);
    buttons->addStretch(1);
    targetLayout->addLayout(buttons);
    targetLayout->addWidget(m_targetEditor);
    m_tabs->addTab(scrolling(targetPage, m_tabs), tr("&Target"));
    m_tabs->addTab(scrolling(m_workload, m_tabs), tr("&Workload"));
    m_tabs->addTab(scrolling(m_load, m_tabs), tr("&Load"));
    m_tabs->setTabToolTip(TargetTab, tr("Where requests go: endpoint, model, key."));
    m_tabs->setTabToolTip(WorkloadTab, tr("What each request sends: prompts and generation settings."));
    m_tabs->setTabToolTip(LoadTab, tr("How hard and how long: concurrency or rate, stages, SLOs."));

    alignFormLabels(this);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tabs, 1);
    layout->addWidget(m_otherProblems);

    connect(add, &QPushButton::clicked, this, &ConfigEditor::addTarget);
    connect(m_duplicate, &QPushButton::clicked, this, &ConfigEditor::duplicateTarget);
    connect(m_remove, &QPushButton::clicked, this, &ConfigEditor::removeTarget);
    connect(m_targetList->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &ConfigEditor::currentTargetChanged);
    connect(m_targetEditor, &TargetEditor::edited, this, &ConfigEditor::targetEdited);
    for (ConfigForm *form : std::as_const(m_forms))
        connect(form, &ConfigForm::edited, this, &ConfigEditor::edited);
    // A number field's text that does not read leaves its value as it was: only its text tells.
    for (QLineEdit *number : m_validator.numberEdits())
        connect(number, &QLineEdit::textChanged, this, &ConfigEditor::revalidate);

    if (m_simulator) {
        QList<std::pair<QString, QString>> presets;
        for (const QString &name : SimulatorController::presetNames())
            presets.emplace_back(name, SimulatorController::presetDescription(name));
        m_targetEditor->setSimulatorPresets(presets);
        TargetConfig builtin;
        builtin.model = m_simulator->preset().isEmpty() ? SimulatorController::defaultPreset() : m_simulator->preset();
        m_targets->setBuiltin(builtinTarget(builtin));
        connect(m_simulator, &SimulatorController::stateChanged, this, &ConfigEditor::simulatorChanged);
        setConfig(starterConfig());
    } else {
        currentTargetChanged();
    }
}

ConfigEditor::~ConfigEditor() = default;

RunConfig ConfigEditor::starterConfig()
{
    RunConfig c;
    c.target.name = TargetListModel::builtinName();
    c.target.model = SimulatorController::defaultPreset();
    c.prompt.promptTokens = 512;
    c.prompt.calibrate = true; // no tokenizer set: measure how the target counts (the CLI asks with --calibrate)
    c.request.maxTokens = 256;
    c.load.concurrency = 8;
    c.load.requests = 200;
    return c;
}

RunConfig ConfigEditor::config() const
{
    RunConfig c = m_base;
    const int row = currentTarget();
    c.target = row >= 0 ? m_targets->target(row) : TargetConfig();
    for (const ConfigForm *form : m_forms)
        form->applyTo(c);
    return c;
}

void ConfigEditor::setConfig(const RunConfig &config)
{
    m_loading = true;
    m_base = config;
    int row = m_targets->findTarget(config.target);
    const int builtin = m_targets->builtinRow();
    if (row < 0 && builtin >= 0 && config.target.name == TargetListModel::builtinName()) {
        // A saved simulator target has the port of an earlier session: the name says what it is.
        row = builtin;
        ensureSimulator(config.target.model);
        m_targets->setTarget(row, builtinTarget(config.target));
    } else if (row < 0) {
        row = m_targets->addTarget(config.target);
    } else if (!m_targets->isBuiltin(row)) {
        m_targets->setTarget(row, config.target); // carries a typed-in key, which findTarget() ignores
    }
    for (ConfigForm *form : std::as_const(m_forms))
        form->setConfig(config);
    m_loading = false;
    if (row == currentTarget())
        currentTargetChanged();
    else
        setCurrentTarget(row);
}

int ConfigEditor::currentTarget() const
{
    const QModelIndex current = m_targetList->currentIndex();
    return current.isValid() ? current.row() : -1;
}

void ConfigEditor::setCurrentTarget(int row)
{
    m_targetList->setCurrentIndex(m_targets->index(row, TargetListModel::NameColumn));
}

void ConfigEditor::addTarget()
{
    TargetConfig t;
    t.name = tr("New target");
    t.url = QStringLiteral("http://127.0.0.1:8000/v1");
    setCurrentTarget(m_targets->addTarget(t));
    m_tabs->setCurrentIndex(TargetTab);
    if (auto *name = m_targetEditor->findChild<QLineEdit *>(QStringLiteral("targetName"))) {
        name->setFocus();
        name->selectAll();
    }
}

void ConfigEditor::duplicateTarget()
{
    const int row = m_targets->duplicateTarget(currentTarget());
    if (row >= 0)
        setCurrentTarget(row);
}

void ConfigEditor::removeTarget()
{
    const int row = currentTarget();
    if (!m_targets->removeTarget(row))
        return;
    setCurrentTarget(qMin(row, m_targets->count() - 1));
    // Removing the last row leaves no current index, and no currentRowChanged to say so.
    if (m_targets->count() == 0)
        currentTargetChanged();
}

void ConfigEditor::testConnection()
{
    m_tabs->setCurrentIndex(TargetTab);
    m_targetEditor->testConnection();
}

void ConfigEditor::currentTargetChanged()
{
    if (m_loading)
        return;
    const int row = currentTarget();
    const bool builtin = m_targets->isBuiltin(row);
    m_targetEditor->setEnabled(row >= 0);
    m_targetEditor->setTarget(row >= 0 ? m_targets->target(row) : TargetConfig(), builtin);
    m_workload->setApi(m_targetEditor->target().api);
    m_duplicate->setEnabled(row >= 0);
    m_remove->setEnabled(row >= 0 && !builtin);
    if (builtin)
        ensureSimulator(m_targets->target(row).model);
    simulatorChanged();
}

void ConfigEditor::targetEdited()
{
    const int row = currentTarget();
    if (row < 0)
        return;
    if (m_targets->isBuiltin(row)) {
        // The model box holds the preset: switch the server first, so the row gets its new URL.
        const TargetConfig edited = m_targetEditor->target();
        ensureSimulator(edited.model);
        m_targets->setTarget(row, builtinTarget(edited));
    } else {
        m_targets->setTarget(row, m_targetEditor->target());
    }
    m_workload->setApi(m_targetEditor->target().api);
    edited();
}

void ConfigEditor::edited()
{
    if (m_loading)
        return;
    revalidate();
    Q_EMIT configChanged();
}

void ConfigEditor::revalidate()
{
    const int row = currentTarget();
    const bool simulatorDown = m_targets->isBuiltin(row) && !m_simulator->isRunning();
    QStringList problems;
    if (row >= 0)
        problems << m_targetEditor->problems();
    else
        problems << QStringLiteral("target: add an endpoint profile to run against");
    if (simulatorDown)
        problems
            << QStringLiteral("target.url: the built-in simulator is not running: %1").arg(m_simulator->errorString());
    for (const ConfigForm *form : m_forms)
        problems << form->problems();
    problems << m_validator.unreadableNumbers();

    m_validator.clear();
    QStringList unplaced;
    QList<bool> tabHasProblem(m_tabs->count(), false);
    const auto place = [&](QWidget *field, const QString &problem) {
        if (!field) {
            unplaced << problem;
            return;
        }
        for (int i = 0; i < m_tabs->count(); ++i) {
            if (m_tabs->widget(i)->isAncestorOf(field))
                tabHasProblem[i] = true;
        }
    };
    for (const QString &p : std::as_const(problems))
        place(m_validator.mark(p), p);
    for (const ConfigProblem &p : configProblems(config())) {
        // While the simulator is down its URL is empty; the line above already says why.
        if (simulatorDown && p.field == ConfigFieldId::TargetUrl)
            continue;
        problems << p.message;
        place(m_validator.mark(p), p.message);
    }
    const QIcon warning = style()->standardIcon(QStyle::SP_MessageBoxWarning);
    for (int i = 0; i < m_tabs->count(); ++i)
        m_tabs->setTabIcon(i, tabHasProblem.at(i) ? warning : QIcon());
    m_otherProblems->setText(unplaced.join(QLatin1Char('\n')));
    m_otherProblems->setVisible(!unplaced.isEmpty());

    if (problems != m_problems) {
        m_problems = problems;
        Q_EMIT problemsChanged(m_problems);
    }
}

void ConfigEditor::simulatorChanged()
{
    const int builtin = m_targets->builtinRow();
    if (builtin >= 0) {
        m_targets->setTarget(builtin, builtinTarget(m_targets->target(builtin)));
        if (currentTarget() == builtin) {
            const QString status = m_simulator->isRunning()
                                       ? tr("Running in this process: %1")
                                             .arg(SimulatorController::presetDescription(m_simulator->preset()))
                                       : tr("Not running: %1").arg(m_simulator->errorString());
            m_targetEditor->setSimulatorState(m_simulator->baseUrl().toString(), status, m_simulator->isRunning());
        }
    }
    edited();
}

void ConfigEditor::ensureSimulator(const QString &preset)
{
    const QString wanted =
        SimulatorController::presetNames().contains(preset) ? preset : SimulatorController::defaultPreset();
    if (!m_simulator->isRunning() || m_simulator->preset() != wanted)
        m_simulator->start(wanted); // reports through stateChanged()
}

TargetConfig ConfigEditor::builtinTarget(const TargetConfig &from) const
{
    // The simulator's row follows the server: its name, URL and model (= preset) are not the user's.
    TargetConfig t = from;
    t.name = TargetListModel::builtinName();
    t.url = m_simulator->isRunning() ? m_simulator->baseUrl().toString() : QString();
    if (m_simulator->isRunning())
        t.model = m_simulator->preset();
    else if (!SimulatorController::presetNames().contains(t.model))
        t.model = SimulatorController::defaultPreset();
    return t;
}

} // namespace tb
