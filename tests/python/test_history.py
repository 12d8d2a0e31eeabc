"""etscope.history on the generated series of tests/data/history (tests/tools/gen_history_series.py:
steps planted at known recordings of real-shaped recordings; p50s by numpy from the events'
times): the DataFrame holds numpy's series in label order, the change points are the planted
steps, equal to the CLI's JSON."""

import json
import os
import subprocess
import warnings

import numpy as np
import pytest

import etscope
from conftest import CLI, data, fixture

STEPS = data("history/steps")
LABELS = data("history/steps/labels.csv")


def expected():
    with open(data("history/history_expected.json")) as f:
        return json.load(f)["steps"]


def twin_index(truth, name):
    """Where the independent numpy E-divisive put the change (within one recording of the step)."""
    return next(s["change_points"][0]["index"] for s in truth["series"] if s["name"] == name)


def test_frame_is_numpys_series_in_label_order():
    truth = expected()
    frame, changes = etscope.history(STEPS, labels=LABELS)
    assert frame.attrs["unit"] == "ms"
    labels = [r["label"] for r in truth["recordings"]]
    for ts in truth["series"]:
        if ts["name"] in ("Method::execute", "total of operators"):
            continue
        rows = frame[frame.series == ts["name"]]
        assert list(rows.label) == labels
        np.testing.assert_allclose(rows.p50.to_numpy(), ts["p50"], rtol=1e-12)
        np.testing.assert_allclose(rows.p10.to_numpy(), ts["p10"], rtol=1e-12)


def test_change_points_are_the_planted_steps_and_equal_the_cli():
    truth = expected()
    frame, changes = etscope.history(STEPS, labels=LABELS)
    got = {r.name: r for r in changes.itertuples()}
    assert sorted(got) == sorted(s["name"] for s in truth["steps"])
    for s in truth["steps"]:
        c = got[s["name"]]
        assert c.index == twin_index(truth, s["name"])
        assert abs(c.index - s["index"]) <= 1
        assert c.label == truth["recordings"][c.index]["label"]
        assert abs(c.change_percent - 100 * s["size"]) < 1.5
        assert c.p <= 0.001
    cli = json.loads(subprocess.run([CLI, "history", STEPS, "--labels", LABELS, "--json", "-"], check=True,
                                    capture_output=True).stdout)
    assert [(c["name"], c["index"], c["p"], c["before"], c["after"]) for c in cli["change_points"]] == \
        [(c.name, c.index, c.p, c.before, c.after) for c in changes.itertuples()]


def test_labels_as_a_mapping():
    truth = expected()
    mapping = {os.path.join(STEPS, r["file"]): r["label"] for r in truth["recordings"]}
    frame, changes = etscope.history(STEPS, labels=mapping)
    assert sorted(changes.index.tolist()) == list(range(len(truth["steps"])))
    assert sorted(changes["index"]) == sorted(twin_index(truth, s["name"]) for s in truth["steps"])


def test_two_programs_warn_and_split():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        frame, changes = etscope.history([fixture("runtime/cnn_mlp_50runs/etdump.etdp"),
                                          fixture("runtime/add_pte_50runs/etdump.etdp")], by="method")
    assert any("2 different programs" in str(x.message) for x in w)
    assert sorted(frame.program.unique()) == [0, 1]


def test_errors():
    with pytest.raises(OSError):
        etscope.history(data("history/none"))
    with pytest.raises(ValueError):
        etscope.history(STEPS, by="kernel")
