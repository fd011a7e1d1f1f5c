"""A hub's model output and target data -> chaplab's frames.

The files are read by ``hubdata`` (a pyarrow dataset over the hub's model-output folder, CSV or
parquet, local or in the cloud) with the models, rounds, target and locations asked for pushed
down as a filter; the rows become frames column by column, each distinct (round, horizon) pair
mapped once by :func:`chaplab.hubs.to_chaplab`.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from chaplab import vocabulary
from chaplab.errors import ArgumentError
from chaplab.frames import (
    HORIZON,
    ORG_UNIT,
    ORG_UNIT_NAME,
    PERIOD,
    QUANTILE,
    SPLIT_PERIOD,
    VALUE,
    parse_periods,
)
from chaplab.hubs._config import (
    HORIZON as HUB_HORIZON,
)
from chaplab.hubs._config import (
    LOCATION,
    MEAN,
    MEDIAN,
    PMF,
    READ_OUTPUT_TYPES,
    SAMPLE,
    TARGET,
    HubConfig,
    ModelTask,
    listed,
)
from chaplab.hubs._config import (
    QUANTILE as HUB_QUANTILE,
)
from chaplab.hubs._weeks import to_chaplab, week_end
from chaplab.quantiles import quantiles_from_sorted

MODEL = "model"
CATEGORY = "category"
PROBABILITY = "probability"
OUTPUT_TYPE = "output_type"
OUTPUT_TYPE_ID = "output_type_id"
MODEL_ID = "model_id"
PAIR_BASE = 1 << 12
"""Round days and horizons are packed into one integer key (horizons within +-2048 weeks)."""


@dataclass(frozen=True)
class HubForecasts:
    """One target's forecasts from a hub, as chaplab frames.

    - ``quantiles``: quantile output, an evaluation frame with a ``model`` column (``model``,
      ``org_unit``, ``org_unit_name``, ``split_period``, ``period``, ``horizon``, ``quantile``,
      ``value``), scored by :func:`chaplab.scoring.score` as it is;
    - ``samples``: sample output turned into quantiles (:mod:`chaplab.quantiles`, as the service
      turns its samples), the same layout; kept apart from ``quantiles`` because a model may give
      both for the same target;
    - ``pmf``: pmf output, ``model``, ``org_unit``, ``org_unit_name``, ``split_period``,
      ``period``, ``horizon``, ``category`` (ordered as the hub lists them), ``probability``;
      scored by :func:`chaplab.scoring.score_pmf`;
    - ``points``: median and mean output, ``output_type`` and ``value`` per target;
    - ``nowcasts``: every row (any output type) of a week before the split period, as the hub
      wrote it with chaplab's ``org_unit``, ``split_period``, ``period`` and ``horizon`` (0 or
      below) beside it; never in the frames above.
    """

    target: str | None
    quantiles: pd.DataFrame
    samples: pd.DataFrame
    pmf: pd.DataFrame
    points: pd.DataFrame
    nowcasts: pd.DataFrame

    def __repr__(self) -> str:
        parts = {
            "quantiles": self.quantiles,
            "samples": self.samples,
            "pmf": self.pmf,
            "points": self.points,
            "nowcasts": self.nowcasts,
        }
        rows = ", ".join(f"{name}: {len(frame):,} rows" for name, frame in parts.items())
        models = sorted(
            {str(m) for frame in parts.values() if MODEL in frame for m in frame[MODEL].unique()}
        )
        return f"HubForecasts(target={self.target!r}, models={models}; {rows})"


def read_forecasts(
    hub: Any,
    *,
    models: Iterable[str] | None = None,
    rounds: Iterable[str | datetime.date] | None = None,
    target: str | None = None,
    locations: Iterable[str] | None = None,
    first_forecast_horizon: int = 0,
    sample_quantiles: Sequence[float] | None = None,
) -> HubForecasts:
    """A hub's forecasts of one ``target`` as chaplab frames (:class:`HubForecasts`).

    ``hub`` is a hub's folder, a URI ``hubdata.connect_hub`` reaches (``s3://bucket``) or a
    ``hubdata.HubConnection``. ``models``, ``rounds`` (reference dates) and ``locations`` (the
    hub's location codes) choose rows; ``target=None`` names the hub's only target. Weeks map by
    :func:`chaplab.hubs.to_chaplab` with ``first_forecast_horizon``. Sample output becomes
    quantiles at ``sample_quantiles`` (default: the target's quantile levels in the hub, else
    chaplab's default levels).

    Locations that are the total of the others (the locations file's population says so: the
    hub's ``US``) are kept apart: ``locations=None`` reads the places only, and a total is read
    when named, on its own (``locations=["US"]``), so that a total is never scored or averaged
    beside its parts. ``median`` and ``mean`` output is read into ``points``; ``cdf`` output is
    not read (a target with only cdf output is refused, naming it).
    """
    config = HubConfig.connect(hub)
    task = config.target_task(target)
    target = config.target_name(task, target)
    _check_weekly(task, target)
    _check_task_ids(config, task, target)
    chosen_models = _chosen_models(config, models)
    chosen_rounds = None if rounds is None else [config.round_date(r, "rounds") for r in rounds]
    chosen_locations = _chosen_locations(config, task, locations)
    table = _model_output(config, task, target, chosen_models, chosen_rounds, chosen_locations)
    rows = _HubRows.build(config, task, table, first_forecast_horizon)
    levels = _sample_levels(task, sample_quantiles)
    return HubForecasts(
        target=target,
        quantiles=rows.quantile_frame(HUB_QUANTILE),
        samples=rows.sample_frame(levels),
        pmf=rows.pmf_frame(task),
        points=rows.point_frame(),
        nowcasts=rows.nowcast_frame(),
    )


def read_target_data(
    hub: Any,
    *,
    target: str | None = None,
    locations: Iterable[str] | None = None,
) -> pd.DataFrame:
    """What really happened, from the hub's target data, for one ``target``.

    For a target forecast by quantiles, samples, medians or means: an actuals frame
    (``org_unit``, ``org_unit_name``, ``period``, ``value``) from the time series
    (``target-data/time-series.csv``, ``.parquet`` or a folder of them, read by ``hubdata``).
    For a pmf target: the observed category (``org_unit``, ``org_unit_name``, ``period``,
    ``category``) from the oracle output, the rows whose ``oracle_value`` is 1. Totals are
    kept apart as in :func:`read_forecasts`. A versioned time series gives its latest version.
    """
    return target_data(HubConfig.connect(hub), target, locations)


def target_data(
    config: HubConfig, target: str | None, locations: Iterable[str] | None
) -> pd.DataFrame:
    """:func:`read_target_data` of a hub already connected."""
    from hubdata import connect_target_data
    from hubdata.create_target_data_schema import TargetType

    task = config.target_task(target)
    target = config.target_name(task, target)
    chosen = _chosen_locations(config, task, locations)
    is_pmf = PMF in task.output_types and not set(task.output_types) & {HUB_QUANTILE, SAMPLE}
    kind = TargetType.ORACLE_OUTPUT if is_pmf else TargetType.TIME_SERIES
    try:
        connection = connect_target_data(config.connection.hub_path, kind)
    except RuntimeError as error:
        what = "oracle output" if is_pmf else "time series"
        raise ArgumentError(f"hub: its target data has no {what}: {error}") from None
    frame = connection.to_table().to_pandas()
    date_column = _date_column(frame)
    if target is not None and TARGET in frame.columns:
        frame = frame[frame[TARGET] == target]
    frame = frame[frame[LOCATION].astype(str).isin(chosen)]
    if "as_of" in frame.columns:
        frame = frame.sort_values("as_of").drop_duplicates([LOCATION, date_column], keep="last")
    if is_pmf:
        frame = frame[frame["oracle_value"] == 1]
    dates = pd.to_datetime(frame[date_column]).dt.date
    periods = _week_labels(dates.to_numpy(), "target data's " + date_column)
    names = config.location_names()
    codes = frame[LOCATION].astype(str).to_numpy()
    result = pd.DataFrame(
        {
            ORG_UNIT: pd.Categorical(codes, categories=[c for c in chosen if c in set(codes)]),
            ORG_UNIT_NAME: pd.Categorical([names.get(code, code) for code in codes]),
            PERIOD: parse_periods(periods),
        }
    )
    if is_pmf:
        categories = [str(c) for c in task.output_type_ids(PMF)]
        result[CATEGORY] = pd.Categorical(
            frame[OUTPUT_TYPE_ID].astype(str).to_numpy(), categories=categories, ordered=True
        )
    else:
        result[VALUE] = frame["observation"].to_numpy(dtype=np.float64)
    order = np.lexsort([result[PERIOD].array.asi8, result[ORG_UNIT].cat.codes])
    return result.take(order).reset_index(drop=True)


def _check_weekly(task: ModelTask, target: str | None) -> None:
    """ArgumentError for a target whose horizon counts something other than weeks."""
    if task.time_unit not in (None, "week"):
        raise ArgumentError(
            f"target {target!r} counts its horizon in {task.time_unit}s: chaplab reads weekly "
            "hubs (epidemiological weeks onto ISO weeks); its periods are months and weeks"
        )


def _check_task_ids(config: HubConfig, task: ModelTask, target: str | None) -> None:
    """ArgumentError naming task ids beyond a round, target, horizon, location and week: rows
    that differ only in them (an age group, a scenario) would be one target in chaplab's
    frames."""
    known = {config.round_id, TARGET, HUB_HORIZON, LOCATION, config.target_end_date(task)}
    others = [name for name in task.task_ids if name not in known]
    if others:
        raise ArgumentError(
            f"target {target!r} has the task ids {listed(others)} besides round, horizon, "
            "location and week, which chaplab's frames have no column for"
        )


def _chosen_models(config: HubConfig, models: Iterable[str] | None) -> list[str] | None:
    """The models asked for, checked against the hub's; None for all."""
    if models is None:
        return None
    chosen = [models] if isinstance(models, str) else [str(m) for m in models]
    known = config.model_ids()
    unknown = [m for m in chosen if m not in known]
    if unknown:
        raise ArgumentError(
            f"models: {listed(unknown)} has no output in the hub; its models are {listed(known)}"
        )
    return chosen


def _chosen_locations(
    config: HubConfig, task: ModelTask, locations: Iterable[str] | None
) -> list[str]:
    """The location codes to read: the hub's places, or those named, never totals and places
    together."""
    known = [str(v) for v in task.values(LOCATION)] if LOCATION in task.task_ids else []
    totals = config.totals()
    if locations is None:
        return [code for code in known if code not in totals]
    chosen = [locations] if isinstance(locations, str) else [str(code) for code in locations]
    unknown = [code for code in chosen if code not in known]
    if unknown:
        raise ArgumentError(
            f"locations: {listed(unknown)} is not a location of the hub's target; its locations "
            f"are {listed(known)}"
        )
    named_totals = [code for code in chosen if code in totals]
    if named_totals and len(named_totals) < len(chosen):
        raise ArgumentError(
            f"locations: {listed(named_totals)} is the total of the other locations; read it on "
            f"its own (locations={named_totals!r}), so that it is not scored beside its parts"
        )
    return chosen


def _model_output(
    config: HubConfig,
    task: ModelTask,
    target: str | None,
    models: list[str] | None,
    rounds: list[str] | None,
    locations: list[str],
) -> Any:
    """The model-output rows asked for, as a pyarrow table, filtered while ``hubdata``'s
    dataset is scanned."""
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    dataset = config.connection.get_dataset()
    condition = ds.field(OUTPUT_TYPE).isin(list(READ_OUTPUT_TYPES))
    condition &= ds.field(LOCATION).isin(locations)
    if target is not None and TARGET in dataset.schema.names:
        condition &= ds.field(TARGET) == target
    if models is not None:
        condition &= ds.field(MODEL_ID).isin(models)
    if rounds is not None:
        days = [datetime.date.fromisoformat(r) for r in rounds]
        condition &= ds.field(config.round_id).isin(days)
    end = config.target_end_date(task)
    columns = [MODEL_ID, config.round_id, LOCATION, OUTPUT_TYPE, OUTPUT_TYPE_ID, "value"]
    columns += [name for name in (HUB_HORIZON, end) if name is not None and name in task.task_ids]
    table = dataset.to_table(columns=columns, filter=condition)
    return table.set_column(
        table.schema.get_field_index(OUTPUT_TYPE_ID),
        OUTPUT_TYPE_ID,
        pc.cast(table[OUTPUT_TYPE_ID], "string"),
    )


def _sample_levels(task: ModelTask, levels: Sequence[float] | None) -> np.ndarray:
    """The levels samples become quantiles at."""
    if levels is None:
        offered = task.output_type_ids(HUB_QUANTILE) if HUB_QUANTILE in task.output_types else []
        levels = [float(q) for q in offered] or list(vocabulary.DEFAULT_QUANTILES)
    return np.sort(np.asarray(levels, dtype=np.float64))


def _date_column(frame: pd.DataFrame) -> str:
    """The target data's date column."""
    for name in ("target_end_date", "target_date", "date"):
        if name in frame.columns:
            return name
    raise ArgumentError(f"hub: its target data has no date column ({', '.join(frame.columns)})")


def _week_labels(days: np.ndarray, what: str) -> np.ndarray:
    """ISO week labels of week-ending Saturdays, each distinct day worked out once."""
    codes, distinct = pd.factorize(days)
    labels = np.array([to_chaplab(week_end(day, what), 0).period for day in distinct], dtype=object)
    result: np.ndarray = labels[codes]
    return result


@dataclass(frozen=True)
class _Coded:
    """A text column as integer codes into its distinct values, sorted."""

    codes: np.ndarray
    values: list[str]

    @classmethod
    def of(cls, column: Any) -> _Coded:
        """Dictionary-encode an arrow column, then renumber its values in sorted order."""
        import pyarrow as pa
        import pyarrow.compute as pc

        text = pc.fill_null(pc.cast(column, pa.string()), "NA")
        encoded = pc.dictionary_encode(text).combine_chunks()
        values = [str(v) for v in encoded.dictionary.to_pylist()]
        order = np.argsort(values, kind="stable")
        rank = np.empty(len(values), dtype=np.int64)
        rank[order] = np.arange(len(values))
        codes = (
            rank[encoded.indices.to_numpy(zero_copy_only=False)]
            if values
            else np.array([], np.int64)
        )
        return cls(codes, [values[i] for i in order])

    def categorical(self, rows: np.ndarray, labels: dict[str, str] | None = None) -> pd.Categorical:
        """The rows' values as a categorical of the values present (or their labels)."""
        chosen = self.codes[rows]
        present = np.flatnonzero(np.bincount(chosen, minlength=len(self.values)))
        renumber = np.zeros(len(self.values), dtype=np.int64)
        renumber[present] = np.arange(len(present))
        codes = renumber[chosen]
        names = [self.values[i] for i in present]
        if labels is not None:
            names = [labels.get(name, name) for name in names]
            distinct = sorted(set(names))
            position = {name: i for i, name in enumerate(distinct)}
            remap = np.array([position[name] for name in names], dtype=np.int64)
            return pd.Categorical.from_codes(remap[codes] if len(codes) else codes, distinct)
        return pd.Categorical.from_codes(codes, names)


@dataclass(frozen=True)
class _HubRows:
    """The rows read, column by column as arrays, with their chaplab weeks."""

    models: _Coded
    locations: _Coded
    names: dict[str, str]
    split_periods: pd.PeriodIndex
    periods: pd.PeriodIndex
    horizons: np.ndarray
    output_types: np.ndarray
    output_type_ids: _Coded
    values: np.ndarray
    task: np.ndarray
    """One code per (model, location, round, horizon): the rows of one forecast target."""
    table: Any
    """The rows as the hub wrote them (an arrow table, for nowcasts)."""

    @classmethod
    def build(
        cls, config: HubConfig, task: ModelTask, table: Any, first_forecast_horizon: int
    ) -> _HubRows:
        import pyarrow as pa

        def days(name: str) -> np.ndarray:
            column = table[name].cast(pa.date32()).cast(pa.int32())
            return np.asarray(column.to_numpy(zero_copy_only=False), dtype=np.int64)

        round_days = days(config.round_id)
        end = config.target_end_date(task)
        if HUB_HORIZON in table.column_names:
            horizon = np.asarray(table[HUB_HORIZON].to_numpy(zero_copy_only=False), np.int64)
            if end is not None:
                _check_end_dates(round_days, horizon, days(end), end)
        elif end is not None:
            horizon = (days(end) - round_days) // 7
        else:
            raise ArgumentError("hub: its target has neither a horizon nor a target date")
        pair_codes, pair_keys = pd.factorize(round_days * PAIR_BASE + (horizon + PAIR_BASE // 2))
        pairs = [divmod(int(key), PAIR_BASE) for key in pair_keys]
        pairs = [(day, step - PAIR_BASE // 2) for day, step in pairs]
        epoch = datetime.date(1970, 1, 1)
        weeks = [
            to_chaplab(
                epoch + datetime.timedelta(days=int(day)),
                int(h),
                first_forecast_horizon=first_forecast_horizon,
            )
            for day, h in pairs
        ]
        models, locations = _Coded.of(table[MODEL_ID]), _Coded.of(table[LOCATION])
        output_types = _Coded.of(table[OUTPUT_TYPE])
        return cls(
            models=models,
            locations=locations,
            names=config.location_names(),
            split_periods=_weeks_of([w.split_period for w in weeks], pair_codes),
            periods=_weeks_of([w.period for w in weeks], pair_codes),
            horizons=np.array([w.horizon for w in weeks], dtype=np.int16)[pair_codes],
            output_types=np.asarray(output_types.values, dtype=object)[output_types.codes]
            if len(output_types.values)
            else np.array([], dtype=object),
            output_type_ids=_Coded.of(table[OUTPUT_TYPE_ID]),
            values=np.asarray(table["value"].to_numpy(zero_copy_only=False), np.float64),
            task=(models.codes * (len(locations.values) + 1) + locations.codes) * (len(pairs) + 1)
            + pair_codes,
            table=table,
        )

    def _selected(self, output_type: str) -> np.ndarray:
        """Rows of one output type in the forecast weeks (nowcasts left out)."""
        selected: np.ndarray = (self.output_types == output_type) & (
            self.horizons >= vocabulary.FIRST_HORIZON
        )
        return selected

    def _keys(self, rows: np.ndarray) -> dict[str, Any]:
        return {
            MODEL: self.models.categorical(rows),
            ORG_UNIT: self.locations.categorical(rows),
            ORG_UNIT_NAME: self.locations.categorical(rows, self.names),
            SPLIT_PERIOD: self.split_periods[rows],
            PERIOD: self.periods[rows],
            HORIZON: self.horizons[rows],
        }

    def quantile_frame(self, output_type: str) -> pd.DataFrame:
        """Quantile output as an evaluation frame with a model column."""
        rows = np.flatnonzero(self._selected(output_type))
        ids = self.output_type_ids
        parsed = np.full(len(ids.values), np.nan)
        for code in np.flatnonzero(np.bincount(ids.codes[rows], minlength=len(ids.values))):
            parsed[code] = float(ids.values[code])
        levels = parsed[ids.codes[rows]]
        frame = pd.DataFrame({**self._keys(rows), QUANTILE: levels, VALUE: self.values[rows]})
        return _sorted(frame, QUANTILE)

    def sample_frame(self, levels: np.ndarray) -> pd.DataFrame:
        """Sample output as quantiles at ``levels``, per forecast target."""
        rows = np.flatnonzero(self._selected(SAMPLE))
        order = rows[np.lexsort([self.values[rows], self.task[rows]])]
        codes = self.task[order]
        starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]]) if len(codes) else codes
        counts = np.diff(np.r_[starts, len(codes)])
        parts = []
        for count in np.unique(counts):
            first = starts[counts == count]
            block = self.values[order[first[:, None] + np.arange(count)]]
            values = quantiles_from_sorted(block, levels)
            lead = order[first]
            keys = self._keys(np.repeat(lead, len(levels)))
            parts.append(
                pd.DataFrame({**keys, QUANTILE: np.tile(levels, len(first)), VALUE: values.ravel()})
            )
        if not parts:
            return self.quantile_frame(SAMPLE)
        frame = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
        return _sorted(frame, QUANTILE)

    def pmf_frame(self, task: ModelTask) -> pd.DataFrame:
        """pmf output: one row per category, ordered as the hub lists them."""
        rows = np.flatnonzero(self._selected(PMF))
        categories = [str(c) for c in task.output_type_ids(PMF)] if PMF in task.output_types else []
        frame = pd.DataFrame(
            {
                **self._keys(rows),
                CATEGORY: pd.Categorical(
                    np.asarray(self.output_type_ids.values, dtype=object)[
                        self.output_type_ids.codes[rows]
                    ],
                    categories=categories,
                    ordered=True,
                ),
                PROBABILITY: self.values[rows],
            }
        )
        return _sorted(frame, CATEGORY)

    def point_frame(self) -> pd.DataFrame:
        """Median and mean output, one row per target and output type."""
        rows = np.flatnonzero(
            np.isin(self.output_types, [MEDIAN, MEAN]) & (self.horizons >= vocabulary.FIRST_HORIZON)
        )
        frame = pd.DataFrame(
            {
                **self._keys(rows),
                OUTPUT_TYPE: pd.Categorical(self.output_types[rows], categories=[MEDIAN, MEAN]),
                VALUE: self.values[rows],
            }
        )
        return _sorted(frame, OUTPUT_TYPE)

    def nowcast_frame(self) -> pd.DataFrame:
        """Every row of a week before its split period, as the hub wrote it, with chaplab's
        weeks beside it."""
        import pyarrow as pa

        rows = np.flatnonzero(self.horizons < vocabulary.FIRST_HORIZON)
        frame = self.table.take(pa.array(rows)).to_pandas(date_as_object=True)
        frame = frame.rename(columns={MODEL_ID: MODEL})
        frame[ORG_UNIT] = self.locations.categorical(rows)
        frame[SPLIT_PERIOD] = self.split_periods[rows]
        frame[PERIOD] = self.periods[rows]
        frame[HORIZON] = self.horizons[rows]
        return frame


def _check_end_dates(
    round_days: np.ndarray, horizon: np.ndarray, end_days: np.ndarray, end: str
) -> None:
    """ArgumentError naming a row whose target date is not its round's date plus its horizon
    in weeks."""
    wrong = np.flatnonzero(end_days != round_days + 7 * horizon)
    if len(wrong):
        epoch = datetime.date(1970, 1, 1)
        row = int(wrong[0])
        day = epoch + datetime.timedelta(days=int(round_days[row]))
        expected = day + datetime.timedelta(weeks=int(horizon[row]))
        found = epoch + datetime.timedelta(days=int(end_days[row]))
        raise ArgumentError(
            f"hub: a row of round {day} at horizon {horizon[row]} has {end} {found}, not "
            f"{expected}: its weeks do not add up"
        )


def _weeks_of(labels: list[str], codes: np.ndarray) -> pd.PeriodIndex:
    """The periods of each row from the distinct pairs' labels."""
    if not labels:
        return _no_weeks()
    return parse_periods(labels).take(codes)


def _no_weeks() -> pd.PeriodIndex:
    return parse_periods(["2020W01"])[:0]


def _sorted(frame: pd.DataFrame, last: str) -> pd.DataFrame:
    """Sorted by model, org unit, split period, period and ``last``."""
    if frame.empty:
        return frame.reset_index(drop=True)
    last_key = (
        frame[last].cat.codes if isinstance(frame[last].dtype, pd.CategoricalDtype) else frame[last]
    )
    order = np.lexsort(
        [
            np.asarray(last_key),
            frame[PERIOD].array.asi8,
            frame[SPLIT_PERIOD].array.asi8,
            frame[ORG_UNIT].cat.codes,
            frame[MODEL].cat.codes,
        ]
    )
    return frame.take(order).reset_index(drop=True)
