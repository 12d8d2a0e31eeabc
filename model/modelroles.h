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
    // Name column: what tells rows of the same name apart, drawn after the name in grey (not
    // part of the name: copies, filters and exports keep the Inspector's names). "#3" (the
    // instruction) for operator events, "#3 convolution" for the OPERATOR_CALL around a kernel.
    NameDetailRole,
};

} // namespace etscope
