"""One recording, many kinds of runs (issue 35) through the CLI and the Python package, against
truth derived without etscope, and across the front ends:

- tests/data/scope/one_method: an AUTHORED single-method generation (tests/tools/
  gen_scope_generation.py; runs.truth.json is its plan and numpy statistics per scope);
- tests/data/scope/llm_decoder_scopes.json: numpy over `flatc --json` of the real two-method
  fixture and the runner's log, and the per-method diff totals against the altered copy
  tests/data/scope/llm_decoder_slower (tests/tools/gen_scope_expected.py);
- the Vulkan placement: the authored vulkan_stem recording's own ETVK_COMPUTE_GRAPH_EXECUTE times
  (tests/data/backend/vulkan_stem/etdump.json, the flatc input).

The window helper adds the window's session to `test_fixture_across_front_ends`.
"""

import csv
import io
import json
import os
import re
import subprocess
import tempfile

import etscope
from conftest import CLI, cli, data

ONE = data("scope/one_method/etdump.etdp")
LLM = data("runtime/llm_decoder/profile/etdump.etdp")
SLOWER = data("scope/llm_decoder_slower/etdump.etdp")
PTE = data("runtime/llm_decoder/llm_decoder.pte")
PTD = data("runtime/llm_decoder/llm_decoder.ptd")
STATS = ("p10", "p50", "p90", "avg", "min", "max")


def truth(rel):
    with open(data(rel)) as f:
        return json.load(f)


def close(a, b):
    return abs(a - b) <= 1e-12 * max(1.0, abs(b))


def tsv_rows(text):
    return list(csv.DictReader(io.StringIO(text), delimiter="\t"))


def check_rows(rows, expected_events):
    """Every expected event's statistics equal the TSV row (ms) of the same name and rank: the
    TSV has no instruction column, so the n-th row of a name is the n-th event of that name
    (every scope here is one EventBlock, events in instruction order)."""
    got, want = {}, {}
    for r in rows:
        got.setdefault(r["event_name"], []).append(r)
    for e in expected_events:
        if e["event_name"] != "OPERATOR_CALL":  # the Inspector's table drops them
            want.setdefault(e["event_name"], []).append(e)
    assert sorted(got) == sorted(want)
    for name, events in want.items():
        assert len(got[name]) == len(events), name
        for row, e in zip(got[name], events):
            for s in STATS:
                assert close(float(row[f"{s} (ms)"]), e[s]), (name, s, row[f"{s} (ms)"], e[s])


def test_one_method_phases_cli_and_python():
    t = truth("scope/one_method/runs.truth.json")
    doc = json.loads(cli("runs", "--etdump", ONE, "--json", "-"))
    assert doc["phase_rule"] == "operators"
    assert "per-operator evidence" in doc["phase_rule_line"]
    assert doc["generations"] == t["generations"]
    ins = etscope.Inspector(etdump_path=ONE)
    table = ins.run_table()
    assert table["rule"] == "operators"
    for i, want in enumerate(t["runs"]):
        run = doc["runs"][i]
        phase = "warmup" if run["warmup"] else run["phase"]
        assert (phase, run["generation"], run["outlier"]) == (want["phase"], want["generation"], want["outlier"]), i
        # The Python package reads the same session table.
        py_phase = "warmup" if table["warmup"][i] else table["phase"][i]
        assert (py_phase, table["generation"][i], table["outlier"][i]) == (phase, run["generation"], run["outlier"])
    df = ins.runs()
    assert list(df["generation"]) == [r["generation"] for r in t["runs"]]
    assert abs(doc["time_to_first_token_ms"] - t["time_to_first_token_ms"]) < 1e-9
    # Per-phase operator shares equal numpy's over the phase's runs.
    for phase in ("decode", "prefill"):
        got = {r["name"]: r for r in doc["shares"][phase]}
        for op, e in t["shares"][phase].items():
            assert abs(got[op]["total_ms"] - e["total_ms"]) < 1e-9
            assert abs(got[op]["share"] - e["share"]) < 1e-9
    assert list(ins.runs(phase="decode")["index"]) == [r["index"] for r in t["runs"] if r["phase"] == "decode"]


def test_runs_scope_keeps_the_scope_runs_and_figures():
    """`runs --phase decode` / `--runs N-M`: the rows of the runs in scope under their
    recording-wide index, and figures over those runs only (truth: runs.truth.json's plan and
    numpy shares; the decode shares are over steady decode runs, which the scope keeps)."""
    t = truth("scope/one_method/runs.truth.json")
    doc = json.loads(cli("runs", "--etdump", ONE, "--phase", "decode", "--json", "-"))
    assert [r["index"] for r in doc["runs"]] == [r["index"] for r in t["runs"] if r["phase"] == "decode"]
    assert {r["phase"] for r in doc["runs"]} == {"decode"}
    assert list(doc["phases"]) == ["decode"] and list(doc["shares"]) == ["decode"]
    assert doc["time_to_first_token_ms"] is None  # a decode scope holds no prompt
    got = {r["name"]: r for r in doc["shares"]["decode"]}
    for op, e in t["shares"]["decode"].items():
        assert abs(got[op]["total_ms"] - e["total_ms"]) < 1e-9
    assert any("runs in scope: decode" in n for n in doc["notes"])
    ranged = json.loads(cli("runs", "--etdump", ONE, "--runs", "20-30", "--json", "-"))
    assert [r["index"] for r in ranged["runs"]] == list(range(20, 31))
    assert {r["phase"] for r in ranged["runs"]} == {t["runs"][i]["phase"] for i in range(20, 31)}
    # A scope no run falls in is refused with the file named.
    p = subprocess.run([CLI, "runs", "--etdump", ONE, "--phase", "other"], capture_output=True, text=True)
    assert p.returncode != 0 and ONE in p.stderr and "no run" in p.stderr


def test_many_recordings_reduced_to_the_scope():
    """tsv over a folder and diff of two folders take the scope: each recording reduced to its
    decode runs. One recording per folder: the per-file rows equal the single-file scoped TSV,
    and the pooled diff's decode totals equal numpy's (llm_decoder_scopes.json "diff")."""
    with tempfile.TemporaryDirectory() as d:
        a, b = os.path.join(d, "a"), os.path.join(d, "b")
        os.makedirs(a)
        os.makedirs(b)
        os.symlink(LLM, os.path.join(a, "etdump.etdp"))
        os.symlink(SLOWER, os.path.join(b, "etdump.etdp"))
        scope = ("--program", PTE, "--phase", "decode")
        many = tsv_rows(cli("tsv", a, *scope, "--no-aggregate"))
        one = tsv_rows(cli("tsv", "--etdump", LLM, *scope))
        assert [r["event_name"] for r in many] == [r["event_name"] for r in one]
        assert [r["p50 (ms)"] for r in many] == [r["p50 (ms)"] for r in one]
        assert len(many) < len(tsv_rows(cli("tsv", a, "--no-aggregate")))
        doc = json.loads(cli("diff", "--etdump", a, "--etdump-b", b, *scope, "--json"))
        want = truth("scope/llm_decoder_scopes.json")["diff"]["decode_forward · decode"]
        kernels = [r for r in doc["rows"] if r["event_name"].startswith("native_call_")]
        assert kernels
        assert abs(sum(r["a"]["p50"] for r in kernels) - want["a"]) < 1e-9
        assert abs(sum(r["b"]["p50"] for r in kernels) - want["b"]) < 1e-9


def test_tsv_phase_decode_equals_numpy_and_python():
    t = truth("scope/one_method/runs.truth.json")
    ins = etscope.Inspector(etdump_path=ONE)
    for phase in ("decode", "prefill", "warmup"):
        p = subprocess.run([CLI, "tsv", "--etdump", ONE, "--phase", phase], capture_output=True, text=True, check=True)
        assert f"scope: {phase} · {t['scopes'][phase]['runs']} run" in p.stderr
        rows = tsv_rows(p.stdout)
        check_rows(rows, t["scopes"][phase]["events"])
        df = ins.to_dataframe(phase=phase)
        assert df.attrs["scope"]["runs"] == t["scopes"][phase]["runs"]
        assert set(df["phase"]) == {phase}
        kernels = df[df["event_name"].str.startswith("native_call_")]
        want = [e for e in t["scopes"][phase]["events"] if e["event_name"].startswith("native_call_")]
        assert len(kernels) == len(want)
        for (_, row), e in zip(kernels.iterrows(), want):
            for s in STATS:
                assert close(row[f"{s} (ms)"], e[s])
    # Without a scope: upstream's table, the same bytes as the Python package's.
    plain = cli("tsv", "--etdump", ONE)
    buf = io.StringIO()
    ins.save_data_to_tsv(buf)
    assert plain == buf.getvalue()


def test_fixture_across_front_ends():
    """The real two-method fixture through the CLI (options and positional FILES…) and the
    Python package: the same runs, scopes and tables, equal to numpy."""
    t = truth("scope/llm_decoder_scopes.json")
    by_options = json.loads(cli("runs", "--etdump", LLM, "--program", PTE, "--data", PTD, "--json", "-"))
    by_files = json.loads(cli("runs", PTD, PTE, LLM, "--json", "-"))
    assert by_options["runs"] == by_files["runs"]
    ins = etscope.Inspector(etdump_path=LLM, program=PTE, program_data=PTD)
    table = ins.run_table()
    assert table["generations"] == by_options["generations"] == 1
    assert [r["method"] for r in by_options["runs"]] == table["method"]
    assert [r["phase"] for r in by_options["runs"]] == table["phase"]
    assert [r["generation"] for r in by_options["runs"]] == table["generation"]
    for method in ("decode_forward", "prefill_forward"):
        text = cli("tsv", LLM, PTE, PTD, "--method", method)
        assert text == cli("tsv", "--etdump", LLM, "--program", PTE, "--data", PTD, "--method", method)
        rows = tsv_rows(text)
        check_rows(rows, t["scopes"][method]["events"])
        df = ins.to_dataframe(method=method)
        assert set(df["method"]) == {method}
        assert len(df[df["event_name"] != "OPERATOR_CALL"]) == len(rows)
    rows = json.loads(cli("table", LLM, PTE, PTD, "--phase", "decode", "--json"))
    assert {(r["method"], r["phase"]) for r in rows} == {("decode_forward", "decode")}
    # The same runs by phase as by method.
    assert cli("tsv", LLM, PTE, PTD, "--phase", "decode") == cli("tsv", LLM, PTE, PTD, "--method", "decode_forward")


def test_diff_per_method_and_phase():
    t = truth("scope/llm_decoder_scopes.json")["diff"]
    doc = json.loads(cli("diff", "--etdump", LLM, "--program", PTE, "--data", PTD, "--etdump-b", SLOWER, "--json"))
    totals = {x["key"]: x for x in doc["by_method_phase"]}
    assert set(totals) == set(t)
    for key, e in t.items():
        assert abs(totals[key]["a"] - e["a"]) < 1e-9 and abs(totals[key]["b"] - e["b"]) < 1e-9
    for r in doc["rows"]:
        assert (r["method"], r["phase"]) in {("prefill_forward", "prefill"), ("decode_forward", "decode")}
    # Every mm of decode is slower, none of prefill.
    mm = [r for r in doc["rows"] if r["event_name"] == "native_call_mm.out"]
    assert {r["verdict"] for r in mm if r["phase"] == "decode"} == {"slower"}
    assert all(r["verdict"] != "slower" for r in mm if r["phase"] == "prefill")
    text = cli("diff", "--etdump", LLM, "--program", PTE, "--etdump-b", SLOWER)
    assert "total of operator rows per method and phase" in text
    a = etscope.Inspector(etdump_path=LLM, program=PTE)
    b = etscope.Inspector(etdump_path=SLOWER, program=PTE)
    df = a.diff(b)
    assert set(zip(df["method"], df["phase"])) == {("prefill_forward", "prefill"), ("decode_forward", "decode")}
    only = a.diff(b, phase="decode")
    assert set(only["phase"]) == {"decode"}


def test_report_runs_section_equals_runs_json():
    doc = json.loads(cli("runs", "--etdump", LLM, "--program", PTE, "--data", PTD, "--json", "-"))
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.html")
        cli("report", "--etdump", LLM, "--program", PTE, "--data", PTD, "-o", out)
        html = open(out, encoding="utf-8").read()
    assert PTE in html and PTD in html  # every input file listed
    section = html[html.index('<section id="runs">'):]
    section = section[: section.index("</section>")]
    ttft = float(re.search(r'id="ttft" data-v="([^"]+)"', section).group(1))
    assert ttft == doc["time_to_first_token_ms"]
    for phase, f in doc["phases"].items():
        row = re.search(rf'<tr data-phase="{phase}">(.*?)</tr>', section).group(1)
        values = [float(v) for v in re.findall(r'data-v="([^"]+)"', row)]
        assert values[0] == f["median_ms"] and values[1] == f["p90_ms"] and values[2] == f["total_ms"]
        if f.get("tokens_per_s") is not None:
            assert f["tokens_per_s"] in values


def test_wrong_weights_left_out_not_refused():
    p = subprocess.run([CLI, "runs", "--etdump", LLM, "--program", PTE, "--data", data("program/ptd/external.ptd"),
                        "--json", "-"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "left out" in p.stderr
    assert json.loads(p.stdout)["phase_rule"] == "method"
    ins = etscope.Inspector(etdump_path=LLM, program=PTE, program_data=data("program/ptd/external.ptd"))
    assert any("left out" in w for w in ins.warnings)
    assert ins.run_table()["rule"] == "method"


def test_vulkan_dispatches_inside_their_phase_in_the_trace():
    raw = truth("backend/vulkan_stem/etdump.json")
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "t.json")
        cli("trace", "--etdump", data("backend/vulkan_stem/etdump.etdp"), "-o", out)
        trace = json.load(open(out))
    assert trace["otherData"]["clock_notes"]
    events = [e for e in trace["traceEvents"] if e.get("ph") == "X"]
    graph = {(e["pid"], e["args"]["run"]): e for e in events if e["name"] == "ETVK_COMPUTE_GRAPH_EXECUTE"}
    dispatches = [e for e in events if e["name"].startswith('{"')]
    assert len(dispatches) == 12
    # Durations as recorded (ns), from the flatc input.
    recorded = sorted(int(p["profile_event"]["end_time"]) - int(p["profile_event"]["start_time"])
                      for run in raw["run_data"] for p in run["events"]
                      if p["profile_event"].get("delegate_debug_id_str", "").startswith('{"'))
    assert sorted(e["args"]["dur_ns"] for e in dispatches) == recorded
    for e in dispatches:
        g = graph[(e["pid"], e["args"]["run"])]
        assert g["ts"] <= e["ts"] <= g["ts"] + g["dur"]
