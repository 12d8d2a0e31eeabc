#pragma once

// The report's error-decomposition section (issue 30 item 3): where a quantized model's accuracy
// goes, per op — quantization (float twin vs fake-quantized graph), kernel (fake-quantized graph
// vs runtime) and total (float twin vs runtime), as `etscope-cli gap --decompose` computes it
// (core/evalgap/decompose.h). Plain data filled from evalgap::Decomposition, drawn as the summary
// sentence, a stacked bar per op (quantization vs kernel share) and the table.

#include <cstdint>
#include <string>
#include <vector>

namespace etscope {

namespace evalgap {
struct Decomposition;
}

struct ReportErrorPart {
    double gap = 0; // NaN when not computable
    double noise = 0; // the threshold it is judged by
    double snrDb = 0;
    bool flagged = false;
    bool valid = false;
    // analysis::gapSeverity of the part's excess over its threshold (the colour scale of every gap
    // view); NaN when not computable.
    double severity = 0;
};

struct ReportDecompositionRow {
    std::string label; // "#12 convolution" (OpDecomposition::label)
    std::int32_t instructionId = -1;
    std::vector<std::int64_t> debugHandles;
    std::string aotOps, runtimeOps; // ';'-joined as the TSV writes them
    ReportErrorPart quant, kernel, total;
    std::string dominant; // "quantization", "kernel", "noise"
    std::string note;
};

struct ReportDecomposition {
    std::string metric; // "MSE", "SNR", ...
    bool higherIsWorse = true;
    std::string judgedBy; // analysis::thresholdDescription: "noise level (...)" or "threshold MSE 0.01"
    std::string referenceGraph;
    int floatTwinPairs = 0;
    std::string summary; // the sentence: where the accuracy is lost
    int quantEnters = -1, kernelEnters = -1, totalEnters = -1; // row indices, -1: none
    std::vector<ReportDecompositionRow> rows; // runtime execution order
    std::vector<std::string> warnings;
};

ReportDecomposition reportDecomposition(const evalgap::Decomposition &d);

// The part's size on a scale where the two parts of an op add up (independent errors): MSE, L1,
// MAXABS, MAXREL as they are; SNR as noise-to-signal power 10^(−dB/10); COSINE as 1 − similarity.
// 0 for an invalid or non-finite part. Used for the stacked bar's shares and the top-N ranking.
double additiveError(const ReportDecomposition &d, const ReportErrorPart &p);

// How many ops the stacked-bar chart draws at most (the largest total errors; the table lists all).
inline constexpr std::size_t kDecompositionBars = 40;

// <section id="decompose">: sentence, legend, chart and table. Self-contained HTML/SVG.
std::string decompositionSection(const ReportDecomposition &d);
// The sentence for the report's summary at the top of the page.
std::string decompositionSummaryLine(const ReportDecomposition &d);

} // namespace etscope
