#include "runnames.h"

#include <QCoreApplication>
#include <QStringList>

#include <utility>
#include <vector>

namespace etscope {

int recordingRun(const Session &session, std::size_t block, std::size_t runInBlock)
{
    const auto &table = session.runTable.runOfBlock;
    if (block >= table.size() || runInBlock >= table[block].size())
        return -1;
    return table[block][runInBlock];
}

QString runName(const Session &session, std::size_t block, std::size_t runInBlock)
{
    const int run = recordingRun(session, block, runInBlock);
    if (run >= 0)
        return QCoreApplication::translate("etscope", "run %1").arg(run + 1);
    if (session.runTable.runOfBlock.empty())
        return QCoreApplication::translate("etscope", "run %1").arg(runInBlock + 1);
    const auto &blocks = session.blocks;
    if (block < blocks.size() && runInBlock < blocks[block].runIndices.size())
        return QCoreApplication::translate("etscope", "run_data entry %1").arg(blocks[block].runIndices[runInBlock]);
    return QCoreApplication::translate("etscope", "run ?");
}

QString blockRunsLabel(const Session &session, std::size_t block)
{
    const RunTable &table = session.runTable;
    if (block >= table.runOfBlock.size())
        return {};
    // Counts per method and per phase, in order of first appearance.
    std::vector<std::pair<std::string, std::size_t>> methods, phases;
    auto count = [](auto &list, const std::string &key) {
        for (auto &[k, n] : list)
            if (k == key) {
                ++n;
                return;
            }
        list.emplace_back(key, 1);
    };
    std::size_t runs = 0;
    for (int i : table.runOfBlock[block]) {
        if (i < 0)
            continue;
        const SessionRun &r = table.runs[std::size_t(i)];
        count(methods, r.methodName());
        count(phases, phaseName(r.scopePhase()));
        ++runs;
    }
    auto runsText = [](std::size_t n) {
        return n == 1 ? QCoreApplication::translate("etscope", "1 run")
                      : QCoreApplication::translate("etscope", "%1 runs").arg(n);
    };
    QStringList parts;
    for (const auto &[m, n] : methods)
        if (!m.empty())
            parts << QString::fromStdString(m) + (methods.size() > 1 ? QLatin1Char(' ') + runsText(n) : QString());
    const bool phased = !(phases.size() == 1 && phases.front().first == phaseName(Phase::All));
    if (phased) {
        QStringList p;
        for (const auto &[name, n] : phases)
            p << QString::fromStdString(name) + (phases.size() > 1 ? QLatin1Char(' ') + runsText(n) : QString());
        parts << p.join(QStringLiteral(", "));
    }
    if (parts.isEmpty())
        return {};
    if (phases.size() == 1 && methods.size() == 1)
        parts << runsText(runs);
    return parts.join(QStringLiteral(" · "));
}

QString runNumbering()
{
    return QCoreApplication::translate("etscope",
        "run 1 = the recording's first executed run (Method::execute), in file order; etscope-cli runs and --runs "
        "count the same runs from 0");
}

} // namespace etscope
