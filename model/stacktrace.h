#pragma once

#include <QList>
#include <QString>

namespace etscope {

// One frame of a Python traceback as torch.fx records it in node.meta["stack_trace"].
struct StackFrame {
    QString file;
    int line = 0;
    QString function;
    QString code; // the source line that follows the frame header, trimmed; may be empty
};

// Parses `File "/path/model.py", line 88, in forward` headers (each optionally followed by
// the indented source line). Lines that are not frame headers or code are ignored, so a
// trace mixed with other text still yields its frames.
QList<StackFrame> parsePythonTraceback(const QString &text);

} // namespace etscope
