"""Inspector.runs() / run_figures(): the rows and figures equal those tests/tools/gen_runs_expected.py
computed with numpy from the raw events (tests/data/analysis/runs_expected, the same cases as
tests/analysis/runscases.h), and `etscope-cli runs --json` gives the same."""

import json
import math
import os

import pandas as pd
import pytest

import etscope
from conftest import cli, data, fixture

BUILD = os.environ.get("ETSCOPE_BINARY_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
LLM_PTE = os.path.join(BUILD, "tests", "analysis", "programs", "runs_llm.pte")

CASES = {
    "llm_program": (data("analysis/runs_llm.etdp"), LLM_PTE, {"shares_by": "operator"}),
    "llm_none": (data("analysis/runs_llm.etdp"), None, {"phase_by": "none", "shares_by": "operator"}),
    "llm_prefill_runs": (data("analysis/runs_llm.etdp"), None,
                         {"prefill_runs": 2, "prompt_tokens": 8, "shares_by": "operator"}),
    "llm_duration": (data("analysis/runs_llm.etdp"), None, {"phase_by": "duration", "shares_by": "operator"}),
    "cnn_mlp_50runs": (fixture("runtime/cnn_mlp_50runs/etdump.etdp"),
                       fixture("runtime/cnn_mlp_50runs/cnn_mlp.pte"), {"shares_by": "operator"}),
    "xnnpack_mlp": (fixture("runtime/xnnpack_mlp_intermediates/etdump.etdp"),
                    fixture("runtime/xnnpack_mlp_intermediates/xnn_mlp.pte"), {"shares_by": "operator"}),
    "llm_program_backend": (data("analysis/runs_llm.etdp"), LLM_PTE, {"shares_by": "backend-operator"}),
    "xnnpack_mlp_backend": (fixture("runtime/xnnpack_mlp_intermediates/etdump.etdp"),
                            fixture("runtime/xnnpack_mlp_intermediates/xnn_mlp.pte"),
                            {"shares_by": "backend-operator"}),
    "vulkan_stem": (data("backend/vulkan_stem/etdump.etdp"), None, {"shares_by": "operator"}),
    "vulkan_stem_backend": (data("backend/vulkan_stem/etdump.etdp"), None, {"shares_by": "backend-operator"}),
    "vgf_conv_backend": (data("backend/vgf_conv/etdump.etdp"), None, {"shares_by": "backend-operator"}),
    "neutron_kernels_backend": (data("backend/neutron_kernels/etdump.etdp"), None, {"shares_by": "backend-operator"}),
    # The real two-method LLM generation (its weights' .ptd is not needed to attribute runs).
    "llm_decoder_runtime": (data("runtime/llm_decoder/profile/etdump.etdp"),
                            data("runtime/llm_decoder/llm_decoder.pte"), {"shares_by": "operator"}),
}


def expected(name):
    with open(data(f"analysis/runs_expected/{name}.json")) as f:
        return json.load(f)


def close(e, a, at=""):
    if isinstance(e, bool) or e is None or isinstance(e, str):
        assert e == a, at
    elif isinstance(e, (int, float)):
        assert math.isclose(e, a, rel_tol=1e-9, abs_tol=1e-12), (at, e, a)
    elif isinstance(e, dict):
        for k, v in e.items():
            close(v, a[k], f"{at}.{k}")
    else:
        assert len(e) == len(a), at
        for i, (x, y) in enumerate(zip(e, a)):
            close(x, y, f"{at}[{i}]")


@pytest.mark.parametrize("name", list(CASES))
def test_runs_equal_numpy(name):
    etdump, program, opts = CASES[name]
    exp = expected(name)
    insp = etscope.Inspector(etdump_path=etdump)
    df = insp.runs(program=program, **opts)
    assert list(df.columns) == ["index", "method", "phase", "generation", "start_ns", "duration_ms", "tokens", "warmup",
                                "outlier"]
    assert len(df) == len(exp["runs"])
    for row, e in zip(df.itertuples(index=False), exp["runs"]):
        got = row._asdict()
        got["tokens"] = None if pd.isna(got["tokens"]) else int(got["tokens"])
        got.pop("generation")
        close(e, got, f"run {e['index']}")
    figures = insp.run_figures(program=program, **opts)
    assert df.attrs["figures"] == figures
    for key in ("phase_rule", "shares_by", "phases", "time_to_first_token_ms", "shares"):
        close(exp[key], figures[key], key)


def test_cli_json_equals_python():
    etdump, program, _ = CASES["llm_program"]
    out = json.loads(cli("runs", "--etdump", etdump, "--program", program, "--json", "-"))
    figures = etscope.Inspector(etdump_path=etdump).run_figures(program=program)
    for key in ("phases", "time_to_first_token_ms", "shares", "phase_rule", "notes"):
        assert out[key] == figures[key], key
    assert out["coverage"] == figures["coverage"]


@pytest.mark.parametrize("name", ["cnn_mlp_50runs", "add_pte_50runs"])
def test_figures_carry_the_coverage(name):
    """run_figures()["coverage"]: how much of Method::execute the events explain, beside the shares.
    Truth: tests/data/analysis/coverage_expected.json (numpy over `flatc --json`,
    tests/tools/gen_coverage_expected.py); the 50-run add explains 80.7 % and is flagged low."""
    with open(data("analysis/coverage_expected.json")) as f:
        truth = json.load(f)[name]
    figures = etscope.Inspector(etdump_path=fixture(f"runtime/{name}/etdump.etdp")).run_figures()
    cov = figures["coverage"]
    assert math.isclose(cov["execute"], truth["execute"], rel_tol=1e-9)
    assert math.isclose(cov["explained"], truth["explained"], rel_tol=1e-9)
    assert cov["low"] == (truth["explained"] / truth["execute"] < 0.9)


def test_cli_json_equals_python_by_backend_operator():
    """`--shares-by backend-operator` and `shares_by="backend-operator"` give the same figures; the
    XNNPACK GEMM instances ("... GEMM #1", "#2") share one row (numpy: runs_expected)."""
    etdump, program, opts = CASES["llm_program_backend"]
    out = json.loads(cli("runs", "--etdump", etdump, "--program", program, "--shares-by", "backend-operator",
                         "--json", "-"))
    figures = etscope.Inspector(etdump_path=etdump).run_figures(program=program, **opts)
    for key in ("phases", "shares", "shares_by", "notes"):
        assert out[key] == figures[key], key
    assert figures["shares_by"] == "backend-operator"
    assert "Fully Connected" in [s["name"] for s in figures["shares"]["decode"]]
    with pytest.raises(ValueError):
        etscope.Inspector(etdump_path=etdump).run_figures(shares_by="kernel")


@pytest.mark.parametrize("name", ["llm_program", "llm_prefill_runs", "cnn_mlp_50runs", "xnnpack_mlp"])
def test_cli_json_is_compact_json_in_the_documented_key_order(name):
    """The JSON is written row by row (docs/performance.md): its bytes are Python's compact
    serialization of what it parses to (key order kept), and the keys come in docs/formats.md's order."""
    etdump, program, kw = CASES[name]
    args = ["runs", "--etdump", etdump, "--json", "-"]
    if program:
        args += ["--program", program]
    if "prefill_runs" in kw:
        args += ["--prefill-runs", str(kw["prefill_runs"]), "--prompt-tokens", str(kw["prompt_tokens"])]
    text = cli(*args)
    doc = json.loads(text)
    assert text == json.dumps(doc, separators=(",", ":"), ensure_ascii=False) + "\n"
    assert list(doc) == ["file", "program", "phase_rule", "phase_rule_line", "generations", "shares_by", "runs",
                         "phases", "time_to_first_token_ms", "shares", "notes", "coverage"]
    for run in doc["runs"]:
        assert list(run)[:9] == ["index", "method", "phase", "generation", "start_ns", "duration_ms", "outlier",
                                 "warmup", "tokens"]
    for rows in doc["shares"].values():
        assert all(list(r) == ["name", "total_ms", "share", "calls", "delegated_share"] for r in rows)


def test_runs_leave_the_inspector_table_alone():
    """runs() adds nothing to to_dataframe(): upstream's columns, in upstream's order."""
    insp = etscope.Inspector(etdump_path=data("analysis/runs_llm.etdp"))
    before = list(insp.to_dataframe().columns)
    insp.runs(program=LLM_PTE)
    assert list(insp.to_dataframe().columns) == before
    assert "method" not in before


def test_runs_argument_errors():
    insp = etscope.Inspector(etdump_path=data("analysis/runs_llm.etdp"))
    with pytest.raises(ValueError, match="phase_by"):
        insp.runs(phase_by="tokens")
    with pytest.raises(ValueError, match="not both"):
        insp.runs(phase_by="duration", prefill_runs=2)
    with pytest.raises(ValueError, match="--method needs the program"):
        insp.runs(method="kv_forward")
    with pytest.raises(ValueError, match="no method named 'generate'"):
        insp.runs(program=LLM_PTE, method="generate")
    with pytest.raises(OSError):
        insp.runs(program=data("analysis/no_such.pte"))
