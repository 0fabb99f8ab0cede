#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tb {

/// Whether a JSON body is complete before its HTTP body ends (a server that never ends it: a
/// chunked body without its last chunk, a Content-Length larger than the body, a connection it
/// keeps open), found as the body's pieces arrive. The body is complete when the object or array it
/// begins with has closed — brackets counted outside strings, escapes skipped, each byte looked at
/// once — and the bytes so far are that one value and white space: JsonCursor checks them, once, at
/// the close. A body that begins with anything else (HTML, a bare number) is never complete here.
class JsonBodyEnd
{
public:
    /// `body` is the whole body so far, its last `added` bytes new since the previous call.
    /// True once it is complete; after a close that was not one JSON value, never.
    bool feed(std::string_view body, std::size_t added);

private:
    enum class State : std::uint8_t { Start, Value, String, Escape, Complete, Never };
    State m_state = State::Start;
    std::int64_t m_depth = 0;
};

} // namespace tb
