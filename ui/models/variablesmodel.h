#pragma once

#include <QAbstractTableModel>
#include <QMap>
#include <QStringList>

namespace tb {

/// The values of a prompt template's {{variables}} (prompt.variables), one editable row each.
class VariablesModel : public QAbstractTableModel
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

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool insertRows(int row, int count, const QModelIndex &parent = {}) override;
    bool removeRows(int row, int count, const QModelIndex &parent = {}) override;

private:
    struct Variable {
        QString name;
        QString value;
    };
    QList<Variable> m_rows;
};

} // namespace tb
