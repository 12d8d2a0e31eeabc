# The examples of the Inspector API page (seed: docs/source/model-inspector.rst), run in order.
# Changed: the import line, and the placeholder paths point at the bundled CNN sample.
import os
import sys

SAMPLES = sys.argv[1]

from etscope import Inspector  # was: from executorch.devtools import Inspector

inspector = Inspector(etdump_path=os.path.join(SAMPLES, "cnn_mlp_50runs/etdump.etdp"), etrecord=os.path.join(SAMPLES, "cnn_mlp_50runs/etrecord.bin"))

inspector.print_data_tabular()

print(inspector.find_total_for_module("L__self___conv_layer"))

print(inspector.get_exported_program())

inspector.event_blocks

for event_block in inspector.event_blocks:
    for event in event_block.events:
        if event.name == "Method::execute":
            print(event.perf_data.raw)
