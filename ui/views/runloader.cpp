#include "views/runloader.h"

namespace tb {

RunLoader::RunLoader(QObject *parent)
    : QObject(parent)
{
    m_pool.setMaxThreadCount(1);
}

RunLoader::~RunLoader()
{
    m_pool.clear();
    m_pool.waitForDone();
}

void RunLoader::load(const QString &directory)
{
    const quint64 ticket = ++m_latest;
    m_pool.start([this, directory, ticket] {
        QString error;
        std::optional<RunData> run = RunReader::load(directory, &error, RunReader::Records);
        auto data = run ? std::make_shared<RunData>(std::move(*run)) : nullptr;
        QMetaObject::invokeMethod(
            this,
            [this, directory, ticket, data, error] {
                if (ticket != m_latest)
                    return;
                if (data)
                    Q_EMIT loaded(data);
                else
                    Q_EMIT failed(directory, error);
            },
            Qt::QueuedConnection);
    });
}

} // namespace tb
