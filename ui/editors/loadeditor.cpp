#include "editors/loadeditor.h"

#include "editors/fieldvalidator.h"
#include "editors/stagesdelegate.h"
#include "models/stagesmodel.h"
#include "widgets/durationedit.h"
#include "widgets/formstyle.h"
#include "widgets/optionalspinbox.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace tb {

namespace {

constexpr int kStageRows = 5;
constexpr double kSloMaxMs = 1e7;

/// "a or b" on one form row.
QWidget *orRow(QWidget *a, QWidget *b, QWidget *parent)
{
    auto *box = new QWidget(parent);
    auto *row = new QHBoxLayout(box);
    row->setContentsMargins(0, 0, 0, 0);
    setCompact(a);
    setCompact(b);
    row->addWidget(a);
    row->addWidget(new QLabel(QObject::tr("or"), box));
    row->addWidget(b);
    row->addStretch(1);
    return box;
}

OptionalSpinBox *sloSpin(const QString &objectName, QWidget *parent)
{
    auto *spin = new OptionalSpinBox(QObject::tr("no limit"), parent);
    spin->setObjectName(objectName);
    spin->spinBox()->setRange(0, kSloMaxMs);
    spin->spinBox()->setDecimals(1);
    spin->spinBox()->setSuffix(QObject::tr(" ms"));
    spin->spinBox()->setGroupSeparatorShown(true);
    setCompact(spin);
    return spin;
}

QString stageSummary(const StageConfig &s)
{
    QStringList ends;
    if (s.durationMs > 0)
        ends << formatDuration(s.durationMs);
    if (s.requests > 0)
        ends << (s.requests == 1 ? QObject::tr("1 request") : QObject::tr("%1 requests").arg(s.requests));
    return QStringLiteral("%1 for %2").arg(s.name, ends.join(QObject::tr(" or ")));
}

} // namespace

LoadEditor::LoadEditor(FieldValidator *validator, QWidget *parent)
    : ConfigForm(parent)
    , m_shape(new QComboBox(this))
    // From 0, under the table's 1: a file's 0 shows as 0 and is marked, not raised to 1 unseen.
    , m_concurrency(m_fields.spinBox(ConfigFieldId::Concurrency, this, {.minimum = 0}))
    // From 0, under the table's least rate: a configuration without a rate shows 0; the short
    // suffix keeps the compact field narrow.
    , m_rate(m_fields.doubleSpinBox(ConfigFieldId::Rate, 2, this, {.minimum = 0, .suffix = tr(" req/s")}))
    , m_arrival(new QComboBox(this))
    , m_maxInFlight(m_fields.spinBox(ConfigFieldId::MaxInFlight, this))
    , m_stagesBox(new QWidget(this))
    , m_stages(new StagesModel(this))
    , m_stagesView(new QTableView(this))
    , m_effective(new QLabel(this))
    , m_sweep(new QLineEdit(this))
    , m_sweepProblem(new QLabel(this))
    , m_requests(new QSpinBox(this))
    , m_duration(new DurationEdit(this))
    , m_stopAfterHint(new QLabel(this))
    , m_warmupDuration(new DurationEdit(this))
    , m_warmupRequests(new QSpinBox(this))
    , m_timeout(new DurationEdit(this))
    , m_seed(new QLineEdit(this))
    , m_turns(new QSpinBox(this))
    , m_thinkTime(new QLineEdit(this))
    , m_ttft(sloSpin(QStringLiteral("sloTtft"), this))
    , m_tpot(sloSpin(QStringLiteral("sloTpot"), this))
    , m_e2e(sloSpin(QStringLiteral("sloE2e"), this))
    // The good fraction as a percent, as the service level is usually said.
    , m_sloTarget(m_fields.doubleSpinBox(ConfigFieldId::SloTarget, 2, this, {.suffix = tr(" % good"), .scale = 100}))
    , m_failOnSlo(
          m_fields.checkBox(ConfigFieldId::FailOnSlo, tr("Fail the run when the good fraction is below target"), this))
    // The share abandoned as a percent, as the flag's fraction is usually said.
    , m_cancelRate(
          m_fields.doubleSpinBox(ConfigFieldId::CancelRate, 1, this, {.suffix = tr(" % of requests"), .scale = 100}))
    , m_cancelAfter(m_fields.lineEdit(ConfigFieldId::CancelAfter, this))
{
    m_shape->setObjectName(QStringLiteral("loadShape"));
    m_concurrency->setObjectName(QStringLiteral("concurrency"));
    m_rate->setObjectName(QStringLiteral("rate"));
    m_arrival->setObjectName(QStringLiteral("arrival"));
    m_maxInFlight->setObjectName(QStringLiteral("maxInFlight"));
    m_stagesView->setObjectName(QStringLiteral("stages"));
    m_effective->setObjectName(QStringLiteral("effectiveStages"));
    m_requests->setObjectName(QStringLiteral("requests"));
    m_duration->setObjectName(QStringLiteral("duration"));
    m_stopAfterHint->setObjectName(QStringLiteral("stopAfterHint"));
    m_warmupDuration->setObjectName(QStringLiteral("warmupDuration"));
    m_warmupRequests->setObjectName(QStringLiteral("warmupRequests"));
    m_timeout->setObjectName(QStringLiteral("timeout"));
    m_seed->setObjectName(QStringLiteral("seed"));
    m_turns->setObjectName(QStringLiteral("turns"));
    m_thinkTime->setObjectName(QStringLiteral("thinkTime"));
    m_sloTarget->setObjectName(QStringLiteral("sloTarget"));
    m_failOnSlo->setObjectName(QStringLiteral("failOnSlo"));
    m_cancelRate->setObjectName(QStringLiteral("cancelRate"));
    m_cancelAfter->setObjectName(QStringLiteral("cancelAfter"));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    QFormLayout *form = nullptr;
    layout->addWidget(createFormGroup(tr("Load"), this, &form));
    m_loadForm = form;
    m_shape->addItem(tr("Concurrency — closed loop"));
    m_shape->addItem(tr("Request rate — open loop"));
    m_shape->addItem(tr("Stages — a ramp of levels"));
    validator->addRow(form, tr("Shape:"), m_shape, ConfigFieldId::LoadMode,
                      tr("Closed loop: N users each send when their last request ends (--concurrency). Open loop: "
                         "requests arrive at a rate (--rate). Stages: step through levels (--stages)."));
    for (QWidget *field :
         std::initializer_list<QWidget *>{m_concurrency, m_rate, m_maxInFlight, m_timeout, m_seed, m_sloTarget})
        setCompact(field);
    validator->addRow(form, tr("Concurrency:"), m_concurrency, ConfigFieldId::Concurrency,
                      ConfigFieldWidgets::toolTip(ConfigFieldId::Concurrency));
    validator->addRow(form, tr("Rate:"), m_rate, ConfigFieldId::Rate,
                      tr("Requests started per second, whatever the server's latency (--rate)."));

    auto *stagesLayout = new QVBoxLayout(m_stagesBox);
    stagesLayout->setContentsMargins(0, 0, 0, 0);
    stagesLayout->setSpacing(4);
    m_stagesView->setModel(m_stages);
    m_stagesView->setItemDelegate(new StagesDelegate(m_stagesView));
    m_stagesView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_stagesView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_stagesView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_stagesView->horizontalHeader()->setSectionResizeMode(StagesModel::NameColumn, QHeaderView::Stretch);
    m_stagesView->verticalHeader()->setDefaultSectionSize(m_stagesView->fontMetrics().height() + 8);
    m_stagesView->setFixedHeight(m_stagesView->verticalHeader()->defaultSectionSize() * (kStageRows + 1) + 4);
    m_stagesView->setEditTriggers(QAbstractItemView::AllEditTriggers);
    // Buttons under the table, so its five columns get the form's whole width.
    stagesLayout->addWidget(m_stagesView);
    auto *buttons = new QHBoxLayout;
    auto *add = new QPushButton(tr("Add"), m_stagesBox);
    add->setObjectName(QStringLiteral("addStage"));
    add->setToolTip(tr("Add a stage after the selected one, at twice its level."));
    auto *remove = new QPushButton(tr("Remove"), m_stagesBox);
    remove->setObjectName(QStringLiteral("removeStage"));
    auto *up = new QToolButton(m_stagesBox);
    up->setObjectName(QStringLiteral("moveStageUp"));
    up->setArrowType(Qt::UpArrow);
    up->setToolTip(tr("Move the selected stage earlier"));
    auto *down = new QToolButton(m_stagesBox);
    down->setObjectName(QStringLiteral("moveStageDown"));
    down->setArrowType(Qt::DownArrow);
    down->setToolTip(tr("Move the selected stage later"));
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addWidget(up);
    buttons->addWidget(down);
    buttons->addStretch(1);
    m_sweep->setObjectName(QStringLiteral("sweepSpec"));
    m_sweep->setPlaceholderText(QStringLiteral("c=1..256"));
    m_sweep->setToolTip(tr("A sweep to find the throughput–latency knee (--sweep): \"c=1..256\" doubles the users, "
                           "\"c=8..128x5\" or \"r=2..50x6\" gives N log-spaced levels, \":60s\" or \":200\" ends "
                           "each stage; \"p=256..16384x6\" is a context sweep: the prompt size in tokens at the "
                           "concurrency or rate of the simple form, with TTFT fitted as a·x^b + c. Generate replaces "
                           "the stages above."));
    auto *generate = new QPushButton(tr("Generate Sweep"), m_stagesBox);
    generate->setObjectName(QStringLiteral("generateSweep"));
    generate->setToolTip(m_sweep->toolTip());
    stagesLayout->addLayout(buttons);
    // Its own row: a sweep spec needs room to be read.
    auto *sweepRow = new QHBoxLayout;
    auto *sweepLabel = new QLabel(tr("Sweep:"), m_stagesBox);
    sweepLabel->setToolTip(m_sweep->toolTip());
    sweepRow->addWidget(sweepLabel);
    sweepRow->addWidget(m_sweep, 1);
    sweepRow->addWidget(generate);
    stagesLayout->addLayout(sweepRow);
    m_sweepProblem->setObjectName(QStringLiteral("sweepProblem"));
    m_sweepProblem->setWordWrap(true);
    setTone(m_sweepProblem, Tone::Bad);
    m_sweepProblem->hide();
    stagesLayout->addWidget(m_sweepProblem);
    m_effective->setWordWrap(true);
    m_effective->setTextInteractionFlags(Qt::TextSelectableByMouse);
    setTone(m_effective, Tone::Hint);
    stagesLayout->addWidget(m_effective);
    QLabel *stagesMessage =
        validator->addRow(form, tr("Stages:"), m_stagesBox, ConfigFieldId::Stages,
                          tr("Levels run one after another, each until its duration or request count (--stages)."));
    validator->addField(ConfigFieldId::Stages, m_stagesView, stagesMessage);

    m_arrival->addItem(tr("Poisson (random gaps)"), arrivalName(Arrival::Poisson));
    m_arrival->addItem(tr("Constant (even gaps)"), arrivalName(Arrival::Constant));
    validator->addRow(form, tr("Arrivals:"), m_arrival, ConfigFieldId::Arrival,
                      tr("How open-loop requests are spaced in time (--arrival)."));
    validator->addRow(form, tr("Max in flight:"), m_maxInFlight, ConfigFieldId::MaxInFlight,
                      ConfigFieldWidgets::toolTip(ConfigFieldId::MaxInFlight));

    layout->addWidget(createFormGroup(tr("Length"), this, &form));
    m_requests->setRange(0, std::numeric_limits<int>::max());
    m_requests->setSpecialValueText(tr("no count"));
    m_requests->setSuffix(tr(" requests"));
    m_requests->setGroupSeparatorShown(true);
    m_duration->setPlaceholderText(tr("no time limit (e.g. 60s)"));
    // Under the fields, what they apply to: a staged run's own stage ends overrule them.
    auto *stopAfter = new QWidget(this);
    auto *stopAfterLayout = new QVBoxLayout(stopAfter);
    stopAfterLayout->setContentsMargins(0, 0, 0, 0);
    stopAfterLayout->setSpacing(2);
    stopAfterLayout->addWidget(orRow(m_requests, m_duration, stopAfter));
    m_stopAfterHint->setWordWrap(true);
    setTone(m_stopAfterHint, Tone::Hint);
    stopAfterLayout->addWidget(m_stopAfterHint);
    QLabel *message = validator->addRow(form, tr("Stop after:"), stopAfter, ConfigFieldId::Requests, QString());
    m_stopAfterLabel = qobject_cast<QLabel *>(form->labelForField(stopAfter->parentWidget()));
    validator->addField(ConfigFieldId::Requests, m_requests, message);
    validator->addField(ConfigFieldId::Duration, m_duration, message);
    m_warmupDuration->setPlaceholderText(tr("none (e.g. 10s)"));
    m_warmupRequests->setRange(0, std::numeric_limits<int>::max());
    m_warmupRequests->setSpecialValueText(tr("no count"));
    m_warmupRequests->setSuffix(tr(" requests"));
    message = validator->addRow(form, tr("Warm-up:"), orRow(m_warmupDuration, m_warmupRequests, this),
                                ConfigFieldId::WarmupDuration,
                                tr("The start of the run excluded from statistics, by time or by count (--warmup)."));
    validator->addField(ConfigFieldId::WarmupDuration, m_warmupDuration, message);
    validator->addField(ConfigFieldId::WarmupRequests, m_warmupRequests, message);
    m_timeout->setPlaceholderText(QStringLiteral("600s"));
    validator->addRow(form, tr("Timeout:"), m_timeout, ConfigFieldId::Timeout,
                      tr("Deadline for each request, start to last byte (--timeout)."));
    m_seed->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("\\d{1,20}")), m_seed));
    validator->addRow(form, tr("Seed:"), m_seed, ConfigFieldId::Seed,
                      tr("Makes prompts and arrival times repeatable (--seed)."));
    m_turns->setRange(1, limits::kMaxTurns);
    m_turns->setSpecialValueText(tr("independent requests"));
    m_turns->setSuffix(tr(" turns"));
    validator->addRow(form, tr("Conversations:"), m_turns, ConfigFieldId::Turns,
                      tr("Each user holds a conversation of this many turns; turn k carries the whole history with "
                         "the model's own replies (--turns)."));
    m_thinkTime->setPlaceholderText(tr("none (e.g. 2s, or exp:2s)"));
    validator->addRow(form, tr("Think time:"), m_thinkTime, ConfigFieldId::ThinkTime,
                      tr("Pause between a conversation's turns: fixed, or exponential with that mean (--think-time)."));
    m_cancelRate->setSpecialValueText(tr("none"));
    setCompact(m_cancelRate);
    validator->addRow(form, tr("Cancel:"), m_cancelRate, ConfigFieldId::CancelRate,
                      ConfigFieldWidgets::toolTip(ConfigFieldId::CancelRate));
    m_cancelAfter->setPlaceholderText(tr("e.g. 200ms or first-token+100ms"));
    validator->addRow(form, tr("Cancel after:"), m_cancelAfter, ConfigFieldId::CancelAfter,
                      ConfigFieldWidgets::toolTip(ConfigFieldId::CancelAfter));

    layout->addWidget(createFormGroup(tr("Service level (goodput)"), this, &form));
    message = validator->addRow(form, tr("TTFT ≤"), m_ttft, ConfigFieldId::SloTtft,
                                tr("A good request's first token arrives within this (--slo ttft_ms=…)."));
    validator->addField(ConfigFieldId::SloTtft, m_ttft->spinBox(), message);
    message = validator->addRow(form, tr("TPOT ≤"), m_tpot, ConfigFieldId::SloTpot,
                                tr("A good request's mean time per output token after the first (--slo tpot_ms=…)."));
    validator->addField(ConfigFieldId::SloTpot, m_tpot->spinBox(), message);
    message = validator->addRow(form, tr("E2E ≤"), m_e2e, ConfigFieldId::SloE2e,
                                tr("A good request completes within this (--slo e2e_ms=…)."));
    validator->addField(ConfigFieldId::SloE2e, m_e2e->spinBox(), message);
    validator->addRow(form, tr("Target:"), m_sloTarget, ConfigFieldId::SloTarget,
                      tr("The share of requests that must meet every threshold (--slo-target, as a fraction)."));
    validator->addRow(form, QString(), m_failOnSlo, ConfigFieldId::FailOnSlo,
                      tr("Mark the run failed (the CLI exits with 3) when the target is missed (--fail-on-slo)."));
    layout->addStretch(1);

    connect(m_shape, &QComboBox::currentIndexChanged, this, [this] {
        if (shape() != Shape::Stages)
            m_simpleMode = shape() == Shape::Rate ? LoadMode::Rate : LoadMode::Concurrency;
        else if (m_stages->rowCount() == 0)
            seedStages();
        updateRows();
        changed();
    });
    m_fields.onEdited(this, [this] { changed(); });
    connect(m_arrival, &QComboBox::currentIndexChanged, this, &LoadEditor::changed);
    connectModelEdits(m_stages, this, [this] { changed(); });
    connect(add, &QPushButton::clicked, this, [this] {
        const QModelIndex current = m_stagesView->currentIndex();
        const int row = current.isValid() ? current.row() + 1 : m_stages->rowCount();
        m_stages->insertRows(row, 1);
        m_stagesView->setCurrentIndex(m_stages->index(row, StagesModel::LevelColumn));
    });
    connect(remove, &QPushButton::clicked, this, [this] {
        if (m_stagesView->currentIndex().isValid())
            m_stages->removeRows(m_stagesView->currentIndex().row(), 1);
    });
    connect(generate, &QPushButton::clicked, this, &LoadEditor::generateSweep);
    connect(m_sweep, &QLineEdit::returnPressed, this, &LoadEditor::generateSweep);
    connect(m_sweep, &QLineEdit::textEdited, m_sweepProblem, &QWidget::hide);
    connect(up, &QToolButton::clicked, this, [this] { moveStage(-1); });
    connect(down, &QToolButton::clicked, this, [this] { moveStage(+1); });
    connect(m_requests, &QSpinBox::valueChanged, this, &LoadEditor::changed);
    for (DurationEdit *edit : {m_duration, m_warmupDuration, m_timeout})
        connect(edit, &QLineEdit::textChanged, this, &LoadEditor::changed);
    connect(m_warmupRequests, &QSpinBox::valueChanged, this, &LoadEditor::changed);
    connect(m_seed, &QLineEdit::textChanged, this, &LoadEditor::changed);
    connect(m_turns, &QSpinBox::valueChanged, this, &LoadEditor::changed);
    connect(m_thinkTime, &QLineEdit::textChanged, this, &LoadEditor::changed);
    for (OptionalSpinBox *spin : {m_ttft, m_tpot, m_e2e})
        connect(spin, &OptionalSpinBox::valueChanged, this, &LoadEditor::changed);

    setConfig(RunConfig());
}

LoadEditor::~LoadEditor() = default;

void LoadEditor::setConfig(const RunConfig &config)
{
    const LoadConfig &l = config.load;
    {
        const QSignalBlocker block(this);
        const QSignalBlocker blockShape(m_shape);
        m_simpleMode = l.mode;
        m_fields.setConfig(config);
        m_arrival->setCurrentIndex(m_arrival->findData(arrivalName(l.arrival)));
        m_stages->setStages(l.stages);
        m_requests->setValue(int(qMin<qint64>(l.requests, std::numeric_limits<int>::max())));
        m_duration->setDurationMs(l.durationMs);
        m_warmupDuration->setDurationMs(l.warmupMs);
        m_warmupRequests->setValue(int(qMin<qint64>(l.warmupRequests, std::numeric_limits<int>::max())));
        m_timeout->setDurationMs(l.timeoutMs);
        m_seed->setText(QString::number(l.seed));
        m_turns->setValue(std::max(l.turns, 1));
        m_thinkTime->setText(l.thinkTimeMs > 0 ? formatThinkTime(l.thinkTimeMs, l.thinkTimeExponential) : QString());
        m_ttft->setValue(config.slo.ttftMs);
        m_tpot->setValue(config.slo.tpotMs);
        m_e2e->setValue(config.slo.e2eMs);
        setShape(!l.stages.isEmpty() ? Shape::Stages : l.mode == LoadMode::Rate ? Shape::Rate : Shape::Concurrency);
    }
    changed();
}

void LoadEditor::applyTo(RunConfig &config) const
{
    LoadConfig &l = config.load;
    const Shape s = shape();
    l.mode = s == Shape::Stages ? m_simpleMode : s == Shape::Rate ? LoadMode::Rate : LoadMode::Concurrency;
    m_fields.applyTo(config);
    l.arrival = arrivalFromName(m_arrival->currentData().toString()).value_or(Arrival::Poisson);
    l.stages = s == Shape::Stages ? m_stages->stages() : QList<StageConfig>();
    l.requests = m_requests->value();
    l.durationMs = m_duration->durationMs().value_or(0);
    l.warmupMs = m_warmupDuration->durationMs().value_or(0);
    l.warmupRequests = m_warmupRequests->value();
    l.timeoutMs = m_timeout->durationMs().value_or(0);
    l.seed = m_seed->text().toULongLong();
    l.turns = m_turns->value() > 1 ? m_turns->value() : 0;
    const auto think = parseThinkTime(m_thinkTime->text());
    l.thinkTimeMs = think ? think->ms : 0;
    l.thinkTimeExponential = think && think->exponential;
    config.slo.ttftMs = m_ttft->value();
    config.slo.tpotMs = m_tpot->value();
    config.slo.e2eMs = m_e2e->value();
}

LoadEditor::Shape LoadEditor::shape() const
{
    return Shape(m_shape->currentIndex());
}

void LoadEditor::setShape(Shape shape)
{
    m_shape->setCurrentIndex(int(shape));
    updateRows();
}

QString LoadEditor::effectiveStagesText() const
{
    return m_effective->text();
}

QStringList LoadEditor::problems() const
{
    QStringList problems;
    const auto checkDuration = [&problems](const DurationEdit *edit, const char *field) {
        if (!edit->durationMs())
            problems << QStringLiteral("%1: '%2' is not a duration (e.g. 500ms, 30s, 5m, 1h)")
                            .arg(QLatin1String(field), edit->text());
    };
    checkDuration(m_duration, "load.duration (--duration)");
    checkDuration(m_warmupDuration, "load.warmup_duration (--warmup)");
    checkDuration(m_timeout, "load.timeout (--timeout)");
    bool seedOk = false;
    m_seed->text().toULongLong(&seedOk);
    if (!seedOk)
        problems << QStringLiteral("load.seed (--seed): enter a whole number from 0 to 18446744073709551615");
    if (shape() == Shape::Stages && m_stages->rowCount() == 0)
        problems << QStringLiteral("load.stages (--stages): add at least one stage");
    if (!m_thinkTime->text().trimmed().isEmpty() && !parseThinkTime(m_thinkTime->text()))
        problems << QStringLiteral("load.think_time (--think-time): '%1' is not a duration (e.g. 2s) or exp:DURATION")
                        .arg(m_thinkTime->text());
    return problems;
}

void LoadEditor::changed()
{
    RunConfig config;
    applyTo(config);
    QStringList parts;
    for (const StageConfig &s : effectiveStages(config.load))
        parts << stageSummary(s);
    m_effective->setText(tr("Runs %1.").arg(parts.join(QStringLiteral(" → "))));
    updateStopAfter(config.load);
    Q_EMIT edited();
}

void LoadEditor::updateStopAfter(const LoadConfig &load)
{
    // The run's --requests and --duration end only the stages that set neither of their own
    // (tb::effectiveStages): a stage of 10 s ran 244 requests beside "Stop after 200 requests".
    QStringList open;
    for (const StageConfig &s : load.stages) {
        if (s.durationMs <= 0 && s.requests <= 0)
            open << (s.name.isEmpty() ? stageDefaultName(s) : s.name);
    }
    const bool staged = !load.stages.isEmpty();
    const bool unused = staged && open.isEmpty();
    QString hint;
    QString tip;
    if (!staged) {
        tip = tr("The run ends after this many requests have been sent or after this long, whichever comes first; "
                 "neither: 100 requests (--requests, --duration).");
    } else if (unused) {
        hint = tr("Not used: every stage ends after its own Duration or Requests in the table.");
        tip = tr("Ends only the stages that set neither a Duration nor Requests of their own; every stage here "
                 "does (--requests, --duration).");
    } else {
        hint = open.size() == load.stages.size()
                   ? tr("For each stage: this many requests or this long, whichever comes first.")
                   : tr("Only for the stages without a Duration or Requests of their own: %1.")
                         .arg(open.join(QStringLiteral(", ")));
        tip = tr("Each stage without a Duration or Requests of its own ends after this many requests or this long, "
                 "whichever comes first; neither: 100 requests (--requests, --duration).");
    }
    m_requests->setEnabled(!unused);
    m_duration->setEnabled(!unused);
    m_stopAfterHint->setText(hint);
    m_stopAfterHint->setVisible(!hint.isEmpty());
    for (QWidget *w : std::initializer_list<QWidget *>{m_requests, m_duration, m_stopAfterLabel}) {
        if (w)
            w->setToolTip(tip);
    }
}

void LoadEditor::updateRows()
{
    const Shape s = shape();
    m_loadForm->setRowVisible(m_concurrency->parentWidget(), s == Shape::Concurrency);
    m_loadForm->setRowVisible(m_rate->parentWidget(), s == Shape::Rate);
    m_loadForm->setRowVisible(m_stagesBox->parentWidget(), s == Shape::Stages);
    // Arrivals and the cap shape open-loop load: a rate run, or rate stages.
    m_loadForm->setRowVisible(m_arrival->parentWidget(), s != Shape::Concurrency);
    m_loadForm->setRowVisible(m_maxInFlight->parentWidget(), s != Shape::Concurrency);
}

StageConfig LoadEditor::simpleLoad() const
{
    StageConfig load;
    load.mode = m_simpleMode == LoadMode::Rate && m_rate->value() > 0 ? LoadMode::Rate : LoadMode::Concurrency;
    load.level = load.mode == LoadMode::Rate ? m_rate->value() : qMax(1, m_concurrency->value());
    return load;
}

void LoadEditor::seedStages()
{
    // Start the ramp from what the simple form says: its level, doubled twice, 30 s each.
    StageConfig first = simpleLoad();
    first.durationMs = 30000;
    m_stages->setStages({first});
    m_stages->insertRows(1, 2);
}

void LoadEditor::generateSweep()
{
    QString why;
    // A context sweep holds the load the simple form sets.
    const auto stages = parseSweep(m_sweep->text().trimmed(), &why, simpleLoad());
    m_sweepProblem->setVisible(!stages);
    if (!stages) {
        m_sweepProblem->setText(why);
        return;
    }
    m_stages->setStages(*stages);
    changed();
}

void LoadEditor::moveStage(int delta)
{
    const QModelIndex current = m_stagesView->currentIndex();
    if (!current.isValid())
        return;
    const int row = current.row();
    const int to = row + delta;
    if (to < 0 || to >= m_stages->rowCount())
        return;
    // moveRows() takes the destination as "insert before", so moving down skips one more row.
    m_stages->moveRow({}, row, {}, delta > 0 ? to + 1 : to);
    m_stagesView->setCurrentIndex(m_stages->index(to, current.column()));
}

} // namespace tb
