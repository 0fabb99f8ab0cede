#include "compare/comparisonsessionpanel.h"

#include "editors/configeditor.h"
#include "editors/simulatorcontroller.h"
#include "models/quantitystyle.h"
#include "models/targetlistmodel.h"
#include "widgets/card.h"

#include "sim/simulatorhost.h"

#include <QButtonGroup>
#include <QDir>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QShortcut>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace tb {

namespace {

enum TargetRole {
    SimulatorPresetRole = Qt::UserRole + 1, ///< the preset of a simulator row; empty for configured targets
    ConfiguredRowRole,                      ///< the configured target's row in the TargetListModel
};

QString statusText(SessionRunStatus status, const QString &error)
{
    switch (status) {
    case SessionRunStatus::Pending:
        return QObject::tr("waiting");
    case SessionRunStatus::Running:
        return QObject::tr("running…");
    case SessionRunStatus::Ok:
        return QObject::tr("done");
    case SessionRunStatus::Cancelled:
        return QObject::tr("stopped (results kept)");
    case SessionRunStatus::Failed:
        return QObject::tr("failed: %1").arg(error);
    case SessionRunStatus::NotRun:
        return QObject::tr("not run");
    }
    return {};
}

QColor statusColor(SessionRunStatus status)
{
    QColor light(0x4b, 0x55, 0x63);
    switch (status) {
    case SessionRunStatus::Ok:
        light = QColor(0x15, 0x80, 0x3d);
        break;
    case SessionRunStatus::Failed:
        light = QColor(0xb9, 0x1c, 0x1c);
        break;
    case SessionRunStatus::Running:
        light = QColor(0x1d, 0x4e, 0xd8);
        break;
    default:
        break;
    }
    return chartstyle::themed(light, chartstyle::screenTheme());
}

} // namespace

ComparisonSessionPanel::ComparisonSessionPanel(ConfigEditor *editor, QWidget *parent)
    : QWidget(parent, Qt::Window)
    , m_editor(editor)
    , m_runner(new SessionRunner(this))
    , m_targets(new QStandardItemModel(this))
    , m_status(new QStandardItemModel(0, StatusColumnCount, this))
    , m_name(new QLineEdit(this))
    , m_targetList(new QListView(this))
    , m_workload(new QLabel(this))
    , m_modes(new QButtonGroup(this))
    , m_destination(new QLabel(this))
    , m_run(new QPushButton(tr("Run Session"), this))
    , m_stop(new QPushButton(tr("Stop"), this))
    , m_compare(new QPushButton(tr("Open Comparison"), this))
    , m_close(new QPushButton(tr("Close"), this))
    , m_progress(new QProgressBar(this))
    , m_state(new QLabel(this))
    , m_statusTable(new QTableView(this))
{
    setObjectName(QStringLiteral("comparisonSessionPanel"));
    setWindowTitle(tr("New Comparison Session — TokenBench"));
    resize(620, 640);

    m_name->setText(QStringLiteral("models"));
    m_name->setPlaceholderText(tr("a name for the session folder"));
    m_targetList->setModel(m_targets);
    m_targetList->setMinimumHeight(150);
    m_targetList->setToolTip(tr("Check two or more targets. Simulator presets run in this process on free "
                                "127.0.0.1 ports."));
    m_workload->setObjectName(QStringLiteral("sessionWorkload"));
    m_workload->setWordWrap(true);
    setTextColor(m_workload, QColor(0x1f, 0x29, 0x37));
    m_destination->setWordWrap(true);
    setTextColor(m_destination, QColor(0x4b, 0x55, 0x63));
    m_destination->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *sequential = new QRadioButton(tr("One after another — each target runs alone (default)"), this);
    auto *interleaved =
        new QRadioButton(tr("Interleaved — each request goes to every target at the same moment"), this);
    sequential->setToolTip(tr("Each target gets the whole machine and network to itself, one run after another"));
    interleaved->setToolTip(tr("One shared arrival schedule: request i is sent to every target at once, so each "
                               "faces the same prompt at the same moment; the comparison adds paired per-request "
                               "differences"));
    m_modes->addButton(sequential, int(SessionMode::Sequential));
    m_modes->addButton(interleaved, int(SessionMode::Interleaved));
    sequential->setChecked(true);
    auto *modes = new QVBoxLayout;
    modes->addWidget(sequential);
    modes->addWidget(interleaved);

    auto *form = new QFormLayout;
    form->addRow(tr("Name:"), m_name);
    form->addRow(tr("Targets:"), m_targetList);
    form->addRow(tr("Workload:"), m_workload);
    form->addRow(tr("Mode:"), modes);
    form->addRow(tr("Saved to:"), m_destination);

    m_run->setObjectName(QStringLiteral("runSessionButton"));
    m_run->setDefault(true);
    m_stop->setObjectName(QStringLiteral("stopSessionButton"));
    m_stop->setToolTip(tr("Stop the run going (its results are kept) and skip the targets after it"));
    m_compare->setObjectName(QStringLiteral("openComparisonButton"));
    m_compare->setEnabled(false);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_run);
    buttons->addWidget(m_stop);
    buttons->addStretch(1);
    buttons->addWidget(m_compare);
    // Closing only hides the window: a session going keeps running, and the panel shows it again.
    m_close->setObjectName(QStringLiteral("closeSessionPanelButton"));
    m_close->setToolTip(tr("Close this window (Esc); a session going keeps running"));
    buttons->addWidget(m_close);
    auto *escape = new QShortcut(QKeySequence(Qt::Key_Escape), this);

    m_state->setObjectName(QStringLiteral("sessionState"));
    m_state->setWordWrap(true);
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_status->setHorizontalHeaderLabels({tr("Target"), tr("Status")});
    m_statusTable->setModel(m_status);
    m_statusTable->verticalHeader()->hide();
    m_statusTable->horizontalHeader()->setStretchLastSection(true);
    m_statusTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_statusTable->setSelectionMode(QAbstractItemView::NoSelection);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(m_progress);
    layout->addWidget(m_state);
    layout->addWidget(m_statusTable, 1);

    connect(m_run, &QPushButton::clicked, this, &ComparisonSessionPanel::run);
    connect(m_stop, &QPushButton::clicked, this, &ComparisonSessionPanel::stop);
    connect(m_compare, &QPushButton::clicked, this, [this] { Q_EMIT compareRequested({sessionDirectory()}); });
    connect(m_close, &QPushButton::clicked, this, &QWidget::close);
    connect(escape, &QShortcut::activated, this, &QWidget::close);
    connect(m_targets, &QStandardItemModel::itemChanged, this, &ComparisonSessionPanel::updateState);
    connect(m_name, &QLineEdit::textChanged, this, &ComparisonSessionPanel::updateState);
    connect(m_editor, &ConfigEditor::configChanged, this, &ComparisonSessionPanel::updateWorkload);
    connect(m_runner, &SessionRunner::progressed, this, &ComparisonSessionPanel::onProgress);
    connect(m_runner, &SessionRunner::runStarted, this, &ComparisonSessionPanel::onRunStarted);
    connect(m_runner, &SessionRunner::runFinished, this, &ComparisonSessionPanel::onRunFinished);
    connect(m_runner, &SessionRunner::sessionFinished, this, &ComparisonSessionPanel::onSessionFinished);
    connect(m_runner, &SessionRunner::sessionStarted, this, &ComparisonSessionPanel::sessionStarted);

    refreshTargets();
    updateWorkload();
    updateState();
}

ComparisonSessionPanel::~ComparisonSessionPanel()
{
    // The runner (a child) stops its run and saves; the simulators it talks to must outlive it.
    delete m_runner;
}

void ComparisonSessionPanel::refreshTargets()
{
    QSet<QString> checked;
    for (const int row : checkedRows())
        checked.insert(m_targets->item(row)->text());
    m_targets->clear();
    const TargetListModel *list = m_editor->targets();
    for (int row = 0; row < list->count(); ++row) {
        // The built-in simulator serves one preset at a time; its presets are offered below instead.
        if (list->isBuiltin(row) || list->target(row).name == TargetListModel::builtinName())
            continue;
        const TargetConfig &t = list->target(row);
        auto *item = new QStandardItem(tr("%1 — %2 at %3").arg(t.displayName(), t.model, t.url));
        item->setData(row, ConfiguredRowRole);
        item->setToolTip(apiKindName(t.api));
        m_targets->appendRow(item);
    }
    for (const QString &preset : SimulatorController::presetNames()) {
        auto *item = new QStandardItem(tr("Simulator: %1").arg(preset));
        item->setData(preset, SimulatorPresetRole);
        item->setToolTip(SimulatorController::presetDescription(preset));
        m_targets->appendRow(item);
    }
    for (int row = 0; row < m_targets->rowCount(); ++row) {
        QStandardItem *item = m_targets->item(row);
        item->setEditable(false);
        item->setCheckable(true);
        item->setCheckState(checked.contains(item->text()) ? Qt::Checked : Qt::Unchecked);
    }
    updateState();
}

int ComparisonSessionPanel::simulatorRow(const QString &preset) const
{
    for (int row = 0; row < m_targets->rowCount(); ++row) {
        if (m_targets->item(row)->data(SimulatorPresetRole).toString() == preset)
            return row;
    }
    return -1;
}

void ComparisonSessionPanel::setTargetChecked(int row, bool checked)
{
    if (QStandardItem *item = m_targets->item(row))
        item->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
}

QList<int> ComparisonSessionPanel::checkedRows() const
{
    QList<int> rows;
    for (int row = 0; row < m_targets->rowCount(); ++row) {
        if (m_targets->item(row)->checkState() == Qt::Checked)
            rows << row;
    }
    return rows;
}

void ComparisonSessionPanel::setName(const QString &name)
{
    m_name->setText(name);
}

void ComparisonSessionPanel::setMode(SessionMode mode)
{
    m_modes->button(int(mode))->setChecked(true);
}

SessionMode ComparisonSessionPanel::mode() const
{
    return SessionMode(m_modes->checkedId());
}

void ComparisonSessionPanel::setOtherRunActive(bool active)
{
    m_otherRun = active;
    updateState();
}

bool ComparisonSessionPanel::isRunning() const
{
    return m_runner->isRunning();
}

QList<TargetConfig> ComparisonSessionPanel::checkedTargets(QString *error)
{
    QList<TargetConfig> targets;
    for (const int row : checkedRows()) {
        const QStandardItem *item = m_targets->item(row);
        const QString preset = item->data(SimulatorPresetRole).toString();
        if (preset.isEmpty()) {
            targets << m_editor->targets()->target(item->data(ConfiguredRowRole).toInt());
            continue;
        }
        auto &host = m_simulators[preset];
        if (!host)
            host = std::make_unique<sim::SimulatorHost>(*sim::SimConfig::preset(preset));
        QString why;
        if (!host->isRunning() && !host->start(QHostAddress(QHostAddress::LocalHost), 0, &why)) {
            *error = tr("cannot start the %1 simulator: %2").arg(preset, why);
            return {};
        }
        TargetConfig t;
        t.name = preset;
        t.url = host->baseUrl().toString();
        t.model = host->config().model;
        targets << t;
    }
    return targets;
}

void ComparisonSessionPanel::run()
{
    QString error;
    if (!start(&error) && !error.isEmpty())
        m_state->setText(QStringLiteral("<span style='color:%1'>%2</span>")
                             .arg(chartstyle::themed(QColor(0xb9, 0x1c, 0x1c), chartstyle::screenTheme()).name())
                             .arg(error.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br/>"))));
}

bool ComparisonSessionPanel::start(QString *error)
{
    const auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    if (isRunning())
        return fail(tr("a session is already running"));
    if (m_otherRun)
        return fail(tr("a run is going in the main window; start the session when it has ended"));
    QString why;
    SessionRunner::Config config;
    config.name = m_name->text().trimmed();
    config.mode = mode();
    config.workload = m_editor->config();
    config.targets = checkedTargets(&why);
    if (!why.isEmpty())
        return fail(why);
    config.directory = SessionRunner::defaultDirectory(m_runsFolder, config.name);

    m_status->removeRows(0, m_status->rowCount());
    for (const TargetConfig &t : std::as_const(config.targets)) {
        auto *name = new QStandardItem(t.displayName());
        auto *status = new QStandardItem(statusText(SessionRunStatus::Pending, {}));
        status->setForeground(statusColor(SessionRunStatus::Pending));
        m_status->appendRow({name, status});
    }
    if (!m_runner->start(config, &why)) {
        m_status->removeRows(0, m_status->rowCount());
        updateState();
        return fail(why);
    }
    m_compare->setEnabled(false);
    m_progress->setValue(0);
    m_state->setText(tr("Session started: %1").arg(QDir::toNativeSeparators(config.directory)));
    updateState();
    return true;
}

void ComparisonSessionPanel::stop()
{
    m_runner->stop();
    if (isRunning())
        m_state->setText(tr("Stopping: the run going ends now, its results are kept"));
}

void ComparisonSessionPanel::updateWorkload()
{
    const RunConfig c = m_editor->config();
    // What each request sends and asks for, the system prompt's tokens included: they are in
    // every request's prompt as much as the user text.
    QString prompt;
    if (!c.prompt.promptFile.isEmpty())
        prompt = tr("prompts from %1").arg(QDir::toNativeSeparators(c.prompt.promptFile));
    else if (c.prompt.promptTokens > 0 && c.prompt.systemTokens > 0)
        prompt = tr("%1 + %2 system tokens in").arg(c.prompt.promptTokens).arg(c.prompt.systemTokens);
    else if (c.prompt.promptTokens > 0)
        prompt = tr("%1 tokens in").arg(c.prompt.promptTokens);
    else
        prompt = tr("template prompts");
    m_workload->setText(tr("%1, %2 out, %3, load %4 — from the Configure tab")
                            .arg(prompt, QString::number(c.request.maxTokens),
                                 c.request.stream ? tr("streaming") : tr("not streaming"),
                                 formatStages(effectiveStages(c.load))));
    updateState();
}

void ComparisonSessionPanel::updateState()
{
    const bool running = isRunning();
    const qsizetype checked = checkedRows().size();
    m_run->setEnabled(!running && !m_otherRun && checked >= 2);
    m_run->setToolTip(running       ? tr("A session is running")
                      : m_otherRun  ? tr("A run is going in the main window")
                      : checked < 2 ? tr("Check at least two targets")
                                    : tr("Run the workload against each checked target"));
    m_stop->setEnabled(running);
    m_name->setEnabled(!running);
    m_targetList->setEnabled(!running);
    for (QAbstractButton *button : m_modes->buttons())
        button->setEnabled(!running);
    m_destination->setText(QDir::toNativeSeparators(
        running ? m_runner->directory()
                : QDir(m_runsFolder.isEmpty() ? QStringLiteral(".") : m_runsFolder)
                      .filePath(QStringLiteral("<date-time>-session-%1/").arg(m_name->text().trimmed()))));
}

void ComparisonSessionPanel::onProgress(const SessionProgress &p)
{
    if (p.fraction >= 0)
        m_progress->setValue(int(p.fraction * 1000));
    // Calibration before the load, then the load's own figures, then Stop cancelling what is left.
    QString run;
    if (p.run.calibrating)
        run = p.run.calibrationText();
    else if (p.run.stopping)
        run = tr("stopping: cancelling %1 requests in flight").arg(p.run.inFlight);
    else
        run = tr("%1 done · %2 errors · %3 in flight").arg(p.run.completed).arg(p.run.failed).arg(p.run.inFlight);
    const QList<SessionInfo::Run> &runs = m_runner->info().runs;
    for (int target = 0; target < runs.size(); ++target) {
        if ((p.target < 0 || p.target == target) && runs[target].status == SessionRunStatus::Running)
            setRowStatus(target, SessionRunStatus::Running, p.run.calibrating ? run : tr("running: %1").arg(run));
    }
    showRunning(p.target, run);
}

void ComparisonSessionPanel::showRunning(int target, const QString &what)
{
    const int count = m_status->rowCount();
    if (target >= 0 && target < count)
        m_state->setText(tr("Running %1 of %2: %3 — %4")
                             .arg(QString::number(target + 1), QString::number(count),
                                  m_status->item(target, TargetColumn)->text(), what));
    else
        m_state->setText(tr("Running all %1 targets at once — %2").arg(QString::number(count), what));
}

void ComparisonSessionPanel::setRowStatus(int target, SessionRunStatus status, const QString &text, const QString &tip)
{
    if (QStandardItem *item = m_status->item(target, StatusColumn)) {
        item->setText(text);
        item->setForeground(statusColor(status));
        item->setToolTip(tip);
    }
}

void ComparisonSessionPanel::onRunStarted(int target, const QString &)
{
    setRowStatus(target, SessionRunStatus::Running, statusText(SessionRunStatus::Running, {}));
    // Until its first progress: the line names the run that started, not the one before it.
    showRunning(m_runner->info().mode == SessionMode::Interleaved ? -1 : target, tr("starting…"));
}

void ComparisonSessionPanel::onRunFinished(int target, SessionRunStatus status, const QString &error)
{
    setRowStatus(target, status, statusText(status, error), error);
    if (!m_runner->isRunning() || target >= m_status->rowCount())
        return;
    // The session goes on (or winds down after Stop): the line says what just ended.
    const QList<SessionInfo::Run> &runs = m_runner->info().runs;
    const auto finished = std::count_if(runs.begin(), runs.end(), [](const SessionInfo::Run &r) {
        return r.status != SessionRunStatus::Pending && r.status != SessionRunStatus::Running;
    });
    m_state->setText(tr("%1 of %2 finished — %3: %4")
                         .arg(QString::number(finished), QString::number(runs.size()),
                              m_status->item(target, TargetColumn)->text(), statusText(status, error)));
}

void ComparisonSessionPanel::onSessionFinished(const QString &directory, bool cancelled)
{
    m_progress->setValue(cancelled ? m_progress->value() : 1000);
    const bool anyRun = !m_runner->runDirectories().isEmpty();
    m_compare->setEnabled(anyRun);
    m_state->setText((cancelled ? tr("Session stopped. ") : tr("Session finished. ")) +
                     tr("Results in %1").arg(QDir::toNativeSeparators(directory)));
    updateState();
    Q_EMIT sessionFinished(directory, cancelled);
    if (anyRun)
        Q_EMIT compareRequested({directory});
}

} // namespace tb
