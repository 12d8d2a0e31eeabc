#pragma once

#include "program/programsize.h"

#include <QAbstractItemModel>

#include <vector>

namespace etscope {

// Every byte of a program as a tree (core/program/programsize.h): one top-level row per file —
// the .pte, then each attached .ptd — with its parts under it, as `etscope-cli size` lists
// them. Columns: the part's name, its bytes, its share of its file and of its parent part.
// SortRole gives the raw number (bytes as qulonglong, shares as double in percent).
class SizeModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { Name, Bytes, ShareOfFile, ShareOfParent, ColumnCount };

    explicit SizeModel(QObject *parent = nullptr);

    void setReport(SizeReport report);
    const SizeReport &report() const { return m_report; }

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Node {
        QString name;
        std::uint64_t bytes = 0;
        std::uint64_t fileBytes = 0; // of the file the node belongs to
        std::uint64_t parentBytes = 0; // 0 for a file row
        int parent = -1; // node index, -1 for a file row
        int row = 0; // under its parent
        std::vector<int> children;
    };
    void addFile(const SizeReport &file);
    int addPart(const SizePart &part, int parent, int row, std::uint64_t fileBytes);
    const Node *node(const QModelIndex &index) const;

    SizeReport m_report;
    std::vector<Node> m_nodes;
    std::vector<int> m_files; // top-level nodes
};

} // namespace etscope
