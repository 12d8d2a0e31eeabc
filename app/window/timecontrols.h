#pragma once

#include "events/timescale.h"

#include <QObject>

#include <optional>

class QAction;
class QComboBox;
class QDoubleSpinBox;
class QToolBar;

namespace etscope {

// The toolbar's time settings: display unit, unit of the raw timestamps and, for cycles, the
// clock rate. changed() fires on the user's edits (refused() instead for a conversion that cannot
// be made, the controls going back to the one shown last); show() mirrors a conversion silently.
class TimeControls : public QObject
{
    Q_OBJECT
public:
    explicit TimeControls(QToolBar *toolBar);

    TimeConversion conversion() const;
    void show(const TimeConversion &time);
    void setTargetUnit(TimeScale unit);
    // Source unit of the raw ticks; cyclesPerSecond is used when the source is cycles.
    void setSourceUnit(TimeScale source, double cyclesPerSecond = 0);

    QComboBox *unitBox() const { return m_unitBox; }
    QComboBox *sourceBox() const { return m_sourceBox; }

Q_SIGNALS:
    void changed(const etscope::TimeConversion &time);
    void refused(const QString &reason);

private:
    void commit();
    void updateUnitChoices();

    std::optional<TimeConversion> m_shown; // what the table shows (a session's conversion)

    QComboBox *m_unitBox = nullptr;
    QComboBox *m_sourceBox = nullptr;
    QDoubleSpinBox *m_cyclesPerSecond = nullptr;
    QAction *m_cyclesAction = nullptr;
};

} // namespace etscope
