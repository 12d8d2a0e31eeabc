#pragma once

#include <QDialog>

class QPlainTextEdit;
class QLabel;

namespace etscope {

// Read-only view of a local source file, scrolled to and highlighting one line.
class SourceViewer : public QDialog
{
    Q_OBJECT
public:
    explicit SourceViewer(QWidget *parent = nullptr);

    // Returns false (and shows nothing) when the file cannot be read.
    bool openFile(const QString &path, int line);
    int currentLine() const;
    QPlainTextEdit *editor() const { return m_editor; }

private:
    QPlainTextEdit *m_editor = nullptr;
    QLabel *m_path = nullptr;
};

} // namespace etscope
