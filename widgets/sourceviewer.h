#pragma once

#include <QDialog>
#include <QList>
#include <QPair>
#include <QString>

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
    // Width of the line-number gutter (0 before a file is open), for tests.
    int gutterWidth() const;

    // Source roots: stack traces record where the model was exported ("/home/dev/models/...");
    // each (recorded prefix, local folder) pair maps such paths onto this machine.
    static void setSourceRoots(const QList<QPair<QString, QString>> &roots);
    static QList<QPair<QString, QString>> sourceRoots();
    // The recorded path if it exists, else the first mapped path that does; empty when none.
    static QString resolve(const QString &recordedPath);

private:
    class Gutter;
    QPlainTextEdit *m_editor = nullptr;
    Gutter *m_gutter = nullptr;
    QLabel *m_path = nullptr;
};

} // namespace etscope
