#pragma once

// Where a quantized model's accuracy goes, per op: the numeric gap of a runtime run split into
// quantization error (the float twin of the ETRecord's graph against the fake-quantized graph,
// both run by the evaluator) and kernel error (the fake-quantized graph against the runtime),
// with the total (float twin against the runtime) beside them. Each is judged by the metric and
// the noise rule of core/analysis/noise.h (or a user threshold); `dominant` names the larger
// part above the noise level. See docs/inspector-semantics.md ("Error decomposition").

#include "analysis/numericgap.h"
#include "common/error.h"
#include "etrecord/etrecord.h"
#include "evalgap/evalgap.h"
#include "session/session.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace etscope::evalgap {

enum class Dominant { Quantization, Kernel, Noise };
const char *dominantName(Dominant d); // "quantization", "kernel", "noise"

// One error column of one op.
struct ErrorPart {
    double gap = 0; // the op's worst gap in the metric (NaN when not computable)
    double noise = 0; // the threshold that gap is judged by
    double excess = 0; // excessOverNoise: <= 0 within noise, 1 = ten times the noise level
    double snrDb = 0; // the same comparison as SNR (dB), for sentences
    bool flagged = false;
    bool valid = false; // false: no value to compare (note says why)
};

struct OpDecomposition {
    int blockIndex = -1, eventIndex = -1; // runtime event
    std::int32_t instructionId = -1;
    std::vector<std::int64_t> debugHandles;
    std::vector<std::string> referenceOps; // graph nodes of the handle
    std::vector<std::string> runtimeOps;
    bool delegated = false;
    ErrorPart quant, kernel, total;
    Dominant dominant = Dominant::Noise;
    std::string note;

    // "#12 convolution": instruction id (or debug handle) and the last graph node of the op.
    std::string label() const;
};

struct Decomposition {
    analysis::Metric metric = analysis::Metric::MSE;
    analysis::Direction direction = analysis::Direction::HigherIsWorse;
    std::optional<double> threshold; // the user's; unset = the noise rule
    std::string referenceGraph;
    int floatTwinPairs = 0; // quantize -> dequantize pairs the float twin passed through
    std::vector<OpDecomposition> ops; // runtime execution order
    // Where each error enters: index into `ops` of its first row above its threshold, or -1.
    int quantEnters = -1, kernelEnters = -1, totalEnters = -1;
    std::string summary; // decompositionSentence()
    std::vector<std::string> warnings;
};

struct DecomposeOptions {
    std::string referenceGraph; // as EvalGapOptions::referenceGraph
    bool disableHandleValidation = false;
    eval::InputChoice inputs;
    int threads = 0;
    std::int64_t maxMemory = 0;
    analysis::Metric metric = analysis::Metric::MSE;
    std::optional<double> threshold;
    std::function<bool(int permille)> progress;
};

// Runs the reference graph twice (fake-quantized, float twin) and compares both with `runtime`
// (linked to the same ETRecord, matched by debug handle) and with each other.
Result<Decomposition> decomposeGap(const ETRecord &record, const Session &runtime, const DecomposeOptions &opts);

// The same from the evaluator's two reference sets (tests, callers that ran the graphs).
Result<Decomposition> decomposeGap(const Session &runtime, const analysis::ReferenceSet &fakeQuantized,
    const analysis::ReferenceSet &floatTwin, const DecomposeOptions &opts);

// How an op's error splits between quantization and the kernels, for the stacked bars of the
// window and the report (one rule for both). Each part's gap is put on a scale where errors of
// independent sources add: MSE, L1, MAXABS and MAXREL as they are, SNR as the noise power
// 10^(−dB/10) (inf dB, exact, is 0), COSINE as 1 − similarity; a part without a value, or a
// non-finite one, counts as 0.
double additiveError(analysis::Metric metric, double gap);
struct ErrorSplit {
    double quant = 0, kernel = 0; // fractions, quant + kernel == 1; both NaN when neither part has error
};
ErrorSplit errorSplit(const OpDecomposition &op, analysis::Metric metric);

// "accuracy is lost to quantization at #12 convolution (SNR 31.0 dB); kernels agree with the
// fake-quantized model within noise", or the other way round, or "no accuracy is lost ...".
std::string decompositionSentence(const Decomposition &d);

// Tab-separated, header first: instruction, debug_handles, aot_ops, runtime_ops, quant_error,
// kernel_error, total_error, dominant, the three noise thresholds and flags, note.
std::string decompositionTsv(const Decomposition &d);
// {"metric", "threshold", "summary", "quant_enters", ..., "ops": [{... same columns ...}]}
std::string decompositionJson(const Decomposition &d);
// Aligned text for the terminal, the sentence first.
std::string decompositionText(const Decomposition &d);

} // namespace etscope::evalgap
