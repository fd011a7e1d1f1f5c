"""Tune a model: every configuration of a grid backtested on the same splits, into one leaderboard.

``tune(train, predict, data, grid, ...)`` backtests each configuration of ``grid`` (a dict of
option lists, a list of configurations, or a :class:`~chaplab.schema.ConfigSchema`, whose enums,
booleans and bounded ranges give the configurations it allows) with
:func:`chaplab.backtesting.run_configurations`: the same splits, tasks and random streams for
every configuration, all on one executor. The answer, a :class:`Tuning`, has the forecasts in
one frame with a ``configuration`` column, their scores, relative skill with bootstrap intervals
(:func:`chaplab.scoring.relative_skill`), the best configuration named and a leaderboard chart.
``client.tune`` answers the same :class:`Tuning` for configured models run on a server
(:func:`leaderboard`).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from chaplab.backtesting import (
    CONFIGURATION,
    LOCATION,
    TARGET,
    TIME_PERIOD,
    run_configurations,
    with_configuration,
)
from chaplab.errors import ArgumentError, ArgumentTypeError
from chaplab.executors import Errors, Progress
from chaplab.frames import ORG_UNIT, PERIOD, VALUE, parse_periods
from chaplab.schema import ConfigSchema, ConfigValidationError, apply_config_defaults
from chaplab.schema import validate_config as check_config
from chaplab.vocabulary import (
    CLIMATOLOGY_WEATHER,
    DEFAULT_CONFIGURATION,
    DEFAULT_QUANTILES,
    BacktestPlan,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Grid = Mapping[str, Iterable[Any]] | Sequence[Mapping[str, Any]] | ConfigSchema
"""A dict of option lists (every combination), a list of configurations, or a schema."""

MAX_CONFIGURATIONS = 10_000
"""The most configurations a grid may give without ``max_configurations``."""
MAX_INTEGER_VALUES = 10
"""A bounded integer option with at most this many values is tried at each; a wider range at
``points`` values spread evenly over it."""
STATUS = "status"
DONE, FAILED, NOT_STARTED = "done", "failed", "not started"


def grid_configurations(grid: Grid, *, points: int = 3) -> list[dict[str, Any]]:
    """The configurations ``grid`` gives, in order: every combination of a dict of option lists
    (the first option varying slowest), each dict of a list, or for a
    :class:`~chaplab.schema.ConfigSchema` every combination of the values its options allow: an
    enum's values, a boolean's two, a bounded integer's every value (at most
    ``MAX_INTEGER_VALUES``, else ``points`` spread evenly), a bounded number's ``points`` spread
    evenly; other options keep their defaults and are left out. ArgumentError naming the option
    for an empty list, or a schema option without a default that has no values to try."""
    if isinstance(points, bool) or not isinstance(points, int) or points < 2:
        raise ArgumentError(f"points must be an integer of at least 2, got {points!r}")
    if isinstance(grid, ConfigSchema):
        return _product(_schema_values(grid, points))
    if isinstance(grid, Mapping):
        values: dict[str, list[Any]] = {}
        for name, options in grid.items():
            if not isinstance(name, str):
                raise ArgumentTypeError(f"grid: option names must be strings, got {name!r}")
            if isinstance(options, (str, bytes)) or not isinstance(options, Iterable):
                raise ArgumentTypeError(
                    f"grid[{name!r}] must be a list of the values to try, got {options!r}"
                )
            values[name] = list(options)
            if not values[name]:
                raise ArgumentError(f"grid[{name!r}] is empty: give at least one value to try")
        return _product(values)
    if isinstance(grid, Sequence) and not isinstance(grid, (str, bytes)):
        configurations = []
        for index, configuration in enumerate(grid):
            if not isinstance(configuration, Mapping):
                raise ArgumentTypeError(
                    f"grid[{index}] must be a dict of option values, got {configuration!r}"
                )
            configurations.append(dict(configuration))
        if not configurations:
            raise ArgumentError("grid is empty: give at least one configuration")
        return configurations
    raise ArgumentTypeError(
        "grid must be a dict of option lists, a list of configurations or a ConfigSchema, "
        f"got {type(grid).__name__}"
    )


def _product(values: Mapping[str, list[Any]]) -> list[dict[str, Any]]:
    count = math.prod(len(options) for options in values.values())
    if count > MAX_CONFIGURATIONS:
        sizes = " x ".join(f"{len(options)} {name}" for name, options in values.items())
        raise ArgumentError(
            f"grid gives {count:,} configurations ({sizes}), more than {MAX_CONFIGURATIONS:,}: "
            "try fewer values, or pass a list of the configurations to try"
        )
    names = list(values)
    return [
        dict(zip(names, combination, strict=True))
        for combination in itertools.product(*values.values())
    ]


def _schema_values(schema: ConfigSchema, points: int) -> dict[str, list[Any]]:
    """The values to try of each option of ``schema`` that allows more than its default."""
    values: dict[str, list[Any]] = {}
    for name, prop in schema.properties.items():
        allowed = _allowed_values(prop, points)
        if allowed is not None and len(allowed) > 1:
            values[name] = allowed
        elif "default" not in prop and name in schema.required:
            raise ArgumentError(
                f"grid: option {name!r} has no default and no values to try (an enum, a "
                "boolean or a bounded range); give its values in a dict of option lists"
            )
    return values


def _allowed_values(prop: Mapping[str, Any], points: int) -> list[Any] | None:
    """The values a schema property allows, as far as they can be listed; None when not."""
    if "enum" in prop:
        return list(prop["enum"])
    kind = prop.get("type")
    if kind == "boolean":
        return [False, True]
    if kind not in ("integer", "number"):
        return None
    low, high = prop.get("minimum"), prop.get("maximum")
    if "exclusiveMinimum" in prop:
        low = prop["exclusiveMinimum"] + (1 if kind == "integer" else 0)
    if "exclusiveMaximum" in prop:
        high = prop["exclusiveMaximum"] - (1 if kind == "integer" else 0)
    if low is None or high is None:
        return None
    if kind == "integer":
        if high - low + 1 <= MAX_INTEGER_VALUES:
            return list(range(int(low), int(high) + 1))
        return sorted({int(round(value)) for value in np.linspace(low, high, points)})
    spread = np.linspace(low, high, points + 2 if _open_range(prop) else points)
    inside = spread[1:-1] if _open_range(prop) else spread
    return [float(value) for value in inside]


def _open_range(prop: Mapping[str, Any]) -> bool:
    return "exclusiveMinimum" in prop or "exclusiveMaximum" in prop


def configuration_name(options: Mapping[str, Any]) -> str:
    """A configuration's name from its options, sorted by name: ``n_lags=2, seasonal=True``
    (``default`` for none), the same for the same options whatever their order, so a configured
    model named by it on a server is found again by a rerun."""
    if not options:
        return DEFAULT_CONFIGURATION
    return ", ".join(f"{name}={_value_text(options[name])}" for name in sorted(options))


def _value_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, Integral):
        return str(int(value))
    if isinstance(value, Real):
        return f"{float(value):g}"
    if isinstance(value, Sequence):
        return "[" + ", ".join(_value_text(item) for item in value) + "]"
    return repr(value)


@dataclass(frozen=True, eq=False)
class Tuning:
    """A tune's leaderboard.

    ``forecasts``: the configurations' evaluation frames in one, its first column
    ``configuration`` (categorical, in the grid's order); ``configurations``: one row per
    configuration, its options and ``status`` (``done``, ``failed``, ``not started``);
    ``scores``: per forecast target (:func:`chaplab.scoring.score`; the ``model`` column names
    the configuration or compared model); ``skill``: relative skill against ``baseline`` with
    bootstrap intervals, best first; ``best``: the best configuration's name, ``best_options``
    its options; ``failures``: the errors of failed tasks; ``stopped``: why configurations were
    left out, or None. Only configurations whose every task finished are scored and ranked.
    """

    forecasts: pd.DataFrame
    configurations: pd.DataFrame
    scores: pd.DataFrame
    skill: pd.DataFrame
    baseline: str
    best: str
    best_options: dict[str, Any]
    failures: list[Exception] = field(default_factory=list)
    stopped: str | None = None

    def chart(self, *, title: str | None = None) -> Figure:
        """The leaderboard chart of :attr:`skill`
        (:func:`chaplab.plotting.leaderboard_chart`)."""
        from chaplab.plotting import leaderboard_chart

        return leaderboard_chart(self.skill, title=title or self._title())

    def _title(self) -> str:
        ranked = int(self.configurations[STATUS].eq(DONE).sum())
        return f"{ranked} configurations ranked by {self._metric()} against {self.baseline}"

    def _metric(self) -> str:
        return str(self.skill["metric"].iloc[0]).upper()

    def summary(self) -> str:
        """What was tuned and which configuration is best, in a few lines."""
        counts = self.configurations[STATUS].value_counts()
        row = self.skill[self.skill["model"] == self.best].iloc[0]
        lines = [
            f"{len(self.configurations)} configurations: {int(counts.get(DONE, 0))} ranked"
            + "".join(
                f", {int(counts[status])} {status}"
                for status in (FAILED, NOT_STARTED)
                if counts.get(status, 0)
            ),
            f"best: {self.best}, relative {self._metric()} {row['relative_skill']:.3f} "
            f"[{row['lower']:.3f}, {row['upper']:.3f}] against {self.baseline}",
        ]
        if self.stopped:
            lines.append(f"stopped early: {self.stopped}")
        if self.failures:
            lines.append(f"first failure: {self.failures[0]}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<Tuning\n{self.summary()}>"

    def _repr_html_(self) -> str:
        from html import escape

        shown = self.skill[["rank", "model", "relative_skill", "lower", "upper", "n_targets"]]
        lines = "<br>".join(escape(line) for line in self.summary().splitlines())
        table = str(shown.to_html(index=False, float_format="{:.3f}".format))
        return f"<p>{lines}</p>{table}"


def leaderboard(
    forecasts: Mapping[str, pd.DataFrame],
    actuals: pd.DataFrame,
    options: Mapping[str, Mapping[str, Any]],
    *,
    compare_with: Mapping[str, pd.DataFrame] | None = None,
    baseline: str | None = None,
    metric: str = "wis",
    n_bootstrap: int = 1000,
    level: float = 0.9,
    failed: Iterable[str] = (),
    not_started: Iterable[str] = (),
    failures: Sequence[Exception] = (),
    stopped: str | None = None,
) -> Tuning:
    """The :class:`Tuning` of configurations' evaluation frames (``forecasts``: by name, the
    order of the grid, ``options`` each one's options) against ``actuals``: the configurations
    that finished scored with ``compare_with`` (other models' frames, such as the service's
    baselines), ranked by relative skill against ``baseline`` (default: the first configuration
    that finished) and the best configuration named."""
    from chaplab import scoring

    failed_names, unstarted = set(failed), set(not_started)
    finished = [name for name in forecasts if name not in failed_names and name not in unstarted]
    compared = dict(compare_with or {})
    clash = sorted(set(compared) & set(forecasts))
    if clash:
        raise ArgumentError(f"compare_with names {clash[0]!r}, a configuration's name too")
    if not finished:
        raise ArgumentError(
            "no configuration finished, so none can be ranked"
            + (f"; the first failure: {failures[0]}" if failures else "")
        )
    baseline = finished[0] if baseline is None else baseline
    if baseline not in finished and baseline not in compared:
        raise ArgumentError(
            f"baseline {baseline!r} is neither a configuration that finished nor a model of "
            f"compare_with; choose one of {[*finished, *compared]}"
        )
    scored = {name: forecasts[name] for name in finished} | compared
    scores = scoring.score(scored, actuals, unmatched="drop")
    if len(scored) == 1:  # nothing to compare with: the one model is its own baseline
        skill = _alone(scores, baseline, metric)
    else:
        skill = scoring.relative_skill(
            scores, baseline, metric=metric, n_bootstrap=n_bootstrap, level=level
        )
    ranked = skill[skill["model"].isin(finished)]
    best = str(ranked["model"].iloc[0])
    table = pd.DataFrame(
        [
            {
                CONFIGURATION: name,
                **options[name],
                STATUS: FAILED
                if name in failed_names
                else NOT_STARTED
                if name in unstarted
                else DONE,
            }
            for name in forecasts
        ]
    )
    return Tuning(
        forecasts=with_configuration(list(forecasts.values()), list(forecasts)),
        configurations=table,
        scores=scores,
        skill=skill,
        baseline=baseline,
        best=best,
        best_options=dict(options[best]),
        failures=list(failures),
        stopped=stopped,
    )


def _alone(scores: pd.DataFrame, model: str, metric: str) -> pd.DataFrame:
    """The skill table of one model alone, as :func:`chaplab.scoring.relative_skill` lays it out:
    its own baseline, relative skill 1."""
    return pd.DataFrame(
        {
            "rank": [1],
            "model": [model],
            "relative_skill": [1.0],
            "lower": [1.0],
            "upper": [1.0],
            "mean_score": [float(scores[metric].mean())],
            "n_targets": [len(scores)],
            "baseline": [True],
            "metric": [metric],
        }
    )


def tune(
    train: Callable[..., Any],
    predict: Callable[..., Any],
    data: pd.DataFrame,
    grid: Grid,
    *,
    n_splits: int,
    n_periods: int,
    stride: int = 1,
    n_retrain: int = 1,
    n_samples: int = 100,
    geojson: Any = None,
    seed: int | None = None,
    quantiles: Sequence[float] = DEFAULT_QUANTILES,
    weather: str = CLIMATOLOGY_WEATHER,
    config_schema: ConfigSchema | None = None,
    points: int = 3,
    compare_with: Mapping[str, pd.DataFrame] | None = None,
    baseline: str | None = None,
    metric: str = "wis",
    n_bootstrap: int = 1000,
    level: float = 0.9,
    executor: Any = None,
    places_per_task: int | None = None,
    errors: Errors = "raise",
    max_configurations: int | None = None,
    time_budget: float | None = None,
    progress: bool = True,
) -> Tuning:
    """Backtest ``train`` and ``predict`` with every configuration of ``grid`` on the same
    splits of ``data`` and rank them.

    ``grid``: see :func:`grid_configurations` (``points`` for a schema's ranges). Each
    configuration reaches the model's functions as its ``config`` (a dict), completed with the
    defaults of ``config_schema`` (or of ``grid`` when it is a schema) and checked against it
    first. The backtest settings, ``executor``, ``places_per_task`` and ``errors`` are
    :func:`chaplab.backtest`'s; every configuration gets the same random streams, so its frame
    is the one ``chaplab.backtest`` gives it with the same seed.

    Stops early on request: ``max_configurations`` runs the grid's first ones only, and no
    configuration but the first starts after ``time_budget`` seconds (those started finish). The
    configurations that finished are scored against ``data``'s cases with ``compare_with``
    (name -> evaluation frame, such as the service's baselines) and ranked by the relative
    ``metric`` against ``baseline`` (a configuration's or a compared model's name; default the
    first configuration), with ``level`` bootstrap intervals of ``n_bootstrap`` replicates.
    """
    plan = BacktestPlan(n_periods=n_periods, n_splits=n_splits, stride=stride, n_retrain=n_retrain)
    configurations = grid_configurations(grid, points=points)
    schema = grid if isinstance(grid, ConfigSchema) else config_schema
    total = len(configurations)
    stopped = None
    if max_configurations is not None:
        if (
            isinstance(max_configurations, bool)
            or not isinstance(max_configurations, int)
            or max_configurations < 1
        ):
            raise ArgumentError(
                f"max_configurations must be a positive integer or None, got {max_configurations!r}"
            )
        if max_configurations < total:
            configurations = configurations[:max_configurations]
            stopped = f"max_configurations={max_configurations} of {total} configurations"
    if time_budget is not None and (
        isinstance(time_budget, bool) or not isinstance(time_budget, Real) or time_budget <= 0
    ):
        raise ArgumentError(f"time_budget must be a number of seconds > 0, got {time_budget!r}")
    names = [configuration_name(options) for options in configurations]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ArgumentError(f"grid gives the configuration {repeated[0]} more than once")
    configs = [_completed_config(options, schema) for options in configurations]
    started = time.monotonic()
    backtests = run_configurations(
        train,
        predict,
        data,
        list(zip(names, configs, strict=True)),
        plan=plan,
        n_samples=n_samples,
        geojson=geojson,
        seed=seed,
        quantiles=quantiles,
        weather=weather,
        progress=Progress("tune", "task", progress),
        executor=executor,
        places_per_task=places_per_task,
        errors=errors,
        time_budget=None if time_budget is None else float(time_budget),
    )
    not_started = [names[number] for number in backtests.not_started]
    if not_started:
        stopped = (
            f"the time budget of {float(time_budget or 0):g} s ran out after "
            f"{time.monotonic() - started:.0f} s: {len(not_started)} of {len(names)} "
            "configurations not started"
        )
    failed = {error.configuration for error in backtests.failures}
    return leaderboard(
        dict(zip(names, backtests.frames, strict=True)),
        _actuals(data),
        dict(zip(names, configurations, strict=True)),
        compare_with=compare_with,
        baseline=baseline,
        metric=metric,
        n_bootstrap=n_bootstrap,
        level=level,
        failed=[name for name in names if name in failed],
        not_started=not_started,
        failures=list(backtests.failures),
        stopped=stopped,
    )


def _completed_config(options: dict[str, Any], schema: ConfigSchema | None) -> dict[str, Any]:
    """A configuration as the model gets it: with the schema's defaults, checked."""
    if schema is None:
        return dict(options)
    try:
        check_config(options, schema)
    except ConfigValidationError as error:
        raise ArgumentError(
            f"configuration {configuration_name(options)} does not fit the schema: {error}"
        ) from None
    return apply_config_defaults(options, schema)


def _actuals(data: pd.DataFrame) -> pd.DataFrame:
    """The observed cases of ``data`` as scoring reads them (``org_unit``, ``period``,
    ``value``)."""
    observed = data[data[TARGET].notna()]
    return pd.DataFrame(
        {
            ORG_UNIT: observed[LOCATION].astype(str).to_numpy(),
            PERIOD: parse_periods(observed[TIME_PERIOD]),
            VALUE: observed[TARGET].to_numpy(np.float64),
        }
    )


__all__ = [
    "Tuning",
    "configuration_name",
    "grid_configurations",
    "leaderboard",
    "tune",
]
