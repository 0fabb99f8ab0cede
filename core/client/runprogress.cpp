#include "client/runprogress.h"

#include <algorithm>

namespace tb {

QString RunProgress::calibrationText() const
{
    if (!calibrating)
        return {};
    QString text = probesSent > 0 ? QStringLiteral("Calibrating prompts: probe %1 of %2")
                                        .arg(probesSent)
                                        .arg(std::max(probesSent, probesPlanned))
                                  : QStringLiteral("Calibrating prompts");
    text += QStringLiteral(" · %1 s").arg(double(calibrationNs) / 1e9, 0, 'f', 1);
    if (stopping)
        text += QStringLiteral(" · stopping");
    return text;
}

} // namespace tb
