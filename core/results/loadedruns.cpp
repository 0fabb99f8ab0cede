#include "results/loadedruns.h"

#include "results/sessioninfo.h"

namespace tb {

LoadedRuns LoadedRuns::load(const QStringList &arguments, Unreadable unreadable)
{
    LoadedRuns out;
    for (const QString &argument : arguments) {
        QStringList directories;
        QStringList notes;
        QString error;
        // A session that cannot be read is one problem; its notes would only repeat it.
        if (!expandRunDirectories({argument}, &directories, &error, &notes)) {
            out.problems << error;
            if (unreadable == Stop)
                return out;
            continue;
        }
        out.notes << notes;
        for (const QString &directory : std::as_const(directories)) {
            auto data = RunReader::load(directory, &error, RunReader::Records);
            if (data) {
                out.runs.push_back(std::move(*data));
            } else {
                out.problems << error;
                if (unreadable == Stop)
                    return out;
            }
        }
    }
    return out;
}

} // namespace tb
