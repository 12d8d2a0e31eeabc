#pragma once

#include "session/session.h"

#include <QtGlobal>

#include <memory>
#include <string>

// Loads an ETDump (+ optional debug buffer and ETRecord) for a test; a load failure ends the
// test run.
namespace etscope::test {

inline std::shared_ptr<const Session> loadSessionOrDie(
    const std::string &etdump, const std::string &debugBuffer = {}, const std::string &etrecord = {})
{
    SessionInputs in;
    in.etdump = etdump;
    in.debugBuffer = debugBuffer;
    in.etrecord = etrecord;
    auto s = loadSession(in);
    if (!s)
        qFatal("%s", s.error().message().c_str());
    return *s;
}

} // namespace etscope::test
