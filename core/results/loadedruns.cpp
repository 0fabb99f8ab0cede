#include "results/loadedruns.h"

#include "results/foreignruns.h"
#include "results/sessioninfo.h"

#include <QFileInfo>

namespace tb {

LoadedRuns LoadedRuns::load(const QStringList &arguments, Unreadable unreadable)
{
    LoadedRuns out;
    for (const QString &argument : arguments) {
        QStringList directories;
        QStringList notes;
        QString error;
        // A file is another tool's result (a run is a directory): imported on the fly.
        if (QFileInfo(argument).isFile()) {
            auto imported = ForeignRuns::read(argument, &error);
            if (!imported) {
                out.problems << error;
                if (unreadable == Stop)
                    return out;
                continue;
            }
            for (RunData &run : *imported) {
                run.directory = argument;
                out.runs.push_back(std::move(run));
            }
            continue;
        }
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
