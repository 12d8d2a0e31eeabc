#pragma once

#include "common/atomicwrite.h"
#include "qtstrings.h"

#include <QByteArray>
#include <QString>

#include <string_view>

namespace etscope {

// The Qt face of core's one atomic file write (common/atomicwrite.h) for window exports: a QString
// path in, an empty string on success or the one-line error ("PATH: reason") out.
inline QString saveFile(const QString &path, const std::function<Status(const WriteSink &sink)> &produce)
{
    const Status st = writeFileAtomically(toStdString(path), produce);
    return st ? QString() : toQString(st.error().message());
}

inline QString saveFile(const QString &path, std::string_view bytes)
{
    const Status st = writeFileAtomically(toStdString(path), bytes);
    return st ? QString() : toQString(st.error().message());
}

inline QString saveFile(const QString &path, const QByteArray &bytes)
{
    return saveFile(path, std::string_view(bytes.constData(), std::size_t(bytes.size())));
}

} // namespace etscope
