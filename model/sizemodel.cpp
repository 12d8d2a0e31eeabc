#include "sizemodel.h"

#include "modelroles.h"
#include "numberformat.h"
#include "qtstrings.h"

#include <QFileInfo>
#include <QLocale>

namespace etscope {
namespace {

// Bytes with thousands grouped ("140,344"): sizes a person compares digit by digit.
QString formatBytes(std::uint64_t bytes)
{
    QLocale c = QLocale::c();
    c.setNumberOptions(QLocale::DefaultNumberOptions); // C omits the group separator by default
    return c.toString(qulonglong(bytes));
}

} // namespace

SizeModel::SizeModel(QObject *parent)
    : QAbstractItemModel(parent)
{ }

void SizeModel::setReport(SizeReport report)
{
    beginResetModel();
    m_report = std::move(report);
    m_nodes.clear();
    m_files.clear();
    if (m_report.fileBytes > 0 || !m_report.parts.empty()) {
        addFile(m_report);
        for (const SizeReport &d : m_report.dataFiles)
            addFile(d);
    }
    endResetModel();
}

void SizeModel::addFile(const SizeReport &file)
{
    const int id = int(m_nodes.size());
    m_nodes.push_back(
        { QFileInfo(toQString(file.file)).fileName(), file.fileBytes, file.fileBytes, 0, -1, int(m_files.size()), {} });
    m_files.push_back(id);
    for (std::size_t i = 0; i < file.parts.size(); ++i) {
        const int child = addPart(file.parts[i], id, int(i), file.fileBytes);
        m_nodes[std::size_t(id)].children.push_back(child);
    }
}

int SizeModel::addPart(const SizePart &part, int parent, int row, std::uint64_t fileBytes)
{
    const int id = int(m_nodes.size());
    m_nodes.push_back(
        { toQString(part.name), part.bytes, fileBytes, m_nodes[std::size_t(parent)].bytes, parent, row, {} });
    for (std::size_t i = 0; i < part.parts.size(); ++i) {
        const int child = addPart(part.parts[i], id, int(i), fileBytes);
        m_nodes[std::size_t(id)].children.push_back(child);
    }
    return id;
}

const SizeModel::Node *SizeModel::node(const QModelIndex &index) const
{
    if (!index.isValid() || index.internalId() >= m_nodes.size())
        return nullptr;
    return &m_nodes[index.internalId()];
}

QModelIndex SizeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    const std::vector<int> *rows = &m_files;
    if (parent.isValid()) {
        const Node *p = node(parent);
        if (!p || parent.column() != 0)
            return {};
        rows = &p->children;
    }
    if (std::size_t(row) >= rows->size())
        return {};
    return createIndex(row, column, quintptr((*rows)[std::size_t(row)]));
}

QModelIndex SizeModel::parent(const QModelIndex &child) const
{
    const Node *n = node(child);
    if (!n || n->parent < 0)
        return {};
    return createIndex(m_nodes[std::size_t(n->parent)].row, 0, quintptr(n->parent));
}

int SizeModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_files.size());
    const Node *n = node(parent);
    return n && parent.column() == 0 ? int(n->children.size()) : 0;
}

int SizeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant SizeModel::data(const QModelIndex &index, int role) const
{
    const Node *n = node(index);
    if (!n)
        return {};
    const double ofFile = n->fileBytes ? 100.0 * double(n->bytes) / double(n->fileBytes) : 0.0;
    const double ofParent = n->parentBytes ? 100.0 * double(n->bytes) / double(n->parentBytes) : 100.0;
    if (role == SortRole) {
        switch (index.column()) {
        case Name:
            return n->name;
        case Bytes:
            return qulonglong(n->bytes);
        case ShareOfFile:
            return ofFile;
        case ShareOfParent:
            return ofParent;
        default:
            return {};
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case Name:
            return n->name;
        case Bytes:
            return formatBytes(n->bytes);
        case ShareOfFile:
            return QString(formatSignificant(ofFile, 4) + QStringLiteral(" %"));
        case ShareOfParent:
            return n->parent < 0 ? QString() : QString(formatSignificant(ofParent, 4) + QStringLiteral(" %"));
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole)
        return tr("%1\n%2 bytes: %3 % of the file, %4 % of its parent")
            .arg(n->name, formatBytes(n->bytes), formatSignificant(ofFile, 4), formatSignificant(ofParent, 4));
    if (role == Qt::TextAlignmentRole && index.column() != Name)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant SizeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name:
        return tr("Part");
    case Bytes:
        return tr("Bytes");
    case ShareOfFile:
        return tr("% of file");
    case ShareOfParent:
        return tr("% of parent");
    default:
        return {};
    }
}

} // namespace etscope
