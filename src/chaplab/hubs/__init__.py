"""Forecast hubs (the hubverse's model-output format) in and out of chaplab's frames.

``read_forecasts(hub, target=...)`` reads a hub's model output for chosen models, rounds and
locations as chaplab frames (quantiles, samples as quantiles, pmf, medians and means, and
nowcasts apart), ``read_target_data(hub, target=...)`` its target data as actual cases (or
observed categories), and ``to_model_output(frame, hub, round_id=..., target=..., model=...)``
turns an evaluation frame, a forecast, a local backtest or an ensemble into a round's
model-output rows, checked against the hub's ``tasks.json``; ``write_model_output`` writes them
as the hub's file. ``hub_dataset(hub, target=...)`` is the hub's target data as a table and
GeoJSON to upload to the modeling service, so that its models forecast the same targets. Weeks
map both ways by ``to_chaplab`` and ``to_hub``, on
:mod:`chaplab.weeks`' rule. ``example_hub()`` is a small copy of the hubverse's example hub.
What each hub field becomes: docs/hubs.md.
"""

from __future__ import annotations

from pathlib import Path

from chaplab.hubs._dataset import hub_dataset
from chaplab.hubs._read import HubForecasts, read_forecasts, read_target_data
from chaplab.hubs._weeks import ChaplabWeek, HubWeek, to_chaplab, to_hub
from chaplab.hubs._write import to_model_output, write_model_output

EXAMPLE_HUB = Path(__file__).parent / "example_hub"


def example_hub() -> Path:
    """The folder of chaplab's small copy of the hubverse's example-complex-forecast-hub (CC0):
    weekly influenza hospital admissions, 2022-23, three models over four rounds, for the US
    and five states (its README says what was kept)."""
    return EXAMPLE_HUB


__all__ = [
    "ChaplabWeek",
    "HubForecasts",
    "HubWeek",
    "example_hub",
    "hub_dataset",
    "read_forecasts",
    "read_target_data",
    "to_chaplab",
    "to_hub",
    "to_model_output",
    "write_model_output",
]
