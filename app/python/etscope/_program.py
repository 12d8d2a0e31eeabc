"""etscope.Program: what a .pte holds, with each delegate's payload decoded.

    program = etscope.Program("model.pte")             # or Program("m.pte", data=["w.ptd"])
    for d in program.delegates:
        print(d.backend_id, d.payload["summary"])
        for node in d.nodes:                            # in the order the backend runs them
            print(node["op"], [v["shape"] for v in node["inputs"]])
    program.size()["parts"]                             # every byte, adding up to file_bytes
"""
import json
from typing import Any, Dict, List, Optional, Sequence

from . import _native


class Delegate:
    """One delegate of one method: the program's entry plus its decoded payload."""

    def __init__(self, method: str, entry: Dict[str, Any]):
        self.method = method
        self.index: int = entry["index"]
        self.backend_id: str = entry["backend_id"]
        self.blob_bytes: int = entry["blob_bytes"]
        self.location: str = entry["location"]
        self.payload: Dict[str, Any] = entry.get("payload", {})
        self.nodes: List[Dict[str, Any]] = entry.get("nodes", [])
        self.scratch_bytes: Optional[int] = entry.get("scratch_bytes")
        self.command_stream_bytes: Optional[int] = entry.get("command_stream_bytes")
        self.weight_bytes: Optional[int] = entry.get("weight_bytes")

    @property
    def decoded(self) -> bool:
        return bool(self.payload.get("decoded"))

    def __repr__(self) -> str:
        return f"Delegate({self.method!r}#{self.index} {self.backend_id}: {self.payload.get('summary', '')})"


class Program:
    def __init__(self, path: str, data: Sequence[str] = ()):
        self.path = path
        self._data = list(data)
        self._json = json.loads(_native.program_json(path, self._data))

    @property
    def version(self) -> int:
        return self._json["version"]

    @property
    def methods(self) -> List[Dict[str, Any]]:
        return self._json["methods"]

    @property
    def delegates(self) -> List[Delegate]:
        """Every delegate of every method, in method order."""
        return [Delegate(m["name"], d) for m in self._json["methods"] for d in m["delegates"]]

    def size(self) -> Dict[str, Any]:
        """{"file", "file_bytes", "parts": [{"name", "bytes", "parts"}], "data_files"}."""
        return json.loads(_native.program_size_json(self.path, self._data))

    def to_json(self) -> Dict[str, Any]:
        return self._json

    def __repr__(self) -> str:
        return f"Program({self.path!r}, {len(self.methods)} methods, {len(self.delegates)} delegates)"
