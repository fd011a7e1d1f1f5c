"""Train: each org unit's mean of disease_cases, written to the model file; says so."""

import sys

import pandas as pd

train_data, model_file = sys.argv[1:3]
frame = pd.read_csv(train_data)
print(f"training on {len(frame)} rows")
print("a warning on stderr", file=sys.stderr)
frame.groupby("location")["disease_cases"].mean().to_csv(model_file)
