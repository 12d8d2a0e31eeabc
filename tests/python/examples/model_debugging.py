# The examples of "Debugging Models in ExecuTorch" (seed: docs/source/model-debugging.md).
# Changed: the import lines, and etdump_path / buffer_path / etrecord_path / ref_outputs are
# set to the bundled XNNPACK sample (its program output as the reference). The page's code
# has two mistakes that upstream's Inspector trips over too: the keyword `buffer_path` (the
# constructor's argument is debug_buffer_path: TypeError) and `event_blocks.run_output`
# (NameError). With argv[2] == "verbatim" the snippets run as printed and stop where upstream
# stops; otherwise those two names are corrected and everything runs.
import os
import sys

SAMPLES = sys.argv[1]
VERBATIM = len(sys.argv) > 2 and sys.argv[2] == "verbatim"
etdump_path = os.path.join(SAMPLES, "xnnpack_mlp/etdump.etdp")
buffer_path = os.path.join(SAMPLES, "xnnpack_mlp/debug_output.bin")
etrecord_path = os.path.join(SAMPLES, "xnnpack_mlp/etrecord.bin")

from etscope import Inspector  # was: from executorch.devtools import Inspector

if VERBATIM:
    # Create an Inspector instance with etdump and the debug buffer.
    inspector = Inspector(etdump_path=etdump_path,
                buffer_path = buffer_path,
                # etrecord is optional, if provided it'll link back
                # the runtime events to the eager model python source code.
                etrecord = etrecord_path)
else:
    inspector = Inspector(etdump_path=etdump_path,
                debug_buffer_path = buffer_path,
                etrecord = etrecord_path)

# Accessing program outputs is as simple as this:
for event_block in inspector.event_blocks:
    if event_block.name == "Execute":
        print(event_block.run_output if not VERBATIM else event_blocks.run_output)

# Accessing intermediate outputs from each event (an event here is essentially an instruction that executed in the runtime).
for event_block in inspector.event_blocks:
    if event_block.name == "Execute":
        for event in event_block.events:
            print(event.debug_data)
            # If an ETRecord was provided by the user during Inspector initialization, users
            # can print the stacktraces and module hierarchy of these events.
            print(event.stack_traces)
            print(event.module_hierarchy)

from etscope import compare_results  # was: from executorch.devtools.inspector import compare_results

ref_outputs = [o * 1.01 for o in [b for b in inspector.event_blocks if b.name == "Execute"][0].run_output]

# Run a simple quality analysis between the model outputs sourced from the
# runtime and a set of reference outputs.
#
# Setting plot to True will result in the quality metrics being graphed
# and displayed (when run from a notebook) and will be written out to the
# filesystem. A dictionary will always be returned which will contain the
# results.
for event_block in inspector.event_blocks:
    if event_block.name == "Execute":
        compare_results(event_block.run_output, ref_outputs, plot = True)
