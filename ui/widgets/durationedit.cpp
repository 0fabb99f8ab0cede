#include "widgets/durationedit.h"

#include "config/runconfig.h"

namespace tb {

DurationEdit::DurationEdit(QWidget *parent)
    : QLineEdit(parent)
{
    setClearButtonEnabled(true);
}

std::optional<qint64> DurationEdit::durationMs() const
{
    if (text().trimmed().isEmpty())
        return 0;
    return parseDurationMs(text());
}

void DurationEdit::setDurationMs(qint64 ms)
{
    setText(ms > 0 ? formatDuration(ms) : QString());
}

} // namespace tb
