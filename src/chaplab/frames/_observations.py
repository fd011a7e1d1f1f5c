"""A wide frame of observations -> wire observations (dicts, or their JSON written column-wise)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from chaplab.errors import ArgumentError
from chaplab.frames._names import ORG_UNIT_NAME
from chaplab.frames._periods import format_periods, parse_periods
from chaplab.jsonrows import Coded, Column, Rows

_TIME_COLUMNS = ("time_period", "period")
_LOCATION_COLUMNS = ("location", "org_unit")
PARENT = "parent"
"""The column of chap-core 2.5.1's dataset frames that names each org unit's parent in its
GeoJSON's hierarchy (``"-"`` for none): a label, which chap-core's own models drop too."""


def _pick(frame: pd.DataFrame, spellings: tuple[str, ...]) -> str:
    """The frame's column among ``spellings`` (from its columns or its index levels)."""
    for name in spellings:
        if name in frame.columns:
            return name
    raise ArgumentError(
        f"observations need a {spellings[0]!r} column (or {spellings[1]!r}); "
        f"the frame has {list(frame.columns)}"
    )


def frame_to_observations(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """``time_period``, ``location`` and one numeric column per feature -> a list of
    ``{"featureName", "orgUnit", "period", "value"}`` with canonical period strings.

    Missing values (NaN) are left out. ``period`` and ``org_unit`` are accepted as spellings
    of the time and location columns, also as index levels; ``org_unit_name`` and ``parent``
    (chap-core's parent org unit) are labels, not features, and are not sent. Any other column
    is a feature and must hold numbers: a ValueError names the first that does not.
    """
    (_, features), (_, org_units), (_, periods), (_, values) = _observation_columns(frame)
    assert isinstance(features, Coded) and isinstance(org_units, Coded)
    assert isinstance(periods, Coded) and isinstance(values, np.ndarray)
    return [
        {"featureName": feature, "orgUnit": org_unit, "period": period, "value": value}
        for feature, org_unit, period, value in zip(
            np.asarray(features.uniques, dtype=object)[features.codes],
            np.asarray(org_units.uniques, dtype=object)[org_units.codes],
            np.asarray(periods.uniques, dtype=object)[periods.codes],
            values.tolist(),
            strict=True,
        )
    ]


def observation_rows(frame: pd.DataFrame) -> Rows:
    """The observations of :func:`frame_to_observations` as columns, checked the same way, to
    be written as their JSON array (``.json()``, or ``.chunks()`` a block at a time) without a
    Python object per observation: a country's 656,000 observations in a fraction of a
    second, in about the JSON's size of memory."""
    return Rows(_observation_columns(frame))


def _observation_columns(frame: pd.DataFrame) -> list[tuple[str, Column]]:
    """The wire observations of a wide frame as columns, feature by feature, each feature's
    observed values in the frame's row order."""
    frame = frame.reset_index() if _has_named_index(frame) else frame
    time_column = _pick(frame, _TIME_COLUMNS)
    location_column = _pick(frame, _LOCATION_COLUMNS)
    labels = (time_column, location_column, ORG_UNIT_NAME, PARENT)
    features = [name for name in frame.columns if name not in labels]
    if not features:
        raise ArgumentError(
            "observations need at least one feature column besides time and location"
        )
    try:
        periods = format_periods(parse_periods(frame[time_column].to_numpy(dtype=object)))
    except ValueError as error:
        raise ArgumentError(f"column {time_column!r}: {error}") from None
    if frame[location_column].isna().any():
        raise ArgumentError(f"column {location_column!r} has missing org units")
    locations = _coded(frame[location_column].astype(str).to_numpy(dtype=object))
    period_codes = _coded(periods)
    numbers = [_numeric(frame[name], str(name)) for name in features]
    present = [np.flatnonzero(~np.isnan(values)) for values in numbers]
    rows = np.concatenate(present)
    feature_codes = np.repeat(np.arange(len(features)), [part.size for part in present])
    values = np.concatenate([v[part] for v, part in zip(numbers, present, strict=True)])
    return [
        ("featureName", Coded(feature_codes, [str(name) for name in features])),
        ("orgUnit", Coded(locations.codes[rows], locations.uniques)),
        ("period", Coded(period_codes.codes[rows], period_codes.uniques)),
        ("value", values),
    ]


def _coded(values: np.ndarray) -> Coded:
    codes, uniques = pd.factorize(values)
    return Coded(codes, [str(value) for value in uniques])


def _has_named_index(frame: pd.DataFrame) -> bool:
    return any(name is not None for name in frame.index.names)


def _numeric(series: pd.Series, name: str) -> np.ndarray:
    """A feature column as float64; ValueError naming the column for anything non-numeric."""
    if pd.api.types.is_bool_dtype(series) or not (
        pd.api.types.is_numeric_dtype(series) or series.isna().all()
    ):
        converted = pd.to_numeric(series, errors="coerce")
        bad = converted.isna() & series.notna()
        if pd.api.types.is_bool_dtype(series) or bad.any():
            example = series[bad].iloc[0] if bad.any() else series.iloc[0]
            raise ArgumentError(
                f"feature column {name!r} holds non-numeric values such as {example!r}: every "
                "column besides time, location, org_unit_name and parent is sent as a feature, "
                "so drop it or convert it to numbers"
            )
        series = converted
    values: np.ndarray = series.to_numpy(dtype=np.float64, na_value=np.nan)
    return values
