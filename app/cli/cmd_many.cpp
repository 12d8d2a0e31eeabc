// Many recordings for `tsv`/`csv` (and `--format jsonl`): files, directories, globs, loaded in
// parallel, one row per event per file plus aggregated rows (core/export/recordings.h).
#include "many.h"

#include "export/recordings.h"

#include <cstdio>
#include <filesystem>

namespace etscope::cli {

std::vector<std::string> recordingArgs(const std::string &etdump, const std::vector<std::string> &positional)
{
    std::vector<std::string> v;
    if (!etdump.empty())
        v.push_back(etdump);
    v.insert(v.end(), positional.begin(), positional.end());
    return v;
}

bool isMany(const std::vector<std::string> &args)
{
    if (args.size() > 1)
        return true;
    if (args.empty())
        return false;
    std::error_code ec;
    return std::filesystem::is_directory(args.front(), ec)
        || (!std::filesystem::exists(args.front(), ec) && args.front().find_first_of("*?[") != std::string::npos);
}

namespace {
// What every recording of a set is loaded with: time scales, ETRecord, the program and its .ptd
// files, the phase rule and the scope (--method, --phase, --runs) each one is reduced to.
Result<RecordingsOptions> recordingsOptionsOf(const InputOptions &in)
{
    RecordingsOptions opt;
    opt.time = timeConversionOf(in);
    opt.etrecord = in.etrecord;
    opt.program = in.program;
    opt.programData = in.data;
    opt.phases = phaseOptionsOf(in);
    auto scope = scopeOf(in);
    if (!scope)
        return scope.error();
    opt.scope = *scope;
    if (!opt.scope.whole())
        std::fprintf(stderr, "etscope-cli: scope: every recording's runs of method %s, phase %s, runs %s\n",
            in.method.empty() ? "(any)" : in.method.c_str(), phaseName(opt.scope.phase),
            in.runs.empty() ? "(all)" : in.runs.c_str());
    return opt;
}
} // namespace

int runManyTable(const ManyTableArgs &a)
{
    auto inputs = expandRecordings(a.recordings);
    if (!inputs)
        return reportError(inputs.error());
    auto opt = recordingsOptionsOf(a.in);
    if (!opt)
        return reportError(opt.error());
    opt->table.includeOperatorCalls = a.all;
    opt->table.includeModuleColumn = a.modules;
    opt->separator = a.format == "csv" ? ',' : '\t';
    opt->threads = a.jobs;
    const auto files = summarizeRecordings(*inputs, *opt);
    int failed = 0;
    for (const auto &f : files) {
        if (!f.error.empty()) {
            std::fprintf(stderr, "etscope-cli: %s\n", f.error.c_str());
            ++failed;
        }
        for (const auto &w : f.warnings)
            std::fprintf(stderr, "etscope-cli: warning: %s\n", w.c_str());
    }
    const std::string text = a.format == "jsonl" ? formatJsonl(files) : formatManyDelimited(files, *opt, a.aggregate);
    if (auto st = writeOutput(a.output, text); !st)
        return reportError(st.error());
    if (failed)
        std::fprintf(stderr, "etscope-cli: %d of %zu recordings could not be read\n", failed, files.size());
    return failed ? 1 : 0;
}

std::optional<std::vector<EventBlock>> loadPooledBlocks(const InputOptions &o)
{
    auto inputs = expandRecordings({ o.etdump });
    if (!inputs) {
        reportError(inputs.error());
        return std::nullopt;
    }
    auto opt = recordingsOptionsOf(o);
    if (!opt) {
        reportError(opt.error());
        return std::nullopt;
    }
    opt->table.includeOperatorCalls = true; // the diff decides what to show
    const auto files = summarizeRecordings(*inputs, *opt);
    for (const auto &f : files)
        if (!f.error.empty()) {
            std::fprintf(stderr, "etscope-cli: %s\n", f.error.c_str());
            return std::nullopt;
        }
    std::fprintf(stderr, "etscope-cli: %s: %zu recordings pooled\n", o.etdump.c_str(), files.size());
    return poolRecordings(files);
}

} // namespace etscope::cli
