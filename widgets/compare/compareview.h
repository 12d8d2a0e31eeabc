#pragma once

#include "analysis/latencydiff.h"
#include "analysis/scopediff.h"
#include "session/session.h"

#include <QWidget>

#include <memory>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSplitter;
class QTabWidget;
class QTreeView;

namespace etscope {

class DiffFilterProxy;
class DiffHistogramWidget;
class DiffTreeModel;
class DiffWaterfallChart;
class DualTimelineWidget;

// The compare view: diff tree (A, B, Δ, ratio, p, verdict; filter; colour by verdict), the
// waterfall of the top contributors, overlaid A/B histograms of the selected row, both timelines
// on one axis, and the selected row's stack trace / module from either ETRecord.
class CompareView : public QWidget
{
    Q_OBJECT
public:
    explicit CompareView(QWidget *parent = nullptr);

    void setComparison(
        std::shared_ptr<const Session> a, std::shared_ptr<const Session> b, std::shared_ptr<const LatencyDiff> diff);
    // The methods and phases the rows were paired within (diffLatencyByScope), each with its
    // operator total, and how they were paired; shown by the next setComparison.
    void setScopeParts(std::vector<ScopeDiffPart> parts, std::vector<std::string> notes);
    const std::vector<ScopeDiffPart> &scopeParts() const { return m_parts; }
    const std::shared_ptr<const LatencyDiff> &diff() const { return m_diff; }
    const std::shared_ptr<const Session> &sessionA() const { return m_a; }
    const std::shared_ptr<const Session> &sessionB() const { return m_b; }

    // Selects a diff row (index into LatencyDiff::rows) in the tree and every chart.
    bool selectRow(int diffRow);
    int selectedRow() const { return m_selected; }

    // TSV (.tsv) or CSV (.csv), the columns of `etscope-cli diff --tsv`; empty string on success.
    QString exportTable(const QString &path) const;

    DiffTreeModel *model() const { return m_model; }
    DiffFilterProxy *proxy() const { return m_proxy; }
    QTreeView *tree() const { return m_tree; }
    QLineEdit *filterEdit() const { return m_filter; }
    DiffWaterfallChart *waterfall() const { return m_waterfall; }
    DiffHistogramWidget *histogram() const { return m_histogram; }
    DualTimelineWidget *timelines() const { return m_timelines; }
    QPlainTextEdit *details() const { return m_details; }
    QLabel *summary() const { return m_summary; }
    // Above everything while a comparison is shown: how A and B were paired when their programs
    // differ, and the limits of the verdicts (LatencyDiff::banner, caveats). Hidden otherwise.
    QLabel *banner() const { return m_banner; }

    // Below this height the charts share one tab widget (see resizeEvent).
    static constexpr int kCompactBelow = 720;
    bool isCompact() const { return m_compact; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void showEvent(QShowEvent *event) override;

Q_SIGNALS:
    // The selected row's first event in A and in B (-1, -1 when that side has none).
    void rowSelected(int diffRow, int blockA, int eventA, int blockB, int eventB);
    // An action of the view (an export) failed: one line, the action and the reason; the panel
    // reports it where every GUI action's error goes (SessionController::notify).
    void actionFailed(const QString &message);

private:
    void onCurrentChanged();
    void arrangeColumns();
    void fitEventColumn();
    void setCompact(bool compact);
    void sizeSplitOnce();
    void exportTableInteractive();
    void exportChartInteractive(QWidget *chart, const QString &name);
    QString describeSide(const char *label, const std::shared_ptr<const Session> &s, const DiffSide &side) const;

    std::shared_ptr<const Session> m_a, m_b;
    std::shared_ptr<const LatencyDiff> m_diff;
    std::vector<ScopeDiffPart> m_parts;
    std::vector<std::string> m_partNotes;
    int m_selected = -1;
    DiffTreeModel *m_model = nullptr;
    DiffFilterProxy *m_proxy = nullptr;
    QTreeView *m_tree = nullptr;
    QLineEdit *m_filter = nullptr;
    QCheckBox *m_changedOnly = nullptr;
    QLabel *m_summary = nullptr;
    QLabel *m_banner = nullptr;
    QTabWidget *m_tabs = nullptr;
    QSplitter *m_upper = nullptr; // the table beside the charts
    bool m_splitSized = false;
    QSplitter *m_right = nullptr; // waterfall over the tabs (when not compact)
    QSplitter *m_main = nullptr; // the upper part over the timelines (when not compact)
    bool m_compact = false;
    bool m_selectingFromChart = false;
    bool m_fittingColumns = false;
    bool m_eventColumnSizedByUser = false;
    DiffWaterfallChart *m_waterfall = nullptr;
    DiffHistogramWidget *m_histogram = nullptr;
    DualTimelineWidget *m_timelines = nullptr;
    QPlainTextEdit *m_details = nullptr;
};

} // namespace etscope
