#pragma once

#include <QCoreApplication>
#include <QString>

namespace tb {

/// Help ▸ Getting Started: a first run on the built-in simulator, then one's own server, the
/// dashboard, a sweep and its knee, comparing runs and exporting, in the words of the UI. Names of
/// menus, actions, tabs, fields and buttons are in <b>bold</b>, exactly as the window shows them (a
/// test checks each against the window). No colours of its own: it reads in the light and the dark theme.
class GettingStartedPage
{
    Q_DECLARE_TR_FUNCTIONS(GettingStartedPage)

public:
    static QString html();
};

} // namespace tb
