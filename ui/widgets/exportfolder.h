#pragma once

#include <QString>

namespace tb {

/// The one folder every export and save dialog starts in — a chart's PNG/SVG/PDF, File ▸ Export,
/// the comparison's report, table and charts, a saved configuration — kept in QSettings. It is the
/// folder the user last picked in any of them, so saving a report after exporting a chart goes where
/// the chart went; until the first pick, the Documents folder (the home folder where there is none).
class ExportFolder
{
public:
    static QString path();
    /// `name` in the folder: what a save dialog proposes.
    static QString filePath(const QString &name);
    /// The user picked `folder` (made absolute and clean).
    static void remember(const QString &folder);
    /// The user picked `file` to save: its folder is remembered.
    static void rememberFileFolder(const QString &file);
};

} // namespace tb
