#pragma once

#include "program/memoryplan.h"

#include <QWidget>

#include <memory>

class QLabel;
class QSplitter;
class QTableView;

namespace etscope {

class MemoryPlanModel;

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
