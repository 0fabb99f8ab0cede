#pragma once

namespace tb {

/// Whether standard error is a terminal (a person watching: progress lines may be redrawn in
/// place), not a file or a pipe.
bool stderrIsTerminal();

} // namespace tb
