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

Each split (or group of its places) is a task run by :mod:`chaplab.executors`: on the kernel's
threads, where nothing is pickled, or shipped by value to any ``concurrent.futures.Executor``
(a process pool, a Dask cluster). Several configurations run on the same tasks and random
streams (:func:`run_configurations`, what ``chaplab.tune`` runs).
"""

from __future__ import annotations

import copy
import inspect
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import is_numeric_dtype

from chaplab import vocabulary
from chaplab.climatology import future_values
from chaplab.errors import (
    FULL_TRACEBACK_HINT,
    ArgumentError,
    Frame,
    ShortError,
    format_frames,
    own_frames,
)
from chaplab.executors import ERRORS, Calls, Errors, Progress, Task, run_tasks
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
    """A model function failed, or answered what a backtest cannot use, in one task.

    ``split_period`` names the split (its first forecast period), ``function`` the function
    (``"train"`` or ``"predict"`` and its name); ``configuration`` the configuration of a tune
    and ``places`` the task's places when a split runs in groups of places (else None). The
    function's own exception, if any, is the ``__cause__``, with its whole traceback (from
    another process: its text, as the cause's cause). IPython shows the sentence and, where the
    model's code raised, that code's own frames: none of chaplab's, pandas' or Python's
    (``CHAPLAB_FULL_TRACEBACKS=1`` shows everything).

    ``completed`` is the frame of the tasks that finished before the backtest stopped (as the
    backtest would answer it, those rows only), ``failures`` every failure known by then, this
    one first.
    """

    def __init__(
        self,
        split_period: str,
        function: str,
        problem: str,
        *,
        configuration: str | None = None,
        places: str | None = None,
    ) -> None:
        where = [f"split {_said(split_period)}"]
        where += [f"configuration {configuration}"] if configuration is not None else []
        where += [f"places {places}"] if places is not None else []
        super().__init__(f"{', '.join(where)}: {function} {problem}")
        self.split_period = split_period
        self.function = function
        self.problem = problem
        self.configuration = configuration
        self.places = places
        self.completed: pd.DataFrame | None = None
        self.failures: list[BacktestError] = [self]
        self.remote_frames: list[Frame] = []

    def __reduce__(self) -> tuple[Any, ...]:
        arguments = (self.split_period, self.function, self.problem)
        return (_rebuilt_error, (*arguments, self.configuration, self.places))

    def _short_traceback(self) -> list[str]:
        cause = self.__cause__
        if self.remote_frames:
            frames = format_frames(self.remote_frames)
        else:
            frames = [] if cause is None else own_frames(cause.__traceback__)
        return [f"{type(self).__name__}: {self}", *frames, FULL_TRACEBACK_HINT]


def _rebuilt_error(
    split_period: str,
    function: str,
    problem: str,
    configuration: str | None,
    places: str | None,
) -> BacktestError:
    """A :class:`BacktestError` unpickled (from the process that ran the task)."""
    return BacktestError(
        split_period, function, problem, configuration=configuration, places=places
    )


class BacktestWarning(UserWarning):
    """Some tasks of a backtest run with ``errors="keep"`` failed; their rows are missing."""


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
    executor: Any = None,
    places_per_task: int | None = None,
    errors: Errors = "raise",
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
    ``numpy.random.Generator`` per task, spawned from ``seed`` as the service spawns its
    splits' streams: the same seed gives the same frame on every executor.

    ``executor``: None runs the splits on a thread beside the kernel, a sync model's calls one
    at a time (:func:`chaplab.executors.kernel_threads`), nothing pickled; a
    ``ThreadPoolExecutor`` runs as many calls at once as it has threads; any other
    ``concurrent.futures.Executor`` (a process pool, a Dask ``Client(...).get_executor()``, or
    the ``Client``) gets each split as a task, its functions shipped by value with cloudpickle.
    ``places_per_task`` splits each split further into tasks of that many places, each trained
    and predicted on its own places only (opt-in: a model that pools places sees fewer).

    Returns the evaluation frame (``org_unit``, ``org_unit_name`` when ``geojson`` is given,
    ``split_period``, ``period``, ``horizon``, ``quantile``, ``value``) at ``quantiles``. A
    function that raises or answers wrong rows, no sample columns, or NaN or negative samples
    raises :class:`BacktestError` naming the split period and the function, with the rows of
    the tasks that finished in its ``completed``; with ``errors="keep"`` the other tasks run on,
    the frame lacks the failed tasks' rows, a :class:`BacktestWarning` says which, and the
    errors are in ``frame.attrs["backtest_errors"]``. The settings make a
    :class:`~chaplab.vocabulary.BacktestPlan`: one out of range, or splits that do not fit in
    ``data``, is a :class:`~chaplab.vocabulary.PlanError` naming the setting to change and what
    fits.
    """
    backtests = run_configurations(
        train,
        predict,
        data,
        [(None, config)],
        plan=BacktestPlan(
            n_periods=n_periods, n_splits=n_splits, stride=stride, n_retrain=n_retrain
        ),
        n_samples=n_samples,
        geojson=geojson,
        seed=seed,
        quantiles=quantiles,
        weather=weather,
        progress=Progress("backtest", "split" if places_per_task is None else "task", progress),
        executor=executor,
        places_per_task=places_per_task,
        errors=errors,
    )
    frame = backtests.frames[0]
    if backtests.failures:
        frame.attrs["backtest_errors"] = backtests.failures
        warnings.warn(backtests.failure_summary(), BacktestWarning, stacklevel=2)
    return frame


@dataclass(frozen=True)
class Backtests:
    """The backtests of several configurations on the same tasks: each configuration's
    evaluation frame (the rows of its finished tasks), the failures, and the configurations a
    time budget did not start."""

    frames: list[pd.DataFrame]
    failures: list[BacktestError]
    not_started: list[int]

    def failure_summary(self) -> str:
        """One sentence naming the failed tasks."""
        shown = "; ".join(str(error) for error in self.failures[:3])
        more = f"; and {len(self.failures) - 3} more" if len(self.failures) > 3 else ""
        return f"{len(self.failures)} task(s) failed, their rows are missing: {shown}{more}"


def run_configurations(
    train: Callable[..., Any],
    predict: Callable[..., Any],
    data: pd.DataFrame,
    configurations: Sequence[tuple[str | None, Any]],
    *,
    plan: BacktestPlan,
    n_samples: int,
    geojson: Any,
    seed: int | None,
    quantiles: Sequence[float],
    weather: str,
    progress: Progress,
    executor: Any,
    places_per_task: int | None,
    errors: Errors,
    time_budget: float | None = None,
) -> Backtests:
    """Backtest each ``(name, config)`` of ``configurations`` by ``plan``, on the same splits,
    tasks and random streams, all on one executor (see :func:`backtest`); a configuration's
    frame is the frame ``backtest`` answers for its config. With ``time_budget`` (seconds) no
    configuration starts after that time. The first failure raises with ``errors="raise"``."""
    if errors not in ERRORS:
        raise ArgumentError(f"errors must be one of {', '.join(ERRORS)}, got {errors!r}")
    levels = _levels(quantiles)
    if isinstance(n_samples, bool) or not isinstance(n_samples, int) or n_samples < 1:
        raise ArgumentError(f"n_samples must be a positive integer, got {n_samples!r}")
    if weather not in WEATHERS:
        raise ArgumentError(f"weather must be one of {', '.join(WEATHERS)}, got {weather!r}")
    series = _Series.build(data)
    windows = plan.split_windows(series.periods)
    tasks_of = _Tasks(
        series,
        windows,
        [plan.training_of(split) for split in range(len(windows))],
        np.random.SeedSequence(seed),
        _place_groups(len(series.locations), places_per_task),
        levels,
        n_samples,
        weather,
        geojson,
    )
    tasks: list[Task] = []
    cells: dict[int, tuple[int, int, int]] = {}
    for number, (name, config) in enumerate(configurations):
        for task, cell in tasks_of.tasks(train, predict, config, name, number, len(tasks)):
            if cell is not None:
                cells[len(tasks)] = (number, *cell)
            tasks.append(task)
    run = run_tasks(
        tasks, executor=executor, errors=errors, progress=progress, time_budget=time_budget
    )
    values = np.full(
        (len(configurations), len(windows), len(series.locations), plan.n_periods, len(levels)),
        np.nan,
        dtype=np.float32,
    )
    present = np.zeros(values.shape[:3], dtype=bool)
    for index, result in run.results.items():
        number, split, group = cells[index]
        values[number, split, tasks_of.groups[group]] = result
        present[number, split, tasks_of.groups[group]] = True
    frames = []
    for number in range(len(configurations)):
        frame = _evaluation_frame(series, windows, levels, values[number], present[number])
        frames.append(frame if geojson is None else with_org_unit_names(frame, geojson))
    failures = [
        error if isinstance(error, BacktestError) else tasks[index].error(str(error))
        for index, error in sorted(run.failures.items())
    ]
    checked = [error for error in failures if isinstance(error, BacktestError)]
    started = {cells[index][0] for index in cells if index not in run.not_run}
    not_started = [number for number in range(len(configurations)) if number not in started]
    backtests = Backtests(frames, checked, not_started)
    if checked and errors == "raise":
        first = checked[0]
        first.failures = checked
        first.completed = _completed(frames, configurations)
        raise first
    return backtests


def _completed(
    frames: list[pd.DataFrame], configurations: Sequence[tuple[str | None, Any]]
) -> pd.DataFrame:
    """The finished rows: one configuration's frame, or all with a ``configuration`` column."""
    if len(frames) == 1 and configurations[0][0] is None:
        return frames[0]
    return with_configuration(frames, [str(name) for name, _ in configurations])


CONFIGURATION = "configuration"
"""The column naming each row's configuration in a tune's frame."""


def with_configuration(frames: Sequence[pd.DataFrame], names: Sequence[str]) -> pd.DataFrame:
    """The frames as one, the first column ``configuration`` (categorical, in ``names``' order)
    naming each row's."""
    frame = pd.concat(frames, ignore_index=True)
    counts = [len(part) for part in frames]
    frame.insert(
        0,
        CONFIGURATION,
        pd.Categorical.from_codes(
            np.repeat(np.arange(len(names)), counts), categories=pd.Index(names)
        ),
    )
    return frame


def _place_groups(n_locations: int, places_per_task: int | None) -> list[np.ndarray]:
    """The locations (indices, in the data's order) of each task of a split."""
    if places_per_task is None:
        return [np.arange(n_locations)]
    if (
        isinstance(places_per_task, bool)
        or not isinstance(places_per_task, int)
        or places_per_task < 1
    ):
        raise ArgumentError(
            f"places_per_task must be a positive integer or None, got {places_per_task!r}"
        )
    return [
        np.arange(start, min(start + places_per_task, n_locations))
        for start in range(0, n_locations, places_per_task)
    ]


@dataclass(frozen=True)
class _Series:
    """The data and the service's view of it: every period from the first to the last (the
    splits' series), every location, and each row's position in that series."""

    data: pd.DataFrame
    periods: list[str]
    locations: list[str]
    row_positions: np.ndarray
    row_locations: np.ndarray
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
            rows,
            dict(zip(canonical, raw, strict=True)),
            covariates,
            np.array([vocabulary.season_position(period) for period in periods]),
            vocabulary.season_length(types.pop()),
        )

    def history(self, window: SplitWindow, places: np.ndarray | None = None) -> pd.DataFrame:
        """The rows a split's model may see: those before its split period (a copy), of the
        locations ``places`` (indices) or of all."""
        seen = self.row_positions < window.history_end
        if places is not None:
            seen &= np.isin(self.row_locations, places)
        return self.data[seen].reset_index(drop=True)

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


@dataclass(frozen=True)
class _Where:
    """What names a task in its errors: the split, the configuration, the places."""

    split_period: str
    configuration: str | None
    places: str | None

    def error(self, function: str, problem: str) -> BacktestError:
        return BacktestError(
            self.split_period,
            function,
            problem,
            configuration=self.configuration,
            places=self.places,
        )


@dataclass(frozen=True)
class _Training:
    """A training's work: ``train(config, history, geojson)`` with its own random stream."""

    where: _Where
    train: Callable[..., Any]
    config: Any
    geojson: Any
    history: pd.DataFrame
    stream: np.random.SeedSequence


@dataclass(frozen=True)
class _Prediction:
    """A prediction's work (after its training, when ``training`` is given): ``predict``'s
    answer checked and its samples made quantiles ``(locations, periods, levels)``."""

    where: _Where
    training: _Training | None
    trained_at: str
    train_name: str
    predict: Callable[..., Any]
    config: Any
    geojson: Any
    history: pd.DataFrame
    future: pd.DataFrame
    locations: list[str]
    forecast_periods: tuple[str, ...]
    n_samples: int
    stream: np.random.SeedSequence
    levels: np.ndarray


async def _train(work: _Training, model: None, calls: Calls) -> tuple[None, Any]:
    """A training task: the model trained, for the predictions that need it."""
    return None, await _trained(work, calls)


async def _trained(work: _Training, calls: Calls) -> Any:
    rng = np.random.default_rng(work.stream)
    arguments = (work.config, work.history.copy(), work.geojson)
    keywords = _keywords(work.train, rng=rng)
    return await _call(calls, work.where, work.train, "train", arguments, keywords)


async def _predict(work: _Prediction, model: Any, calls: Calls) -> tuple[np.ndarray, None]:
    """A prediction task (trained first when it trains its own model): quantiles."""
    if work.training is not None:
        model = await _trained(work.training, calls)
    elif not calls.private:
        try:
            model = copy.deepcopy(model)
        except Exception as error:
            raise BacktestError(
                work.trained_at,
                work.train_name,
                f"returned a model that cannot be copied for each split's prediction ({error})",
                configuration=work.where.configuration,
                places=work.where.places,
            ) from error
    rng = np.random.default_rng(work.stream)
    answer = await _call(
        calls,
        work.where,
        work.predict,
        "predict",
        (work.config, model, work.history.copy(), work.future.copy(), work.geojson),
        _keywords(work.predict, n_samples=work.n_samples, rng=rng),
    )
    drawn = _samples(work, answer)
    values = quantiles_from_sorted(np.sort(drawn.astype(np.float32), axis=-1), work.levels)
    return values.astype(np.float32), None  # the service writes float32 quantiles


class _Tasks:
    """The tasks of backtests on one series: each training split's training (a task of its own
    when later splits use it, else done by its split's task), each split's prediction, per
    group of places; and their random streams, spawned from the seed as the service spawns
    its splits' (a split's prediction ``k``, its training ``(k, 0)``; a group's ``(k, 1 + g)``
    and ``(k, 1 + g, 0)``), the same for every configuration."""

    def __init__(
        self,
        series: _Series,
        windows: list[SplitWindow],
        trained_by: list[int],
        root: np.random.SeedSequence,
        groups: list[np.ndarray],
        levels: np.ndarray,
        n_samples: int,
        weather: str,
        geojson: Any,
    ) -> None:
        self.series, self.windows, self.root, self.groups = series, windows, root, groups
        self.levels, self.n_samples, self.weather = levels, n_samples, weather
        self.geojson, self.trained_by = geojson, trained_by
        self._frames: dict[tuple[int, int], tuple[pd.DataFrame, pd.DataFrame]] = {}
        self._futures: dict[int, pd.DataFrame] = {}

    def tasks(
        self,
        train: Callable[..., Any],
        predict: Callable[..., Any],
        config: Any,
        configuration: str | None,
        number: int,
        offset: int,
    ) -> list[tuple[Task, tuple[int, int] | None]]:
        """One configuration's tasks, numbered from ``offset``, each with the (split, group)
        whose quantiles it answers (None for a training task)."""
        planned: list[tuple[Task, tuple[int, int] | None]] = []
        train_name, predict_name = (
            _function_name(train, "train"),
            _function_name(predict, "predict"),
        )
        for group in range(len(self.groups)):
            training_task: dict[int, int] = {}
            for split in range(len(self.windows)):
                trainer = self.trained_by[split]
                shared = self.trained_by.count(trainer) > 1
                where = self._where(split, group, configuration)
                if split == trainer and shared:
                    training_task[split] = offset + len(planned)
                    build = partial(self._training_work, train, config, configuration, split, group)
                    planned.append(
                        (
                            Task(
                                build,
                                partial(where.error, train_name),
                                self._name(where),
                                group=number,
                                counted=False,
                                functions=(train,),
                            ),
                            None,
                        )
                    )
                build = partial(
                    self._prediction_work,
                    train,
                    predict,
                    config,
                    configuration,
                    split,
                    group,
                    not shared,
                )
                planned.append(
                    (
                        Task(
                            build,
                            partial(where.error, predict_name),
                            self._name(where),
                            group=number,
                            needs=training_task.get(trainer) if shared else None,
                            functions=(train, predict),
                        ),
                        (split, group),
                    )
                )
        return planned

    def _where(self, split: int, group: int, configuration: str | None) -> _Where:
        places = None
        if len(self.groups) > 1:
            members = [self.series.locations[i] for i in self.groups[group]]
            total = len(self.series.locations)
            places = (
                f"{members[0]!r}"
                if len(members) == 1
                else f"{members[0]!r} to {members[-1]!r} ({len(members)} of {total})"
            )
        return _Where(self.windows[split].split_period, configuration, places)

    @staticmethod
    def _name(where: _Where) -> str:
        return ", ".join(
            [f"split {_said(where.split_period)}"]
            + ([f"configuration {where.configuration}"] if where.configuration else [])
            + ([f"places {where.places}"] if where.places else [])
        )

    def _stream(self, split: int, group: int, training: bool) -> np.random.SeedSequence:
        key = (split,) if len(self.groups) == 1 else (split, 1 + group)
        return np.random.SeedSequence(
            self.root.entropy,
            spawn_key=(*self.root.spawn_key, *key, *((0,) if training else ())),
            pool_size=self.root.pool_size,
        )

    def _data(self, split: int, group: int) -> tuple[pd.DataFrame, pd.DataFrame]:
        """A task's history and future (made once, shared by every configuration)."""
        if (split, group) not in self._frames:
            window = self.windows[split]
            if split not in self._futures:
                self._futures[split] = self.series.future(window, self.weather)
            future = self._futures[split]
            if len(self.groups) == 1:
                self._frames[(split, group)] = (self.series.history(window), future)
            else:
                places = self.groups[group]
                wanted = np.asarray(self.series.locations, dtype=object)[places]
                self._frames[(split, group)] = (
                    self.series.history(window, places),
                    future[future[LOCATION].isin(wanted)].reset_index(drop=True),
                )
        return self._frames[(split, group)]

    def _training_work(
        self,
        train: Callable[..., Any],
        config: Any,
        configuration: str | None,
        split: int,
        group: int,
    ) -> tuple[Any, tuple[Any, ...]]:
        return _train, (self._training(train, config, configuration, split, group),)

    def _training(
        self,
        train: Callable[..., Any],
        config: Any,
        configuration: str | None,
        split: int,
        group: int,
    ) -> _Training:
        return _Training(
            self._where(split, group, configuration),
            train,
            config,
            self.geojson,
            self._data(split, group)[0],
            self._stream(split, group, training=True),
        )

    def _prediction_work(
        self,
        train: Callable[..., Any],
        predict: Callable[..., Any],
        config: Any,
        configuration: str | None,
        split: int,
        group: int,
        trains: bool,
    ) -> tuple[Any, tuple[Any, ...]]:
        history, future = self._data(split, group)
        trainer = self.trained_by[split]
        window = self.windows[split]
        work = _Prediction(
            self._where(split, group, configuration),
            self._training(train, config, configuration, split, group) if trains else None,
            self.windows[trainer].split_period,
            _function_name(train, "train"),
            predict,
            config,
            self.geojson,
            history,
            future,
            [self.series.locations[i] for i in self.groups[group]],
            window.forecast_periods,
            self.n_samples,
            self._stream(split, group, training=False),
            self.levels,
        )
        return _predict, (work,)


def _samples(work: _Prediction, answer: Any) -> np.ndarray:
    """The answer's samples on the (location, forecast period) grid, checked."""
    future = work.future

    def fail(problem: str) -> BacktestError:
        return work.where.error(_function_name(work.predict, "predict"), problem)

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
    if N_SAMPLES in _accepted(work.predict) and len(columns) != work.n_samples:
        raise fail(f"returned {len(columns)} sample columns but was asked for {work.n_samples}")
    missing = [name for name in (TIME_PERIOD, LOCATION) if name not in answer.columns]
    if missing:
        raise fail(f"returned no {missing} column(s) to tell its rows apart")
    periods = _positions(answer[TIME_PERIOD], work.forecast_periods)
    locations = pd.Index(work.locations).get_indexer(answer[LOCATION].astype(str))
    known = (periods >= 0) & (locations >= 0)
    if not known.all():
        row = answer[~known].iloc[0]
        raise fail(
            f"returned a row for location {row[LOCATION]!r}, {_said(row[TIME_PERIOD])} that is "
            "not among the future rows it was given"
        )
    cell = locations.astype(np.int64) * len(work.forecast_periods) + periods
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
    return grid.reshape(len(work.locations), len(work.forecast_periods), -1)


def _function_name(function: Callable[..., Any], role: str) -> str:
    """``train`` or ``predict``, with the function's own name when it has another."""
    name = getattr(function, "__qualname__", None) or type(function).__name__
    return role if name == role else f"{role} ({name})"


async def _call(
    calls: Calls,
    where: _Where,
    function: Callable[..., Any],
    role: str,
    args: tuple[Any, ...],
    keywords: dict[str, Any],
) -> Any:
    """The function's answer (see :class:`chaplab.executors.Calls`); BacktestError naming the
    task and the function when it raises."""
    try:
        return await calls(function, args, keywords)
    except Exception as error:
        raise where.error(
            _function_name(function, role), f"raised {type(error).__name__}: {error}"
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


def _evaluation_frame(
    series: _Series,
    windows: list[SplitWindow],
    levels: np.ndarray,
    values: np.ndarray,
    present: np.ndarray,
) -> pd.DataFrame:
    """The tidy evaluation frame of ``values`` ``(splits, locations, periods, levels)`` where
    ``present`` ``(splits, locations)``, laid out as ``chaplab.frames.entries_to_frame`` lays
    out the service's entries: org units sorted, then split periods, periods and quantiles in
    order."""
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
    if not present.all():
        kept = np.repeat(present[:, order].T.ravel(), n_periods * n_levels)
        frame = frame[kept].reset_index(drop=True)
        frame[ORG_UNIT] = frame[ORG_UNIT].cat.remove_unused_categories()
    return with_horizon(frame)
