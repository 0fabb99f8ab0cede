#include "models/targetlistmodel.h"

#include <QFont>

namespace tb {

TargetListModel::TargetListModel(QObject *parent)
    : RowTableModel({tr("Name"), tr("API"), tr("Model"), tr("Base URL")}, {}, parent)
{}

QString TargetListModel::builtinName()
{
    return QStringLiteral("Built-in simulator");
}

void TargetListModel::setTarget(int row, const TargetConfig &target)
{
    if (row < 0 || row >= m_rows.size() || m_rows.at(row).target == target)
        return;
    m_rows[row].target = target;
    Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

int TargetListModel::builtinRow() const
{
    return !m_rows.isEmpty() && m_rows.first().builtin ? 0 : -1;
}

void TargetListModel::setBuiltin(const TargetConfig &target)
{
    if (builtinRow() == 0) {
        setTarget(0, target);
        return;
    }
    beginInsertRows({}, 0, 0);
    m_rows.prepend({target, true});
    endInsertRows();
}

QList<TargetConfig> TargetListModel::userTargets() const
{
    QList<TargetConfig> targets;
    for (const Row &r : m_rows) {
        if (!r.builtin)
            targets << r.target;
    }
    return targets;
}

void TargetListModel::setUserTargets(const QList<TargetConfig> &targets)
{
    beginResetModel();
    m_rows.erase(std::remove_if(m_rows.begin(), m_rows.end(), [](const Row &r) { return !r.builtin; }), m_rows.end());
    for (const TargetConfig &t : targets)
        m_rows.append({t, false});
    endResetModel();
}

int TargetListModel::addTarget(const TargetConfig &target)
{
    const int row = int(m_rows.size());
    beginInsertRows({}, row, row);
    m_rows.append({target, false});
    endInsertRows();
    return row;
}

int TargetListModel::duplicateTarget(int row)
{
    if (row < 0 || row >= m_rows.size())
        return -1;
    TargetConfig copy = m_rows.at(row).target;
    copy.name = tr("%1 (copy)").arg(copy.displayName());
    return addTarget(copy);
}

bool TargetListModel::removeTarget(int row)
{
    if (row < 0 || row >= m_rows.size() || m_rows.at(row).builtin)
        return false;
    beginRemoveRows({}, row, row);
    m_rows.removeAt(row);
    endRemoveRows();
    return true;
}

int TargetListModel::findTarget(const TargetConfig &target) const
{
    for (int i = 0; i < m_rows.size(); ++i) {
        TargetConfig t = m_rows.at(i).target;
        t.apiKey = target.apiKey;
        if (t == target)
            return i;
    }
    return -1;
}

QByteArray TargetListModel::toJson(const QList<TargetConfig> &targets)
{
    nlohmann::json array = nlohmann::json::array();
    for (const TargetConfig &t : targets)
        array.push_back(tb::toJson(t));
    return QByteArray::fromStdString(array.dump());
}

QList<TargetConfig> TargetListModel::fromJson(const QByteArray &json)
{
    QList<TargetConfig> targets;
    const auto array = nlohmann::json::parse(json.constData(), json.constData() + json.size(), nullptr, false);
    if (!array.is_array())
        return targets;
    for (const auto &entry : array) {
        QString error;
        if (auto t = targetFromJson(entry, &error))
            targets << *t;
        else
            qWarning("TokenBench: skipping a stored target: %s", qPrintable(error));
    }
    return targets;
}

QVariant TargetListModel::data(const QModelIndex &index, int role) const
{
    if (!isCell(index))
        return {};
    const Row &r = m_rows.at(index.row());
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case NameColumn:
            return r.target.displayName();
        case ApiColumn:
            return apiKindName(r.target.api);
        case ModelColumn:
            return r.target.model;
        case UrlColumn:
            // On screen as in files: no userinfo password (screenshots get shared).
            return r.target.replicas.isEmpty()
                       ? withoutUserInfo(r.target.url)
                       : tr("%1 +%2").arg(withoutUserInfo(r.target.url)).arg(r.target.replicas.size());
        }
    } else if (role == Qt::ToolTipRole) {
        return QStringLiteral("%1\n%2 · %3")
            .arg(r.target.displayName(), redacted(r.target).instanceUrls().join(QStringLiteral(", ")),
                 apiKindName(r.target.api));
    } else if (role == Qt::FontRole && r.builtin) {
        QFont font;
        font.setItalic(true);
        return font;
    }
    return {};
}

} // namespace tb
