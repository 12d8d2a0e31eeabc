"""read_recordings and the pooled statistics, locally and on a Dask distributed LocalCluster
of two worker processes; pooled rows equal `etscope-cli tsv DIR`'s "(all N files)" rows."""

import csv
import io
import os
import pickle
import shutil

import pytest

import etscope
from conftest import cli, fixture


@pytest.fixture(scope="module")
def farm(tmp_path_factory):
    """Three recordings of the same program (cnn_mlp 50 runs, intermediates, and the 50-run
    file again under another name) in one directory."""
    d = tmp_path_factory.mktemp("farm")
    shutil.copy(fixture("runtime/cnn_mlp_50runs/etdump.etdp"), d / "a.etdp")
    shutil.copy(fixture("runtime/cnn_mlp_intermediates/etdump.etdp"), d / "b.etdp")
    shutil.copy(fixture("runtime/cnn_mlp_50runs/etdump.etdp"), d / "c.etdp")
    return str(d)


def cli_pooled(folder):
    text = cli("tsv", folder)
    rows = list(csv.reader(io.StringIO(text), delimiter="\t"))
    header = rows[0]
    out = {}
    occurrence = {}
    for r in rows[1:]:
        rec = dict(zip(header, r))
        if not rec["file"].startswith("(all "):
            continue
        key = (rec["event_block_name"], rec["event_name"])
        k = occurrence.get(key, 0)
        occurrence[key] = k + 1
        out[key + (k,)] = rec
    return out


def check_pooled(pooled, folder):
    want = cli_pooled(folder)
    assert len(pooled) == len(want) > 0
    for row in pooled.itertuples(index=False):
        w = want[(row.block, row.event, row.occurrence)]
        for stat in ("p10", "p50", "p90", "avg", "min", "max"):
            assert repr(getattr(row, stat)) == repr(float(w[f"{stat} (ms)"])), (row.event, stat)


def test_read_recordings_local(farm):
    df = etscope.read_recordings(farm, jobs=2)
    assert set(df["file"]) == {os.path.join(farm, n) for n in ("a.etdp", "b.etdp", "c.etdp")}
    per_file = df[df["file"].str.endswith("a.etdp")]
    single = etscope.Inspector(etdump_path=os.path.join(farm, "a.etdp"))._prepare_dataframe()
    assert list(per_file["avg"]) == list(single["avg (ms)"])
    check_pooled(etscope.pooled_statistics(df), farm)


def test_summaries_are_picklable(farm):
    s = etscope.read_recording(os.path.join(farm, "a.etdp"))
    assert pickle.loads(pickle.dumps(s)) == s
    bad = etscope.read_recording(os.path.join(farm, "missing.etdp"))
    assert bad["error"] and not bad["events"]


def test_pooled_on_dask_localcluster(farm):
    distributed = pytest.importorskip("distributed")
    paths = sorted(os.path.join(farm, n) for n in os.listdir(farm))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            futures = client.map(etscope.read_recording, paths)
            summaries = client.gather(futures)
            # the workers are other processes: the summaries crossed a process boundary
            assert len(client.scheduler_info()["workers"]) == 2
    df = etscope.recordings_dataframe(summaries)
    check_pooled(etscope.pooled_statistics(df), farm)
