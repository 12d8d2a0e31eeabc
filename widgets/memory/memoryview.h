#pragma once

#include "program/memoryplan.h"

#include <QWidget>

#include <QStringList>

#include <memory>
#include <utility>
#include <vector>

class QLabel;
class QPainter;
class QSplitter;
class QTableView;

namespace etscope {

class MemoryPlanModel;

// The instruction axis' ticks for `count` instructions: whole numbers, each once, about
// `target` of them.
std::vector<int> instructionTicks(std::size_t count, int target);
// A byte axis from 0 to `size`: nice steps (1, 2, 5 × 10^k bytes) labelled in the step's SI unit
// ("0", "500 kB", "1.0 MB").
std::vector<std::pair<double, QString>> byteTicks(std::uint64_t size, int target);
// A size in the SI unit it reaches, 3 significant digits ("324 kB").
QString byteSizeText(std::uint64_t size);

// The memory plan drawn as PyTorch's memory viz and TFLite's planner plots do: x = instruction,
// y = offset inside the arena, one rectangle per tensor coloured by the operator that makes it,
// and the live bytes per instruction as a line underneath.
class MemoryPlanCanvas : public QWidget
{
    Q_OBJECT
public:
    explicit MemoryPlanCanvas(const MemoryPlanModel *model, QWidget *parent = nullptr);
    QSize sizeHint() const override { return { 900, 420 }; }
    // Row of the tensor under a point, or -1.
    int tensorAt(QPointF pos) const;
    QRectF tensorRect(int row) const;
    // For tests: the labels of the instruction axis and of an arena's byte axis, as drawn.
    QStringList instructionTickLabels() const;
    QStringList byteTickLabels(std::size_t arena) const;

Q_SIGNALS:
    void tensorClicked(int row);

protected:
    void paintEvent(QPaintEvent *) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;

private:
    QRectF arenaArea(std::size_t arena) const;
    QRectF liveArea() const;
    double xOf(double instruction) const;
    int instructionTickTarget() const;
    int byteTickTarget(double height) const;
    void drawByteAxis(QPainter &p, const QRectF &area, std::uint64_t size, bool upward) const;

    const MemoryPlanModel *m_model;
};

// Self-contained Memory panel: figures (arenas, peak and where, waste, sharing, constants,
// delegate blobs, the ETDump's allocations), the picture, and the table of planned tensors.
class MemoryView : public QWidget
{
    Q_OBJECT
public:
    explicit MemoryView(QWidget *parent = nullptr);

    void setProgram(std::shared_ptr<const Program> program, const ProgramMethod *method,
        std::vector<AllocatorUsage> allocations = {});
    const MemoryPlanModel *model() const { return m_model; }
    MemoryPlanCanvas *canvas() const { return m_canvas; }
    QTableView *table() const { return m_table; }
    QString figuresText() const;
    // Shows a tensor (from an event's Details, say): selects its row.
    void selectValue(int value);

Q_SIGNALS:
    // A rectangle or row was clicked: the instruction that makes the tensor.
    void instructionActivated(int instruction);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    MemoryPlanModel *m_model;
    MemoryPlanCanvas *m_canvas;
    QLabel *m_figures;
    QTableView *m_table;
    QSplitter *m_split;
    std::vector<AllocatorUsage> m_allocations;
};

} // namespace etscope
