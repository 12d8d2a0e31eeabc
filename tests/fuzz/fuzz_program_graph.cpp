// Fuzz target: the program graph of every program in an ETRecord (getitem folding, module
// groups from nn_module_stack, delegate partitions from the maps), collapsed and expanded,
// with the overlays that need no runtime data. No Graphviz: layout input is the VisibleGraph.
#include "fuzzinput.h"

#include "etrecord/etrecord.h"
#include "graph/programgraph.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace etscope;
    auto rec = readETRecord(fuzz::asFile(data, size, "fuzz.etrecord"));
    if (!rec)
        return 0;
    for (const ETRecordProgram &p : (*rec)->programs()) {
        graph::BuildOptions o;
        o.entry = p.entryName;
        o.showPlaceholders = p.entryName.size() % 2 == 0;
        auto g = graph::ProgramGraph::build(*rec, o);
        if (!g) {
            fuzz::checkErrorMessage(g.error().message(), "fuzz.etrecord");
            continue;
        }
        graph::ExpansionState st(*g);
        const graph::OverlayData d = graph::overlayFromEvents(*g, {});
        for (int pass = 0; pass < 2; ++pass) {
            const graph::VisibleGraph v = graph::visibleGraph(*g, st);
            for (graph::Overlay ov : { graph::Overlay::Latency, graph::Overlay::OpType, graph::Overlay::Backend })
                (void)graph::colorItems(*g, v, d, ov);
            st.expandAll();
        }
    }
    return 0;
}
