#pragma once

// Shared by the files of runconfig.h (runconfig.cpp: types and validation, runconfigjson.cpp,
// runconfigflags.cpp); not part of the public API.

#include "config/runconfig.h"

namespace tb {

inline QString number(double v)
{
    return QString::number(v, 'g', 12);
}

bool isValidHeaderName(const QString &name);

/// Why a header cannot be sent as configured; empty when it can.
QString headerProblem(const Header &h);

} // namespace tb
