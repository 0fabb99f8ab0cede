#include "net/jsonbodyend.h"

#include "net/jsoncursor.h"

#include <algorithm>

namespace tb {

bool JsonBodyEnd::feed(std::string_view body, std::size_t added)
{
    const std::size_t from = body.size() - std::min(added, body.size());
    for (std::size_t i = from; i < body.size() && m_state != State::Complete && m_state != State::Never; ++i) {
        const char c = body[i];
        switch (m_state) {
        case State::Start:
            if (c == '{' || c == '[') {
                m_depth = 1;
                m_state = State::Value;
            } else if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
                m_state = State::Never;
            }
            break;
        case State::Value:
            if (c == '"') {
                m_state = State::String;
            } else if (c == '{' || c == '[') {
                ++m_depth;
            } else if ((c == '}' || c == ']') && --m_depth == 0) {
                JsonCursor whole(body);
                m_state = whole.skip() && whole.atEnd() ? State::Complete : State::Never;
            }
            break;
        case State::String:
            m_state = c == '\\' ? State::Escape : c == '"' ? State::Value : State::String;
            break;
        case State::Escape:
            m_state = State::String;
            break;
        case State::Complete:
        case State::Never:
            break;
        }
    }
    return m_state == State::Complete;
}

} // namespace tb
