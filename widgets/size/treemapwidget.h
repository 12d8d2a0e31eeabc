#pragma once

#include <QPersistentModelIndex>
#include <QPointer>
#include <QWidget>

#include <vector>

class QAbstractItemModel;
class QItemSelectionModel;

namespace etscope {

// A squarified treemap (Bruls, Huizing, van Wijk 2000) of any tree model: each row is a
// rectangle whose area is its value (a number under `valueRole` in `valueColumn`), its children
// nested inside under a title strip while there is room. Labels are drawn where they fit; the
// tooltip gives the value and its share of the top-level row and of the parent. A click makes the
// row current in the selection model it shares with a tree view; a double-click zooms one level
// down, into the part under the pointer (the breadcrumb above goes back up, as do Backspace and
// the mouse's back button).
class TreemapWidget : public QWidget
{
    Q_OBJECT
public:
    explicit TreemapWidget(QWidget *parent = nullptr);

    void setModel(QAbstractItemModel *model, int valueColumn, int valueRole);
    // Shared with the tree beside the map: its current row is outlined here, and a row out of
    // view zooms the map to its parent.
    void setSelectionModel(QItemSelectionModel *selection);
    // After each value where it is written (" bytes"); the value's text is the model's.
    void setValueUnit(const QString &unit);
    // Shown instead of the map when the model is empty.
    void setEmptyText(const QString &text);

    QModelIndex rootIndex() const { return m_root; }
    void setRootIndex(const QModelIndex &root);
    bool back(); // one level up; false at the top
    QStringList breadcrumb() const; // names from the top to the part shown
    QModelIndex indexAt(const QPointF &pos) const; // the innermost part drawn there
    QRectF rectOf(const QModelIndex &index) const; // empty when not drawn

    QSize sizeHint() const override { return { 520, 360 }; }

Q_SIGNALS:
    void rootChanged(const QModelIndex &root);

protected:
    void paintEvent(QPaintEvent *) override;
    void resizeEvent(QResizeEvent *) override;
    void mousePressEvent(QMouseEvent *) override;
    void mouseDoubleClickEvent(QMouseEvent *) override;
    void keyPressEvent(QKeyEvent *) override;
    bool event(QEvent *) override;

private:
    struct Cell {
        QRectF rect;
        QPersistentModelIndex index;
        int depth = 0;
        int colour = 0; // the branch under the root it belongs to
        bool titled = false; // children nested under a title strip
    };
    double value(const QModelIndex &index) const;
    QString valueText(const QModelIndex &index) const;
    QModelIndex topRoot() const; // where the breadcrumb starts
    QModelIndex nameIndex(const QModelIndex &index) const; // column 0 of the row
    void relayout();
    void layoutChildren(const QModelIndex &parent, const QRectF &area, int depth, int colour);
    QString crumbText(std::size_t i) const;
    int crumbAt(const QPointF &pos) const; // -1: none; else index into m_crumbs
    QColor fill(const Cell &c) const;
    QString tooltip(const QModelIndex &index) const;

    QPointer<QAbstractItemModel> m_model;
    QPointer<QItemSelectionModel> m_selection;
    int m_valueColumn = 0, m_valueRole = Qt::DisplayRole;
    QPersistentModelIndex m_root;
    QString m_emptyText, m_unit;
    std::vector<Cell> m_cells; // parents before their children
    std::vector<QPersistentModelIndex> m_crumbs; // top first; the last is the root
    std::vector<QRectF> m_crumbRects;
};

} // namespace etscope
