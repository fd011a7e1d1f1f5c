"""Tuning on a server: a model template configured once per configuration of a grid, the
configured models run as one batch with the baselines, and their forecasts ranked into the
leaderboard ``chaplab.tune`` answers (:class:`chaplab.tuning.Tuning`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from chaplab.client._capabilities import RouteCache
from chaplab.client._errors import ArgumentError
from chaplab.client._evaluations import Evaluations
from chaplab.client._model_catalog import ModelCatalog, ModelSpec, ModelTemplate
from chaplab.client._plumbing import DATASETS, RequestBuilder, Resource, require_name
from chaplab.client._specifications import Specifications
from chaplab.client._steps import Compute, Operation, RetryPolicy

if TYPE_CHECKING:
    from chaplab.tuning import Tuning

BASELINES = ("persistence", "seasonal_median", "global_median")
"""chap-core's baselines, which both servers run as every batch's references."""
REFERENCE = "seasonal_median"
"""The baseline a server tune's relative skill is measured against by default."""


class Tunings(Resource):
    """``client.tune``: configured models, a batch and the leaderboard, in one operation."""

    def __init__(
        self,
        builder: RequestBuilder,
        retry: RetryPolicy,
        routes: RouteCache,
        catalog: ModelCatalog,
        specifications: Specifications,
        evaluations: Evaluations,
    ) -> None:
        super().__init__(builder, retry, routes)
        self._catalog, self._specifications = catalog, specifications
        self._evaluations = evaluations

    def tune(
        self,
        template: int | str,
        dataset_id: int | str,
        grid: Mapping[str, Iterable[Any]] | Sequence[Mapping[str, Any]] | None = None,
        n_periods: int | None = None,
        n_splits: int | None = None,
        stride: int | None = None,
        n_retrain: int | None = None,
        baselines: Sequence[str] = BASELINES,
        baseline: str = REFERENCE,
        name: str | None = None,
        points: int = 3,
        metric: str = "wis",
        n_bootstrap: int = 1000,
        level: float = 0.9,
        timeout: float | None = None,
        on_status: Callable[[str], object] | None = None,
    ) -> Operation[Tuning]:
        """Tune a model template on a dataset: one configured model per configuration of
        ``grid`` (a dict of option lists, a list of configurations, or None for the
        configurations the template's option schema allows; ``points`` values of a bounded
        number), each checked against that schema before anything is created and named by its
        options (``<template>:n_lags=2``), so a rerun reuses it: the same name with the same
        options is the stored model, with other options a ``ConflictError``. The configured
        models and ``baselines`` (configured-model names) run as one batch (``run_backtests``,
        named ``name``, default ``tune <template>``; ``timeout`` and ``on_status`` as there),
        and their evaluation frames make the ``chaplab.tuning.Tuning`` that ``chaplab.tune``
        answers: ranked by the relative ``metric`` against ``baseline`` with ``level``
        bootstrap intervals, the best configuration named."""
        from chaplab.schema import ConfigSchema, ConfigValidationError, validate_config
        from chaplab.tuning import configuration_name, grid_configurations, leaderboard

        if baseline not in baselines:
            raise ArgumentError(f"baseline {baseline!r} must be one of baselines {baselines!r}")
        # the dataset first: a name no dataset has is refused before any model is configured
        dataset_id = yield from self._id_of("dataset_id", dataset_id, DATASETS)
        chosen = yield from self._template(template)
        schema = ConfigSchema.from_dict({"properties": chosen.user_options})
        configurations = grid_configurations(schema if grid is None else grid, points=points)
        names = [configuration_name(options) for options in configurations]
        for options, configuration in zip(configurations, names, strict=True):
            try:
                validate_config(options, schema, require_options_without_default=True)
            except ConfigValidationError as error:
                raise ArgumentError(
                    f"configuration {configuration} does not fit {chosen.name}'s options: {error}"
                ) from None
        models: list[ModelSpec] = []
        for options, configuration in zip(configurations, names, strict=True):
            model = yield from self._catalog.create_configured_model(
                configuration, chosen.id, options
            )
            models.append(model)
        batch = require_name("name", name) if name is not None else f"tune {chosen.name}"
        detail = yield from self._specifications.run_backtests(
            batch,
            [model.id for model in models] + list(baselines),
            dataset_id,
            n_periods,
            n_splits,
            stride,
            n_retrain,
            timeout,
            on_status,
        )
        newest: dict[str, int] = {}
        for evaluation in detail.backtests:  # newest first: each model's latest run
            if evaluation.model_id is not None:
                newest.setdefault(evaluation.model_id, evaluation.id)
        forecasts = {}
        for configuration, model in zip(names, models, strict=True):
            forecasts[configuration] = yield from self._evaluations.evaluation_frame(
                newest[model.name]
            )
        runs = detail.baseline_runs()
        missing = [name for name in baselines if name not in runs]
        if missing:
            raise ArgumentError(
                f"the server ran no baseline {missing[0]!r} for this batch; its baselines: "
                f"{sorted(runs)}"
            )
        compared = {}
        for reference in baselines:
            compared[reference] = yield from self._evaluations.evaluation_frame(runs[reference])
        actuals = yield from self._evaluations.actual_cases(newest[models[0].name])
        rank = partial(
            leaderboard,
            compare_with=compared,
            baseline=baseline,
            metric=metric,
            n_bootstrap=n_bootstrap,
            level=level,
        )
        options = dict(zip(names, configurations, strict=True))
        tuned: Tuning = yield Compute(rank, (forecasts, actuals, options))
        return tuned

    def _template(self, template: int | str) -> Operation[ModelTemplate]:
        """The template of that id, or of that name (one not archived first)."""
        templates = yield from self._catalog.list_model_templates()
        if isinstance(template, int) and not isinstance(template, bool):
            found = [item for item in templates if item.id == template]
        elif isinstance(template, str):
            found = sorted(
                (item for item in templates if item.name == template),
                key=lambda item: bool(item.archived),
            )
        else:
            raise ArgumentError(f"template must be a template's id or name, got {template!r}")
        if not found:
            names = sorted({item.name for item in templates if not item.archived})
            raise ArgumentError(f"no model template {template!r}; the server has {names}")
        return found[0]
