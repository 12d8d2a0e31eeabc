#pragma once

#include "common/chunkedwriter.h"
#include "events/event.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace etscope {

// The rows that print_data_tabular / save_data_to_tsv show (inspector-semantics.md §4):
// columns event_block_name, event_name, p10..max (with unit suffix), op_types,
// is_delegated_op, delegate_backend_name, start_time; OPERATOR_CALL rows dropped.
struct TableRow {
    const EventBlock *block = nullptr;
    const Event *event = nullptr;
};

struct TableOptions {
    bool includeOperatorCalls = false; // the Inspector drops them
    bool includeUnits = true; // "p50 (ms)" headers
    bool includeModuleColumn = false; // extra last column "module" (not in the Inspector's table)
    // formatJson only: per block (by position in the blocks given), the method and phase of its
    // runs (ScopedBlocks::blockMethod / blockPhase); rows then carry "method" (null when "") and "phase".
    const std::vector<std::string> *blockMethod = nullptr, *blockPhase = nullptr;
};

// Innermost module path of the first linked node that has a module stack ("" if none).
std::string eventModulePath(const Event &e);

std::vector<TableRow> inspectorTableRows(const std::vector<EventBlock> &blocks, const TableOptions & = {});
std::vector<std::string> inspectorTableHeaders(TimeScale target, const TableOptions & = {});

// Python-style renderings of Event fields, as pandas/tabulate show them.
std::string pythonRepr(const std::string &s); // 'text' with escapes
std::string pythonFloatRepr(double v); // shortest round-trip, like repr()
inline constexpr std::size_t kFloatReprMax = 32;
std::size_t pythonFloatReprTo(char *out, double v); // same into out[kFloatReprMax]; returns length
// One TSV/CSV field quoted as csv.QUOTE_MINIMAL (what pandas' to_csv does): quoted only when it
// holds the separator, a quote or a line break; quotes doubled.
std::string csvField(const std::string &s, char sep);
void appendCsvField(fmt::memory_buffer &out, std::string_view s, char sep);
std::string opTypesText(const std::vector<std::string> &opTypes); // "['a', 'b']" or truncated form
std::string startTimeText(std::span<const std::uint64_t> starts); // "[1, 2]"
void appendStartTimeText(fmt::memory_buffer &out, std::span<const std::uint64_t> starts);

// tabulate(df, headers="keys", tablefmt="fancy_grid") as print_data_tabular prints it. The
// write* forms stream to a sink in chunks (false when the sink failed).
std::string formatFancyGrid(const std::vector<EventBlock> &blocks, const TableOptions & = {});
bool writeFancyGrid(const std::vector<EventBlock> &blocks, const TableOptions &, const TextSink &sink);
// df.to_csv(sep="\t") as save_data_to_tsv writes it; sep="," for CSV.
std::string formatDelimited(const std::vector<EventBlock> &blocks, char sep = '\t', const TableOptions & = {});
bool writeDelimited(const std::vector<EventBlock> &blocks, char sep, const TableOptions &, const TextSink &sink);
// Same rows as JSON (array of objects; numbers as numbers, null for missing statistics).
std::string formatJson(const std::vector<EventBlock> &blocks, const TableOptions & = {});

// A generic cell for the fancy-grid renderer (also used by other CLI tables).
using GridCell = std::variant<std::monostate, bool, std::int64_t, double, std::string>;
std::string renderFancyGrid(const std::vector<std::string> &headers, const std::vector<std::vector<GridCell>> &rows);
// Streams a grid whose rows are produced on demand (three passes: types, widths, lines), so
// that neither the cells nor the text of a large table are held whole.
using GridRowFn = std::function<void(std::size_t row, std::vector<GridCell> &cells)>;
bool writeFancyGrid(
    const std::vector<std::string> &headers, std::size_t rowCount, const GridRowFn &rowAt, const TextSink &sink);

} // namespace etscope
