"""Evaluation charts one facet at a time, as Vega specs: chap-core 2.5.1's facet routes
(``.../facet-coords``, ``.../subplot``, ``.../subplots``), with which DHIS2's Modeling App draws
the split period and org unit its user picks.

Each evaluation chart the service draws has facet dimensions, named as 2.5.1 names them:
``forecasts`` (every split) has ``split_period`` (the evaluation's split periods, spelled as its
``splitPeriods``) and ``location`` (its org units); ``last_split`` has ``location``. A facet is
a fan chart of the forecasts from its split, the 10-90 % and 25-75 % bands and the median, over
the cases observed before and during them, written as Vega-Lite and compiled to Vega with
vl-convert (2.5.1 answers compiled Vega), its width left to the page's container. Its data rows
name their org unit under ``location``, where the Modeling App writes the place's name.
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy.orm import Session

from chaplab.quantiles import quantiles_from_sorted
from chaplab.service.domain.evaluations import evaluation_samples, get_evaluation
from chaplab.service.domain.plots import BACKTEST_PLOTS, known_name
from chaplab.service.errors import Conflict, FieldProblem
from chaplab.service.registered_templates import template_spec
from chaplab.service.storage import panel_of
from chaplab.service.tables import EvaluationRow
from chaplab.service.wire.plots import FacetSpec
from chaplab.vocabulary import WEEK, canonical_period, period_start, readable_period

SPLIT = "split_period"
LOCATION = "location"
FACETS: dict[str, tuple[str, ...]] = {"forecasts": (SPLIT, LOCATION), "last_split": (LOCATION,)}
"""Each evaluation chart's facet dimensions, in the order a facet's key lists them."""
BANDS = (0.1, 0.25, 0.5, 0.75, 0.9)
"""The quantile levels a facet draws: two bands and the median (fields ``q10`` ... ``q90``)."""
CONTEXT_PERIODS = 12
"""How many observed periods a facet shows before its first forecast period."""
HEIGHT = 300
FORECAST_COLOUR = "#4c78a8"

assert set(FACETS) == set(BACKTEST_PLOTS), "every evaluation chart is served by facet too"


@dataclass(frozen=True)
class Facets:
    """An evaluation read for drawing the facets of one of its charts."""

    row: EvaluationRow
    coordinates: dict[str, list[str]]
    """Each dimension of the chart -> its values."""
    splits: list[str]
    """The splits the whole chart draws."""
    samples: np.ndarray
    """Sorted samples, shape (splits, org units, periods, samples)."""
    observed: np.ndarray
    """The observed target, shape (the evaluation's org units, the dataset's periods)."""
    periods: list[str]
    """The dataset's periods."""

    def coordinates_of(self, given: Mapping[str, Any]) -> dict[str, str]:
        """``given`` (dimension -> value) checked against the chart's facets: a 422 naming an
        unknown dimension (and the one probably meant) or a value the dimension lacks. A split
        period may be spelled as the wire spells periods (``2023-07`` or ``202307``)."""
        chosen = {}
        for dimension, value in given.items():
            if dimension not in self.coordinates:
                close = difflib.get_close_matches(dimension, list(self.coordinates), n=1)
                hint = f"did you mean {close[0]!r}?" if close else ""
                known = f"its facets: {', '.join(self.coordinates)}"
                raise FieldProblem(
                    dimension, f"is not a facet of this chart; {hint or known}".rstrip()
                )
            text = str(value)
            if dimension == SPLIT:
                text = _canonical(text)
            if text not in self.coordinates[dimension]:
                shown = ", ".join(self.coordinates[dimension][:10])
                raise FieldProblem(dimension, f"has no facet {value!r} (it has: {shown})")
            chosen[dimension] = text
        return chosen

    def spec(self, chosen: Mapping[str, str]) -> dict[str, Any]:
        """The compiled Vega spec of the rows at the ``chosen`` coordinates (every value of a
        dimension not chosen)."""
        splits = [chosen[SPLIT]] if SPLIT in chosen else self.splits
        units = [chosen[LOCATION]] if LOCATION in chosen else self.coordinates[LOCATION]
        row = self.row
        forecast: list[dict[str, Any]] = []
        windows = []
        for split in splits:
            s = row.split_periods.index(split)
            window = list(row.periods[s])
            windows.append((self.periods.index(window[0]), self.periods.index(window[-1])))
            for unit in units:
                levels = quantiles_from_sorted(self.samples[s, row.org_units.index(unit)], BANDS)
                for period, values in zip(window, levels, strict=True):
                    quantiles = {
                        _band(level): float(v) for level, v in zip(BANDS, values, strict=True)
                    }
                    forecast.append({SPLIT: split, LOCATION: unit, **_when(period), **quantiles})
        first = max(0, min(start for start, _ in windows) - CONTEXT_PERIODS)
        last = max(end for _, end in windows)
        observed = [
            {LOCATION: unit, **_when(self.periods[p]), "observed": float(value)}
            for unit in units
            for p, value in enumerate(self.observed[row.org_units.index(unit)])
            if first <= p <= last and np.isfinite(value)
        ]
        starts = ", ".join(readable_period(split) for split in splits)
        title = f"{row.configured_model.name}: forecasts from {starts}"
        weekly = row.dataset.period_type == WEEK
        return compiled(fan_chart(forecast, observed, title, weekly, by_location=len(units) > 1))


def read_facets(session: Session, name: str, backtest_id: int) -> Facets:
    """The evaluation ``backtest_id`` ready to draw the facets of its chart ``name`` (404 for
    an unknown chart or evaluation, 409 for one stored without forecasts)."""
    dimensions = known_name("backtest plot", name, FACETS)
    row = get_evaluation(session, backtest_id)
    if not row.split_periods:
        raise Conflict("nothing to draw: the evaluation holds no forecasts")
    splits = list(row.split_periods) if SPLIT in dimensions else [row.split_periods[-1]]
    every = {SPLIT: splits, LOCATION: list(row.org_units)}
    panel = panel_of(row.dataset)
    target = template_spec(row.configured_model.template).target
    values = panel.features.get(target, np.full((panel.n_org_units, panel.n_periods), np.nan))
    return Facets(
        row=row,
        coordinates={dimension: every[dimension] for dimension in dimensions},
        splits=splits,
        samples=evaluation_samples(row),
        observed=values[[panel.org_units.index(unit) for unit in row.org_units]],
        periods=list(panel.periods),
    )


def facet_coordinates(session: Session, name: str, backtest_id: int) -> dict[str, list[str]]:
    """Each facet dimension of the chart ``name`` of the evaluation and its values."""
    return read_facets(session, name, backtest_id).coordinates


def subplot(
    session: Session, name: str, backtest_id: int, given: Mapping[str, Any]
) -> dict[str, Any]:
    """The Vega spec of the facet at ``given`` coordinates (dimension -> value; a dimension
    left out draws all its values together)."""
    facets = read_facets(session, name, backtest_id)
    return facets.spec(facets.coordinates_of(given))


def subplots(session: Session, name: str, backtest_id: int) -> list[FacetSpec]:
    """Every facet of the chart with its key: the facet's value where the chart has one
    dimension, else its values in the order of :data:`FACETS` (2.5.1's keys)."""
    facets = read_facets(session, name, backtest_id)
    dimensions = list(facets.coordinates)
    answered = []
    for values in itertools.product(*facets.coordinates.values()):
        key: str | list[str] = values[0] if len(values) == 1 else list(values)
        answered.append(
            FacetSpec(key=key, spec=facets.spec(dict(zip(dimensions, values, strict=True))))
        )
    return answered


def fan_chart(
    forecast: list[dict[str, Any]],
    observed: list[dict[str, Any]],
    title: str,
    weekly: bool,
    by_location: bool,
) -> dict[str, Any]:
    """A Vega-Lite fan chart: the bands and median of ``forecast`` rows (one band per split
    and org unit) and the ``observed`` cases as a line with points; org units told apart by
    colour when there are several."""
    x = {
        "field": "date",
        "type": "temporal",
        "title": "Period",
        # ISO weeks or months; labels that would overlap are left out, as in narrow containers
        "axis": {
            "format": "%G-W%V" if weekly else "%Y-%m",
            "labelOverlap": "greedy",
            "labelSeparation": 8,
        },
    }
    colour: dict[str, Any] = (
        {"color": {"field": LOCATION, "type": "nominal", "title": "Org unit"}}
        if by_location
        else {}
    )
    detail = {"detail": [{"field": SPLIT}, {"field": LOCATION}]}
    tooltip = [{"field": "period", "title": "Period"}, {"field": LOCATION, "title": "Org unit"}]

    def band(low: float, high: float, opacity: float) -> dict[str, Any]:
        return {
            "data": {"name": "forecast"},
            "mark": {"type": "area", "opacity": opacity, "color": FORECAST_COLOUR},
            "encoding": {
                "x": x,
                "y": {"field": _band(low), "type": "quantitative", "title": "Cases"},
                "y2": {"field": _band(high)},
                **detail,
                **colour,
            },
        }

    median = {
        "data": {"name": "forecast"},
        "mark": {"type": "line", "color": FORECAST_COLOUR},
        "encoding": {
            "x": x,
            "y": {"field": _band(0.5), "type": "quantitative"},
            "tooltip": [
                *tooltip,
                {"field": SPLIT, "title": "Split period"},
                *({"field": _band(level), "format": ".1f"} for level in BANDS),
            ],
            **detail,
            **colour,
        },
    }
    cases = {
        "data": {"name": "observed"},
        "mark": {
            "type": "line",
            "color": "black",
            "strokeWidth": 1.5,
            "point": {"filled": True, "color": "black", "size": 24},
        },
        "encoding": {
            "x": x,
            "y": {"field": "observed", "type": "quantitative"},
            "tooltip": [*tooltip, {"field": "observed", "title": "Observed cases"}],
            "detail": {"field": LOCATION},
            **colour,
        },
    }
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "title": title,
        "width": "container",
        "height": HEIGHT,
        "datasets": {"forecast": forecast, "observed": observed},
        "layer": [band(0.1, 0.9, 0.25), band(0.25, 0.75, 0.4), median, cases],
    }


def compiled(lite: dict[str, Any]) -> dict[str, Any]:
    """A Vega-Lite spec compiled to Vega (vl-convert is loaded on first use, as the charts'
    matplotlib is: most services never draw a facet)."""
    import vl_convert

    spec: dict[str, Any] = vl_convert.vegalite_to_vega(lite)
    return spec


def _band(level: float) -> str:
    return f"q{round(level * 100)}"


def _when(period: str) -> dict[str, str]:
    """A period as a row names it: readable (``2023-07``) and by its first day."""
    return {"period": readable_period(period), "date": period_start(period).isoformat()}


def _canonical(text: str) -> str:
    try:
        return canonical_period(text)
    except ValueError:
        return text
