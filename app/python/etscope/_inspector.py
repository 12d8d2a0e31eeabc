"""The Inspector's classes (Inspector, EventBlock, Event, PerfData, TimeScale) on etscope's core.

Names, arguments, defaults and errors follow executorch.devtools.inspector; the numbers come
from etscope's C++ core (the same code as `etscope-cli`), so a script switches by changing its
import line.
"""

import os
import sys
import warnings
from typing import Any, Callable, Dict, IO, List, Optional, Tuple, Union

from . import _determinism, _native
from ._gap import numeric_gap, numeric_gap_decomposed
from ._graph import ExportedProgram
from ._process import _no_gc, _pandas, _prefetch_pandas  # noqa: F401 (re-exported for old imports)
from ._units import _SCALES, _TIME_FACTOR, TimeScale, _run_range, _scale_value  # noqa: F401

# Imported on first use, not here: _graphdiff (it imports logging) and _extras (tempfile, html),
# which `import etscope` would otherwise load for methods most scripts never call. Neither
# imports this module, nor does any module above: the package has no import cycle
# (tests/python/test_imports.py).

__all__ = ["Event", "EventBlock", "Inspector", "PerfData", "TimeScale", "ETRecord", "parse_etrecord"]


_UNREAD = object()  # a lazily read attribute not read yet


def _frame(pd, session, blocks, units):
    with _no_gc():
        cols = session.block_columns(blocks)
    if units:
        cols = {(k + units if k in _STAT_NAMES else k): v for k, v in cols.items()}
    return pd.DataFrame(cols, copy=False)


class PerfData:
    """Durations of an Event over the runs of its block, with upstream's statistics."""

    __slots__ = ("raw", "p10", "p50", "p90", "avg", "min", "max")

    def __init__(self, raw, p10=None, p50=None, p90=None, avg=None, min=None, max=None):
        self.raw = list(raw)
        if p10 is None:  # built by hand: numpy's statistics, as upstream computes them
            import numpy as np

            a = np.asarray(self.raw, dtype=float)
            p10, p50, p90 = (float(np.percentile(a, q)) for q in (10, 50, 90))
            avg, min, max = float(np.mean(a)), float(a.min()), float(a.max())
        self.p10, self.p50, self.p90, self.avg, self.min, self.max = p10, p50, p90, avg, min, max

    def __repr__(self):
        return f"PerfData(runs={len(self.raw)}, p50={self.p50}, avg={self.avg})"


class Event:
    """One operator instance (or framework / delegate event) with its latency over runs."""

    _FIELDS = (
        "name",
        "perf_data",
        "op_types",
        "delegate_debug_identifier",
        "debug_handles",
        "num_outputs",
        "stack_traces",
        "module_hierarchy",
        "is_delegated_op",
        "delegate_backend_name",
        "_delegate_debug_metadatas",
        "debug_data",
        "_instruction_id",
        "_start_time",
        "_run_count",
    )
    __slots__ = _FIELDS + ("_delegate_metadata_parser", "_parsed_metadatas")

    def __init__(self, name: str, perf_data: Optional[PerfData] = None, op_types=None, **kw):
        self.name = name
        self.perf_data = perf_data
        self.op_types = list(op_types or [])
        self.delegate_debug_identifier = kw.get("delegate_debug_identifier")
        self.debug_handles = kw.get("debug_handles")
        self.num_outputs = kw.get("num_outputs", 1)
        self.stack_traces = kw.get("stack_traces", {})
        self.module_hierarchy = kw.get("module_hierarchy", {})
        self.is_delegated_op = kw.get("is_delegated_op")
        self.delegate_backend_name = kw.get("delegate_backend_name")
        self._delegate_debug_metadatas = kw.get("_delegate_debug_metadatas", [])
        self.debug_data = kw.get("debug_data", [])
        self._instruction_id = kw.get("_instruction_id")
        self._start_time = kw.get("_start_time")
        self._run_count = len(perf_data.raw) if perf_data else 0
        self._delegate_metadata_parser = kw.get("_delegate_metadata_parser")

    @classmethod
    def _from_native(cls, t, parser, _new=object.__new__):
        """From session.block_events()'s tuple (fields in _FIELDS order; fresh lists and dicts):
        slots assigned by unpacking, no copies. A recording of a million events makes a million
        of these when a script walks block.events."""
        e = _new(cls)
        (e.name, perf, e.op_types, e.delegate_debug_identifier, e.debug_handles, e.num_outputs, e.stack_traces,
         e.module_hierarchy, e.is_delegated_op, e.delegate_backend_name, e._delegate_debug_metadatas, e.debug_data,
         e._instruction_id, e._start_time, e._run_count) = t
        if perf is not None:
            p = _new(PerfData)
            p.raw, p.p10, p.p50, p.p90, p.avg, p.min, p.max = perf
            perf = p
        e.perf_data = perf
        e._delegate_metadata_parser = parser
        return e

    @property
    def start_time(self):
        return self._start_time

    @property
    def raw_delegate_debug_metadatas(self) -> List[bytes]:
        return self._delegate_debug_metadatas

    @property
    def delegate_debug_metadatas(self):
        """Parsed with the Inspector's delegate_metadata_parser when one was given."""
        if not self.is_delegated_op or self._delegate_metadata_parser is None:
            return self._delegate_debug_metadatas
        try:
            return self._parsed_metadatas
        except AttributeError:
            self._parsed_metadatas = self._delegate_metadata_parser(self._delegate_debug_metadatas)
            return self._parsed_metadatas

    def asdict(self, _units=""):
        p = self.perf_data
        ops = self.op_types
        if len(ops) >= 5:
            ops = f"['{ops[0]}', '{ops[1]}' ... '{ops[-1]}'] ({len(ops)} total)"
        return {
            "event_name": self.name,
            "raw": [p.raw if p else None],
            "p10" + _units: p.p10 if p else None,
            "p50" + _units: p.p50 if p else None,
            "p90" + _units: p.p90 if p else None,
            "avg" + _units: p.avg if p else None,
            "min" + _units: p.min if p else None,
            "max" + _units: p.max if p else None,
            "op_types": [ops],
            "delegate_debug_identifier": self.delegate_debug_identifier,
            "stack_traces": [self.stack_traces],
            "module_hierarchy": [self.module_hierarchy],
            "is_delegated_op": self.is_delegated_op,
            "delegate_backend_name": self.delegate_backend_name,
            "debug_data": [self.debug_data],
            "start_time": [self._start_time],
        }

    def to_dataframe(self, _units=""):
        return _pandas().DataFrame(self.asdict(_units=_units))

    def __repr__(self):
        return (
            f"Event(name={self.name!r}, instruction_id={self._instruction_id}, "
            f"runs={self._run_count}, op_types={self.op_types!r})"
        )


class EventBlock:
    """A group of runs with identical run signatures (upstream's EventBlock)."""

    def __init__(self, name: str, events: Optional[List[Event]] = None, **kw):
        self.name = name
        self._events = list(events) if events is not None else []
        self.source_time_scale = kw.get("source_time_scale", TimeScale.NS)
        self.target_time_scale = kw.get("target_time_scale", TimeScale.MS)
        self.bundled_input_index = kw.get("bundled_input_index")
        self._run_output = kw.get("run_output")
        self._reference_output = kw.get("reference_output")
        self._native = None
        self._index = -1
        self._parser = None
        self._event_count = None

    @classmethod
    def _from_native(cls, session, index, parser, info):
        """`info`: this block's entry of session.block_infos(). Nothing per event is made here,
        and the run outputs are read on first use: a recording of 17,600 blocks costs little."""
        b = cls.__new__(cls)
        b.name, source, target, b.bundled_input_index, b._event_count, b.warnings = info
        b.source_time_scale, b.target_time_scale = _SCALES[source], _SCALES[target]
        b._events = None  # made on first access: a 500k-event block costs nothing until read
        b._run_output = _UNREAD
        b._reference_output = None
        b._native, b._index, b._parser = session, index, parser
        return b

    @property
    def run_output(self):
        """The program outputs of the block's first run (read on first use)."""
        if self._run_output is _UNREAD:
            self._run_output = self._native.block_info(self._index)["run_output"]
        return self._run_output

    @run_output.setter
    def run_output(self, value):
        self._run_output = value

    @property
    def events(self) -> List[Event]:
        if self._events is None:
            parser = self._parser
            with _no_gc():
                self._events = [Event._from_native(t, parser) for t in self._native.block_events(self._index)]
        return self._events

    @events.setter
    def events(self, value):
        self._events = list(value)

    @property
    def reference_output(self):
        """The ETRecord's reference outputs for this block's bundled input (read on first use)."""
        if self._reference_output is None and self._native is not None:
            self._reference_output = self._native.reference_output(self._index)
        return self._reference_output

    @reference_output.setter
    def reference_output(self, value):
        self._reference_output = value

    def to_dataframe(self, include_units: bool = False, include_delegate_debug_data: bool = False):
        pd = _pandas()
        units = " (" + self.target_time_scale.value + ")" if include_units else ""
        if self._native is not None and self._events is None:
            df = _frame(pd, self._native, [self._index], units)
        else:  # the Event objects (read or changed by the caller) are the source
            df = _frame_from_events(pd, self.name, self.events, units)
        if include_delegate_debug_data:
            df = _with_delegate_columns(pd, df, self.events)
        return df

    def __repr__(self):
        n = len(self._events) if self._events is not None else self._event_count
        return f"EventBlock(name={self.name!r}, events={n})"


_STAT_NAMES = ("p10", "p50", "p90", "avg", "min", "max")


# asdict() wraps these cells in a one-element list, for pd.DataFrame(dict) of one row.
_LIST_CELLS = ("raw", "op_types", "stack_traces", "module_hierarchy", "debug_data", "start_time")


def _objects(values):
    import numpy as np

    a = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):  # element by element: lists stay cells, not a 2-D array
        a[i] = v
    return a


def _durations_array(v):
    import numpy as np

    return None if v is None else np.asarray(v, dtype=np.float64)


def _ticks_array(v):
    """Start times as the core's frame holds them: uint64 when they are non-negative integers."""
    import numpy as np

    if v is None:
        return None
    a = np.asarray(v)
    if a.dtype.kind == "i" and (a >= 0).all():
        a = a.astype(np.uint64)
    return a


def _as_lists(df, column):
    """A column of numpy cells as lists again, so that pandas prints them as upstream's lists."""
    df[column] = _objects([v.tolist() if hasattr(v, "tolist") else v for v in df[column]])


def _frame_from_events(pd, block_name, events, units):
    """Upstream's per-event rows (Event.asdict) as one frame, without a frame per event."""
    keys = list(Event("").asdict(_units=units))
    with _no_gc():
        rows = [e.asdict(_units=units) for e in events]
        cols = {"event_block_name": _objects([block_name] * len(rows))}
        for key in keys:
            cols[key] = _objects([r[key][0] for r in rows] if key in _LIST_CELLS else [r[key] for r in rows])
        # numpy cells, as the frame built from the core has them (docs/inspector-semantics.md §4)
        cols["raw"] = _objects([_durations_array(v) for v in cols["raw"]])
        cols["start_time"] = _objects([_ticks_array(v) for v in cols["start_time"]])
    df = pd.DataFrame(cols, copy=False)
    for key in keys:
        typed = float if key.split(" ")[0] in _STAT_NAMES else bool if key == "is_delegated_op" else None
        if typed and rows and all(v is not None for v in cols[key]):
            df[key] = df[key].astype(typed)
    return df


def _with_delegate_columns(pd, df, events):
    """Upstream's delegate debug metadata columns: a list in one column, or a parsed dict's keys."""
    series = []
    for e in events:
        meta = e.delegate_debug_metadatas
        if meta is not None and len(meta) > 0:
            if isinstance(meta, list):
                series.append(pd.Series([meta], index=["delegate_debug_metadata"], dtype=object))
            elif isinstance(meta, dict):
                series.append(pd.Series(meta, dtype=object))
            else:
                raise ValueError(f"Unexpected type for delegate_debug_metadata: {type(meta)}")
        else:
            series.append(pd.Series(dtype=object))
    if any(not s.empty for s in series):
        df = pd.concat([df, pd.DataFrame(series)], axis=1)
    return df


class ETRecord:
    """An ETRecord read by etscope's reader (restricted unpickler; nothing is executed)."""

    def __init__(self, native):
        self._native = native

    @property
    def path(self):
        return self._native.path

    @property
    def graph_map(self) -> Dict[str, "ExportedProgram"]:
        return {name: ExportedProgram(self._native, name) for name in self._native.programs()}

    @property
    def edge_dialect_program(self):
        names = self._native.programs()
        for candidate in ("edge_dialect_exported_program/forward", "edge_dialect_exported_program"):
            if candidate in names:
                return ExportedProgram(self._native, candidate)
        return None

    @property
    def exported_program(self):
        return ExportedProgram(
            self._native, "exported_program") if "exported_program" in self._native.programs() else None

    def graph_diff(self, a="exported_program", b="edge_dialect_exported_program", distance="MSE", *,
                   threshold=None, inputs=None, bundled_program=None, test_case=0):
        """Two of this ETRecord's graphs compared layer by layer (see Inspector.graph_diff)."""
        from ._graphdiff import graph_diff

        return graph_diff(self._native, a, b, distance, threshold, inputs, bundled_program, test_case)

    def __repr__(self):
        return f"ETRecord({self.path!r}, programs={self._native.programs()!r})"


def parse_etrecord(etrecord_path: str) -> ETRecord:
    """Reads an ETRecord (OSError when unreadable, ValueError when not an ETRecord)."""
    return ETRecord(_native.parse_etrecord(os.fspath(etrecord_path)))


class Inspector:
    """APIs for examining model performance and numerics (upstream's constructor and methods)."""

    def __init__(
        self,
        etdump_path: Optional[str] = None,
        etdump_data: Optional[bytes] = None,
        etrecord: Optional[Union[ETRecord, str]] = None,
        source_time_scale: TimeScale = TimeScale.NS,
        target_time_scale: TimeScale = TimeScale.MS,
        debug_buffer_path: Optional[str] = None,
        delegate_metadata_parser: Optional[Callable[[List[str]], Dict[str, Any]]] = None,
        delegate_time_scale_converter: Optional[Callable[[
            Union[int, str], Union[int, float]], Union[int, float]]] = None,
        enable_module_hierarchy: bool = False,
        *,
        program: Optional[str] = None,
        program_data: Optional[Union[str, List[str]]] = None,
        phase_by: Optional[str] = None,
        prefill_runs: Optional[int] = None,
    ) -> None:
        """Upstream's constructor. Beyond upstream: program= (a .pte or .bpte) and program_data=
        (its .ptd files) are the session's program: each run is attributed to its method and
        phase once (left out with a warning when they do not belong); phase_by= ("method",
        "operators", "duration", "none") or prefill_runs=N override how phases are decided."""
        source, target = _scale_value(source_time_scale), _scale_value(target_time_scale)
        if (source == "cycles") ^ (target == "cycles"):
            raise RuntimeError(
                "For TimeScale in cycles both the source and target time scale have to be in cycles."
            )
        self._source_time_scale = TimeScale(source)
        self._target_time_scale = TimeScale(target)
        if etrecord is None:
            self._etrecord = None
        elif isinstance(etrecord, ETRecord):
            self._etrecord = etrecord
        elif isinstance(etrecord, (str, os.PathLike)):
            self._etrecord = parse_etrecord(etrecord)
        else:
            raise TypeError("Unsupported ETRecord type")
        if (etdump_path is None) == (etdump_data is None):
            raise ValueError("Expecting exactly one of etdump_path or etdump_data to be specified.")
        if debug_buffer_path is None:
            warnings.warn("Output Buffer not found. Tensor Debug Data will not be available.", stacklevel=2)
        self._paths = dict(
            etdump=None if etdump_path is None else os.fspath(etdump_path),
            debug_buffer=None if debug_buffer_path is None else os.fspath(debug_buffer_path),
            etrecord=self._etrecord.path if self._etrecord else None,
        )
        if isinstance(program_data, (str, os.PathLike)):
            program_data = [program_data]
        self._program = dict(
            program=None if program is None else os.fspath(program),
            program_data=[os.fspath(p) for p in (program_data or [])],
            phase_by=phase_by,
            prefill_runs=prefill_runs,
        )
        if phase_by is not None and prefill_runs is not None:
            raise ValueError("give phase_by or prefill_runs, not both")
        self._load_args = dict(
            etdump_path=self._paths["etdump"],
            etdump_data=None if etdump_data is None else bytes(etdump_data),
            debug_buffer_path=self._paths["debug_buffer"],
            etrecord=self._etrecord._native if self._etrecord else None,
            source=source,
            target=target,
            cycles_per_second=None,
            delegate_time_converter=delegate_time_scale_converter,
        )
        _prefetch_pandas()
        self._native = self._load_native(**self._program)
        self._enable_module_hierarchy = enable_module_hierarchy
        self._delegate_metadata_parser = delegate_metadata_parser
        self.event_blocks: List[EventBlock] = [
            EventBlock._from_native(self._native, i, delegate_metadata_parser, info)
            for i, info in enumerate(self._native.block_infos())
        ]
        self.warnings: List[str] = list(self._native.warnings)

    def _load_native(self, program=None, program_data=(), phase_by=None, prefill_runs=None):
        # The one route to the program: a session input, never opened beside the session.
        return _native.load(
            **self._load_args,
            program=program or "",
            program_data=list(program_data or []),
            phase_by=phase_by or "",
            prefill_runs=prefill_runs,
        )

    def _session_with(self, program=None, phase_by=None, prefill_runs=None):
        """This recording's session, or one loaded with another program or phase rule."""
        wanted = dict(self._program)
        if program is not None:
            wanted["program"] = os.fspath(program)
            if wanted["program"] != self._program["program"]:
                wanted["program_data"] = []
        if phase_by is not None or prefill_runs is not None:
            wanted["phase_by"], wanted["prefill_runs"] = phase_by, prefill_runs
        if wanted == self._program:
            return self._native
        return self._load_native(**wanted)

    def _scoped(self, method, phase, runs, native=None):
        """The session restricted to a scope (method, phase, run range): a dict with the scoped
        native session, each block's method and phase, the scope's label and rule."""
        return _native.scoped(native or self._native, method or "", phase or "", _run_range(runs))

    def run_table(self) -> Dict[str, Any]:
        """Each executed run as the session decided it once: index, method, phase, generation
        (from 0), warmup, outlier, run_data_index; rule and rule_line say which rule decided."""
        return _native.run_table(self._native)

    # -- tables ---------------------------------------------------------------------------
    def to_dataframe(
        self,
        include_units: bool = True,
        include_delegate_debug_data: bool = False,
        *,
        method: Optional[str] = None,
        phase: Optional[str] = None,
        runs: Optional[Union[str, Tuple[int, int]]] = None,
    ):
        """Upstream's DataFrame of the EventBlocks. Beyond upstream: a scope (method=, phase=
        "prefill" / "decode" / "warmup" / "other", runs="N-M") restricts it to those runs, every
        statistic recomputed over them, with "method" and "phase" columns; df.attrs["scope"]
        names the runs and the rule that decided the phases. Without one: upstream's frame."""
        pd = _pandas()
        if method is not None or phase is not None or runs is not None:
            s = self._scoped(method, phase, runs)
            native = s["session"]
            units = " (" + self._target_time_scale.value + ")" if include_units else ""
            infos = native.block_infos()
            if not infos:
                return pd.DataFrame()
            df = _frame(pd, native, list(range(len(infos))), units)
            counts = [info[4] for info in infos]  # (name, source, target, bundled index, events, warnings)
            df["method"] = pd.Series([m or None for m, n in zip(s["methods"], counts) for _ in range(n)], dtype=object)
            df["phase"] = pd.Series([p for p, n in zip(s["phases"], counts) for _ in range(n)], dtype=object)
            df.attrs["scope"] = {"label": s["label"], "rule": s["rule"], "runs": s["runs"]}
            return df
        blocks = self.event_blocks
        if not blocks:
            return pd.DataFrame()
        if all(b._native is self._native and b._events is None for b in blocks):
            # Events not yet read as objects: the core's are the source.
            # One frame for every block at once (no pd.concat of per-block copies).
            units = " (" + self._target_time_scale.value + ")" if include_units else ""
            df = _frame(pd, self._native, [b._index for b in blocks], units)
            if include_delegate_debug_data:
                df = _with_delegate_columns(pd, df, [e for b in blocks for e in b.events])
            return df
        return pd.concat([b.to_dataframe(include_units, include_delegate_debug_data)
                         for b in blocks], ignore_index=True)

    def _prepare_dataframe(self, include_units=True, include_delegate_debug_data=False):
        df = self.to_dataframe(include_units, include_delegate_debug_data)
        df = df.drop(columns=["raw", "delegate_debug_identifier", "stack_traces", "module_hierarchy", "debug_data"])
        df = df[~df["event_name"].str.contains("OPERATOR_CALL")].reset_index(drop=True)
        _as_lists(df, "start_time")  # printed as upstream's list, not as a numpy array
        return df

    def _needs_pandas_table(self, include_delegate_debug_data):
        # Upstream adds columns for every delegated event whose (parsed) metadata is non-empty;
        # otherwise the table is the core's.
        if not include_delegate_debug_data:
            return False
        for b in self.event_blocks:
            for e in b.events:
                if e.is_delegated_op:
                    meta = e.delegate_debug_metadatas
                    if meta is not None and len(meta) > 0:
                        return True
        return False

    def print_data_tabular(
        self, file: IO[str] = sys.stdout, include_units: bool = True, include_delegate_debug_data: bool = False
    ) -> None:
        """tabulate's fancy_grid of the events, OPERATOR_CALL rows dropped: `etscope-cli table`'s bytes."""
        if self._needs_pandas_table(include_delegate_debug_data):
            from tabulate import tabulate

            df = self._prepare_dataframe(include_units, include_delegate_debug_data)
            print(tabulate(df, headers="keys", tablefmt="fancy_grid"), file=file)
            return
        self._native.write_table(True, "\t", include_units, False, file.write)

    def save_data_to_tsv(self, file: IO[str], include_units: bool = True,
                         include_delegate_debug_data: bool = False) -> None:
        """df.to_csv(file, sep='\\t') of the printed rows: `etscope-cli tsv`'s bytes."""
        if self._needs_pandas_table(include_delegate_debug_data):
            self._prepare_dataframe(include_units, include_delegate_debug_data).to_csv(file, sep="\t")
            return
        self._native.write_table(False, "\t", include_units, False, file.write)

    def find_total_for_module(self, module_name: str) -> float:
        return self._native.find_total_for_module(module_name)

    def get_op_list(self, event_block: str, show_delegated_ops: Optional[bool] = True):
        return {}  # upstream's is a TODO returning {} too

    def write_tensorboard_artifact(self, path: str) -> None:
        pass  # upstream's is a TODO too

    # -- ETRecord ---------------------------------------------------------------------------
    def get_exported_program(self, graph: Optional[str] = None):
        if self._etrecord is None:
            import logging

            logging.getLogger(__name__).warning(
                "Exported program is only available when a valid etrecord_path was provided at the time of "
                "Inspector construction"
            )
            return None
        if graph is None:
            return self._etrecord.edge_dialect_program
        return self._etrecord.graph_map.get(graph)

    # -- numerics ---------------------------------------------------------------------------
    def calculate_numeric_gap(
        self,
        distance: Union[str, Any] = "MSE",
        disable_debug_handle_valdiation: bool = False,
        reference_graph: Optional[str] = None,
        *,
        isolate: bool = False,
        inputs: Optional[str] = None,
        bundled_program: Optional[str] = None,
        test_case: int = 0,
        decompose: bool = False,
        method: Optional[str] = None,
        phase: Optional[str] = None,
    ):
        """Upstream's gap table with the reference computed by etscope's evaluator.

        Beyond upstream: isolate=True evaluates every node from the runtime values of its inputs
        (the gap is the error that op introduces); inputs= a torch.save'd tuple of inputs, or
        bundled_program= / test_case= instead of the ETRecord's representative inputs.
        decompose=True (quantized models): one row per runtime output with quant_error (float twin
        vs fake-quantized graph), kernel_error (fake-quantized graph vs runtime), total_error and
        dominant ("quantization", "kernel" or "noise"); df.attrs["summary"] holds the sentence
        (`etscope-cli gap --decompose`).
        method= / phase= (beyond upstream): only the events of the runs in that scope.
        """
        native = None
        if method is not None or phase is not None:
            native = self._scoped(method, phase, None)["session"]
        if decompose:
            if isolate:
                raise ValueError("decompose=True compares whole graphs; it does not combine with isolate=True")
            return numeric_gap_decomposed(
                self, distance, disable_debug_handle_valdiation, reference_graph, inputs, bundled_program, test_case,
                native=native,
            )
        return numeric_gap(
            self, distance, disable_debug_handle_valdiation, reference_graph, isolate, inputs, bundled_program,
            test_case, native=native,
        )

    def graph_diff(
        self,
        a: str = "exported_program",
        b: str = "edge_dialect_exported_program",
        distance: str = "MSE",
        *,
        threshold: Optional[float] = None,
        inputs: Optional[str] = None,
        bundled_program: Optional[str] = None,
        test_case: int = 0,
    ):
        """Beyond upstream: two graphs of the ETRecord (exported_program, the Edge program or a
        graph_map entry such as edge_after_transform) run by etscope's evaluator on the same
        inputs (representative_inputs, inputs= a torch.save'd tuple, or a bundled_program test
        case), nodes aligned by debug handle, then from_node provenance, then position, and
        every aligned layer compared with `distance` (MSE, L1, SNR, COSINE, MAXABS, MAXREL),
        flagged above the noise level (or `threshold`). Returns a DataFrame, one row per aligned
        layer; df.attrs["verdict"] says where the graphs part, df.attrs["unaligned_a"] /
        ["unaligned_b"] list the nodes no rule aligned."""
        if self._etrecord is None:
            raise ValueError("graph_diff needs an ETRecord (etrecord= when constructing the Inspector)")
        return self._etrecord.graph_diff(
            a, b, distance, threshold=threshold, inputs=inputs, bundled_program=bundled_program, test_case=test_case
        )

    # -- beyond upstream ----------------------------------------------------------------------
    def diff(self, other: "Inspector", **options):
        """Latency A/B against another Inspector's recording, as a DataFrame (`etscope-cli diff`):
        rows pair within one method and phase of the runs (method= / phase= / runs= to keep one
        scope); with several, the method and phase columns say which."""
        from ._extras import diff

        return diff(self, other, **options)

    def determinism(self, others=()):
        """Per logged tensor over this recording's runs (and `others`: (etdump, debug_buffer)
        pairs): distinct results, runs that differ, deviations, the varying tile
        (`etscope-cli determinism`); attrs["sentence"] sums it up."""
        return _determinism.determinism(self, others)

    def save_trace(self, path: str, **options) -> None:
        """A Perfetto / chrome://tracing JSON of every profile event (`etscope-cli trace`)."""
        from ._extras import save_trace

        save_trace(self, path, **options)

    def save_report(self, path: str, **options) -> None:
        """The self-contained HTML report (`etscope-cli report`). Quantized models:
        decompose=True adds the error decomposition per op, graph_diff=(a, b) two graphs of the
        ETRecord compared layer by layer (`report --decompose --graph-diff A B`); distance=,
        threshold=, reference_graph=, inputs=, bundled_program=, test_case= as for
        calculate_numeric_gap and graph_diff."""
        from ._extras import save_report

        save_report(self, path, **options)

    def runs(
        self,
        program: Optional[str] = None,
        method: Optional[str] = None,
        phase_by: Optional[str] = None,
        prefill_runs: Optional[int] = None,
        prompt_tokens: Optional[int] = None,
        shares_by: Optional[str] = None,
        phase: Optional[str] = None,
    ):
        """One row per executed run (`etscope-cli runs`): index, method, phase, start_ns,
        duration_ms, tokens, warmup, outlier. `program` (a .pte) attributes each run to a method;
        phases by method name, `phase_by="duration"`, or `prefill_runs=N`. The figures (time to
        first token, tokens/s, slope, shares) are in `df.attrs["figures"]` and `run_figures()`;
        `shares_by="backend-operator"` names the share rows by the operator decoded from the
        backends' own events (`--shares-by`). The program is the session's (Inspector(program=));
        program= here loads the session again with it. phase= keeps the rows of one phase
        ("warmup": the warm-up runs); `generation` numbers each prompt and its steps from 0."""
        pd = _pandas()
        r = self._runs(program, method, phase_by, prefill_runs, prompt_tokens, shares_by)
        tokens = pd.arrays.IntegerArray(r["tokens"], r["tokens_missing"])
        df = pd.DataFrame(
            {
                "index": r["index"],
                "method": pd.Series(r["method"], dtype=object),
                "phase": pd.Series(r["phase"], dtype=object),
                "generation": r["generation"],
                "start_ns": r["start_ns"],
                "duration_ms": r["duration_ms"],
                "tokens": tokens,
                "warmup": r["warmup"],
                "outlier": r["outlier"],
            },
            copy=False,
        )
        df.attrs["figures"] = r["figures"]
        if phase is not None and phase != "all":
            keep = df["warmup"] if phase in ("warmup", "warm-up") else (df["phase"] == phase) & ~df["warmup"]
            df = df[keep].reset_index(drop=True)
            df.attrs["figures"] = r["figures"]
        return df

    def run_figures(
        self,
        program: Optional[str] = None,
        method: Optional[str] = None,
        phase_by: Optional[str] = None,
        prefill_runs: Optional[int] = None,
        prompt_tokens: Optional[int] = None,
        shares_by: Optional[str] = None,
    ) -> Dict[str, Any]:
        """The figures of `runs()` as `etscope-cli runs --json` writes them, without the runs:
        phases, time_to_first_token_ms, shares per phase, phase_rule, shares_by, notes, and
        coverage (how much of Method::execute the events explain: the shares describe that part)."""
        return self._runs(program, method, phase_by, prefill_runs, prompt_tokens, shares_by)["figures"]

    # Columns of backend_events(): the fields of `etscope-cli backend-events --json` "events".
    _BACKEND_EVENT_COLUMNS = (
        "block", "block_name", "event", "name", "instruction_id", "backend", "kind", "backend_op", "op",
        "kernel", "operator_id", "dispatch_id", "delegate_node_id", "args", "layout", "dtype", "variant",
        "instance", "phase", "whole_call", "init", "staging_copy", "kernel_index", "function_code", "runs",
        "avg", "p50", "node", "payload_node",
    )

    def backend_events(self, method: str = "forward"):
        """etscope's own decoding of what backends write into their events (Vulkan dispatches,
        XNNPACK operators, Neutron kernels, ETVK_/VGF_ host phases): one row per decoded event
        with the fields of `etscope-cli backend-events --json` (absent fields None; `args` a
        list of dicts, `node` the ETRecord link of `method`'s delegate_map as a dict, `payload_node`
        with program= the node of the delegate's decoded payload the event ran: delegate, node, op,
        label, placed_by ("node id", or "runtime order and kind" for XNNPACK, which logs no node
        id) and details). The time
        unit is `df.attrs["unit"]`; each delegate call's phases are in
        `df.attrs["delegate_calls"]`. The Inspector's own table is unchanged."""
        import json

        pd = _pandas()
        doc = json.loads(self._native.backend_events_json(method))
        cols = self._BACKEND_EVENT_COLUMNS
        # Object columns keep the JSON's values (None for an absent field, ints as ints); the
        # fields every row has are typed.
        df = pd.DataFrame([[row.get(c) for c in cols] for row in doc["events"]], columns=list(cols), dtype=object)
        for c in ("block", "event", "instruction_id", "runs"):
            df[c] = df[c].astype("int64")
        for c in ("avg", "p50"):
            df[c] = df[c].astype(float)
        df.attrs["unit"] = doc["unit"]
        df.attrs["delegate_calls"] = doc["delegate_calls"]
        return df

    def _runs(self, program, method, phase_by, prefill_runs, prompt_tokens, shares_by=None):
        import json

        if shares_by not in (None, "operator", "backend-operator"):
            raise ValueError(f"shares_by must be 'operator' or 'backend-operator', not {shares_by!r}")

        if phase_by not in (None, "method", "operators", "duration", "none"):
            raise ValueError(f"phase_by must be 'method', 'operators', 'duration' or 'none', not {phase_by!r}")
        if phase_by is not None and prefill_runs is not None:
            raise ValueError("give phase_by or prefill_runs, not both")
        if prompt_tokens is not None and prompt_tokens <= 0:
            raise ValueError("prompt_tokens must be positive")
        native = self._session_with(program, phase_by, prefill_runs)
        r = native.runs(method or "", prompt_tokens, shares_by or "")
        r["figures"] = json.loads(r["figures"])
        del r["figures"]["runs"]
        return r

    def _repr_html_(self) -> str:
        from ._extras import summary_html

        return summary_html(self)

    def __repr__(self):
        blocks = ", ".join(f"{b.name!r}" for b in self.event_blocks)
        return f"Inspector(etdump={self._paths['etdump'] or '<bytes>'!r}, blocks=[{blocks}])"
