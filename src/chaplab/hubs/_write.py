"""chaplab's quantile frames -> a hub round's model-output rows, checked against the hub's
``tasks.json``, and written as the hub's file.

Every check that fails raises an :class:`~chaplab.errors.ArgumentError` whose sentence names
what the hub refuses and what it accepts, before anything is written.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

import numpy as np
import pandas as pd

from chaplab.errors import ArgumentError
from chaplab.frames import (
    ORG_UNIT,
    PERIOD,
    QUANTILE,
    SPLIT_PERIOD,
    VALUE,
    format_period,
    format_periods,
    require_frame_columns,
)
from chaplab.hubs._config import (
    HORIZON as HUB_HORIZON,
)
from chaplab.hubs._config import (
    LOCATION,
    TARGET,
    HubConfig,
    ModelTask,
    listed,
)
from chaplab.hubs._config import (
    QUANTILE as HUB_QUANTILE,
)
from chaplab.hubs._read import MODEL, OUTPUT_TYPE, OUTPUT_TYPE_ID
from chaplab.hubs._weeks import to_chaplab, to_hub

MODEL_ID_PATTERN = re.compile(r"^[A-Za-z0-9_+]+-[A-Za-z0-9_+]+$")
"""The hubverse's model id: a team's and a model's abbreviation joined by a hyphen."""
LEVEL_DIGITS = 10


def to_model_output(
    frame: pd.DataFrame,
    hub: Any,
    *,
    round_id: str | datetime.date,
    target: str | None = None,
    model: str | None = None,
    first_forecast_horizon: int = 0,
    partial: bool = False,
) -> pd.DataFrame:
    """The model-output rows of one hub round for a quantile frame.

    ``frame`` is an evaluation frame (its split whose first forecast week is the round's is
    written), a forecast (prediction frame, starting in that week), a local backtest or an
    ensemble: ``org_unit`` (the hub's location codes), ``period``, ``quantile``, ``value`` and
    ``split_period`` for an evaluation. A frame with a ``model`` column holding several models
    needs ``model`` to choose one. Weeks map back by :func:`chaplab.hubs.to_hub`.

    The rows are checked against the hub's ``tasks.json`` for the round and ``target``: the
    target offers quantile output; each location, horizon and target date is one of the task
    ids' values and every required value is there; the quantile levels are output type ids the
    hub accepts and include the required ones; values respect the hub's bounds and type; any
    other task id has one value or a column of its name. The hub may also require other output
    types (the example hub requires samples): a refusal names them, and ``partial=True`` gives
    the quantile rows anyway. Columns follow the hub's: its task ids in ``tasks.json``'s order,
    ``output_type``, ``output_type_id``, ``value``.
    """
    require_frame_columns(
        frame,
        [ORG_UNIT, PERIOD, QUANTILE, VALUE],
        "frame",
        ": pass an evaluation frame, a forecast, a local backtest or an ensemble",
    )
    config = HubConfig.connect(hub)
    round_text = config.round_date(round_id)
    task = config.target_task(target, round_text)
    target = config.target_name(task, target)
    frame = _one_model(frame, model)
    reference = datetime.date.fromisoformat(round_text)
    first_week = to_chaplab(
        reference, first_forecast_horizon, first_forecast_horizon=first_forecast_horizon
    )
    frame = _round_rows(frame, first_week.split_period, round_text)
    if HUB_QUANTILE not in task.output_types:
        raise ArgumentError(
            f"target {target!r} takes {listed(task.output_types)} output, not quantiles: "
            "chaplab's frames are quantiles"
        )
    _check_output_types(task, target, partial)
    periods = format_periods(frame[PERIOD])
    distinct = {
        p: to_hub(first_week.split_period, p, first_forecast_horizon=first_forecast_horizon)
        for p in set(periods)
    }
    weeks = [distinct[p] for p in periods]
    columns: dict[str, Any] = {}
    for task_id in task.task_ids:
        columns[task_id] = _task_id_column(config, task, task_id, frame, weeks, round_text, target)
    columns[OUTPUT_TYPE] = HUB_QUANTILE
    columns[OUTPUT_TYPE_ID] = frame[QUANTILE].to_numpy(dtype=np.float64)
    columns["value"] = frame[VALUE].to_numpy(dtype=np.float64)
    rows = pd.DataFrame(columns, index=range(len(frame)))
    _check_levels(task, target, rows[OUTPUT_TYPE_ID].to_numpy())
    _check_values(task, target, rows["value"].to_numpy())
    for task_id in task.task_ids:
        _check_task_values(task, task_id, rows[task_id])
    return rows


def write_model_output(
    rows: pd.DataFrame,
    hub: Any,
    *,
    model: str,
    file_format: str | None = None,
    overwrite: bool = False,
) -> str:
    """Write :func:`to_model_output`'s rows as ``model-output/<model>/<round>-<model>.<format>``
    in a local hub and return the file's path.

    ``model`` is the hub's model id (``team-model``); ``file_format`` one of the hub's
    (``admin.json``; default its first). An existing file is kept unless ``overwrite=True``.
    The hub also expects ``model-metadata/<model>.yml``, which this does not write.
    """
    if not MODEL_ID_PATTERN.match(model):
        raise ArgumentError(
            f"model {model!r} is not a hub model id: a team's and a model's abbreviation "
            "(letters, digits, '_' or '+') joined by one '-', such as 'chaplab-naive'"
        )
    config = HubConfig.connect(hub)
    formats = config.file_formats()
    chosen = file_format or formats[0]
    if chosen not in formats:
        raise ArgumentError(f"file_format {chosen!r} is not one the hub accepts: {listed(formats)}")
    rounds = rows[config.round_id].astype(str).unique()
    if len(rounds) != 1:
        raise ArgumentError(f"rows: a file holds one round, these hold {listed(sorted(rounds))}")
    from pyarrow import fs

    filesystem = config.filesystem()
    folder = f"{config.connection.model_output_dir}/{model}"
    path = f"{folder}/{rounds[0]}-{model}.{chosen}"
    if filesystem.get_file_info(path).type != fs.FileType.NotFound and not overwrite:
        raise ArgumentError(f"model: {path} exists; pass overwrite=True to replace it")
    filesystem.create_dir(folder, recursive=True)
    if chosen == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq
        from hubdata import create_hub_schema

        schema = create_hub_schema(config.tasks, partitions=None)
        table = pa.Table.from_pandas(_typed(rows, schema), schema=schema, preserve_index=False)
        with filesystem.open_output_stream(path) as stream:
            pq.write_table(table, stream)
    else:
        text = rows.to_csv(index=False, lineterminator="\n", date_format="%Y-%m-%d")
        with filesystem.open_output_stream(path) as stream:
            stream.write(text.encode())
    return str(path)


def _one_model(frame: pd.DataFrame, model: str | None) -> pd.DataFrame:
    """One model's rows of a frame with a model column."""
    if MODEL not in frame.columns:
        return frame
    present = [str(m) for m in pd.unique(frame[MODEL])]
    if model is not None and model in present:
        return frame[frame[MODEL].astype(str) == model]
    if len(present) == 1:
        return frame
    raise ArgumentError(
        f"frame holds forecasts of {len(present)} models ({listed(present)}); pass model= one "
        "of them"
    )


def _round_rows(frame: pd.DataFrame, split_period: str, round_text: str) -> pd.DataFrame:
    """The rows of the forecast from the round's first forecast week."""
    if SPLIT_PERIOD in frame.columns:
        splits = [format_period(p) for p in pd.unique(frame[SPLIT_PERIOD])]
        if split_period not in splits:
            raise ArgumentError(
                f"frame has no split {split_period} (the first forecast week of round "
                f"{round_text}); its splits are {listed(sorted(splits))}"
            )
        chosen = format_periods(frame[SPLIT_PERIOD]) == split_period
        return frame[chosen].reset_index(drop=True)
    first = format_period(frame[PERIOD].min())
    if first != split_period:
        raise ArgumentError(
            f"frame: its forecast starts in {first}, but round {round_text}'s first forecast "
            f"week is {split_period}"
        )
    return frame.reset_index(drop=True)


def _check_output_types(task: ModelTask, target: str | None, partial: bool) -> None:
    """ArgumentError naming the output types the hub requires besides quantiles."""
    required = [
        name
        for name, spec in task.output_types.items()
        if name != HUB_QUANTILE and spec.get("is_required")
    ]
    if required and not partial:
        raise ArgumentError(
            f"target {target!r} requires {listed(required)} output too, which a quantile frame "
            "cannot give; pass partial=True for the quantile rows alone (the hub's validation "
            "refuses such a file)"
        )


def _task_id_column(
    config: HubConfig,
    task: ModelTask,
    task_id: str,
    frame: pd.DataFrame,
    weeks: list[Any],
    round_text: str,
    target: str | None,
) -> Any:
    """One task id's column."""
    if task_id == config.round_id:
        return round_text
    if task_id == TARGET:
        return target
    if task_id == HUB_HORIZON:
        return np.array([w.horizon for w in weeks], dtype=np.int64)
    if task_id == config.target_end_date(task):
        return np.array([w.target_end_date.isoformat() for w in weeks], dtype=object)
    if task_id == LOCATION:
        return frame[ORG_UNIT].astype(str).to_numpy()
    if task_id in frame.columns:
        return frame[task_id].to_numpy()
    values = task.values(task_id)
    if len(values) == 1:
        return values[0]
    raise ArgumentError(
        f"frame has no column {task_id!r}, a task id of the hub with values {listed(values)}"
    )


def _check_task_values(task: ModelTask, task_id: str, column: pd.Series) -> None:
    """ArgumentError naming values the hub does not accept, or required ones missing."""
    allowed = {str(v) for v in task.values(task_id)}
    present = {str(v) for v in column.unique()}
    if allowed:
        refused = sorted(present - allowed)
        if refused:
            raise ArgumentError(
                f"{task_id}: the hub does not accept {listed(refused[:5])}"
                f"{' and more' if len(refused) > 5 else ''}; it accepts {_few(allowed)}"
            )
    missing = [str(v) for v in task.required(task_id) if str(v) not in present]
    if missing:
        raise ArgumentError(f"{task_id}: the hub requires {listed(missing)}, which the rows lack")


def _check_levels(task: ModelTask, target: str | None, levels: np.ndarray) -> None:
    """ArgumentError naming quantile levels the hub does not accept, or required ones missing."""
    accepted = np.round(
        np.asarray(task.output_type_ids(HUB_QUANTILE), dtype=np.float64), LEVEL_DIGITS
    )
    required = np.round(
        np.asarray(task.required_output_type_ids(HUB_QUANTILE), dtype=np.float64), LEVEL_DIGITS
    )
    present = np.unique(np.round(levels, LEVEL_DIGITS))
    refused = present[~np.isin(present, accepted)]
    if len(refused):
        raise ArgumentError(
            f"quantile levels {_levels(refused)} are not output type ids the hub accepts for "
            f"target {target!r} ({_levels(accepted)}); ask for its levels (evaluation_frame("
            "..., quantiles=...), chaplab.backtest(..., quantiles=...))"
        )
    missing = required[~np.isin(required, present)]
    if len(missing):
        raise ArgumentError(
            f"quantile levels {_levels(missing)} are required by the hub for target {target!r} "
            "and missing from the frame"
        )


def _check_values(task: ModelTask, target: str | None, values: np.ndarray) -> None:
    """ArgumentError naming the hub's bound or type that values break."""
    spec = task.output_types[HUB_QUANTILE].get("value") or {}
    if np.isnan(values).any():
        raise ArgumentError(f"value: {int(np.isnan(values).sum())} values are missing (NaN)")
    low, high = spec.get("minimum"), spec.get("maximum")
    if low is not None and (values < low).any():
        raise ArgumentError(
            f"value: the hub takes values of at least {low} for target {target!r}; "
            f"{int((values < low).sum())} are below it (the lowest {values.min():g})"
        )
    if high is not None and (values > high).any():
        raise ArgumentError(
            f"value: the hub takes values of at most {high} for target {target!r}; "
            f"{int((values > high).sum())} are above it (the highest {values.max():g})"
        )
    if spec.get("type") == "integer" and not np.all(values == np.round(values)):
        raise ArgumentError(f"value: the hub takes whole numbers for target {target!r}")


def _typed(rows: pd.DataFrame, schema: Any) -> pd.DataFrame:
    """Rows with the dtypes of the hub's schema (dates as dates, ids as text)."""
    typed = rows.copy()
    for field in schema:
        if field.name not in typed.columns:
            continue
        kind = str(field.type)
        if kind.startswith("date"):
            typed[field.name] = pd.to_datetime(typed[field.name]).dt.date
        elif kind == "string":
            typed[field.name] = typed[field.name].map(_text)
    return typed


def _text(value: Any) -> str:
    """A value as text, numbers without a trailing '.0'."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _levels(levels: np.ndarray) -> str:
    return ", ".join(f"{level:g}" for level in levels)


def _few(values: set[str]) -> str:
    ordered = sorted(values)
    shown = listed(ordered[:8])
    return shown + (f" and {len(ordered) - 8} more" if len(ordered) > 8 else "")
