"""Checks that a dataset suits a model before a job is queued, so bad input gets a 422 at once.

Each check raises :class:`FieldProblem` naming the request field and the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from chaplab.service.errors import FieldProblem
from chaplab.service.forecasting import (
    InsufficientHistoryError,
    ModelTemplateSpec,
    Panel,
    check_history,
)
from chaplab.vocabulary import evaluated_periods


def check_model_fits(
    template: ModelTemplateSpec,
    options: dict[str, Any],
    panel: Panel,
    field: str,
    additional_covariates: Sequence[str] = (),
) -> None:
    """The panel's period type is supported, the target and every covariate the configured model
    reads (``template.covariates``: the template's own, then ``additional_covariates``) are
    there, and the template's own covariates have no missing value (additional ones may: the
    model fills them from climatology)."""
    if template.supported_period_type not in ("any", panel.period_type):
        raise FieldProblem(
            field,
            f"model {template.name!r} supports {template.supported_period_type} periods, "
            f"the data has {panel.period_type} periods",
        )
    for name in [template.target, *template.covariates(options, additional_covariates)]:
        if name not in panel.features:
            raise FieldProblem(
                field,
                f"the data lacks {name!r}, which model {template.name!r} needs "
                f"(it has {', '.join(sorted(panel.features)) or 'no features'})",
            )
    for name in template.own_covariates(options):
        missing = np.argwhere(np.isnan(panel.features[name]))
        if missing.size:
            unit, period = missing[0]
            raise FieldProblem(
                field,
                f"required covariate {name!r} has {len(missing)} missing value(s), the first "
                f"for org unit {panel.org_units[unit]!r} in period {panel.periods[period]}",
            )


class BacktestSettings(Protocol):
    """The backtest settings of a request or a stored specification."""

    n_periods: int
    n_splits: int
    stride: int


def check_backtest_fits(
    template: ModelTemplateSpec,
    options: dict[str, Any],
    panel: Panel,
    backtest: BacktestSettings,
    field: str,
    additional_covariates: Sequence[str] = (),
) -> None:
    """The model suits the panel (a problem names ``field``) and the panel has the history the
    backtest needs: both checks a backtest is queued after."""
    check_model_fits(template, options, panel, field, additional_covariates)
    check_backtest_history(
        template, options, panel, backtest.n_periods, backtest.n_splits, backtest.stride
    )


def check_backtest_history(
    template: ModelTemplateSpec,
    options: dict[str, Any],
    panel: Panel,
    n_periods: int,
    n_splits: int,
    stride: int,
) -> None:
    """The dataset has enough periods to train before the first split and to score every split.

    The problem names ``nPeriods`` when it is outside the model's prediction-length bounds or
    one split's horizon alone does not fit, otherwise the count of splits (``nSplits``, or
    ``stride`` when the splits would fit one period apart)."""
    check_horizon(template, n_periods)
    training = template.history_needed(options, panel.period_type)
    try:
        check_history(training, panel, n_periods, n_splits, stride)
    except InsufficientHistoryError as error:
        raise FieldProblem(_too_long(training, panel, n_periods, n_splits), str(error)) from None


def _too_long(training: int, panel: Panel, n_periods: int, n_splits: int) -> str:
    """The request field to blame when the backtest does not fit in the dataset's history."""
    if training + n_periods > panel.n_periods:
        return "nPeriods"
    if training + evaluated_periods(n_periods, n_splits, stride=1) > panel.n_periods:
        return "nSplits"
    return "stride"


def check_horizon(template: ModelTemplateSpec, n_periods: int) -> None:
    """``n_periods`` is within the model's prediction-length bounds (a model service declares
    them and would refuse the job's first forecast otherwise)."""
    low, high = template.min_prediction_periods, template.max_prediction_periods
    if (low is None or n_periods >= low) and (high is None or n_periods <= high):
        return
    if low is not None and high is not None:
        bounds = f"from {low} to {high} periods"
    elif low is not None:
        bounds = f"at least {low} periods"
    else:
        bounds = f"at most {high} periods"
    raise FieldProblem(
        "nPeriods",
        f"model {template.name!r} forecasts {bounds} at a time, nPeriods is {n_periods}",
    )


def check_prediction_history(
    template: ModelTemplateSpec, options: dict[str, Any], panel: Panel, n_periods: int
) -> None:
    """``n_periods`` is within the model's prediction-length bounds, the provided data is long
    enough to fit the model on, and the ``n_periods`` periods after it are periods (they end
    by the year 9999)."""
    check_horizon(template, n_periods)
    training = template.history_needed(options, panel.period_type)
    if panel.n_periods < training:
        raise FieldProblem(
            "providedData",
            f"model {template.name!r} needs at least {training} periods of history, "
            f"the provided data has {panel.n_periods}",
        )
    try:
        panel.periods_after(n_periods)
    except ValueError as error:
        raise FieldProblem(
            "nPeriods",
            f"the {n_periods} periods after {panel.periods[-1]} would pass the year 9999 ({error})",
        ) from None


def check_nothing_to_fetch(data_to_be_fetched: list[Any]) -> None:
    """This service fetches no data from outside: a request asking it to is refused."""
    if data_to_be_fetched:
        raise FieldProblem(
            "dataToBeFetched",
            "this service fetches no data from outside; send every value in providedData",
        )
