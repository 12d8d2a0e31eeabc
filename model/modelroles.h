#pragma once

#include <Qt>
#include <QtGlobal>

namespace etscope {

// Roles shared by the event models, the filter proxy, delegates and charts.
enum EventRoles {
    SortRole = Qt::UserRole, // raw number (double/qint64) or text, never formatted numbers
    BlockIndexRole, // index into Session::blocks
    EventIndexRole, // index into EventBlock::events, -1 on block rows
    FilterTextRole, // name, op types and module joined: what the filter box matches
    IsDelegatedRole,
    IsFrameworkRole,
    IsOperatorCallRole,
    RelativeCostRole, // avg / largest avg of the block in [0, 1], for the heat bar delegate
};

} // namespace etscope
