#pragma once

#include "eval/evaluator.h"

#include <optional>

class QWidget;

namespace etscope {

// What Analysis ▸ Numeric gap compares against, when the session's ETRecord graph can be the
// reference: that graph evaluated by etscope (with the inputs chosen here), or files.
struct GapReferenceChoice {
    bool files = false; // a second ETDump + debug buffer, or an AOT outputs file, chosen next
    eval::InputChoice inputs; // for the graph: empty = the ETRecord's representative_inputs
};

// Asks which reference; `inputsGiven`: the ETRecord carries representative_inputs. Empty when the
// user cancels.
std::optional<GapReferenceChoice> askGapReference(QWidget *parent, bool inputsGiven);

} // namespace etscope
