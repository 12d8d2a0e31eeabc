#pragma once

#include "eval/evaluator.h"

#include <QPushButton>
#include <QString>

#include <optional>

class QProgressDialog;
class QWidget;

namespace etscope {

class EvaluatorSettings;

// What Analysis ▸ Numeric gap compares against, when the session's ETRecord graph can be the
// reference: that graph evaluated by etscope (with the inputs chosen here), or files.
struct GapReferenceChoice {
    bool files = false; // a second ETDump + debug buffer, or an AOT outputs file, chosen next
    eval::InputChoice inputs; // for the graph: empty = the ETRecord's representative_inputs
};

// Asks for the inputs the ETRecord's graphs run on: a torch.save'd tuple of tensors (.pt), or a
// BundledProgram (.bpte) and one of its test cases. Empty when the user cancels.
std::optional<eval::InputChoice> askEvaluatorInputs(QWidget *parent);
// "inputs.pt", "bundled.bpte #2": what a button shows once inputs are chosen.
QString inputChoiceLabel(const eval::InputChoice &choice);

// "Inputs…" of every evaluator panel, bound to the window's EvaluatorSettings: asks with
// askEvaluatorInputs and shows the inputs chosen (in any panel) as "Inputs: inputs.pt".
class EvaluatorInputsButton : public QPushButton
{
    Q_OBJECT
public:
    explicit EvaluatorInputsButton(EvaluatorSettings *settings, QWidget *parent = nullptr);

private:
    void showChoice();
    EvaluatorSettings *m_settings;
};

// Asks which reference; `inputsGiven`: the ETRecord carries representative_inputs. Empty when the
// user cancels.
std::optional<GapReferenceChoice> askGapReference(QWidget *parent, bool inputsGiven);

// The progress (0–1000) of the ETRecord graph's evaluation for the numeric gap: shown after
// 300 ms, kept open at 1000 until deleted; its Cancel button emits canceled().
QProgressDialog *evaluationProgressDialog(QWidget *parent);

} // namespace etscope
