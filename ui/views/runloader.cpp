#include "views/runloader.h"

namespace tb {

RunLoader::RunLoader(QObject *parent)
    : QObject(parent)
{}

RunLoader::~RunLoader()
{
    m_jobs.stop();
}

void RunLoader::load(const QString &directory)
{
    m_jobs.runLatest(
        [directory] {
            QString error;
            std::optional<RunData> run = RunReader::load(directory, &error, RunReader::Records);
            return std::pair(run ? std::make_shared<RunData>(std::move(*run)) : nullptr, error);
        },
        [this, directory](const std::pair<std::shared_ptr<RunData>, QString> &result) {
            if (result.first)
                Q_EMIT loaded(result.first);
            else
                Q_EMIT failed(directory, result.second);
        });
}

} // namespace tb
