#pragma once

#include "results/rundirectory.h"
#include "threads/backgroundjobs.h"

#include <QObject>

#include <memory>

namespace tb {

/// Loads a saved run (summary, time series and every request) on a worker thread: a run of
/// 100 000 requests takes a second or more to read, which the GUI thread must not spend.
class RunLoader : public QObject
{
    Q_OBJECT

public:
    explicit RunLoader(QObject *parent = nullptr);
    /// Waits for a load in progress.
    ~RunLoader() override;

    /// loaded() or failed() follows on this object's thread. A newer request supersedes one still
    /// pending (only the latest is reported).
    void load(const QString &directory);

Q_SIGNALS:
    void loaded(const std::shared_ptr<tb::RunData> &run);
    void failed(const QString &directory, const QString &error);

private:
    BackgroundJobs m_jobs{this};
};

} // namespace tb
