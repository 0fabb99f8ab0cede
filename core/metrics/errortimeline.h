#pragma once

#include "metrics/requestrecord.h"
#include "metrics/runsummary.h"

#include <QStringList>

#include <cstdint>
#include <map>
#include <vector>

namespace tb {

/// Failed requests per second of run time by HTTP status or error class ("429", "503", "timeout",
/// …), counted from the records as they complete: the time series has failures per second but not
/// their causes. Like the summary it leaves out warm-up requests and cancelled ones (a Stop is not
/// the target's error); a request counts in the second it ended. The dashboard draws it
/// (charts/timechart.h errorRatePoints), the GUI and the CLI's `run` say its headline.
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

    /// Errors of one label in each second from 0 on (to its last error); empty for a label without.
    std::vector<std::int32_t> perSecond(const QString &label) const;

    /// "200 of 200 requests failed — connection refused": how many of the attempted requests
    /// (`requests`, the summary's counts: a live run's may lag the records) failed and the most
    /// frequent cause, its message or else its class, with its share when the failures had other
    /// causes too ("10 of 40 requests failed — 429 (7 of 10)"); empty when nothing failed.
    QString headline(const RequestCounts &requests) const;

private:
    std::map<QString, std::vector<std::int32_t>> m_perSecond;
    std::map<std::pair<QString, QString>, std::int64_t> m_causes; ///< at most kMaxCauses distinct
    std::int64_t m_total = 0;
    int m_lastSecond = -1;
};

} // namespace tb
