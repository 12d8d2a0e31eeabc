#include "common/error.h"

namespace etscope {

const char *errorCodeName(ErrorCode code)
{
    switch (code) {
    case ErrorCode::Io:
        return "io";
    case ErrorCode::Empty:
        return "empty";
    case ErrorCode::Truncated:
        return "truncated";
    case ErrorCode::BadIdentifier:
        return "bad-identifier";
    case ErrorCode::Corrupt:
        return "corrupt";
    case ErrorCode::Unsupported:
        return "unsupported";
    case ErrorCode::LimitExceeded:
        return "limit-exceeded";
    case ErrorCode::Refused:
        return "refused";
    case ErrorCode::InvalidArgument:
        return "invalid-argument";
    case ErrorCode::Cancelled:
        return "cancelled";
    }
    return "unknown";
}

} // namespace etscope
