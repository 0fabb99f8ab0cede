#pragma once

#include "config/runconfig.h"

#include <QWidget>

namespace tb {

/// A form for one part of a RunConfig (the workload, the load), driven by ConfigEditor the same way
/// for each: setConfig() shows a configuration, applyTo() writes the form's part back, problems()
/// names what the fields cannot hold ("json.path: reason"), and edited() follows each change the
/// user makes.
class ConfigForm : public QWidget
{
    Q_OBJECT

public:
    using QWidget::QWidget;

    virtual void setConfig(const RunConfig &config) = 0;
    virtual void applyTo(RunConfig &config) const = 0;
    virtual QStringList problems() const = 0;

Q_SIGNALS:
    void edited();
};

} // namespace tb
