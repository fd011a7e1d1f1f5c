"""Figure 15, a forecast hub: the hubverse's example hub (three models x four rounds, 12 CSV
files, 574,000 rows of every output type) read with ``chaplab.hubs`` and scored: its
``wk inc flu hosp`` forecasts as quantile frames (quantile output, and 100 samples per target
made quantiles), its target data, ``scoring.score`` of both and ``relative_skill`` (1,000
bootstrap replicates). Against reading the same 12 files with ``pandas.read_csv`` alone (no
mapping, no scores). Target: at most 2 s. Medians of 3 runs after one untimed run (imports).

The full hub is the repository's neighbour ``../shared/data/hubs/example-complex-forecast-hub``
(or ``CHAPLAB_EXAMPLE_HUB``); without it, chaplab's small copy (``chaplab.hubs.example_hub()``),
as the row's note says.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from benchmarks.results import Result, at_most, reported
from benchmarks.timing import median_time
from chaplab import hubs, scoring

TARGET = "wk inc flu hosp"
LIMIT = 2.0
FULL_HUB = (
    Path(__file__).resolve().parents[1].parent / "shared/data/hubs/example-complex-forecast-hub"
)


def hub_folder() -> tuple[Path, str]:
    """The full example hub if it is at hand, else chaplab's copy, with a note saying which."""
    chosen = Path(os.environ.get("CHAPLAB_EXAMPLE_HUB", FULL_HUB))
    if (chosen / "hub-config/tasks.json").exists():
        return chosen, "the full example hub"
    return hubs.example_hub(), "chaplab's copy of the example hub (the full hub was not found)"


def with_chaplab(hub: Path) -> pd.DataFrame:
    """Read and score: what the notebook's leaderboard does with a hub."""
    forecasts = hubs.read_forecasts(hub, target=TARGET)
    actuals = hubs.read_target_data(hub, target=TARGET)
    scores = scoring.score(forecasts.quantiles, actuals)
    scoring.score(forecasts.samples, actuals)
    return scoring.relative_skill(scores, baseline="Flusight-baseline", n_bootstrap=1000)


def with_pandas(hub: Path) -> pd.DataFrame:
    """The same files read with pandas alone."""
    files = sorted((hub / "model-output").glob("*/*.csv"))
    dtypes = {"location": str, "output_type_id": str}
    return pd.concat([pd.read_csv(file, dtype=dtypes) for file in files], ignore_index=True)


def run() -> list[Result]:
    hub, which = hub_folder()
    rows = len(with_pandas(hub))
    skill = with_chaplab(hub)
    models = len(skill)
    ours = median_time(lambda: with_chaplab(hub), 3)
    plain = median_time(lambda: with_pandas(hub), 3)
    label = f"{models} models x 4 rounds, {rows:,} rows"
    return [
        at_most(f"15 read and score a forecast hub, {label}", ours, LIMIT, "s", note=which),
        reported(
            f"15 read and score a forecast hub vs pandas.read_csv of its files, {label}",
            ours,
            "s",
            plain,
            "pandas.read_csv alone",
            note="ratio: chaplab's read, weeks, frames and scores over reading the CSV files",
        ),
    ]
