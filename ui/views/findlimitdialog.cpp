#include "views/findlimitdialog.h"

#include "models/searchlevelsmodel.h"
#include "widgets/card.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace tb {

namespace {

/// The colour of the problems line (the error notes' red, themed).
const QColor kProblemColor(0xc6, 0x28, 0x28);

QString sloText(const SloConfig &slo)
{
    QStringList parts;
    const std::pair<const char *, std::optional<double>> thresholds[] = {
        {"TTFT", slo.ttftMs}, {"TPOT", slo.tpotMs}, {"E2E", slo.e2eMs}};
    for (const auto &[name, value] : thresholds) {
        if (value)
            parts << QStringLiteral("%1 ≤ %2 ms").arg(QLatin1String(name), QString::number(*value, 'g', 6));
    }
    if (parts.isEmpty())
        return FindLimitDialog::tr("none (set one on the Load tab, Service level)");
    return FindLimitDialog::tr("%1; a level passes when %2% of its requests meet it")
        .arg(parts.join(QStringLiteral(" · ")), QString::number(slo.target * 100, 'g', 4));
}

} // namespace

FindLimitDialog::FindLimitDialog(SearchLevelsModel *levels, QWidget *parent)
    : QDialog(parent)
    , m_mode(new QComboBox(this))
    , m_startLevel(new QDoubleSpinBox(this))
    , m_maxLevel(new QDoubleSpinBox(this))
    , m_slo(new QLabel(this))
    , m_target(new QLabel(this))
    , m_problems(new QLabel(this))
    , m_table(new QTableView(this))
    , m_answer(new QLabel(this))
    , m_start(new QPushButton(tr("&Start"), this))
    , m_stop(new QPushButton(tr("S&top"), this))
{
    setObjectName(QStringLiteral("findLimitDialog"));
    setWindowTitle(tr("Find the Limit — TokenBench"));
    m_mode->setObjectName(QStringLiteral("searchMode"));
    m_mode->addItem(tr("Users (concurrency)"), int(LoadMode::Concurrency));
    m_mode->addItem(tr("Requests/s (rate)"), int(LoadMode::Rate));
    m_startLevel->setObjectName(QStringLiteral("searchStart"));
    m_maxLevel->setObjectName(QStringLiteral("searchMax"));
    m_slo->setObjectName(QStringLiteral("searchSlo"));
    m_target->setObjectName(QStringLiteral("searchTarget"));
    m_problems->setObjectName(QStringLiteral("searchProblems"));
    m_table->setObjectName(QStringLiteral("searchLevels"));
    m_answer->setObjectName(QStringLiteral("searchAnswer"));
    m_start->setObjectName(QStringLiteral("searchStartButton"));
    m_stop->setObjectName(QStringLiteral("searchStopButton"));
    for (QLabel *label : {m_slo, m_target, m_problems, m_answer}) {
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    setTextColor(m_problems, kProblemColor);
    QFont bold = m_answer->font();
    bold.setBold(true);
    m_answer->setFont(bold);
    m_mode->setToolTip(tr("What the search raises: users in a closed loop, or requests per second (--find-max c|r)"));
    m_startLevel->setToolTip(tr("The first level; it doubles from here while levels pass, then bisects"));
    m_maxLevel->setToolTip(tr("The highest level tried"));

    auto *form = new QFormLayout;
    form->addRow(tr("Search over"), m_mode);
    form->addRow(tr("Start at"), m_startLevel);
    form->addRow(tr("At most"), m_maxLevel);
    form->addRow(tr("SLO"), m_slo);
    form->addRow(tr("Target"), m_target);

    m_table->setModel(levels);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    // Each level's figures whole: the columns follow the rows as they come.
    const auto fit = [this, levels] {
        for (int column = 0; column + 1 < levels->columnCount(); ++column) // the last one stretches
            m_table->resizeColumnToContents(column);
    };
    connect(levels, &QAbstractItemModel::rowsInserted, this, fit);
    connect(levels, &QAbstractItemModel::dataChanged, this, fit);
    connect(levels, &QAbstractItemModel::modelReset, this, fit);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_start, QDialogButtonBox::ActionRole);
    buttons->addButton(m_stop, QDialogButtonBox::ActionRole);
    m_start->setDefault(true);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_start, &QPushButton::clicked, this, [this] {
        if (const auto s = spec())
            Q_EMIT startRequested(*s);
    });
    connect(m_stop, &QPushButton::clicked, this, &FindLimitDialog::stopRequested);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_problems);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_answer);
    layout->addWidget(buttons);

    connect(m_mode, &QComboBox::currentIndexChanged, this, &FindLimitDialog::modeChanged);
    for (QDoubleSpinBox *box : {m_startLevel, m_maxLevel}) {
        connect(box, &QDoubleSpinBox::valueChanged, this, &FindLimitDialog::unitsChanged);
        connect(box, &QDoubleSpinBox::valueChanged, this, &FindLimitDialog::updateState);
    }
    modeChanged();
    m_answer->hide();
    resize(640, 480);
}

void FindLimitDialog::modeChanged()
{
    // The CLI's defaults (--find-max c or r): from 1 up to its maximum.
    const bool users = LoadMode(m_mode->currentData().toInt()) == LoadMode::Concurrency;
    for (QDoubleSpinBox *box : {m_startLevel, m_maxLevel}) {
        box->setDecimals(users ? 0 : 2);
        box->setRange(users ? 1 : limits::kMinRate, users ? double(limits::kMaxConcurrency) : limits::kMaxRate);
    }
    m_startLevel->setValue(1);
    m_maxLevel->setValue(users ? LimitSearchSpec::kDefaultMaxUsers : LimitSearchSpec::kDefaultMaxRate);
    unitsChanged();
    updateState();
}

void FindLimitDialog::unitsChanged()
{
    const bool users = LoadMode(m_mode->currentData().toInt()) == LoadMode::Concurrency;
    for (QDoubleSpinBox *box : {m_startLevel, m_maxLevel})
        box->setSuffix(!users ? tr(" req/s") : box->value() == 1 ? tr(" user") : tr(" users"));
}

std::optional<LimitSearchSpec> FindLimitDialog::spec(QString *error) const
{
    const bool users = LoadMode(m_mode->currentData().toInt()) == LoadMode::Concurrency;
    // The CLI's parser checks the range: one rule for both.
    return LimitSearchSpec::parse(
        QStringLiteral("%1=%2..%3")
            .arg(users ? QLatin1Char('c') : QLatin1Char('r'))
            .arg(QString::number(m_startLevel->value(), 'g', 12), QString::number(m_maxLevel->value(), 'g', 12)),
        error);
}

void FindLimitDialog::setSpec(const LimitSearchSpec &spec)
{
    m_mode->setCurrentIndex(m_mode->findData(int(spec.mode)));
    m_startLevel->setValue(spec.start);
    m_maxLevel->setValue(spec.max);
}

void FindLimitDialog::setConfig(const RunConfig &config, const QStringList &problems)
{
    m_slo->setText(sloText(config.slo));
    m_target->setText(tr("%1 at %2").arg(config.target.displayName(), withoutUserInfo(config.target.url)));
    m_configProblems = problems;
    updateState();
}

void FindLimitDialog::setRunning(bool running)
{
    m_running = running;
    if (running)
        m_answer->hide();
    updateState();
}

void FindLimitDialog::setAnswer(const QString &answer, const QString &stopText, const QString &directory)
{
    m_answer->setText(tr("%1\nStopped: %2\nSaved in %3").arg(answer, stopText, QDir::toNativeSeparators(directory)));
    m_answer->show();
}

void FindLimitDialog::updateState()
{
    QStringList problems = m_configProblems;
    if (QString why; !spec(&why))
        problems << why;
    m_problems->setText(problems.isEmpty() ? QString() : tr("Cannot search: %1").arg(problems.join(QLatin1Char('\n'))));
    m_problems->setVisible(!problems.isEmpty());
    m_start->setEnabled(!m_running && problems.isEmpty());
    m_stop->setEnabled(m_running);
    for (QWidget *w :
         {static_cast<QWidget *>(m_mode), static_cast<QWidget *>(m_startLevel), static_cast<QWidget *>(m_maxLevel)})
        w->setEnabled(!m_running);
}

} // namespace tb
