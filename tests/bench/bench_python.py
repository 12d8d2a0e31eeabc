"""Benchmark of the Python package: Inspector(etdump_path=...) + to_dataframe() on a large
profile, in process (interpreter start and `import pandas` excluded, reported apart).

    PYTHONPATH=BUILD/app/python /usr/bin/python3 tests/bench/bench_python.py ETDUMP [ITERATIONS]

Prints the runner's protocol lines (BENCH <name> <seconds>, see tests/bench/CMakeLists.txt);
tools/run-benchmarks.sh adds the process's peak RSS.
"""

import sys
import time

t0 = time.perf_counter()
import pandas  # noqa: E402,F401  (what every DataFrame user pays once)

import etscope  # noqa: E402

print(f"BENCH import_etscope_and_pandas {time.perf_counter() - t0:.6f}")
path = sys.argv[1]
iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 3
for _ in range(iterations):
    t0 = time.perf_counter()
    insp = etscope.Inspector(etdump_path=path, debug_buffer_path=None)
    t1 = time.perf_counter()
    df = insp.to_dataframe()
    t2 = time.perf_counter()
    print(f"BENCH inspector {t1 - t0:.6f}")
    print(f"BENCH to_dataframe {t2 - t1:.6f}")
    print(f"BENCH inspector_plus_to_dataframe {t2 - t0:.6f}")
    del insp, df
