"""An ETRecord program as `etscope-cli graph` lists it (get_exported_program)."""


class ExportedProgram:
    """One program of the ETRecord: `nodes` (dicts: name, target, op, output, debug_handle,
    module, source, stack_trace, nn_module_stack); str() is `etscope-cli graph --entry NAME`."""

    def __init__(self, native_record, entry):
        self._record = native_record
        self.entry = entry
        self._title, self.nodes = native_record.program_nodes(entry)

    def __str__(self):
        rows = [["node", "op", "output", "handle", "module", "source"]]
        for n in self.nodes:
            h = n["debug_handle"]
            rows.append(
                [n["name"], n["op"], n["output"], "-" if h is None else str(h), n["module"] or "-", n["source"] or "-"]
            )
        widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
        lines = [self._title]
        for r in rows:
            cells = [cell.ljust(widths[c]) + "  " for c, cell in enumerate(r[:-1])] + [r[-1]]
            lines.append("".join(cells).rstrip(" "))
        return "\n".join(lines)

    def __repr__(self):
        return f"ExportedProgram({self.entry!r}, {len(self.nodes)} nodes)"
