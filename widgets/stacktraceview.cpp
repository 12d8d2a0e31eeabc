#include "stacktraceview.h"

#include "etrecord/exportedprogram.h"
#include "qtstrings.h"
#include "sourceviewer.h"
#include "stacktrace.h"

#include <QFileInfo>
#include <QFontDatabase>
#include <QHeaderView>
#include <QPlainTextEdit>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace etscope {

namespace {
constexpr int kFileRole = Qt::UserRole;
constexpr int kLineRole = Qt::UserRole + 1;

// A frame as Python prints it, so that the text reads (and pastes) like a traceback.
QString frameText(const StackFrame &f)
{
    QString s = QStringLiteral("  File \"%1\", line %2, in %3\n")
                    .arg(f.file)
                    .arg(f.line)
                    .arg(f.function.isEmpty() ? QStringLiteral("<module>") : f.function);
    if (!f.code.isEmpty())
        s += QStringLiteral("    ") + f.code + QLatin1Char('\n');
    return s;
}
} // namespace

StackTraceView::StackTraceView(QWidget *parent)
    : QWidget(parent)
{
    auto *split = new QSplitter(Qt::Vertical, this);
    m_frames = new QTreeWidget(split);
    m_frames->setHeaderLabels({ tr("Function (innermost first)"), tr("Location"), tr("Code") });
    m_frames->setUniformRowHeights(true);
    m_frames->setAlternatingRowColors(true);
    m_frames->header()->setStretchLastSection(true);
    m_frames->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_frames->setToolTip(tr("Innermost (most recent) call first, as in the text below. Double-click a frame to open "
                            "its source file when it exists on this machine"));
    m_text = new QPlainTextEdit(split);
    m_text->setObjectName(QStringLiteral("StackTraceText"));
    m_text->setReadOnly(true);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
    connect(m_frames, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) { activateFrame(item); });
}

void StackTraceView::clear()
{
    m_frames->clear();
    m_text->clear();
}

int StackTraceView::frameCount() const
{
    int n = 0;
    for (int i = 0; i < m_frames->topLevelItemCount(); ++i)
        n += m_frames->topLevelItem(i)->childCount();
    return n;
}

QString StackTraceView::text() const
{
    return m_text->toPlainText();
}

void StackTraceView::setNodes(const std::vector<LinkedNode> &nodes)
{
    clear();
    QString allText;
    for (const LinkedNode &node : nodes) {
        auto *top = new QTreeWidgetItem(m_frames, { toQString(node.nodeName) });
        QFont bold = top->font(0);
        bold.setBold(true);
        top->setFont(0, bold);
        if (!node.stackTrace) {
            top->setText(1, tr("no stack trace recorded"));
            continue;
        }
        const auto frames = parsePythonTraceback(toQString(*node.stackTrace));
        // Python prints the innermost frame last; the tree and the text both put it first, where
        // the user's frame (the innermost outside torch and Python's own libraries) usually is.
        allText += toQString(node.nodeName) + tr(" (innermost first):\n");
        const auto source = userFrame(*node.stackTrace);
        QTreeWidgetItem *sourceItem = nullptr;
        for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
            allText += frameText(*it);
            const bool exists = QFileInfo::exists(it->file);
            auto *item = new QTreeWidgetItem(top,
                { it->function.isEmpty() ? QStringLiteral("<module>") : it->function,
                    QFileInfo(it->file).fileName() + QLatin1Char(':') + QString::number(it->line), it->code });
            item->setFont(2, QFontDatabase::systemFont(QFontDatabase::FixedFont));
            item->setData(0, kFileRole, it->file);
            item->setData(0, kLineRole, it->line);
            item->setToolTip(0, it->code.isEmpty() ? it->file : it->code);
            item->setToolTip(1, it->file + (exists ? tr("\n(double-click to open)") : tr("\n(not on this machine)")));
            if (!exists) {
                item->setForeground(1, QColor(0x90, 0x90, 0x90));
            } else {
                QFont link = item->font(1);
                link.setUnderline(true);
                item->setFont(1, link);
                item->setForeground(1, QColor(0x1f, 0x4e, 0xa8));
            }
            if (!sourceItem && source && toQString(source->file) == it->file && source->line == it->line) {
                sourceItem = item;
                QFont b = item->font(0);
                b.setBold(true);
                item->setFont(0, b);
                item->setToolTip(0,
                    tr("The source: the innermost frame outside torch and Python's own libraries\n%1")
                        .arg(item->toolTip(0)));
            }
        }
        top->setExpanded(true);
        if (sourceItem && !m_frames->currentItem())
            m_frames->setCurrentItem(sourceItem);
    }
    m_text->setPlainText(allText);
    m_frames->resizeColumnToContents(0);
    m_frames->resizeColumnToContents(1);
}

void StackTraceView::activateFrame(QTreeWidgetItem *item)
{
    const QString file = item->data(0, kFileRole).toString();
    if (file.isEmpty())
        return;
    const int line = item->data(0, kLineRole).toInt();
    // The recorded path, or where a source root maps it on this machine.
    if (const QString local = SourceViewer::resolve(file); !local.isEmpty()) {
        auto *viewer = new SourceViewer(this);
        viewer->setAttribute(Qt::WA_DeleteOnClose);
        m_lastViewer = viewer;
        if (viewer->openFile(local, line)) {
            viewer->show();
            return;
        }
        delete viewer;
    }
    // Not available locally: show the code line recorded in the trace instead.
    m_text->setPlainText(file + QLatin1Char(':') + QString::number(line) + QLatin1Char('\n') + item->toolTip(0));
    Q_EMIT frameUnavailable(
        tr("%1: not found on this machine (map its folder in View ▸ Source Roots…); showing the recorded line")
            .arg(file));
}

} // namespace etscope
