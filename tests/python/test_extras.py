"""Beyond upstream: diff, save_trace, save_report, _repr_html_; threads; to_torch."""

import csv
import io
import json
import threading

import pytest

import etscope
from conftest import cli, fixture, sample

A = fixture("runtime/cnn_mlp_50runs/etdump.etdp")
B = fixture("runtime/cnn_mlp_intermediates/etdump.etdp")


def test_diff_equals_cli():
    df = etscope.Inspector(etdump_path=A).diff(etscope.Inspector(etdump_path=B))
    want = list(csv.DictReader(io.StringIO(cli("diff", "--etdump", A, "--etdump-b", B, "--tsv", "-")), delimiter="\t"))
    assert len(df) == len(want) > 0
    assert list(df["event_name"]) == [w["event_name"] for w in want]
    assert list(df["verdict"]) == [w["verdict"] for w in want]


def test_save_trace_and_report(tmp_path):
    insp = etscope.Inspector(etdump_path=A)
    trace = tmp_path / "t.json"
    insp.save_trace(str(trace))
    cli_trace = tmp_path / "c.json"
    cli("trace", "--etdump", A, "-o", str(cli_trace))
    assert trace.read_bytes() == cli_trace.read_bytes()
    events = json.loads(trace.read_text())["traceEvents"]
    assert sum(1 for e in events if e.get("ph") == "X") > 0
    report = tmp_path / "r.html"
    insp.save_report(str(report))
    text = report.read_text()
    assert text.startswith("<!DOCTYPE html>") and "Method::execute" in text
    html = insp._repr_html_()
    assert "<table>" in html and "Execute" in html


def test_threads_share_an_inspector():
    insp = etscope.Inspector(etdump_path=A)
    want = io.StringIO()
    insp.save_data_to_tsv(want)
    results, errors = [], []

    def work():
        try:
            out = io.StringIO()
            insp.save_data_to_tsv(out)
            results.append(out.getvalue())
            etscope.Inspector(etdump_path=B).to_dataframe()
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and results == [want.getvalue()] * 8


def test_version_and_to_torch():
    assert etscope.__version__
    torch = pytest.importorskip("torch")
    insp = etscope.Inspector(
        etdump_path=sample("xnnpack_mlp/etdump.etdp"), debug_buffer_path=sample("xnnpack_mlp/debug_output.bin")
    )
    out = [b for b in insp.event_blocks if b.name == "Execute"][0].run_output
    t = etscope.to_torch(out)
    assert isinstance(t[0], torch.Tensor) and t[0].numpy().tolist() == out[0].tolist()
