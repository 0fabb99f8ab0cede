#pragma once

#include <QByteArray>

#include <optional>

class QIODevice;

namespace tb::test {

/// One HTTP/1.1 request as the tests' fake servers read it.
struct HttpRequest {
    QByteArray head; ///< the request line and the headers, through the blank line after them
    QByteArray body; ///< the Content-Length bytes after the head (none without that header)
};

/// Takes the first whole request off the front of `buffer` (what a connection has sent so far);
/// nullopt, `buffer` untouched, while its head or its body has not all arrived.
std::optional<HttpRequest> takeRequest(QByteArray &buffer);
/// Adds what `socket` has received to `buffer`, its connection's bytes so far, then takeRequest().
std::optional<HttpRequest> readRequest(QIODevice &socket, QByteArray &buffer);

} // namespace tb::test
