#pragma once

#include "analysis/determinism.h"

#include <QImage>
#include <QWidget>

#include <memory>

namespace etscope {

// Every run against every logged tensor (analysis/determinism.h): runs along x, tensors down in
// program order. A run whose tensor differs from the majority is marked, coloured by its largest
// absolute deviation there (TensorDeterminism::runMaxAbs, log scale from the smallest to the
// largest in the report); equal runs stay grey. The selected tensor's row is framed. Hover names
// the run, the tensor and the deviation; a click selects the tensor.
class RunStrip : public QWidget
{
    Q_OBJECT
public:
    explicit RunStrip(QWidget *parent = nullptr);

    void setReport(std::shared_ptr<const DeterminismReport> report);
    void setCurrentTensor(int position);
    int currentTensor() const { return m_current; }
    // The (run, tensor) under a point, or (-1, -1); and where a cell is drawn.
    QPoint cellAt(QPointF pos) const;
    QRectF cellRect(int run, int tensor) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return { 240, 90 }; }

Q_SIGNALS:
    void tensorClicked(int position);

protected:
    void paintEvent(QPaintEvent *) override;
    bool event(QEvent *e) override;
    void mousePressEvent(QMouseEvent *e) override;

private:
    QRectF plotArea() const;
    QString rowLabel(const TensorDeterminism &t) const;

    std::shared_ptr<const DeterminismReport> m_report;
    QImage m_image; // one pixel per (run, tensor)
    int m_current = -1;
    int m_labelWidth = 120;
};

} // namespace etscope
