"""Train: each org unit's mean of disease_cases, written to the model file."""

import sys

import pandas as pd

train_data, model_file = sys.argv[1:3]
pd.read_csv(train_data).groupby("location")["disease_cases"].mean().to_csv(model_file)
