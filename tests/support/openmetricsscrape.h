#pragma once

#include "formats/prometheustext.h"

#include <QByteArray>
#include <QString>

#include <optional>
#include <string>

namespace tb::test {

struct Scrape {
    int status = 0;
    QByteArray contentType;
    QByteArray body;
};

/// One GET over a raw socket (blocking, 5 s per step): what any scraper sends, and a request for the
/// server to close when it has answered. Empty on no answer.
Scrape scrape(const QString &url, const QByteArray &path = "/metrics");

/// The value of the sample `name` whose labels include every one of `labels`, summed over matches.
double value(const PromExposition &e, const std::string &name, const PromLabels &labels = {});

/// The body parsed as Prometheus/OpenMetrics text; a warning with the reason when it is not.
std::optional<PromExposition> parsed(const Scrape &s);

} // namespace tb::test
