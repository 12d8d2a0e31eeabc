#include "gapreferencedialog.h"
#include "evaluatorsettings.h"
#include "filedialogs.h"
#include "filesniffer.h"
#include "qtstrings.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QProgressDialog>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

#include <memory>

namespace etscope {

std::optional<eval::InputChoice> askEvaluatorInputs(QWidget *parent)
{
    const QString path = askOpenFileName(parent,
        QObject::tr("Inputs: torch.save'd tuple of tensors (.pt) or a BundledProgram (.bpte)"),
        QObject::tr("Inputs (*.pt *.pth *.bpte);;All files (*)"));
    if (path.isEmpty())
        return std::nullopt;
    eval::InputChoice choice;
    if (sniffFile(path).kind == FileKind::BundledProgram) {
        bool ok = false;
        const int tc = QInputDialog::getInt(
            parent, QObject::tr("BundledProgram test case"), QObject::tr("Test case:"), 0, -1000, 1000, 1, &ok);
        if (!ok)
            return std::nullopt;
        choice.bundledProgram = path.toStdString();
        choice.testCase = tc;
    } else {
        choice.inputsFile = path.toStdString();
    }
    return choice;
}

QString inputChoiceLabel(const eval::InputChoice &choice)
{
    if (!choice.bundledProgram.empty())
        return QStringLiteral("%1 #%2")
            .arg(QFileInfo(toQString(choice.bundledProgram)).fileName())
            .arg(choice.testCase);
    return QFileInfo(toQString(choice.inputsFile)).fileName();
}

EvaluatorInputsButton::EvaluatorInputsButton(EvaluatorSettings *settings, QWidget *parent)
    : QPushButton(parent)
    , m_settings(settings)
{
    setToolTip(tr("Inputs: a torch.save'd tuple of tensors (.pt) or a BundledProgram test case; without one, the "
                  "ETRecord's representative_inputs"));
    showChoice();
    connect(this, &QPushButton::clicked, this, [this] {
        if (auto chosen = askEvaluatorInputs(window()))
            m_settings->setInputs(*chosen);
    });
    connect(settings, &EvaluatorSettings::inputsChanged, this, &EvaluatorInputsButton::showChoice);
}

void EvaluatorInputsButton::showChoice()
{
    setText(m_settings->inputsChosen() ? tr("Inputs: %1").arg(inputChoiceLabel(m_settings->inputs())) : tr("Inputs…"));
}

std::optional<GapReferenceChoice> askGapReference(QWidget *parent, bool inputsGiven)
{
    QDialog dlg(parent);
    dlg.setWindowTitle(QObject::tr("Numeric gap: reference"));
    auto *layout = new QVBoxLayout(&dlg);
    auto *graph
        = new QRadioButton(QObject::tr("ETRecord graph, evaluated by etscope (the Inspector's calculate_numeric_gap)"));
    auto *files
        = new QRadioButton(QObject::tr("Other reference: a second ETDump + debug buffer, or an AOT outputs file…"));
    graph->setChecked(true);
    layout->addWidget(graph);
    auto *inputsRow = new QHBoxLayout;
    auto *inputsLabel = new QLabel;
    auto *chooseInputs = new QPushButton(QObject::tr("Choose inputs…"));
    inputsRow->addSpacing(24);
    inputsRow->addWidget(inputsLabel, 1);
    inputsRow->addWidget(chooseInputs);
    layout->addLayout(inputsRow);
    layout->addWidget(files);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    layout->addWidget(buttons);
    QObject::connect(buttons, &QDialogButtonBox::accepted, &dlg, &QDialog::accept);
    QObject::connect(buttons, &QDialogButtonBox::rejected, &dlg, &QDialog::reject);

    auto choice = std::make_shared<eval::InputChoice>();
    auto haveInputs = std::make_shared<bool>(inputsGiven);
    auto refresh = [=] {
        if (!choice->inputsFile.empty())
            inputsLabel->setText(QObject::tr("Inputs: %1").arg(toQString(choice->inputsFile)));
        else if (!choice->bundledProgram.empty())
            inputsLabel->setText(
                QObject::tr("Inputs: %1, test case %2").arg(toQString(choice->bundledProgram)).arg(choice->testCase));
        else if (*haveInputs)
            inputsLabel->setText(QObject::tr("Inputs: the ETRecord's representative_inputs"));
        else
            inputsLabel->setText(QObject::tr("The ETRecord has no representative_inputs: choose a .pt file or a "
                                             "BundledProgram test case."));
        buttons->button(QDialogButtonBox::Ok)->setEnabled(files->isChecked() || *haveInputs);
    };
    QObject::connect(files, &QRadioButton::toggled, &dlg, refresh);
    QObject::connect(chooseInputs, &QPushButton::clicked, &dlg, [&, choice, haveInputs, refresh] {
        auto chosen = askEvaluatorInputs(&dlg);
        if (!chosen)
            return;
        *choice = *chosen;
        *haveInputs = true;
        graph->setChecked(true);
        refresh();
    });
    refresh();
    if (dlg.exec() != QDialog::Accepted)
        return std::nullopt;
    return GapReferenceChoice { files->isChecked(), *choice };
}

QProgressDialog *evaluationProgressDialog(QWidget *parent)
{
    auto *progress = new QProgressDialog(QObject::tr("Evaluating the ETRecord graph (accumulated, then isolated)…"),
        QObject::tr("Cancel"), 0, 1000, parent);
    progress->setWindowTitle(QObject::tr("Numeric gap"));
    progress->setMinimumDuration(300);
    progress->setAutoClose(false);
    progress->setAutoReset(false);
    return progress;
}

} // namespace etscope
