"""Forecast forward: the selected configured model forecasts the periods after the selected
dataset's last one, from that dataset's observations and polygons.

The request is ``make_prediction_for_model`` (``POST /v1/analytics/make-prediction``), which
chaplab's service and chap-core 2.5.1 both serve. The job is followed in the job board like an
evaluation's; when it succeeds the forecast is loaded and drawn (in the chart process) after the
recent history of cases.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets

from chaplab.widgets._markup import message
from chaplab.widgets._render import image_widget, render_chart
from chaplab.widgets.connection import describe_error
from chaplab.widgets.results import ChartView

if TYPE_CHECKING:
    import pandas as pd

TARGET = "disease_cases"


@dataclass(frozen=True)
class History:
    """A dataset as a forecast needs it: the wide table of observations sent with the request,
    the org units' polygons, and the target's values as actual cases for the chart."""

    table: pd.DataFrame
    geojson: dict[str, Any] | None
    actuals: pd.DataFrame


def history_of(dataset: Any) -> History:
    """The :class:`History` of a dataset read with its observations (``get_dataset``)."""
    import pandas as pd

    from chaplab.frames import parse_periods

    long = pd.DataFrame(
        [(item.period, item.org_unit, item.feature_name, item.value)
         for item in dataset.observations or []],
        columns=["time_period", "location", "feature", "value"],
    )
    table = long.pivot_table(
        index=["time_period", "location"], columns="feature", values="value", dropna=False
    ).reset_index()
    table.columns.name = None
    target = long[long["feature"] == TARGET]
    actuals = pd.DataFrame({
        "org_unit": target["location"].to_numpy(),
        "period": parse_periods(target["time_period"]),
        "value": target["value"].astype(float).to_numpy(),
    })
    geojson = getattr(dataset, "geojson", None)
    if isinstance(geojson, str):  # chap-core 2.5.1 sends the polygons as JSON text
        geojson = json.loads(geojson)
    return History(table, geojson, actuals)


class ForecastView(widgets.VBox):
    """The forecast button, what went wrong, and the chart of the latest forecast."""

    def __init__(self) -> None:
        super().__init__()
        self.frame: pd.DataFrame | None = None
        self.actuals: pd.DataFrame | None = None
        self.prediction_id: int | None = None
        self.shown_panels: list[str] = []
        self.button = widgets.Button(
            description="Forecast forward", icon="forward", disabled=True,
            tooltip="the selected model forecasts nPeriods after the selected dataset",
        )
        self.message = widgets.HTML()
        self.image = image_widget()  # shown once there is a forecast
        self.children = [
            widgets.HTML("<b>Forecast forward</b>"),
            widgets.HBox([self.button, self.message]),
        ]

    def set_ready(self, ready: bool) -> None:
        """Enable the button when a dataset and a configured model are selected."""
        self.button.disabled = not ready

    def show_error(self, error: BaseException) -> None:
        """Say (in red, beside the button) why the forecast could not be made or shown."""
        self.message.value = message(describe_error(error), alert=True)

    async def show(self, name: str, prediction_id: int, frame: pd.DataFrame,
                   history: History) -> None:
        """Draw the forecast after the recent history of cases."""
        self.message.value = ""
        self.prediction_id, self.frame, self.actuals = prediction_id, frame, history.actuals
        view = ChartView(frames=(frame,), actuals=history.actuals, names=(name,),
                         org_unit=None, split_period=None)
        rendered = await render_chart(view)
        self.image.value, self.shown_panels = rendered.png, rendered.panels
        if self.image not in self.children:
            self.children = [*self.children, self.image]


async def load_history(client: Any, dataset_id: int) -> History:
    """The dataset's :class:`History`; the table is built in a worker thread."""
    dataset = await client.get_dataset(dataset_id)
    return await asyncio.to_thread(history_of, dataset)
