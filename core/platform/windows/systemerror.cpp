#include "platform/windows/systemerror.h"

#include <windows.h>

namespace tb {

QString systemErrorText(unsigned long code)
{
    wchar_t *buffer = nullptr;
    // Winsock's codes (WSAECONNRESET, …) are in the system's message table as well.
    const DWORD length =
        FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
                       nullptr, code, 0, reinterpret_cast<wchar_t *>(&buffer), 0, nullptr);
    if (length == 0 || buffer == nullptr)
        return QStringLiteral("error %1").arg(code);
    const QString text = QString::fromWCharArray(buffer, int(length)).trimmed();
    LocalFree(buffer);
    return text;
}

} // namespace tb
