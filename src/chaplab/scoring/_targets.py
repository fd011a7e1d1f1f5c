"""Forecast entries and actual cases -> per-model matrices of forecast targets.

A forecast target is one model's forecast of one org unit and period from one split period;
its entries are its quantiles. Entries of all models are sorted once on one integer key
(model, org unit, split period, period, level), checked to give every target of a model the same
levels, and reshaped to a ``(targets, levels)`` matrix per model; the actual case of every target
is found with one hash lookup.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

from chaplab.errors import ArgumentError, ArgumentTypeError
from chaplab.frames import (
    HORIZON,
    ORG_UNIT,
    ORG_UNIT_NAME,
    PERIOD,
    QUANTILE,
    SPLIT_PERIOD,
    VALUE,
    forecast_horizons,
    frame_labels,
    period_label,
    periods_from_ordinals,
    require_frame_columns,
)
from chaplab.scoring._rules import LEVEL_DIGITS

MODEL = "model"
MONTH = "month"
SCALE = "scale"
SCALES = ("natural", "log")
FORECAST_COLUMNS = (ORG_UNIT, SPLIT_PERIOD, PERIOD, QUANTILE, VALUE)
ACTUAL_COLUMNS = (ORG_UNIT, PERIOD, VALUE)

Forecasts: TypeAlias = pd.DataFrame | Mapping[str, pd.DataFrame]
Unmatched = Literal["raise", "drop"]


@dataclass(frozen=True)
class Block:
    """One model's targets: org unit codes, split and period ordinals, observations, and the
    quantile values at the model's levels (one row per target)."""

    model: str
    org_unit: np.ndarray
    split_period: np.ndarray
    period: np.ndarray
    observed: np.ndarray
    levels: np.ndarray
    values: np.ndarray


@dataclass(frozen=True)
class Targets:
    """Every model's block, with what turns codes back into labels (the org units' names too,
    when the inputs name them)."""

    models: list[str]
    org_units: pd.Index
    dtype: pd.PeriodDtype
    scale: str
    blocks: list[Block]
    org_unit_names: np.ndarray | None = None
    """The name of each of ``org_units``, None when no input frame has ``org_unit_name``."""

    def keys(self, block: Block) -> pd.DataFrame:
        """The identifying columns of a block's targets: model, org unit (and its name, when
        known), split period, period, horizon (1 = the split period,
        ``chaplab.frames.forecast_horizons``), calendar month and scale."""
        split = periods_from_ordinals(block.split_period, self.dtype.freq)
        period = periods_from_ordinals(block.period, self.dtype.freq)
        count = len(period)
        keys = pd.DataFrame(
            {
                MODEL: pd.Categorical.from_codes(
                    np.full(count, self.models.index(block.model)), categories=self.models
                ),
                ORG_UNIT: pd.Categorical.from_codes(block.org_unit, categories=self.org_units),
                SPLIT_PERIOD: split,
                PERIOD: period,
                HORIZON: forecast_horizons(split, period).astype(np.int64),
                MONTH: calendar_months(block.period, self.dtype),
                SCALE: pd.Categorical([self.scale] * count, categories=list(SCALES)),
            }
        )
        if self.org_unit_names is not None:
            names = pd.Categorical(self.org_unit_names[block.org_unit])
            keys.insert(keys.columns.get_loc(ORG_UNIT) + 1, ORG_UNIT_NAME, names)
        return keys


def org_unit_names_of(
    forecasts: Forecasts, actuals: pd.DataFrame | None = None
) -> dict[str, str] | None:
    """Org unit -> name from the ``org_unit_name`` column of the forecast frames or
    ``actuals`` (an org unit none names keeps its id), None when none has that column: scores
    of named forecasts stay named without every caller adding the names back."""
    frames = [forecasts] if isinstance(forecasts, pd.DataFrame) else list(forecasts.values())
    given = [f for f in (*frames, actuals) if isinstance(f, pd.DataFrame) and ORG_UNIT in f]
    if not any(ORG_UNIT_NAME in frame.columns for frame in given):
        return None
    return frame_labels(*given)


def with_org_unit_name(groups: Sequence[str], columns: pd.Index) -> list[str]:
    """Grouping columns with ``org_unit_name`` after ``org_unit`` when the frame has it (one
    name per org unit: the groups stay the same, the summary keeps the names)."""
    named = list(groups)
    if ORG_UNIT in named and ORG_UNIT_NAME in columns and ORG_UNIT_NAME not in named:
        named.insert(named.index(ORG_UNIT) + 1, ORG_UNIT_NAME)
    return named


def calendar_months(ordinals: np.ndarray, dtype: pd.PeriodDtype) -> np.ndarray:
    """Month (1-12) of each period: a week's month is that of its Thursday, as ISO dates a
    week's year."""
    codes, distinct = pd.factorize(ordinals)
    periods = pd.PeriodIndex.from_ordinals(distinct, freq=dtype.freq)
    months: np.ndarray
    if periods.freqstr == "M":
        months = np.asarray(periods.month, dtype=np.int64)[codes]
    else:
        thursdays = periods.to_timestamp(how="start") + pd.Timedelta(days=3)
        months = np.asarray(thursdays.month, dtype=np.int64)[codes]
    return months


def align(
    forecasts: Forecasts,
    actuals: pd.DataFrame,
    *,
    model_column: str = MODEL,
    scale: str = "natural",
    unmatched: Unmatched = "raise",
) -> Targets:
    """Check the inputs and build every model's block (see the module's docstring)."""
    if scale not in SCALES:
        raise ArgumentError(f"scale must be one of {', '.join(SCALES)}, got {scale!r}")
    if unmatched not in ("raise", "drop"):
        raise ArgumentError(f"unmatched must be 'raise' or 'drop', got {unmatched!r}")
    entries = _entries(forecasts, model_column)
    observed_lookup = _actuals(actuals, entries)
    order = _sort_order(entries)
    blocks = [
        _block(entries, observed_lookup, order, code, unmatched)
        for code in range(len(entries.models))
    ]
    blocks = [block for block in blocks if len(block.observed)]
    if not blocks:
        raise ArgumentError("actuals: no forecast target has an observed value to score against")
    if scale == "log":
        blocks = [_log_block(block) for block in blocks]
    names = org_unit_names_of(forecasts, actuals)
    labels = None if names is None else np.array([names.get(o, o) for o in entries.org_units])
    return Targets(entries.models, entries.org_units, entries.dtype, scale, blocks, labels)


@dataclass(frozen=True)
class _Entries:
    """All models' entries as flat arrays with the labels of their codes."""

    models: list[str]
    model: np.ndarray
    org_units: pd.Index
    org_unit: np.ndarray
    dtype: pd.PeriodDtype
    split_period: np.ndarray
    period: np.ndarray
    level: np.ndarray
    value: np.ndarray


def _entries(forecasts: Forecasts, model_column: str) -> _Entries:
    """The entries of a mapping of model name -> frame, or of one frame with a model column."""
    if isinstance(forecasts, pd.DataFrame):
        if model_column not in forecasts.columns:
            raise ArgumentError(
                f"forecasts has no {model_column!r} column (model_column) to tell models apart; "
                "add one, name another with model_column=, or pass {name: frame, ...}"
            )
        column = forecasts[model_column]
        if isinstance(column.dtype, pd.CategoricalDtype):  # the categories' order, else sorted
            codes, names = pd.factorize(column.cat.remove_unused_categories(), sort=True)
        else:
            codes, names = pd.factorize(column, sort=True)
        if (codes < 0).any():
            raise ArgumentError(f"forecasts: column {model_column!r} has missing model names")
        frames = [forecasts]
        models = [str(name) for name in names]
        model = codes.astype(np.int64)
    elif isinstance(forecasts, Mapping):
        if not forecasts:
            raise ArgumentError("forecasts is an empty mapping: give at least one model's frame")
        models = [str(name) for name in forecasts]
        frames = list(forecasts.values())
        for name, frame in zip(models, frames, strict=True):
            if not isinstance(frame, pd.DataFrame):
                raise ArgumentTypeError(
                    f"forecasts[{name!r}] must be a pandas DataFrame, got {type(frame).__name__}"
                )
        model = np.repeat(np.arange(len(frames)), [len(frame) for frame in frames])
    else:
        raise ArgumentTypeError(
            "forecasts must be a DataFrame with a model column or a mapping of model name to "
            f"DataFrame, got {type(forecasts).__name__}"
        )
    names = _frame_names(forecasts, models)
    for frame, name in zip(frames, names, strict=True):
        _check_forecast_frame(frame, name)
    dtype = _common_dtype(frames)
    org_unit = union_categoricals(
        [_org_units(frame, name) for frame, name in zip(frames, names, strict=True)],
        ignore_order=True,
    )
    level = np.round(
        np.concatenate([f[QUANTILE].to_numpy(np.float64) for f in frames]), LEVEL_DIGITS
    )
    value = np.concatenate([f[VALUE].to_numpy(np.float64) for f in frames])
    if not ((level > 0) & (level < 1)).all():
        bad = level[~((level > 0) & (level < 1))][0]
        raise ArgumentError(f"forecasts: quantile level {bad:g} is outside (0, 1)")
    if not np.isfinite(value).all():
        position = int(np.flatnonzero(~np.isfinite(value))[0])
        raise ArgumentError(
            f"forecasts: value is {value[position]} for a forecast of model "
            f"{models[model[position]]!r}; every quantile needs a finite value"
        )
    return _Entries(
        models=models,
        model=model,
        org_units=pd.Index(org_unit.categories.astype(str)),
        org_unit=org_unit.codes.astype(np.int64),
        dtype=dtype,
        split_period=np.concatenate([_ordinals(f[SPLIT_PERIOD]) for f in frames]),
        period=np.concatenate([_ordinals(f[PERIOD]) for f in frames]),
        level=level,
        value=value,
    )


def _frame_names(forecasts: Forecasts, models: list[str]) -> list[str]:
    if isinstance(forecasts, pd.DataFrame):
        return ["forecasts"]
    return [f"forecasts[{name!r}]" for name in models]


def _check_forecast_frame(frame: pd.DataFrame, what: str) -> None:
    advice = (
        f"; it needs {list(FORECAST_COLUMNS)} "
        "(an evaluation frame from chaplab.frames.entries_to_frame)"
    )
    require_frame_columns(frame, FORECAST_COLUMNS, what, advice)
    for name in (SPLIT_PERIOD, PERIOD):
        if not isinstance(frame[name].dtype, pd.PeriodDtype):
            raise ArgumentError(
                f"{what}: column {name!r} must hold pandas Periods, not {frame[name].dtype}"
            )
    if frame.empty:
        raise ArgumentError(f"{what} is empty: there is nothing to score")


def _org_units(frame: pd.DataFrame, what: str) -> pd.Categorical:
    """The org unit column as a categorical of strings (categories renamed, not rows)."""
    column = frame[ORG_UNIT]
    if column.isna().any():
        raise ArgumentError(f"{what}: column 'org_unit' has missing values")
    if isinstance(column.dtype, pd.CategoricalDtype):
        return pd.Categorical.from_codes(
            column.cat.codes.to_numpy(), categories=column.cat.categories.astype(str)
        )
    return pd.Categorical(column.astype(str))


def _common_dtype(frames: list[pd.DataFrame]) -> pd.PeriodDtype:
    """The one period type of every frame's split periods and periods."""
    found = {f[name].dtype for f in frames for name in (SPLIT_PERIOD, PERIOD)}
    if len(found) > 1:
        raise ArgumentError(f"forecasts mix period types {sorted(map(str, found))}; use one")
    return found.pop()


def _ordinals(column: pd.Series) -> np.ndarray:
    return np.asarray(column.array.asi8, dtype=np.int64)


@dataclass(frozen=True)
class _Lookup:
    """Actual cases keyed by org unit code (in the forecasts' org units) and period ordinal."""

    index: pd.Index
    values: np.ndarray
    first: int
    span: int

    def observed(self, org_unit: np.ndarray, period: np.ndarray) -> np.ndarray:
        """The actual case of each (org unit, period); NaN where there is none."""
        position = self.index.get_indexer(org_unit * self.span + (period - self.first))
        found = np.full(len(position), np.nan)
        hit = position >= 0
        found[hit] = self.values[position[hit]]
        return found


def _actuals(actuals: pd.DataFrame, entries: _Entries) -> _Lookup:
    """Check the actual cases and index them by (org unit, period)."""
    advice = f"; it needs {list(ACTUAL_COLUMNS)} (chaplab.frames.actuals_to_frame)"
    require_frame_columns(actuals, ACTUAL_COLUMNS, "actuals", advice)
    period_type = actuals[PERIOD].dtype
    if period_type != entries.dtype:
        raise ArgumentError(
            f"actuals: column 'period' is {period_type} but the forecasts' periods are "
            f"{entries.dtype}"
        )
    codes = pd.Categorical(actuals[ORG_UNIT].astype(str), categories=entries.org_units).codes
    known = codes >= 0
    periods = _ordinals(actuals[PERIOD])[known]
    first = int(min(periods.min(initial=entries.period.min()), entries.period.min()))
    span = int(max(periods.max(initial=entries.period.max()), entries.period.max())) - first + 1
    keys = pd.Index(codes[known].astype(np.int64) * span + (periods - first))
    if not keys.is_unique:
        duplicate = int(np.flatnonzero(keys.duplicated())[0])
        row = actuals[known].iloc[duplicate]
        raise ArgumentError(
            f"actuals has more than one value for org unit {row[ORG_UNIT]!r}, period "
            f"{period_label(row[PERIOD])}"
        )
    return _Lookup(keys, actuals[VALUE].to_numpy(np.float64)[known], first, span)


def _sort_order(entries: _Entries) -> np.ndarray | None:
    """The order that sorts entries by model, org unit, split period, period and level; None
    when they are sorted already (as the frames of chaplab.frames are, per model)."""
    keys = [entries.model, entries.org_unit, entries.split_period, entries.period]
    level_codes, _ = pd.factorize(entries.level, sort=True)
    parts = [key - key.min() for key in keys] + [level_codes.astype(np.int64)]
    sizes = [int(part.max()) + 1 for part in parts]
    if float(np.prod(np.array(sizes, dtype=np.float64))) >= 2.0**62:
        order = np.lexsort(parts[::-1])
        return None if (order == np.arange(len(order))).all() else order
    combined = np.zeros(len(entries.value), dtype=np.int64)
    for part, size in zip(parts, sizes, strict=True):
        combined = combined * size + part
    if (combined[1:] > combined[:-1]).all():
        return None
    return np.argsort(combined, kind="stable")


def _block(
    entries: _Entries, lookup: _Lookup, order: np.ndarray | None, code: int, unmatched: Unmatched
) -> Block:
    """One model's targets as a matrix, with their observations."""
    name = entries.models[code]
    if order is None:
        rows = np.flatnonzero(entries.model == code)
    else:
        rows = order[entries.model[order] == code]
    org_unit = entries.org_unit[rows]
    split = entries.split_period[rows]
    period = entries.period[rows]
    level = entries.level[rows]
    levels = np.sort(pd.unique(level))
    starts = np.flatnonzero(
        np.r_[
            True,
            (org_unit[1:] != org_unit[:-1])
            | (split[1:] != split[:-1])
            | (period[1:] != period[:-1]),
        ]
    )
    counts = np.diff(np.r_[starts, len(rows)])
    width = len(levels)
    if not ((counts == width).all() and (level.reshape(-1, width) == levels).all()):
        _raise_irregular(entries, name, levels, starts, counts, org_unit, split, period, level)
    values = entries.value[rows].reshape(-1, len(levels))
    org_unit, split, period = org_unit[starts], split[starts], period[starts]
    observed = lookup.observed(org_unit, period)
    seen = np.isfinite(observed)
    if not seen.all() and unmatched == "raise":
        first = int(np.flatnonzero(~seen)[0])
        raise ArgumentError(
            f"actuals: {int((~seen).sum())} of {len(seen)} forecast targets of model {name!r} "
            f"have no observed value, e.g. org unit {entries.org_units[org_unit[first]]!r}, "
            f"period {_period(period[first], entries.dtype)}; pass "
            "unmatched='drop' to score only the observed ones"
        )
    return Block(
        name, org_unit[seen], split[seen], period[seen], observed[seen], levels, values[seen]
    )


def _raise_irregular(
    entries: _Entries,
    name: str,
    levels: np.ndarray,
    starts: np.ndarray,
    counts: np.ndarray,
    org_unit: np.ndarray,
    split: np.ndarray,
    period: np.ndarray,
    level: np.ndarray,
) -> None:
    """ValueError naming the first target whose levels differ from the model's."""
    for start, count in zip(starts, counts, strict=True):
        own = level[start : start + count]
        if count != len(levels) or not (own == levels).all():
            break
    target = (
        f"org unit {entries.org_units[org_unit[start]]!r}, split period "
        f"{_period(split[start], entries.dtype)}, period "
        f"{_period(period[start], entries.dtype)}"
    )
    levels_text = ", ".join(f"{q:g}" for q in own)
    all_text = ", ".join(f"{q:g}" for q in levels)
    raise ArgumentError(
        f"forecasts of model {name!r}: {target} has quantile levels [{levels_text}] but the "
        f"model's forecasts have [{all_text}]; each target needs every level exactly once"
    )


def _period(ordinal: np.integer, dtype: pd.PeriodDtype) -> str:
    """A period ordinal of ``dtype`` as people read it, for an error message."""
    return period_label(pd.Period(ordinal=int(ordinal), freq=dtype.freq))


def _log_block(block: Block) -> Block:
    """The block on the log scale: log1p of forecasts and observations."""
    for what, array in (("forecast values", block.values), ("actual cases", block.observed)):
        if (array < 0).any():
            raise ArgumentError(
                f"scale='log' takes log1p of forecasts and actuals, but model {block.model!r} "
                f"has negative {what} (lowest {array.min():g})"
            )
    return Block(
        block.model,
        block.org_unit,
        block.split_period,
        block.period,
        np.log1p(block.observed),
        block.levels,
        np.log1p(block.values),
    )
