#include "support/httprequest.h"

#include <QIODevice>
#include <QList>

#include <algorithm>

namespace tb::test {

std::optional<HttpRequest> takeRequest(QByteArray &buffer)
{
    const qsizetype end = buffer.indexOf("\r\n\r\n");
    if (end < 0)
        return std::nullopt;
    const qsizetype bodyAt = end + 4;
    qsizetype length = 0;
    for (const QByteArray &line : buffer.left(end).split('\n')) {
        if (line.toLower().startsWith("content-length:"))
            length = std::max<qsizetype>(0, line.mid(15).trimmed().toLongLong());
    }
    if (buffer.size() - bodyAt < length)
        return std::nullopt;
    HttpRequest request{buffer.left(bodyAt), buffer.mid(bodyAt, length)};
    buffer.remove(0, bodyAt + length);
    return request;
}

std::optional<HttpRequest> readRequest(QIODevice &socket, QByteArray &buffer)
{
    buffer += socket.readAll();
    return takeRequest(buffer);
}

} // namespace tb::test
