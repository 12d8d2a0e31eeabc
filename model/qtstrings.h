#pragma once

#include <QString>
#include <string>
#include <string_view>

namespace etscope {

// Core strings are UTF-8 std::string; QT_NO_CAST_FROM_ASCII makes every conversion explicit.
inline QString toQString(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

inline std::string toStdString(const QString &s)
{
    return s.toStdString();
}

} // namespace etscope
