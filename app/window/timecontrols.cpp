#include "timecontrols.h"

#include "qtstrings.h"

#include <QAction>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QStandardItemModel>
#include <QToolBar>

namespace etscope {

namespace {
const TimeScale kUnits[] = { TimeScale::NS, TimeScale::US, TimeScale::MS, TimeScale::S, TimeScale::Cycles };
} // namespace

TimeControls::TimeControls(QToolBar *tb)
    : QObject(tb)
{
    tb->addWidget(new QLabel(tr(" Unit "), tb));
    m_unitBox = new QComboBox(tb);
    for (TimeScale t : kUnits)
        m_unitBox->addItem(toQString(timeScaleName(t)), int(t));
    m_unitBox->setCurrentIndex(2); // ms, the Inspector's default
    m_unitBox->setToolTip(tr("Unit of every duration shown (re-derives all statistics)"));
    tb->addWidget(m_unitBox);
    tb->addWidget(new QLabel(tr("  Source "), tb));
    m_sourceBox = new QComboBox(tb);
    m_sourceBox->addItem(tr("ns timestamps"), int(TimeScale::NS));
    m_sourceBox->addItem(tr("cycles"), int(TimeScale::Cycles));
    m_sourceBox->setToolTip(tr("Unit of the raw timestamps in the ETDump (ETDumps carry no unit)"));
    tb->addWidget(m_sourceBox);
    m_cyclesPerSecond = new QDoubleSpinBox(tb);
    m_cyclesPerSecond->setRange(0.001, 100000);
    m_cyclesPerSecond->setDecimals(3);
    m_cyclesPerSecond->setValue(1000);
    m_cyclesPerSecond->setSuffix(tr(" MHz"));
    m_cyclesPerSecond->setToolTip(tr("Clock rate used to turn cycles into time"));
    m_cyclesAction = tb->addWidget(m_cyclesPerSecond);
    m_cyclesAction->setVisible(false);

    connect(m_unitBox, &QComboBox::currentIndexChanged, this, &TimeControls::commit);
    connect(m_sourceBox, &QComboBox::currentIndexChanged, this, [this] {
        const bool cycles = m_sourceBox->currentData().toInt() == int(TimeScale::Cycles);
        if (!cycles && m_unitBox->currentData().toInt() == int(TimeScale::Cycles)) {
            // Back to ns: cycles is no longer a possible target; one reload for both changes.
            const QSignalBlocker block(m_unitBox);
            m_unitBox->setCurrentIndex(m_unitBox->findData(int(TimeScale::MS)));
        }
        commit();
    });
    connect(m_cyclesPerSecond, &QDoubleSpinBox::editingFinished, this, &TimeControls::commit);
    updateUnitChoices();
}

TimeConversion TimeControls::conversion() const
{
    TimeConversion t;
    t.target = TimeScale(m_unitBox->currentData().toInt());
    t.source = TimeScale(m_sourceBox->currentData().toInt());
    if (t.source == TimeScale::Cycles)
        t.cyclesPerSecond = m_cyclesPerSecond->value() * 1e6;
    return t;
}

void TimeControls::commit()
{
    updateUnitChoices();
    const TimeConversion time = conversion();
    if (auto factor = time.scaleFactor(); !factor) {
        // Not offered in the combo, but reachable through setTargetUnit: refuse and show the
        // unit the numbers really are in.
        Q_EMIT refused(
            tr("Cannot show %1 as %2: %3")
                .arg(m_sourceBox->currentText(), m_unitBox->currentText(), toQString(factor.error().reason)));
        if (m_shown)
            show(*m_shown);
        return;
    }
    Q_EMIT changed(time);
}

void TimeControls::show(const TimeConversion &t)
{
    m_shown = t;
    const QSignalBlocker b1(m_unitBox), b2(m_sourceBox), b3(m_cyclesPerSecond);
    m_unitBox->setCurrentIndex(m_unitBox->findData(int(t.target)));
    m_sourceBox->setCurrentIndex(m_sourceBox->findData(int(t.source)));
    if (t.cyclesPerSecond)
        m_cyclesPerSecond->setValue(*t.cyclesPerSecond / 1e6);
    updateUnitChoices();
}

void TimeControls::setTargetUnit(TimeScale unit)
{
    const int i = m_unitBox->findData(int(unit));
    if (i >= 0)
        m_unitBox->setCurrentIndex(i);
}

void TimeControls::setSourceUnit(TimeScale source, double cyclesPerSecond)
{
    {
        // One reload for both changes.
        const QSignalBlocker blockRate(m_cyclesPerSecond);
        if (cyclesPerSecond > 0)
            m_cyclesPerSecond->setValue(cyclesPerSecond / 1e6);
    }
    const int i = m_sourceBox->findData(int(source));
    if (i >= 0 && i != m_sourceBox->currentIndex())
        m_sourceBox->setCurrentIndex(i);
    else
        commit();
}

void TimeControls::updateUnitChoices()
{
    // ns timestamps cannot become cycles without a clock rate: do not offer that target.
    const bool cyclesSource = m_sourceBox->currentData().toInt() == int(TimeScale::Cycles);
    m_cyclesAction->setVisible(cyclesSource);
    if (auto *items = qobject_cast<QStandardItemModel *>(m_unitBox->model())) {
        const int i = m_unitBox->findData(int(TimeScale::Cycles));
        if (QStandardItem *item = items->item(i)) {
            item->setEnabled(cyclesSource);
            item->setToolTip(
                cyclesSource ? QString() : tr("Needs Source = cycles: nanosecond timestamps carry no clock rate"));
        }
    }
}

} // namespace etscope
