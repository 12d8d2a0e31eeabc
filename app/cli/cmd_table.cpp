// `table`, `tsv` and `csv`: the Inspector's print_data_tabular / save_data_to_tsv.
#include "command.h"

#include "events/inspectortable.h"

#include <cstdio>

namespace etscope::cli {
namespace {

struct TableArgs {
    InputOptions in;
    bool all = false; // keep OPERATOR_CALL rows
    bool json = false;
    bool modules = false;
    std::string output;
};

Setup tableSetup(char sep, bool isTable)
{
    return [sep, isTable](CLI::App &sub) {
        auto args = std::make_shared<TableArgs>();
        addInputOptions(sub, args->in);
        sub.add_flag("--all", args->all, "Keep OPERATOR_CALL rows (the Inspector hides them)");
        sub.add_flag("--json", args->json, "Print the same rows as JSON");
        sub.add_flag("--modules", args->modules, "Add a last column with each event's module path (needs --etrecord)");
        sub.add_option("-o,--output", args->output, isTable ? "Write to this file instead of stdout"
                                                            : "Output file (default: stdout)");
        return std::function<int()>([args, sep, isTable] {
            auto session = loadOrReport(args->in);
            if (!session)
                return 1;
            TableOptions opt;
            opt.includeOperatorCalls = args->all;
            opt.includeModuleColumn = args->modules;
            std::string text;
            if (args->json)
                text = formatJson(session->blocks, opt);
            else if (isTable)
                text = formatFancyGrid(session->blocks, opt);
            else
                text = formatDelimited(session->blocks, sep, opt);
            if (auto st = writeOutput(args->output, text); !st)
                return reportError(st.error());
            return 0;
        });
    };
}

const Registration table("table", "Print the Inspector's table (print_data_tabular)", tableSetup('\t', true));
const Registration tsv("tsv", "Write the Inspector's TSV (save_data_to_tsv)", tableSetup('\t', false));
const Registration csv("csv", "Write the Inspector's table as CSV", tableSetup(',', false));

} // namespace
} // namespace etscope::cli
