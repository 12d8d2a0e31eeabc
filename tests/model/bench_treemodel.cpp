// Times what the GUI does after a load completes: swapping the session into the tree model,
// wrapping it in the filter proxy, sorting by avg, and filtering by text.
#include "common/memory.h"
#include "eventfilterproxy.h"
#include "eventtreemodel.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include <cstdio>

using namespace etscope;

namespace {
// The proxy maps lazily; asking for every block's children forces the sort/filter to happen.
int touch(const QAbstractItemModel &m)
{
    int rows = 0;
    for (int r = 0; r < m.rowCount(); ++r)
        rows += m.rowCount(m.index(r, 0));
    return rows;
}
} // namespace

int main(int argc, char **argv)
{
    etscope::reexecWithHeapTunables(argv); // measure with the heap settings the programs use
    QCoreApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: bench_treemodel FILE.etdp\n");
        return 2;
    }
    SessionInputs in;
    in.etdump = argv[1];
    QElapsedTimer t;
    t.start();
    auto session = loadSession(in);
    if (!session) {
        std::fprintf(stderr, "%s\n", session.error().message().c_str());
        return 1;
    }
    std::size_t events = 0;
    for (const auto &b : session.value()->blocks)
        events += b.events.size();
    std::printf("# %zu blocks, %zu events (rows)\n", session.value()->blocks.size(), events);
    std::printf("BENCH load_session %.6f\n", t.nsecsElapsed() / 1e9);

    EventTreeModel model;
    EventFilterProxy proxy;
    t.restart();
    model.setSession(session.value());
    std::printf("BENCH tree_set_session %.6f\n", t.nsecsElapsed() / 1e9);
    t.restart();
    proxy.setSourceModel(&model);
    touch(proxy);
    std::printf("BENCH proxy_attach %.6f\n", t.nsecsElapsed() / 1e9);
    // Sorting by any column must stay interactive: the first sort by a column also ranks its keys.
    const std::pair<int, const char *> columns[] = { { EventTreeModel::AvgColumn, "avg" },
        { EventTreeModel::NameColumn, "name" }, { EventTreeModel::P90Column, "p90" },
        { EventTreeModel::OpTypesColumn, "op_types" }, { EventTreeModel::InstructionColumn, "instruction" } };
    for (const auto &[column, name] : columns) {
        t.restart();
        proxy.sort(column, Qt::DescendingOrder);
        touch(proxy);
        std::printf("BENCH sort_by_%s %.6f\n", name, t.nsecsElapsed() / 1e9);
    }
    t.restart();
    proxy.setFilterText(QStringLiteral("conv"), false);
    const int shown = touch(proxy);
    std::printf("BENCH filter_text %.6f\n", t.nsecsElapsed() / 1e9);
    std::printf("# %d rows match 'conv'\n", shown);
    return 0;
}
