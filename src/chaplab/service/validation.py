"""Checks that a dataset suits a model before a job is queued, so bad input gets a 422 at once.

Each check raises :class:`FieldProblem` naming the request field and the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from chaplab.service.errors import FieldProblem
from chaplab.service.forecasting import ModelTemplateSpec, Panel
from chaplab.vocabulary import BacktestPlan


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


def check_backtest_fits(
    template: ModelTemplateSpec,
    options: dict[str, Any],
    panel: Panel,
    plan: BacktestPlan,
    field: str,
    additional_covariates: Sequence[str] = (),
) -> None:
    """The model suits the panel (a problem names ``field``) and the panel has the history the
    backtest needs: both checks a backtest is queued after."""
    check_model_fits(template, options, panel, field, additional_covariates)
    check_backtest_history(template, options, panel, plan)


def check_backtest_history(
    template: ModelTemplateSpec, options: dict[str, Any], panel: Panel, plan: BacktestPlan
) -> None:
    """``plan``'s forecast periods are within the model's prediction-length bounds and its
    splits fit the dataset after the periods the model trains on
    (:meth:`BacktestPlan.misfit`, the rule the panel's launcher shows its limit by); the
    problem names the setting to change."""
    check_horizon(template, plan.n_periods)
    problem = plan.misfit(panel.n_periods, template.history_needed(options, panel.period_type))
    if problem is not None:
        raise FieldProblem(problem.setting.wire_name, problem.reason)


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
