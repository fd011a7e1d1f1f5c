"""Datasets and samples between their wire form, arrays and stored rows.

A dataset arrives as observations (feature, org unit, period, value) and is stored as one
float64 array per feature over all org units and the full period range (NaN where nothing
was observed). Samples are stored as float32 bytes, sorted along the sample axis.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy.orm import Session

from chaplab import vocabulary as period_math
from chaplab.jsonrows import Coded
from chaplab.service.errors import FieldProblem
from chaplab.service.forecasting.panel import Panel
from chaplab.service.geometry import check_polygon_geometry
from chaplab.service.tables import DatasetFeatureRow, DatasetRow
from chaplab.service.wire.observations import ObservationColumns
from chaplab.vocabulary import feature_id

ROW_ONLY_SAMPLES = 1
"""Rows created without a forecast store no samples: zero splits (or periods) of one sample."""
MAX_PERIOD_SPAN = 10_000
"""The most periods one dataset covers (about 190 years of weeks): every feature is stored
densely over the span, so one stray period far away would otherwise blow it up."""


@dataclass(frozen=True)
class DatasetContent:
    """A validated dataset ready to store: its panel, polygons and data sources."""

    panel: Panel
    geojson: dict[str, Any] | None
    data_sources: list[dict[str, str]]

    def size(self) -> str:
        """``3 features x 6 org units x 120 periods``, for a job's log."""
        panel = self.panel
        return (
            f"{len(panel.features)} features x {panel.n_org_units} org units "
            f"x {panel.n_periods} periods"
        )

    def value_count(self) -> int:
        """How many values it holds (features x org units x periods)."""
        return len(self.panel.features) * self.panel.n_org_units * self.panel.n_periods

    def to_payload(self) -> dict[str, Any]:
        """JSON form for a job's payload (NaN written as null)."""
        return {
            "period_type": self.panel.period_type,
            "periods": self.panel.periods,
            "org_units": self.panel.org_units,
            "features": {
                name: _nulls_for_nan(values) for name, values in self.panel.features.items()
            },
            "geojson": self.geojson,
            "data_sources": self.data_sources,
        }

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> DatasetContent:
        panel = Panel(
            period_type=payload["period_type"],
            periods=payload["periods"],
            org_units=payload["org_units"],
            features={
                name: np.array(rows, dtype=np.float64) for name, rows in payload["features"].items()
            },
        )
        return cls(panel, payload["geojson"], list(payload["data_sources"]))


def _nulls_for_nan(values: np.ndarray) -> list[Any]:
    """``values`` as nested lists of floats, None where NaN (one array pass, not one per cell)."""
    cells = values.astype(object)
    cells[np.isnan(values)] = None
    return list(cells.tolist())


def panel_from_observations(observations: ObservationColumns, field: str = "observations") -> Panel:
    """A panel from observations; FieldProblem naming the observation on a bad period, a mixed
    period type or a repeated value. Each distinct period is parsed once and the values are
    placed with one array assignment, so an upload costs no Python work per observation. The
    org units and features keep the order in which the observations first name them."""
    if not len(observations):
        raise FieldProblem(field, "at least one observation is needed")
    periods_of = observations.periods
    period_type, distinct_ordinals = _period_ordinals(periods_of, field)
    ordinals = distinct_ordinals[periods_of.codes]
    first, last = int(ordinals.min()), int(ordinals.max())
    if last - first >= MAX_PERIOD_SPAN:
        raise FieldProblem(
            field,
            f"spans {last - first + 1} {period_type}s from "
            f"{period_math.format_period(period_type, first)} to "
            f"{period_math.format_period(period_type, last)}; a dataset covers at most "
            f"{MAX_PERIOD_SPAN} periods",
        )
    periods = [period_math.format_period(period_type, o) for o in range(first, last + 1)]
    org_units = observations.org_units.uniques
    feature_names = observations.feature_names.uniques
    cells = (
        observations.feature_names.codes * len(org_units) + observations.org_units.codes
    ) * len(periods) + (ordinals - first)
    numbers = observations.values
    observed = ~np.isnan(numbers)
    shape = (len(feature_names), len(org_units), len(periods))
    if int(np.bincount(cells, minlength=int(np.prod(shape))).max()) > 1:
        _refuse_repeated_value(observations, cells, observed, field)
    stacked = np.full(shape, np.nan)
    stacked.reshape(-1)[cells[observed]] = numbers[observed]
    features = {name: stacked[index] for index, name in enumerate(feature_names)}
    return Panel(
        period_type=period_type, periods=periods, org_units=list(org_units), features=features
    )


def _period_ordinals(periods: Coded, field: str) -> tuple[str, np.ndarray]:
    """The period type and the ordinal of each distinct period, each parsed once; FieldProblem
    naming the first observation with a bad period or another period type."""
    firsts = _first_rows(periods.codes, len(periods.uniques))
    period_type: str | None = None
    ordinals = np.empty(len(periods.uniques), dtype=np.int64)
    for code, text in enumerate(periods.uniques):
        index = int(firsts[code])
        try:
            kind, ordinal = period_math.parse_period(text)
        except ValueError as error:
            raise FieldProblem(f"{field}[{index}].period", str(error)) from None
        if period_type is None:
            period_type = kind
        elif kind != period_type:
            raise FieldProblem(
                f"{field}[{index}].period",
                f"period {text!r} is {kind}ly, earlier periods are {period_type}ly; "
                "a dataset has one period type",
            )
        ordinals[code] = ordinal
    assert period_type is not None
    return period_type, ordinals


def _first_rows(codes: np.ndarray, count: int) -> np.ndarray:
    """The first row of each of ``count`` codes numbered in order of first appearance (where
    their running maximum grows)."""
    highest = np.maximum.accumulate(codes)
    firsts = np.flatnonzero(np.r_[True, highest[1:] > highest[:-1]])
    assert firsts.size == count, "codes are numbered in order of first appearance"
    return firsts


def _refuse_repeated_value(
    observations: ObservationColumns, cells: np.ndarray, observed: np.ndarray, field: str
) -> None:
    """FieldProblem naming the first observation of a cell (feature, org unit, period) that an
    earlier observation gave a value; a cell only earlier ``null`` observations named takes
    the later value."""
    valued: set[int] = set()
    for index, (cell, has_value) in enumerate(zip(cells.tolist(), observed.tolist(), strict=True)):
        if cell in valued:
            feature, org_unit, period = observations.cell(index)
            raise FieldProblem(
                f"{field}[{index}]",
                f"a second value for feature {feature!r}, org unit {org_unit!r}, period {period!r}",
            )
        if has_value:
            valued.add(cell)


def check_geojson(geojson: Any, org_units: Sequence[str], field: str = "geojson") -> None:
    """A FeatureCollection of features whose ids (the feature's ``id``, else ``properties.id``,
    as :func:`chaplab.vocabulary.feature_id` reads them) cover the org units, each with a polygon
    or a null geometry (RFC 7946's unlocated feature, which chap-core accepts too: data without
    boundaries, that no map can show); FieldProblem naming the broken part otherwise."""
    if not isinstance(geojson, Mapping) or geojson.get("type") != "FeatureCollection":
        raise FieldProblem(field, 'must be a GeoJSON object with "type": "FeatureCollection"')
    features = geojson.get("features")
    if not isinstance(features, list):
        raise FieldProblem(f"{field}.features", "must be a list of GeoJSON features")
    ids: set[str] = set()
    for index, feature in enumerate(features):
        where = f"{field}.features[{index}]"
        if not isinstance(feature, Mapping) or feature.get("type") != "Feature":
            raise FieldProblem(where, 'must be an object with "type": "Feature"')
        if feature.get("geometry") is not None:
            check_polygon_geometry(feature["geometry"], f"{where}.geometry")
        identifier = feature_id(feature)
        if identifier is None:
            raise FieldProblem(
                where, "has no id (set the feature's id or properties.id to the org unit)"
            )
        ids.add(identifier)
    missing = [unit for unit in org_units if unit not in ids]
    if missing:
        raise FieldProblem(field, f"has no feature for the org units {', '.join(missing[:10])}")


def dataset_content(
    observations: ObservationColumns,
    geojson: dict[str, Any] | None,
    data_sources: Sequence[Any],
    observations_field: str,
) -> DatasetContent:
    """Validate a dataset request's parts (observations, polygons) into storable content."""
    panel = panel_from_observations(observations, observations_field)
    if geojson is not None:
        check_geojson(geojson, panel.org_units)
    sources = [source.model_dump(by_alias=True) for source in data_sources]
    return DatasetContent(panel, geojson, sources)


def add_dataset_row(
    session: Session,
    name: str,
    dataset_type: str,
    content: DatasetContent,
    *,
    created_manually: bool,
) -> DatasetRow:
    """Add a dataset row holding ``content`` to ``session`` and flush it, so its id is known;
    the caller's transaction commits it (or rolls it back with everything else).
    ``created_manually`` is false for the data an evaluation or prediction came with."""
    panel = content.panel
    row = DatasetRow(
        name=name,
        type=dataset_type,
        period_type=panel.period_type,
        periods=panel.periods,
        org_units=panel.org_units,
        geojson=content.geojson,
        data_sources=content.data_sources,
        created_manually=created_manually,
        features=[
            DatasetFeatureRow(name=name, values=values.astype(np.float64).tobytes())
            for name, values in panel.features.items()
        ],
    )
    session.add(row)
    session.flush()
    return row


def panel_of(row: DatasetRow) -> Panel:
    """The stored dataset as a panel."""
    shape = (len(row.org_units), len(row.periods))
    return Panel(
        period_type=row.period_type,
        periods=row.periods,
        org_units=row.org_units,
        features={
            feature.name: np.frombuffer(feature.values, dtype=np.float64).reshape(shape)
            for feature in row.features
        },
    )


def observations_of(row: DatasetRow) -> list[dict[str, Any]]:
    """The stored dataset as wire observations, one per observed value."""
    panel = panel_of(row)
    observations: list[dict[str, Any]] = []
    for name, values in panel.features.items():
        unit_index, period_index = np.nonzero(~np.isnan(values))
        observations.extend(
            {
                "featureName": name,
                "orgUnit": panel.org_units[u],
                "period": panel.periods[p],
                "value": float(values[u, p]),
            }
            for u, p in zip(unit_index.tolist(), period_index.tolist(), strict=True)
        )
    return observations


def samples_to_bytes(samples: np.ndarray) -> bytes:
    """Samples sorted along the last axis, as float32 bytes."""
    return np.sort(np.asarray(samples, dtype=np.float32), axis=-1).tobytes()


def samples_from_bytes(blob: bytes, shape: Sequence[int]) -> np.ndarray:
    """Stored sorted samples as a read-only float32 array of ``shape``."""
    return np.frombuffer(blob, dtype=np.float32).reshape(tuple(shape))
