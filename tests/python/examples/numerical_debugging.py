# The Inspector steps of "Using the ExecuTorch Developer Tools for Numerical Debugging"
# (seed: tutorials/devtools-debugging-tutorial, pipeline 2 step 4 and step 5). Changed: the
# import line, and the three paths point at the CNN fixture with the debug buffer perturbed at
# instructions 3, 14 and 25 (tests/tools/gen_gap_perturbed.py), so that step 5 finds operators.
import sys

from etscope import Inspector  # was: from executorch.devtools import Inspector

etrecord_path = sys.argv[1]
etdump_path = sys.argv[2]
debug_buffer_path = sys.argv[3]

inspector = Inspector(
etdump_path=etdump_path,
etrecord=etrecord_path,
debug_buffer_path=debug_buffer_path,
)

import pandas as pd
# Calculate numerical gaps
df = inspector.calculate_numeric_gap("MSE")
# Find problematic operators
df_sorted = df.sort_values(by="gap", ascending=False,
key=lambda x: x.apply(lambda y: y[0] if isinstance(y, list) else y))
print("Top operators with largest gaps:")
print(df_sorted.head(5))

pd.set_option("display.width", 100000)
pd.set_option("display.max_columns", None)
# Calculate numerical gap using Mean Squared Error
df: pd.DataFrame = inspector.calculate_numeric_gap("MSE")
print(df)

# Find operators with the largest discrepancies
df_sorted = df.sort_values(by="gap", ascending=False, key=lambda x: x.apply(lambda y: y[0] if isinstance(y, list) else y))
print("Top 5 operators with largest numerical discrepancies:")
print(df_sorted.head(5))
# Filter for operators with gap above a threshold
threshold = 1e-4
problematic_ops = df[df["gap"].apply(lambda x: x[0] > threshold if isinstance(x, list) else x > threshold)]
print(f"\nOperators with MSE > {threshold}:")
print(problematic_ops)
