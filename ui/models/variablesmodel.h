#pragma once

#include "models/rowtablemodel.h"

#include <QMap>
#include <QStringList>

namespace tb {

struct VariableRow {
    QString name;
    QString value;
};

/// The values of a prompt template's {{variables}} (prompt.variables), one editable row each.
class VariablesModel : public EditableRowTableModel<QList<VariableRow>>
{
    Q_OBJECT

public:
    enum Column { NameColumn, ValueColumn, ColumnCount };

    explicit VariablesModel(QObject *parent = nullptr);

    QMap<QString, QString> variables() const;
    void setVariables(const QMap<QString, QString> &variables);
    QStringList names() const;
    /// Appends a row; returns its index.
    int addVariable(const QString &name, const QString &value = {});
    /// Rows the config cannot hold: empty or repeated names ("prompt.variables: …").
    QStringList problems() const;

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    bool insertRows(int row, int count, const QModelIndex &parent = {}) override;

private:
    using Variable = VariableRow;
};

} // namespace tb
