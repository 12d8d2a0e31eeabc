#!/bin/bash
# The Python package against the CLI on LLM-shaped recordings of 17,600 runs x 57 events
# (1,003,202 events; tests/bench/gen_bench_etdump.cpp), whole processes: interpreter start,
# `import pandas`, Inspector(etdump_path) + to_dataframe() (after the script's own `import pandas`,
# and without one, as upstream's examples run), and runs() (in process and whole),
# beside `etscope-cli tsv` and `etscope-cli runs`. Two shapes: runs that merge into one
# EventBlock (57 rows of 17,600 durations) and runs that never merge (a backend names a
# dispatch after the position: 17,600 blocks, 1M rows). Medians of RUNS; CPU = user + system.
#
#   tools/bench-python-vs-cli.sh [BUILD_DIR=build] [RUNS=5]
#
# Uses an existing build (etscope-cli, the Python module, gen_bench_etdump); Debian's python3.
# Prints the load average before and after: other work on the machine inflates wall times.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
runs=${2:-5}
cmake --build "$build" --target etscope-cli etscope_python gen_bench_etdump >/dev/null
data=$build/bench-data
mkdir -p "$data"
gen=$build/tests/bench/gen_bench_etdump
merged=$data/llm_17600x28.etdp
distinct=$data/llm_17600x28_distinct.etdp
[ -s "$merged" ] && [ "$merged" -nt "$gen" ] || "$gen" "$merged" 17600 28 >&2
[ -s "$distinct" ] && [ "$distinct" -nt "$gen" ] || "$gen" "$distinct" 17600 28 distinct >&2
# Byte-compiled as an installed package is (Debian's python3 packages compile at install time);
# otherwise every process recompiles etscope's modules (PYTHONDONTWRITEBYTECODE is often set).
/usr/bin/python3 -m compileall -q "$build/app/python/etscope"

/usr/bin/python3 - "$build" "$runs" "$merged" "$distinct" <<'PY'
import os, resource, statistics, subprocess, sys, time

build, runs, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
cli = os.path.join(build, "app", "cli", "etscope-cli")
env = dict(os.environ, PYTHONPATH=os.path.join(build, "app", "python"))
py = "/usr/bin/python3"
DF = ("import sys, warnings; warnings.simplefilter('ignore'); import pandas, etscope; "
      "etscope.Inspector(etdump_path=sys.argv[1]).to_dataframe()")
# As upstream's examples are written (no `import pandas` of their own): the Inspector imports
# pandas on a thread while its native load runs (etscope._inspector._prefetch_pandas).
DF_LATE = ("import sys, warnings; warnings.simplefilter('ignore'); import etscope; "
           "etscope.Inspector(etdump_path=sys.argv[1]).to_dataframe()")
RUNS = ("import sys, time, warnings; warnings.simplefilter('ignore'); import pandas, etscope; "
        "i = etscope.Inspector(etdump_path=sys.argv[1]); t = time.perf_counter(); c = time.process_time(); "
        "i.runs(); print(time.perf_counter() - t, time.process_time() - c)")


def measure(cmd):
    walls, cpus, rss, out = [], [], 0, []
    for _ in range(runs):
        t = time.perf_counter()
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        _, status, ru = os.wait4(p.pid, 0)
        walls.append(time.perf_counter() - t)
        cpus.append(ru.ru_utime + ru.ru_stime)
        rss = max(rss, ru.ru_maxrss)
        out.append(p.stdout.read())
        if status:
            raise SystemExit(f"failed: {cmd}")
    return statistics.median(walls), statistics.median(cpus), rss / 1024, out


print("load average before:", " ".join(f"{x:.2f}" for x in os.getloadavg()))
print(f"{'file':<28} {'what':<44} {'wall s':>7} {'cpu s':>7} {'RSS MB':>7}")
for f in files:
    rows = [
        ("etscope-cli tsv", [cli, "tsv", "--etdump", f, "-o", os.devnull]),
        ("etscope-cli runs --json", [cli, "runs", "--etdump", f, "--json", os.devnull, "-o", os.devnull]),
        ("python: import pandas", [py, "-c", "import pandas"]),
        ("python: import pandas, etscope", [py, "-c", "import pandas, etscope"]),
        ("python: Inspector + to_dataframe (+ pandas)", [py, "-c", DF, f]),
        ("python: same, pandas imported by etscope", [py, "-c", DF_LATE, f]),
        ("python: Inspector + runs() (+ pandas)", [py, "-c", RUNS, f]),
    ]
    for what, cmd in rows:
        wall, cpu, rss, out = measure(cmd)
        print(f"{os.path.basename(f):<28} {what:<44} {wall:7.3f} {cpu:7.3f} {rss:7.0f}")
        if "runs()" in what:
            w = statistics.median(float(o.split()[0]) for o in out)
            c = statistics.median(float(o.split()[1]) for o in out)
            print(f"{'':<28} {'  of which runs() in process':<44} {w:7.3f} {c:7.3f}")
print("load average after:", " ".join(f"{x:.2f}" for x in os.getloadavg()))
PY
