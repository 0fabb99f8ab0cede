#include "analysis/metricglossary.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace tb {

namespace {

QList<MetricGlossary::Entry> load()
{
    QFile file(QStringLiteral(":/tokenbench/metric-glossary.json"));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QList<MetricGlossary::Entry> entries;
    for (const QJsonValue &value : QJsonDocument::fromJson(file.readAll()).object().value(u"entries").toArray()) {
        const QJsonObject o = value.toObject();
        MetricGlossary::Entry entry{o.value(u"term").toString(), {}, o.value(u"definition").toString()};
        for (const QJsonValue &key : o.value(u"keys").toArray())
            entry.keys << key.toString();
        if (!entry.term.isEmpty() && !entry.definition.isEmpty())
            entries << entry;
    }
    return entries;
}

} // namespace

const QList<MetricGlossary::Entry> &MetricGlossary::entries()
{
    static const QList<Entry> all = load();
    return all;
}

const MetricGlossary::Entry *MetricGlossary::find(const QString &rowKey)
{
    for (QString key = rowKey; !key.isEmpty(); key.truncate(std::max<qsizetype>(0, key.lastIndexOf(u'_')))) {
        for (const Entry &entry : entries()) {
            if (entry.keys.contains(key))
                return &entry;
        }
    }
    return nullptr;
}

QString MetricGlossary::definitionOf(const QString &rowKey)
{
    const Entry *entry = find(rowKey);
    return entry ? entry->definition : QString();
}

} // namespace tb
