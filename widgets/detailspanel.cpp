#include "detailspanel.h"

#include "etrecord/modulestack.h"
#include "eventtreemodel.h"
#include "explainedpage.h"
#include "qtstrings.h"
#include "runnames.h"
#include "stacktraceview.h"
#include "tensorvaluesdialog.h"

#include "events/backendevents.h"
#include "events/blockstats.h"
#include "events/inspectortable.h"

#include <QDialog>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QTabWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace etscope {

namespace {

QTreeWidget *makeTree(QWidget *parent, const QStringList &headers)
{
    auto *t = new QTreeWidget(parent);
    t->setHeaderLabels(headers);
    t->setUniformRowHeights(true);
    t->setAlternatingRowColors(true);
    t->header()->setStretchLastSection(true);
    t->setSelectionMode(QAbstractItemView::ExtendedSelection);
    return t;
}

QTreeWidgetItem *addRow(QTreeWidgetItem *parent, const QString &key, const QString &value)
{
    auto *item = new QTreeWidgetItem(parent, { key, value });
    item->setTextAlignment(1, Qt::AlignLeft | Qt::AlignVCenter);
    return item;
}

QString runtimeValueKind(const RuntimeValue &v)
{
    switch (v.kind) {
    case RuntimeValue::Kind::None:
        return QStringLiteral("None");
    case RuntimeValue::Kind::Int:
        return QStringLiteral("int");
    case RuntimeValue::Kind::Bool:
        return QStringLiteral("bool");
    case RuntimeValue::Kind::Float:
        return QStringLiteral("float");
    case RuntimeValue::Kind::Double:
        return QStringLiteral("double");
    case RuntimeValue::Kind::Tensor:
        return QStringLiteral("tensor");
    case RuntimeValue::Kind::TensorList:
        return QStringLiteral("tensor list");
    case RuntimeValue::Kind::String:
        return QStringLiteral("str");
    }
    return {};
}

bool isPrintable(const std::string &s)
{
    for (unsigned char c : s)
        if ((c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f)
            return false;
    return true;
}

QString hexDump(const std::string &bytes)
{
    QString out;
    for (std::size_t off = 0; off < bytes.size(); off += 16) {
        out += QStringLiteral("%1  ").arg(off, 6, 16, QLatin1Char('0'));
        QString ascii;
        for (std::size_t i = off; i < off + 16; ++i) {
            if (i < bytes.size()) {
                const auto c = static_cast<unsigned char>(bytes[i]);
                out += QStringLiteral("%1 ").arg(c, 2, 16, QLatin1Char('0'));
                ascii += (c >= 0x20 && c < 0x7f) ? QLatin1Char(char(c)) : QLatin1Char('.');
            } else {
                out += QStringLiteral("   ");
            }
        }
        out += QLatin1Char(' ') + ascii + QLatin1Char('\n');
    }
    return out;
}
} // namespace

DetailsPanel::DetailsPanel(QWidget *parent)
    : QWidget(parent)
{
    m_title = new QLabel(this);
    m_title->setTextFormat(Qt::RichText);
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_title->setContentsMargins(6, 4, 6, 4);

    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);
    m_properties = makeTree(this, { tr("Property"), tr("Value") });
    m_tabs->addTab(m_properties, tr("Statistics"));

    m_frames = new StackTraceView(this);
    m_tabs->addTab(m_tracePage = new ExplainedPage(m_frames, this), tr("Stack trace"));
    connect(m_frames, &StackTraceView::frameUnavailable, this, &DetailsPanel::frameUnavailable);

    m_modules = makeTree(this, { tr("Module"), tr("Type") });
    m_tabs->addTab(m_modulesPage = new ExplainedPage(m_modules, this), tr("Modules"));
    m_debug = makeTree(this, { tr("Value"), tr("Type / shape"), tr("min"), tr("max"), tr("mean"), tr("first values") });
    m_tabs->addTab(m_debugPage = new ExplainedPage(m_debug, this), tr("Debug data"));
    m_metadata = new QPlainTextEdit(this);
    m_metadata->setReadOnly(true);
    m_metadata->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_tabs->addTab(m_metadataPage = new ExplainedPage(m_metadata, this), tr("Delegate metadata"));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_title);
    layout->addWidget(m_tabs, 1);

    connect(m_debug, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        if (QDialog *d = openTensorValues(item))
            d->show();
    });
    clear();
}

void DetailsPanel::clear()
{
    m_session.reset();
    m_rawItem = nullptr;
    m_title->setText(tr("<i>No event selected</i>"));
    m_properties->clear();
    m_frames->clear();
    m_modules->clear();
    m_debug->clear();
    m_tensorRefs.clear();
    m_metadata->clear();
    const QString none = tr("Select an event in the table to see its %1.");
    m_tracePage->explain(none.arg(tr("stack trace")));
    m_modulesPage->explain(none.arg(tr("modules")));
    m_debugPage->explain(none.arg(tr("debug data")));
    m_metadataPage->explain(none.arg(tr("delegate metadata")));
}

QString DetailsPanel::title() const
{
    return m_title->text();
}

int DetailsPanel::rawValueCount() const
{
    return m_rawItem ? m_rawItem->childCount() : 0;
}

int DetailsPanel::frameCount() const
{
    return m_frames->frameCount();
}

QTreeWidget *DetailsPanel::framesTree() const
{
    return m_frames->framesTree();
}

QWidget *DetailsPanel::lastSourceViewer() const
{
    return m_frames->lastSourceViewer();
}

QString DetailsPanel::tabExplanation(int tab) const
{
    auto *page = qobject_cast<ExplainedPage *>(m_tabs->widget(tab));
    return page ? page->explanation() : QString();
}

QString DetailsPanel::metadataText() const
{
    return m_metadata->toPlainText();
}

int DetailsPanel::debugValueCount() const
{
    return m_debug->topLevelItemCount();
}

void DetailsPanel::setBlock(std::shared_ptr<const Session> session, int blockIndex)
{
    clear();
    if (!session || blockIndex < 0 || blockIndex >= int(session->blocks.size()))
        return;
    m_session = std::move(session);
    const EventBlock &block = m_session->blocks[blockIndex];
    const auto runs = qulonglong(block.runIndices.size());
    m_title->setText(QStringLiteral("<b style='font-size:large'>") + toQString(block.name).toHtmlEscaped()
        + QStringLiteral("</b><br/><span style='color:gray'>")
        + (runs == 1 ? tr("block · 1 run") : tr("block · %1 runs").arg(runs)) + QStringLiteral("</span>"));
    auto add = [this](QTreeWidgetItem *parent, const QString &k, const QString &v) {
        auto *item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(m_properties);
        item->setText(0, k);
        item->setText(1, v);
        item->setToolTip(1, v);
        return item;
    };
    add(nullptr, tr("Runs"), QString::number(runs));
    add(nullptr, tr("Profiling events"), QString::number(block.events.size()));
    add(nullptr, tr("Allocation events"), QString::number(block.allocationEventCount));
    const QLocale locale;
    for (const AllocatorSummary &a : block.allocators) {
        auto *item = add(nullptr, tr("Allocator %1").arg(toQString(a.name)),
            tr("%1 allocations, %2 bytes")
                .arg(locale.toString(qulonglong(a.allocationCount)), locale.toString(qulonglong(a.totalBytes))));
        add(item, tr("Allocations"), QString::number(a.allocationCount));
        add(item, tr("Total bytes"), QString::number(a.totalBytes));
        add(item, tr("Largest allocation (bytes)"), QString::number(a.maxBytes));
        add(item, tr("Mean allocation (bytes)"),
            a.allocationCount ? QString::number(double(a.totalBytes) / double(a.allocationCount), 'f', 1) : QString());
        item->setExpanded(true);
    }
    for (const std::string &w : block.warnings)
        add(nullptr, tr("Warning"), toQString(w));
    const QString blockRow = tr("A block row: select one of its events to see its %1.");
    m_tracePage->explain(blockRow.arg(tr("stack trace")));
    m_modulesPage->explain(blockRow.arg(tr("modules")));
    m_debugPage->explain(blockRow.arg(tr("debug data")));
    m_metadataPage->explain(blockRow.arg(tr("delegate metadata")));
    m_tabs->setCurrentIndex(0);
}

void DetailsPanel::setEvent(
    std::shared_ptr<const Session> session, int blockIndex, int eventIndex, const ScopedBlocks *scoped)
{
    clear();
    if (!session || blockIndex < 0 || blockIndex >= int(session->blocks.size()))
        return;
    const EventBlock &block = session->blocks[blockIndex];
    if (eventIndex < 0 || eventIndex >= int(block.events.size()))
        return;
    m_session = std::move(session);
    const Event &e = block.events[eventIndex];
    // The statistics answer for the runs in scope: the scoped copy of this block, when the
    // scope holds some of its runs; else the block's own runs, said so.
    const Event *timed = &e;
    std::vector<QString> runNames;
    QString over;
    const auto sb = scoped && !scoped->whole
        ? std::find(scoped->sourceBlock.begin(), scoped->sourceBlock.end(), std::size_t(blockIndex))
        : std::vector<std::size_t>::const_iterator();
    if (scoped && !scoped->whole && sb != scoped->sourceBlock.end()) {
        const auto i = std::size_t(sb - scoped->sourceBlock.begin());
        timed = &scoped->blocks[i].events[std::size_t(eventIndex)];
        for (std::size_t run : scoped->runs[i])
            runNames.push_back(tr("run %1").arg(run + 1)); // as model/runnames.h names them
        over = toQString(scoped->label);
    } else {
        for (std::size_t r = 0; r < block.runIndices.size(); ++r)
            runNames.push_back(runName(*m_session, std::size_t(blockIndex), r));
        if (scoped && !scoped->whole)
            over = tr("outside the scope (%1): every run of its block").arg(toQString(scoped->label));
    }
    QString sub = tr("block %1 · instruction %2").arg(toQString(block.name).toHtmlEscaped()).arg(e.instructionId);
    if (e.isDelegatedOp)
        sub += tr(" · delegated")
            + (e.delegateBackendName()
                    ? QStringLiteral(" (") + toQString(*e.delegateBackendName()).toHtmlEscaped() + QLatin1Char(')')
                    : QString());
    // A backend event etscope decodes is titled by its operator, the logged name under it.
    const std::string op = e.isDelegatedOp ? backendOpLabel(decodeBackendEvent(e)) : std::string();
    const QString raw = toQString(e.name.empty() ? std::string("(unnamed)") : e.name);
    if (!op.empty())
        sub = tr("logged as %1").arg(raw.toHtmlEscaped()) + QStringLiteral("<br/>") + sub;
    m_title->setText(QStringLiteral("<b style='font-size:large'>") + (op.empty() ? raw : toQString(op)).toHtmlEscaped()
        + QStringLiteral("</b><br/><span style='color:gray'>") + sub + QStringLiteral("</span>"));
    fillProperties(block, e, *timed, runNames, over);
    if (e.isDelegatedOp)
        fillDelegateNode(blockIndex, eventIndex);
    m_frames->setNodes(e.linkedNodes());
    fillModules(e);
    fillDebugData(*m_session, e);
    fillMetadata(e, std::size_t(blockIndex));
    explainEmptyTabs(e);
}

void DetailsPanel::fillDelegateNode(int blockIndex, int eventIndex)
{
    if (!m_session->program)
        return;
    // This block's events only: one selection does not decode a whole recording.
    const auto block = std::size_t(blockIndex);
    const BackendEventTable table = decodeBackendEvents(m_session->blocks, block);
    const PayloadEventLinks links = payloadEventLinks(*m_session, table, block);
    const PayloadEventLink *l = links.find(block, std::size_t(eventIndex));
    if (!l) {
        for (const std::string &note : links.notes) // why this call's events are not on nodes
            addSection(tr("Delegate node"), { { tr("not placed"), toQString(note) } });
        return;
    }
    const std::vector<std::string> lines = links.describe(*l);
    QList<QPair<QString, QString>> rows;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const QString line = toQString(lines[i]);
        const qsizetype colon = line.indexOf(QStringLiteral(": "));
        if (i == 0)
            rows.append({ tr("node"), line });
        else if (i + 1 == lines.size())
            rows.append({ tr("placed"), line });
        else if (colon > 0 && colon < 12) // "in  v0: fp32[1, 64]"
            rows.append({ line.left(colon).simplified(), line.mid(colon + 2) });
        else
            rows.append({ QString(), line });
    }
    addSection(tr("Delegate node (%1 payload)").arg(toQString(links.payload(*l)->backend)), rows);
    // Right under the statistics: what the event ran reads before its identity and raw values.
    QTreeWidgetItem *section = m_properties->takeTopLevelItem(m_properties->topLevelItemCount() - 1);
    m_properties->insertTopLevelItem(1, section);
    section->setExpanded(true);
}

void DetailsPanel::addSection(const QString &title, const QList<QPair<QString, QString>> &rows)
{
    auto *section = new QTreeWidgetItem(m_properties, { title });
    for (const auto &[key, value] : rows)
        addRow(section, key, value);
    section->setExpanded(true);
}

void DetailsPanel::fillProperties(const EventBlock &block, const Event &e, const Event &timed,
    const std::vector<QString> &runNames, const QString &over)
{
    const QString unit = toQString(timeScaleName(block.targetTimeScale));
    auto *stats = new QTreeWidgetItem(m_properties,
        { over.isEmpty() ? tr("Statistics (%1)").arg(unit) : tr("Statistics (%1) — %2").arg(unit, over) });
    stats->setToolTip(0, runNumbering());
    if (timed.perfData) {
        const EventPerf &p = *timed.perfData;
        const std::pair<const char *, double> rows[] = { { "p10", p.p10 }, { "p50", p.p50 }, { "p90", p.p90 },
            { "avg", p.avg }, { "min", p.min }, { "max", p.max } };
        for (const auto &[k, v] : rows)
            addRow(stats, QString::fromLatin1(k), EventTreeModel::formatDuration(v) + QLatin1Char(' ') + unit);
        if (p.avg > 0) {
            const double sd = sampleStddev(p.raw, p.avg);
            addRow(stats, tr("stddev"), EventTreeModel::formatDuration(sd) + QLatin1Char(' ') + unit);
            addRow(stats, tr("p90 / p50"), QString::number(p.p50 > 0 ? p.p90 / p.p50 : 0.0, 'f', 2));
        }
        addRow(stats, tr("runs"), QString::number(p.raw.size()));
    } else {
        addRow(stats, tr("timing"), tr("none (debug events only)"));
    }

    auto *ident = new QTreeWidgetItem(m_properties, { tr("Identity") });
    addRow(ident, tr("instruction id"), QString::number(e.instructionId));
    addRow(ident, tr("chain index"), QString::number(e.chainIndex));
    addRow(ident, tr("delegated"), e.isDelegatedOp ? tr("yes") : tr("no"));
    if (e.isDelegatedOp)
        addRow(ident, tr("delegate identifier"), toQString(delegateDebugIdText(e.delegateDebugIdentifier())));
    if (e.delegateBackendName())
        addRow(ident, tr("backend"), toQString(*e.delegateBackendName()));
    if (e.debugHandles())
        addRow(ident, tr("debug handles"), EventTreeModel::debugHandlesText(e));
    if (!e.opTypes().empty())
        addRow(ident, tr("op types"), toQString(opTypesText(e.opTypes())));
    addRow(ident, tr("num outputs"), QString::number(e.numOutputs()));
    if (!timed.startTimes().empty() && !runNames.empty())
        addRow(ident, tr("start (raw ticks, %1)").arg(runNames.front()), QString::number(timed.startTimes().front()));

    if (timed.perfData) {
        m_rawItem = new QTreeWidgetItem(m_properties, { tr("Raw values (%1 runs)").arg(timed.perfData->raw.size()) });
        m_rawItem->setToolTip(0, runNumbering());
        const auto &raw = timed.perfData->raw;
        for (std::size_t i = 0; i < raw.size(); ++i)
            addRow(m_rawItem, i < runNames.size() ? runNames[i] : QString(),
                EventTreeModel::formatDuration(raw[i]) + QLatin1Char(' ') + unit);
    }
    m_properties->expandItem(stats);
    m_properties->expandItem(ident);
    if (m_rawItem && m_rawItem->childCount() <= 10)
        m_properties->expandItem(m_rawItem);
    m_properties->resizeColumnToContents(0);
}

QDialog *DetailsPanel::openTensorValues(QTreeWidgetItem *item)
{
    if (!item || !m_session || !m_session->debugBuffer || !item->data(0, Qt::UserRole).isValid())
        return nullptr;
    const auto i = item->data(0, Qt::UserRole).toULongLong();
    if (i >= m_tensorRefs.size())
        return nullptr;
    auto data = m_session->debugBuffer->read(m_tensorRefs[i]);
    if (!data)
        return nullptr;
    return makeTensorValuesDialog(this, item->text(0), std::move(data.value()));
}

void DetailsPanel::fillModules(const Event &e)
{
    // Merge the nn_module_stack of every linked node into one tree keyed by module path.
    for (const LinkedNode &node : e.linkedNodes()) {
        if (!node.moduleStack)
            continue;
        QTreeWidgetItem *parent = nullptr;
        for (const ModuleFrame &f : *node.moduleStack) {
            const QString path = toQString(moduleDisplayName(f.path)); // "(model)" for the root
            QTreeWidgetItem *found = nullptr;
            const int n = parent ? parent->childCount() : m_modules->topLevelItemCount();
            for (int i = 0; i < n && !found; ++i) {
                QTreeWidgetItem *c = parent ? parent->child(i) : m_modules->topLevelItem(i);
                if (c->text(0) == path)
                    found = c;
            }
            if (!found) {
                QString type = toQString(f.type);
                type = type.mid(type.lastIndexOf(QLatin1Char('.')) + 1);
                found = parent ? new QTreeWidgetItem(parent, { path, type })
                               : new QTreeWidgetItem(m_modules, { path, type });
                found->setToolTip(0, toQString(f.path) + QLatin1Char('\n') + toQString(f.key));
                found->setToolTip(1, toQString(f.type));
            }
            parent = found;
        }
        if (parent)
            new QTreeWidgetItem(parent, { toQString(node.nodeName), tr("graph node") });
    }
    m_modules->expandAll();
    m_modules->resizeColumnToContents(0);
}

void DetailsPanel::fillDebugData(const Session &session, const Event &e)
{
    const DebugBuffer *buffer = session.debugBuffer.get();
    int index = 0;
    auto addTensor = [&](QTreeWidgetItem *parent, const QString &label, const TensorRef &ref) {
        auto *item = parent ? new QTreeWidgetItem(parent) : new QTreeWidgetItem(m_debug);
        item->setText(0, label);
        item->setText(1, toQString(describeShape(ref.dtype, ref.sizes)));
        if (!buffer) {
            // The Inspector substitutes zeros; showing them would look like data. Say what is missing.
            item->setText(5, tr("no debug buffer loaded: values not available"));
            item->setForeground(5, palette().color(QPalette::PlaceholderText));
            return;
        }
        item->setData(0, Qt::UserRole, QVariant::fromValue<qulonglong>(m_tensorRefs.size()));
        m_tensorRefs.push_back(ref);
        item->setToolTip(0, tr("Double-click to see every value"));
        auto data = inflate(ref, buffer);
        if (!data) {
            item->setText(5, toQString(data.error().message()));
            item->setForeground(5, QColor(0xc0, 0x30, 0x30));
            return;
        }
        const TensorSummary s = summarize(data.value());
        if (s.numel > 0) {
            item->setText(2, QString::number(s.min, 'g', 6));
            item->setText(3, QString::number(s.max, 'g', 6));
            item->setText(4, QString::number(s.mean, 'g', 6));
        }
        QStringList first;
        const auto &vals = data.value().values;
        for (std::size_t i = 0; i < vals.size() && i < 6; ++i)
            first << QString::number(vals[i], 'g', 5);
        QString text = first.join(QStringLiteral(", "));
        if (vals.size() > 6)
            text += QStringLiteral(", …");
        if (!data.value().fromBuffer)
            text = tr("zeros (no debug buffer loaded)");
        if (s.nanCount || s.infCount)
            text += tr("  [%1 NaN, %2 Inf]").arg(s.nanCount).arg(s.infCount);
        item->setText(5, text);
    };
    for (const RuntimeValue &v : e.debugData()) {
        const QString label = QStringLiteral("#") + QString::number(index++);
        switch (v.kind) {
        case RuntimeValue::Kind::Tensor:
            if (!v.tensors.empty())
                addTensor(nullptr, label, v.tensors.front());
            break;
        case RuntimeValue::Kind::TensorList: {
            auto *list = new QTreeWidgetItem(m_debug, { label, tr("list of %1 tensors").arg(v.tensors.size()) });
            for (std::size_t i = 0; i < v.tensors.size(); ++i)
                addTensor(list, QStringLiteral("[%1]").arg(i), v.tensors[i]);
            list->setExpanded(true);
            break;
        }
        case RuntimeValue::Kind::Int:
            new QTreeWidgetItem(m_debug, { label, runtimeValueKind(v), {}, {}, {}, QString::number(v.intValue) });
            break;
        case RuntimeValue::Kind::Bool:
            new QTreeWidgetItem(m_debug,
                { label, runtimeValueKind(v), {}, {}, {},
                    v.boolValue ? QStringLiteral("True") : QStringLiteral("False") });
            break;
        case RuntimeValue::Kind::Float:
        case RuntimeValue::Kind::Double:
            new QTreeWidgetItem(
                m_debug, { label, runtimeValueKind(v), {}, {}, {}, QString::number(v.doubleValue, 'g', 8) });
            break;
        case RuntimeValue::Kind::String:
        case RuntimeValue::Kind::None:
            new QTreeWidgetItem(m_debug, { label, runtimeValueKind(v), {}, {}, {}, toQString(v.stringValue) });
            break;
        }
    }
    for (int c = 0; c < 5; ++c)
        m_debug->resizeColumnToContents(c);
}

void DetailsPanel::explainEmptyTabs(const Event &e)
{
    const Session &s = *m_session;
    // Stack trace and modules come from the graph nodes the ETRecord links to the event.
    auto why = [&](const QString &what) -> QString {
        if (!s.etrecord)
            return tr("No ETRecord is open: the %1 come from the ETRecord the program was exported with. Open it "
                      "together with the ETDump.")
                .arg(what);
        if (e.isFramework())
            return tr("%1 is a framework event of the runtime: no graph node of the ETRecord stands behind it, so it "
                      "has no %2.")
                .arg(toQString(e.name), what);
        if (!e.debugHandles())
            return tr("Instruction %1 has no entry in the ETRecord's debug_handle_map: no graph node is linked to this "
                      "event, so it has no %2.")
                .arg(e.instructionId)
                .arg(what);
        if (e.linkedNodes().empty())
            return tr("The debug handles of this event (%1) match no node of the ETRecord's graph, so it has no %2.")
                .arg(EventTreeModel::debugHandlesText(e), what);
        return {};
    };
    const bool unlinked = !s.etrecord || e.linkedNodes().empty();
    bool anyTrace = false, anyModules = false;
    for (const LinkedNode &n : e.linkedNodes()) {
        anyTrace = anyTrace || n.stackTrace;
        anyModules = anyModules || n.moduleStack;
    }
    m_tracePage->explain(unlinked ? why(tr("stack traces"))
            : anyTrace            ? QString()
                                  : tr("The ETRecord's graph nodes for this event carry no stack_trace "
                                                  "(the program was exported without it)."));
    m_modulesPage->explain(unlinked ? why(tr("modules"))
            : anyModules            ? QString()
                                    : tr("The ETRecord's graph nodes for this event carry no "
                                                    "nn_module_stack (the program was exported without it)."));
    QString debug;
    if (e.debugData().empty())
        debug = logsValues(s.blocks)
            ? tr("The runtime logged no value for this event (it logs the outputs of operators and of the program; "
                 "other events carry none).")
            : tr("This recording logged no values: it was made with profiling only. Record intermediate outputs "
                 "(ETDumpGen with a debug buffer, event tracer debug level) to see them here.");
    m_debugPage->explain(debug);
    QString metadata;
    if (!e.isDelegatedOp)
        metadata = tr("Not a delegated event: only events a backend logs carry delegate metadata.");
    else if (e.delegateDebugMetadatas().empty())
        metadata = tr("The backend (%1) logged no debug metadata with this event.")
                       .arg(e.delegateBackendName() ? toQString(*e.delegateBackendName()) : tr("unknown"));
    m_metadataPage->explain(metadata);
}

void DetailsPanel::fillMetadata(const Event &e, std::size_t block)
{
    QString text;
    for (std::size_t i = 0; i < e.delegateDebugMetadatas().size(); ++i) {
        const std::string &m = e.delegateDebugMetadatas()[i];
        text += tr("%1 (%2 bytes):\n").arg(runName(*m_session, block, i)).arg(m.size());
        text += isPrintable(m) ? toQString(m) + QLatin1Char('\n') : hexDump(m);
    }
    m_metadata->setPlainText(text);
}

} // namespace etscope
