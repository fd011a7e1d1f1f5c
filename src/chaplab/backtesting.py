"""Backtest a model written as two functions, in the kernel, on the service's splits.

``backtest(train, predict, data, ...)`` takes chapkit's functional model shape,
``train(config, data, geo) -> model`` and ``predict(config, model, historic, future, geo) ->
future with sample_0, sample_1, ... columns`` (each sync or async), and runs it on the splits
the service's evaluation uses (:meth:`chaplab.vocabulary.BacktestPlan.split_windows`), trained
and given future covariates as the service does for a model service
(:meth:`~chaplab.vocabulary.BacktestPlan.retrain_splits`,
:func:`chaplab.climatology.future_values`). Samples become
quantiles as the service makes them (float32 samples, sorted, :mod:`chaplab.quantiles`), and the
answer is the frame ``evaluation_frame`` returns, so scoring and charts take it as they are.

Splits run concurrently on a private event loop: async functions are awaited there, sync ones in
a thread pool, so a function defined in a notebook cell is never pickled. The progress bar is
updated on the calling thread only.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import inspect
import os
import re
import threading
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import is_numeric_dtype

from chaplab import vocabulary
from chaplab.climatology import future_values
from chaplab.errors import FULL_TRACEBACK_HINT, ArgumentError, ShortError, own_frames
from chaplab.frames import (
    ORG_UNIT,
    PERIOD,
    QUANTILE,
    SPLIT_PERIOD,
    VALUE,
    parse_periods,
    require_frame_columns,
    with_horizon,
    with_org_unit_names,
)
from chaplab.quantiles import quantiles_from_sorted
from chaplab.vocabulary import (
    CLIMATOLOGY_WEATHER,
    DEFAULT_QUANTILES,
    OBSERVED_WEATHER,
    BacktestPlan,
    SplitWindow,
)

TIME_PERIOD = "time_period"
LOCATION = "location"
TARGET = "disease_cases"
"""The column a model forecasts; the future frame a model gets lacks it."""
SAMPLE_COLUMN = re.compile(r"^sample_(\d+)$")
N_SAMPLES = "n_samples"
RNG = "rng"
WEATHERS = (CLIMATOLOGY_WEATHER, OBSERVED_WEATHER)


def _said(period: Any) -> str:
    """A period of the data as people read it (``2021-W05``), or its repr when it is none."""
    try:
        return vocabulary.readable_period(vocabulary.canonical_period(str(period)))
    except ValueError:
        return repr(period)


class BacktestError(ShortError):
    """A model function failed, or answered what a backtest cannot use, in one split.

    ``split_period`` names the split (its first forecast period), ``function`` the function
    (``"train"`` or ``"predict"`` and its name); the function's own exception, if any, is the
    ``__cause__``, with its whole traceback. IPython shows the sentence and, where the model's
    code raised, that code's own frames: none of chaplab's, pandas' or Python's
    (``CHAPLAB_FULL_TRACEBACKS=1`` shows everything).
    """

    def __init__(self, split_period: str, function: str, problem: str) -> None:
        super().__init__(f"split {_said(split_period)}: {function} {problem}")
        self.split_period = split_period
        self.function = function

    def _short_traceback(self) -> list[str]:
        cause = self.__cause__
        frames = [] if cause is None else own_frames(cause.__traceback__)
        return [f"{type(self).__name__}: {self}", *frames, FULL_TRACEBACK_HINT]


def backtest(
    train: Callable[..., Any],
    predict: Callable[..., Any],
    data: pd.DataFrame,
    *,
    n_splits: int,
    n_periods: int,
    stride: int = 1,
    config: Any = None,
    n_samples: int = 100,
    geojson: Any = None,
    seed: int | None = None,
    quantiles: Sequence[float] = DEFAULT_QUANTILES,
    n_retrain: int = 1,
    weather: str = CLIMATOLOGY_WEATHER,
    progress: bool = True,
) -> pd.DataFrame:
    """Backtest ``train`` and ``predict`` on ``data``, as the service evaluates its models.

    ``data`` is a frame as ``dataset_frame`` returns it: ``time_period``, ``location`` and one
    column per feature, ``disease_cases`` the target. The splits are the service's for the same
    ``n_splits``, ``n_periods`` and ``stride`` (each named by its first forecast period), and
    the model is trained as the service and chap-core 2.5.1 train a model service's model:
    ``train(config, historic, geojson)`` at ``n_retrain`` evenly spaced splits (once, at the
    first, by default) on the rows before that split, and each split predicted by the latest
    training at or before it: ``predict(config, model, historic, future, geojson)`` gets its own
    copy of that model, the rows before the split and ``future``: one row per location and
    forecast period with the covariates as the service's ``weather`` gives them (by default each
    covariate's mean of that month or week over the history; ``"observed"``: the window's own,
    a look-ahead) and without the target. ``predict`` answers the future rows with
    ``sample_0``, ``sample_1``, ... columns. A function that takes an ``n_samples`` keyword
    gets ``n_samples`` (and must answer that many samples); one that takes ``rng`` gets a
    ``numpy.random.Generator`` per split, spawned from ``seed`` as the service spawns its
    splits' streams.

    Returns the evaluation frame (``org_unit``, ``org_unit_name`` when ``geojson`` is given,
    ``split_period``, ``period``, ``horizon``, ``quantile``, ``value``) at ``quantiles``. A
    function that raises or answers wrong rows, no sample columns, or NaN or negative samples raises
    :class:`BacktestError` naming the split period and the function. The settings make a
    :class:`~chaplab.vocabulary.BacktestPlan`: one out of range, or splits that do not fit in
    ``data``, is a :class:`~chaplab.vocabulary.PlanError` naming the setting to change and what
    fits.
    """
    plan = BacktestPlan(n_periods=n_periods, n_splits=n_splits, stride=stride, n_retrain=n_retrain)
    levels = _levels(quantiles)
    if isinstance(n_samples, bool) or not isinstance(n_samples, int) or n_samples < 1:
        raise ArgumentError(f"n_samples must be a positive integer, got {n_samples!r}")
    if weather not in WEATHERS:
        raise ArgumentError(f"weather must be one of {', '.join(WEATHERS)}, got {weather!r}")
    series = _Series.build(data)
    windows = plan.split_windows(series.periods)
    streams = np.random.SeedSequence(seed).spawn(len(windows))
    trainings = _Trainings(windows, series, train, config, geojson, streams)
    splits = [
        _Split(
            window,
            series,
            trainings,
            plan.training_of(index),
            predict,
            config,
            geojson,
            n_samples,
            stream,
            weather,
        )
        for index, (window, stream) in enumerate(zip(windows, streams, strict=True))
    ]
    samples = _run_concurrently([split.run for split in splits], progress)
    values = np.stack(
        [
            quantiles_from_sorted(np.sort(drawn.astype(np.float32), axis=-1), levels)
            for drawn in samples
        ]
    ).astype(np.float32)  # the service stores float32 samples and writes float32 quantiles
    frame = _evaluation_frame(series, windows, levels, values)
    return frame if geojson is None else with_org_unit_names(frame, geojson)


@dataclass(frozen=True)
class _Series:
    """The data and the service's view of it: every period from the first to the last (the
    splits' series), every location, and each row's position in that series."""

    data: pd.DataFrame
    periods: list[str]
    locations: list[str]
    row_positions: np.ndarray
    spelling: dict[str, Any]
    covariates: dict[str, np.ndarray]
    """Each numeric column but the target as ``(locations, periods)``, NaN where not observed."""
    season_positions: np.ndarray
    season_length: int

    @classmethod
    def build(cls, data: pd.DataFrame) -> _Series:
        advice = (
            f": it needs {TIME_PERIOD}, {LOCATION}, {TARGET} and the covariates, as "
            "dataset_frame returns them"
        )
        require_frame_columns(data, (TIME_PERIOD, LOCATION, TARGET), "data", advice)
        if data.empty:
            raise ArgumentError("data is empty: there is nothing to backtest on")
        codes, raw = pd.factorize(data[TIME_PERIOD])
        try:
            canonical = [vocabulary.canonical_period(str(value)) for value in raw]
        except ValueError as error:
            raise ArgumentError(f"data: column {TIME_PERIOD!r}: {error}") from None
        types = {vocabulary.period_type_of(period) for period in canonical}
        if len(types) > 1:
            raise ArgumentError(f"data mixes period types {sorted(types)}; use one")
        ordered = vocabulary.sorted_periods(canonical)
        periods = vocabulary.period_range(ordered[0], ordered[-1])
        positions = pd.Index(periods).get_indexer(canonical)[codes]
        keys = pd.MultiIndex.from_arrays([data[LOCATION].astype(str), positions])
        if keys.has_duplicates:
            location, position = keys[keys.duplicated()][0]
            raise ArgumentError(
                f"data has more than one row for location {location!r}, {_said(periods[position])}"
            )
        locations = list(dict.fromkeys(data[LOCATION].astype(str)))
        rows = pd.Index(locations).get_indexer(data[LOCATION].astype(str))
        covariates = {}
        for name in data.columns:
            if name in (TIME_PERIOD, LOCATION, TARGET) or not is_numeric_dtype(data[name]):
                continue
            grid = np.full((len(locations), len(periods)), np.nan)
            grid[rows, positions] = data[name].to_numpy(np.float64, na_value=np.nan)
            covariates[str(name)] = grid
        return cls(
            data,
            periods,
            locations,
            positions,
            dict(zip(canonical, raw, strict=True)),
            covariates,
            np.array([vocabulary.season_position(period) for period in periods]),
            vocabulary.season_length(types.pop()),
        )

    def history(self, window: SplitWindow) -> pd.DataFrame:
        """The rows a split's model may see: those before its split period (a copy)."""
        return self.data[self.row_positions < window.history_end].reset_index(drop=True)

    def future(self, window: SplitWindow, weather: str) -> pd.DataFrame:
        """One row per location and forecast period (spelt as the data spells it), the target
        left out: the numeric covariates as the service gives a model them
        (:func:`chaplab.climatology.future_values`: the history's climatology, or the window's
        own values with ``weather="observed"``), other columns as the data has them."""
        forecast = window.forecast
        grid = pd.DataFrame(
            {
                LOCATION: np.repeat(self.locations, len(forecast)),
                "_position": np.tile(np.arange(forecast.start, forecast.stop), len(self.locations)),
            }
        )
        inside = (self.row_positions >= forecast.start) & (self.row_positions < forecast.stop)
        rows = self.data[inside].drop(columns=[TARGET, TIME_PERIOD, *self.covariates])
        rows = rows.assign(**{LOCATION: rows[LOCATION].astype(str)})
        rows["_position"] = self.row_positions[inside]
        merged = grid.merge(rows, on=[LOCATION, "_position"], how="left")
        spelt = [
            self.spelling.get(period, period)
            for period in self.periods[forecast.start : forecast.stop]
        ]
        times = np.asarray(spelt, dtype=object)[merged.pop("_position") - forecast.start]
        if isinstance(self.data[TIME_PERIOD].dtype, pd.PeriodDtype):  # periods stay periods
            times = parse_periods(times).array
        merged.insert(0, TIME_PERIOD, times)
        seen, ahead = slice(0, window.history_end), window.forecast_slice
        for name, values in self.covariates.items():
            merged[name] = future_values(
                values[:, seen],
                self.season_positions[seen],
                self.season_length,
                self.season_positions[ahead],
                values[:, ahead] if weather == OBSERVED_WEATHER else None,
            ).ravel()
        return merged


class _Trainings:
    """The model trained at each training split, trained once when the first split that
    needs it asks (on the event loop, so no two splits start the same training)."""

    def __init__(
        self,
        windows: list[SplitWindow],
        series: _Series,
        train: Callable[..., Any],
        config: Any,
        geojson: Any,
        streams: list[np.random.SeedSequence],
    ) -> None:
        self.windows, self.series, self.train = windows, series, train
        self.config, self.geojson, self.streams = config, geojson, streams
        self._started: dict[int, asyncio.Future[Any]] = {}

    async def model(self, split: int, pool: concurrent.futures.Executor) -> Any:
        """A copy of the model trained at ``split`` (from 0), for one prediction."""
        if split not in self._started:
            self._started[split] = asyncio.ensure_future(self._train(split, pool))
        model = await asyncio.shield(self._started[split])
        try:
            return copy.deepcopy(model)
        except Exception as error:
            raise BacktestError(
                self.windows[split].split_period,
                _function_name(self.train, "train"),
                f"returned a model that cannot be copied for each split's prediction ({error})",
            ) from error

    async def _train(self, split: int, pool: concurrent.futures.Executor) -> Any:
        window = self.windows[split]
        history = self.series.history(window)
        rng = np.random.default_rng(self.streams[split].spawn(1)[0])  # not the prediction's
        arguments = (self.config, history, self.geojson)
        return await _call(
            pool, window, self.train, "train", arguments, _keywords(self.train, rng=rng)
        )


@dataclass(frozen=True)
class _Split:
    """One split's work: predict with the latest training, check the answer, give samples
    ``(locations, periods, samples)``."""

    window: SplitWindow
    series: _Series
    trainings: _Trainings
    trained_at: int
    predict: Callable[..., Any]
    config: Any
    geojson: Any
    n_samples: int
    stream: np.random.SeedSequence
    weather: str

    async def run(self, pool: concurrent.futures.Executor) -> np.ndarray:
        rng = np.random.default_rng(self.stream)
        model = await self.trainings.model(self.trained_at, pool)
        future = self.series.future(self.window, self.weather)
        answer = await _call(
            pool,
            self.window,
            self.predict,
            "predict",
            (self.config, model, self.series.history(self.window), future.copy(), self.geojson),
            _keywords(self.predict, n_samples=self.n_samples, rng=rng),
        )
        return self._samples(answer, future)

    def _samples(self, answer: Any, future: pd.DataFrame) -> np.ndarray:
        """The answer's samples on the (location, forecast period) grid, checked."""

        def fail(problem: str) -> BacktestError:
            return BacktestError(
                self.window.split_period, _function_name(self.predict, "predict"), problem
            )

        if not isinstance(answer, pd.DataFrame):
            raise fail(f"returned {type(answer).__name__}, not a DataFrame of the future rows")
        columns = sorted(
            (int(match.group(1)), name)
            for name in map(str, answer.columns)
            if (match := SAMPLE_COLUMN.match(name))
        )
        if not columns:
            raise fail(
                f"returned no sample columns (sample_0, sample_1, ...); its columns are "
                f"{[str(name) for name in answer.columns]}"
            )
        if N_SAMPLES in _accepted(self.predict) and len(columns) != self.n_samples:
            raise fail(f"returned {len(columns)} sample columns but was asked for {self.n_samples}")
        missing = [name for name in (TIME_PERIOD, LOCATION) if name not in answer.columns]
        if missing:
            raise fail(f"returned no {missing} column(s) to tell its rows apart")
        periods = _positions(answer[TIME_PERIOD], self.window.forecast_periods)
        locations = pd.Index(self.series.locations).get_indexer(answer[LOCATION].astype(str))
        known = (periods >= 0) & (locations >= 0)
        if not known.all():
            row = answer[~known].iloc[0]
            raise fail(
                f"returned a row for location {row[LOCATION]!r}, {_said(row[TIME_PERIOD])} that is "
                "not among the future rows it was given"
            )
        cell = locations.astype(np.int64) * len(self.window.forecast_periods) + periods
        if len(np.unique(cell)) != len(cell):
            raise fail("returned more than one row for a location and period")
        if len(cell) != len(future):
            lacking = np.setdiff1d(np.arange(len(future)), cell)[0]
            raise fail(
                f"returned {len(cell)} rows for the {len(future)} future rows; it lacks e.g. "
                f"location {future[LOCATION].iloc[lacking]!r}, "
                f"{_said(future[TIME_PERIOD].iloc[lacking])}"
            )
        try:
            drawn = answer[[name for _, name in columns]].to_numpy(np.float64)
        except (TypeError, ValueError) as error:
            raise fail(f"returned sample columns that are not numbers ({error})") from None
        for bad, what in ((~np.isfinite(drawn), "NaN or infinite"), (drawn < 0, "negative")):
            if bad.any():
                row = answer.iloc[int(np.flatnonzero(bad.any(axis=1))[0])]
                raise fail(
                    f"returned {what} samples, e.g. for location {row[LOCATION]!r}, "
                    f"{_said(row[TIME_PERIOD])}; case counts are finite and >= 0"
                )
        grid = np.empty((len(future), drawn.shape[1]))
        grid[cell] = drawn
        return grid.reshape(len(self.series.locations), len(self.window.forecast_periods), -1)


def _function_name(function: Callable[..., Any], role: str) -> str:
    """``train`` or ``predict``, with the function's own name when it has another."""
    name = getattr(function, "__qualname__", None) or type(function).__name__
    return role if name == role else f"{role} ({name})"


async def _call(
    pool: concurrent.futures.Executor,
    window: SplitWindow,
    function: Callable[..., Any],
    role: str,
    args: tuple[Any, ...],
    keywords: dict[str, Any],
) -> Any:
    """The function's answer: awaited when it is async, else run in the thread pool;
    BacktestError naming the split and the function when it raises."""
    try:
        if inspect.iscoroutinefunction(function):
            return await function(*args, **keywords)
        loop = asyncio.get_running_loop()
        answer = await loop.run_in_executor(pool, partial(function, *args, **keywords))
        return await answer if inspect.isawaitable(answer) else answer
    except Exception as error:
        raise BacktestError(
            window.split_period,
            _function_name(function, role),
            f"raised {type(error).__name__}: {error}",
        ) from error


def _positions(values: pd.Series, forecast_periods: Sequence[str]) -> np.ndarray:
    """Each value's position among ``forecast_periods`` (-1 where it is none of them)."""
    codes, distinct = pd.factorize(values.astype(str))
    wanted = {period: position for position, period in enumerate(forecast_periods)}
    found = []
    for value in distinct:
        try:
            found.append(wanted.get(vocabulary.canonical_period(str(value)), -1))
        except ValueError:
            found.append(-1)
    return np.asarray(found, dtype=np.int64)[codes] if len(codes) else np.zeros(0, np.int64)


def _levels(quantiles: Sequence[float]) -> np.ndarray:
    levels = np.asarray(quantiles, dtype=np.float64)
    if levels.ndim != 1 or levels.size == 0 or not ((levels > 0) & (levels < 1)).all():
        raise ArgumentError(f"quantiles must be levels strictly between 0 and 1, got {quantiles!r}")
    return np.unique(levels)


def _accepted(function: Callable[..., Any]) -> set[str]:
    """The keyword parameters a function takes by name (all of them with ``**kwargs``)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return set()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return {N_SAMPLES, RNG}
    return {
        p.name
        for p in parameters
        if p.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    }


def _keywords(function: Callable[..., Any], **offered: Any) -> dict[str, Any]:
    accepted = _accepted(function)
    return {
        name: value for name, value in offered.items() if name in accepted and value is not None
    }


def _run_concurrently(
    jobs: Sequence[Callable[[concurrent.futures.Executor], Coroutine[Any, Any, np.ndarray]]],
    progress: bool,
) -> list[np.ndarray]:
    """Run every job on a private event loop (sync model functions in its thread pool) and
    return their results in order; the progress bar advances on this thread as jobs finish.
    The first failure cancels the jobs that have not started and is raised; the bar says which
    split failed and stays where it was."""
    from tqdm.auto import tqdm

    loop = asyncio.new_event_loop()
    runner = threading.Thread(target=loop.run_forever, name="chaplab-backtest", daemon=True)
    runner.start()
    pool = concurrent.futures.ThreadPoolExecutor(
        max_workers=max(1, min(len(jobs), os.cpu_count() or 1)),
        thread_name_prefix="chaplab-backtest",
    )
    futures = [asyncio.run_coroutine_threadsafe(job(pool), loop) for job in jobs]
    try:
        with tqdm(total=len(jobs), desc="backtest", unit="split", disable=not progress) as bar:
            for future in concurrent.futures.as_completed(futures):
                try:
                    future.result()
                except BacktestError as error:
                    bar.set_description(f"backtest failed at split {_said(error.split_period)}")
                    raise
                except Exception:
                    bar.set_description("backtest failed")
                    raise
                bar.update(1)
        return [future.result() for future in futures]
    finally:
        asyncio.run_coroutine_threadsafe(_cancel_all(), loop).result()
        pool.shutdown(wait=True, cancel_futures=True)
        loop.call_soon_threadsafe(loop.stop)
        runner.join()
        loop.close()


async def _cancel_all() -> None:
    """Cancel every other task of the running loop and wait until they have stopped."""
    tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def _evaluation_frame(
    series: _Series, windows: list[SplitWindow], levels: np.ndarray, values: np.ndarray
) -> pd.DataFrame:
    """The tidy evaluation frame of ``values`` ``(splits, locations, periods, levels)``, laid out
    as ``chaplab.frames.entries_to_frame`` lays out the service's entries: org units sorted,
    then split periods, periods and quantiles in order."""
    order = np.argsort(np.asarray(series.locations, dtype=str), kind="stable")
    org_units = np.asarray(series.locations, dtype=str)[order]
    ordered = values[:, order].transpose(1, 0, 2, 3)  # (org units, splits, periods, levels)
    n_units, n_splits, n_periods, n_levels = ordered.shape
    split_periods = parse_periods([window.split_period for window in windows])
    periods = parse_periods([period for window in windows for period in window.forecast_periods])
    per_unit = n_splits * n_periods * n_levels
    frame = pd.DataFrame(
        {
            ORG_UNIT: pd.Categorical.from_codes(
                np.repeat(np.arange(n_units), per_unit), categories=pd.Index(org_units)
            ),
            SPLIT_PERIOD: split_periods.array.take(
                np.tile(np.repeat(np.arange(n_splits), n_periods * n_levels), n_units)
            ),
            PERIOD: periods.array.take(
                np.tile(np.repeat(np.arange(len(periods)), n_levels), n_units)
            ),
            QUANTILE: np.tile(levels, n_units * n_splits * n_periods),
            VALUE: ordered.astype(np.float64).ravel(),
        }
    )
    return with_horizon(frame)
