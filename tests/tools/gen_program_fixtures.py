#!/usr/bin/env python3
"""Writes the programs authored for the memory-plan tests as program.fbs JSON (the same form
as ../shared/fixtures/runtime/*/*.program.json); the build compiles them with flatc.

  reuse.program.json  two arenas, intermediates placed over dead tensors (buffer reuse), one
                      tensor that could share but does not, a TensorList argument.
  loop.program.json   a JumpFalse loop (instructions 1..3), a Move and a Free.

Run: python3 tests/tools/gen_program_fixtures.py tests/data/program
"""
import json
import sys


def tensor(sizes, arena=None, offset=0, dtype="FLOAT"):
    t = {"scalar_type": dtype, "storage_offset": 0, "sizes": sizes,
         "dim_order": list(range(len(sizes))), "requires_grad": False, "layout": 0,
         "shape_dynamism": "STATIC"}
    if arena is not None:
        t["allocation_info"] = {"memory_id": arena, "memory_offset_low": offset, "memory_offset_high": 0}
    return {"val_type": "Tensor", "val": t}


def kernel(op, args):
    return {"instr_args_type": "KernelCall", "instr_args": {"op_index": op, "args": args}}


def program(plan):
    return {"version": 0, "execution_plan": [plan]}


def reuse():
    values = [
        tensor([1, 64], 1, 0),      # 0 input x (256 B)
        tensor([1, 64], 1, 256),    # 1 relu(x)
        tensor([1, 64], 1, 0),      # 2 relu(1): over x, dead after instruction 0
        tensor([1, 64], 1, 256),    # 3 relu(2): over 1
        tensor([1, 64], 1, 512),    # 4 add(3, 2): output
        tensor([4, 4], 2, 0),       # 5 relu(4) in arena 2: never live with 8, shares nothing
        tensor([4, 4], 2, 64),      # 6 relu(5)
        {"val_type": "TensorList", "val": {"items": [6, 6]}},  # 7
        tensor([8, 4], 2, 128),     # 8 cat([5, 6]): output
        {"val_type": "Int", "val": {"int_val": 0}},  # 9 dim
    ]
    instrs = [
        kernel(0, [0, 1, 1]),
        kernel(0, [1, 2, 2]),
        kernel(0, [2, 3, 3]),
        kernel(1, [3, 2, 4, 4]),
        kernel(0, [4, 5, 5]),
        kernel(0, [5, 6, 6]),
        kernel(2, [7, 9, 8, 8]),
    ]
    plan = {"name": "forward", "values": values, "inputs": [0], "outputs": [4, 8],
            "chains": [{"inputs": [0], "outputs": [4, 8], "instructions": instrs}],
            "operators": [{"name": "aten::relu", "overload": "out"}, {"name": "aten::add", "overload": "out"},
                          {"name": "aten::cat", "overload": "out"}],
            "non_const_buffer_sizes": [0, 768, 256]}
    return program(plan)


def loop():
    values = [
        tensor([4], 1, 0),     # 0 input x
        tensor([4], 1, 16),    # 1 a = add(x, x)
        tensor([4], 1, 32),    # 2 b = mul(a, a)   (loop body)
        tensor([4], 1, 48),    # 3 c = add(b, b)   (loop body)
        {"val_type": "Bool", "val": {"bool_val": True}},  # 4 loop condition
        tensor([4], 1, 64),    # 5 d: moved into after the loop
        tensor([4], 1, 80),    # 6 out = add(d, d)
        tensor([4], 1, 96),    # 7 e = mul(x, x) after the loop, freed
    ]
    instrs = [
        kernel(0, [0, 0, 1, 1]),
        kernel(1, [1, 1, 2, 2]),
        kernel(0, [2, 2, 3, 3]),
        {"instr_args_type": "JumpFalseCall", "instr_args": {"cond_value_index": 4, "destination_instruction": 1}},
        {"instr_args_type": "MoveCall", "instr_args": {"move_from": 3, "move_to": 5}},
        kernel(0, [5, 5, 6, 6]),
        kernel(1, [6, 6, 7, 7]),
        {"instr_args_type": "FreeCall", "instr_args": {"value_index": 7}},
    ]
    plan = {"name": "forward", "values": values, "inputs": [0], "outputs": [6],
            "chains": [{"inputs": [0], "outputs": [6], "instructions": instrs}],
            "operators": [{"name": "aten::add", "overload": "out"}, {"name": "aten::mul", "overload": "out"}],
            "non_const_buffer_sizes": [0, 128]}
    return program(plan)


if __name__ == "__main__":
    out = sys.argv[1]
    for name, prog in (("reuse", reuse()), ("loop", loop())):
        with open(f"{out}/{name}.program.json", "w") as f:
            json.dump(prog, f, indent=1)
            f.write("\n")
