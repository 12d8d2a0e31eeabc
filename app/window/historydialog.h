#pragma once

#include <QDialog>
#include <QStringList>

class QLineEdit;

namespace etscope {

// What a history reads: recordings (a folder searched for *.etdp, or files) and optionally a
// labels CSV (file,label[,order]: docs/history.md).
class HistoryDialog : public QDialog
{
    Q_OBJECT
public:
    explicit HistoryDialog(QWidget *parent = nullptr);
    QStringList recordings() const; // the paths, one per line of the field ("; " between files)
    QString labels() const;
    void setRecordings(const QStringList &paths);
    void setLabels(const QString &csv);

private:
    QLineEdit *m_recordings;
    QLineEdit *m_labels;
};

} // namespace etscope
