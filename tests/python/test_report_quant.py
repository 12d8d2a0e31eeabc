"""Inspector.save_report(decompose=True, graph_diff=(a, b)): the report's error-decomposition and
graph-against-graph sections equal those `etscope-cli report --decompose --graph-diff A B` writes
from the same files and options (section for section, byte for byte).

Expected values besides the CLI's: tests/data/eval/quant_runs_expected.json, the dominant error of
every op by construction (tests/tools/gen_quant_runs.py: kernel where a kernel error was injected
into the authored run, quantization where numpy's MSE of PyTorch's fake-quantized against its
float-twin values exceeds the noise level, noise otherwise).
"""

import json
import re
from html.parser import HTMLParser

import pytest

import etscope
from conftest import cli, data


def section(html, sid):
    m = re.search(r'<section id="%s">.*?</section>' % re.escape(sid), html, re.S)
    return m.group(0) if m else None


class _Balance(HTMLParser):
    """Every element closed, in order (void elements aside; <rect .../> is a start-end tag)."""

    VOID = {"meta", "br", "img", "input", "link", "hr"}

    def __init__(self):
        super().__init__()
        self.stack, self.errors = [], []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()
        else:
            self.errors.append((tag, self.getpos()))


def assert_balanced(html):
    p = _Balance()
    p.feed(html)
    p.close()
    assert p.errors == [] and p.stack == []


def test_sections_equal_cli_and_truth(tmp_path):
    etdump, buffer, etrecord = (data("eval/qcnn_kernel.etdp"), data("eval/qcnn_kernel.bin"),
                                data("eval/qcnn_etrecord.bin"))
    graph = "edge_dialect_exported_program"
    insp = etscope.Inspector(etdump_path=etdump, debug_buffer_path=buffer, etrecord=etrecord)
    out = tmp_path / "py.html"
    insp.save_report(str(out), decompose=True, graph_diff=(graph, graph), reference_graph=graph)
    py = out.read_text(encoding="utf-8")
    cli_out = tmp_path / "cli.html"
    cli("report", "--etdump", etdump, "--debug-buffer", buffer, "--etrecord", etrecord, "--decompose",
        "--graph-diff", graph, graph, "--reference-graph", graph, "-o", str(cli_out))
    want = cli_out.read_text(encoding="utf-8")
    for sid in ("decompose", "graph-diff"):
        assert section(py, sid) is not None
        assert section(py, sid) == section(want, sid)
    truth = json.load(open(data("eval/quant_runs_expected.json")))["models"]["qcnn"]["runs"]["kernel"]
    rows = re.findall(r'<tr data-instruction="(-?\d+)" data-dominant="(\w+)">', section(py, "decompose"))
    assert [(int(i), d) for i, d in rows] == [(t["instruction"], t["dominant"]) for t in truth]
    assert 'id="summary-decompose"' in py and 'id="summary-graph-diff"' in py
    assert_balanced(py)


def test_plain_report_has_no_sections(tmp_path):
    insp = etscope.Inspector(etdump_path=data("eval/qcnn_kernel.etdp"), etrecord=data("eval/qcnn_etrecord.bin"))
    out = tmp_path / "r.html"
    insp.save_report(str(out))
    text = out.read_text(encoding="utf-8")
    assert 'id="decompose"' not in text and 'id="graph-diff"' not in text


def test_bad_arguments(tmp_path):
    insp = etscope.Inspector(etdump_path=data("eval/qcnn_kernel.etdp"), etrecord=data("eval/qcnn_etrecord.bin"))
    out = tmp_path / "r.html"
    with pytest.raises(ValueError):
        insp.save_report(str(out), graph_diff="exported_program")
    with pytest.raises(ValueError):
        insp.save_report(str(out), decompose=True)  # no debug buffer
    with pytest.raises(ValueError, match="no graph named 'nosuch'"):
        insp.save_report(str(out), graph_diff=("edge_dialect_exported_program", "nosuch"))
    assert not out.exists()  # a failed export leaves no file
