#include "etrecord/etrecordsupport.h"

#include "etrecord/etrecord.h"
#include "session/session.h"

namespace etscope {

void installETRecordSupport(const LinkOptions &options)
{
    setETRecordLinker([options](Session &session, const ProgressFn &) -> Status {
        auto record = readETRecord(session.inputs.etrecord);
        if (!record)
            return record.error();
        session.etrecord = record.value();
        for (const std::string &w : (*record)->warnings())
            session.warnings.push_back(w);
        auto report = linkETRecord(session.blocks, **record, options);
        if (!report)
            return report.error();
        for (const std::string &w : report->warnings)
            session.warnings.push_back(w);
        return Ok{};
    });
}

} // namespace etscope
