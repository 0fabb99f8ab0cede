#pragma once

// Typed reads of command-line flags whose errors name the flag ("--turns: '0' is not a whole
// number from 1 to 1000"): the flag-side sibling of JsonReader.

#include "config/runconfig.h"

#include <QCommandLineParser>
#include <QString>

#include <cmath>

namespace tb {

struct ConfigField;

class FlagReader
{
public:
    explicit FlagReader(const QCommandLineParser &parser)
        : m_parser(parser)
    {}

    bool isSet(const char *name) const { return m_parser.isSet(QLatin1String(name)); }
    QString value(const char *name) const { return m_parser.value(QLatin1String(name)); }
    QStringList values(const char *name) const { return m_parser.values(QLatin1String(name)); }
    /// The first problem; empty when none.
    const QString &error() const { return m_error; }

    /// Keeps the first message; returns false, so that `return fail(…)` ends a read.
    bool fail(const QString &message);

    /// A whole number in [minimum, maximum] (never one that wraps around in Int).
    template<typename Int> bool integer(const char *name, Int &out, Int minimum, Int maximum);
    /// A finite number ≥ minimum (> minimum when `exclusive`).
    bool real(const char *name, double &out, double minimum, bool exclusive);
    /// A duration above 0 (0 would mean "not set" and silently change the run).
    bool duration(const char *name, qint64 &out);
    /// A row of the configuration table read by its type (configfield.h), when its flag is set.
    bool field(const ConfigField &field, RunConfig &c);

private:
    const QCommandLineParser &m_parser;
    QString m_error;
};

template<typename Int> bool FlagReader::integer(const char *name, Int &out, Int minimum, Int maximum)
{
    if (!isSet(name))
        return true;
    bool ok = false;
    const qlonglong v = value(name).toLongLong(&ok);
    if (!ok || v < qlonglong(minimum) || v > qlonglong(maximum))
        return fail(QStringLiteral("--%1: '%2' is not a whole number from %3 to %4")
                        .arg(QLatin1String(name), value(name).left(32))
                        .arg(qlonglong(minimum))
                        .arg(qlonglong(maximum)));
    out = Int(v);
    return true;
}

} // namespace tb
