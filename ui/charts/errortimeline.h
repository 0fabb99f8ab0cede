#pragma once

#include "metrics/requestrecord.h"

#include <QList>
#include <QPointF>
#include <QStringList>

#include <cstdint>
#include <map>
#include <vector>

namespace tb {

/// Failed requests per second of run time by HTTP status or error class ("429", "503", "timeout",
/// …), counted from the records as they complete: the time series has failures per second but not
/// their causes. Like the summary it leaves out warm-up requests and cancelled ones (a Stop is not
/// the target's error); a request counts in the second it ended.
class ErrorTimeline
{
public:
    void add(const RequestRecord &record);
    void clear();

    /// "429" for an HTTP error, else the error class ("timeout", "stream-truncated", …).
    static QString label(const RequestRecord &record);
    /// Most frequent first.
    QStringList labels() const;
    std::int64_t total() const { return m_total; }
    std::int64_t count(const QString &label) const;
    /// The last second with an error; -1 when none.
    int lastSecond() const { return m_lastSecond; }

    struct Cause {
        QString label;   ///< as label()
        QString message; ///< the requests' error text
        std::int64_t count = 0;
    };
    /// The most frequent (label, message) pairs, most frequent first: what the dashboard and the
    /// "Run failed" message name.
    std::vector<Cause> topCauses(int n) const;

    /// Errors per second of one label at x = second + 0.5 for every second up to endSecond
    /// (seconds without errors are 0), decimated to maxPoints by their mean rate.
    QList<QPointF> points(const QString &label, int endSecond, int maxPoints) const;

private:
    std::map<QString, std::vector<std::int32_t>> m_perSecond;
    std::map<std::pair<QString, QString>, std::int64_t> m_causes; ///< at most kMaxCauses distinct
    std::int64_t m_total = 0;
    int m_lastSecond = -1;
};

} // namespace tb
