"""Evaluation endpoints beyond the main table, as sans-IO operations (see ``_operations``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chaplab.client._models import Evaluation
from chaplab.client._operations import (
    Operations,
    _model_name,
    _quantiles,
    _require_id,
    _require_name,
    operation,
)
from chaplab.client._result_models import (
    DataImportReport,
    DeletedIds,
    EvaluationDetail,
    EvaluationOverlap,
)
from chaplab.client._steps import Operation
from chaplab.vocabulary import DEFAULT_QUANTILES

if TYPE_CHECKING:
    import pandas as pd


class EvaluationOperations(Operations):
    @operation
    def create_evaluation_row(
        self, name: str, model: str | Any, dataset_id: int, n_periods: int | None = None
    ) -> Operation[Evaluation]:
        """Store an evaluation row without running it (no splits, forecasts or metrics);
        ``model`` is the configured model's NAME or an object with ``.name``."""
        body: dict[str, Any] = {
            "name": _require_name("name", name),
            "modelId": _model_name(model),
            "datasetId": _require_id("dataset_id", dataset_id),
        }
        if n_periods is not None:
            body["nPeriods"] = _require_id("n_periods", n_periods, minimum=1)
        return (yield from self._call(Evaluation, "POST", "/v1/crud/backtests", json=body))

    @operation
    def delete_evaluations(self, evaluation_ids: Iterable[int]) -> Operation[list[int]]:
        """Delete several evaluations; when any id is unknown nothing is deleted
        (``NotFoundError``). Returns the deleted ids."""
        ids = [_require_id("evaluation_ids[]", value) for value in evaluation_ids]
        if not ids:
            raise ValueError("evaluation_ids must name at least one evaluation")
        params = {"ids": ",".join(str(value) for value in ids)}
        deleted = yield from self._call(DeletedIds, "DELETE", "/v1/crud/backtests", params=params)
        return deleted.deleted_ids

    @operation
    def update_evaluation(self, evaluation_id: int, name: str) -> Operation[Evaluation]:
        """Rename a stored evaluation (its one editable field)."""
        evaluation_id = _require_id("evaluation_id", evaluation_id)
        body = {"name": _require_name("name", name)}
        path = f"/v1/crud/backtests/{evaluation_id}"
        return (yield from self._call(Evaluation, "PATCH", path, json=body))

    @operation
    def get_evaluation_full(
        self, evaluation_id: int, quantiles: Sequence[float] = DEFAULT_QUANTILES
    ) -> Operation[EvaluationDetail]:
        """The evaluation with its configuration, configured model, dataset and entries."""
        evaluation_id = _require_id("evaluation_id", evaluation_id)
        params = [("quantiles", q) for q in _quantiles(quantiles)]
        path = f"/v1/crud/backtests/{evaluation_id}/full"
        return (yield from self._get(EvaluationDetail, path, params=params))

    @operation
    def create_evaluation_with_data(
        self,
        name: str,
        model: str | Any,
        frame: pd.DataFrame,
        geojson: Mapping[str, Any] | None = None,
        n_periods: int | None = None,
        n_splits: int | None = None,
        stride: int | None = None,
        dry_run: bool = False,
    ) -> Operation[DataImportReport]:
        """Evaluate a configured model on data sent inline (a wide frame: ``time_period``,
        ``location``, one column per feature). Org units the model cannot use are left out and
        reported; ``dry_run=True`` only validates and reports. The report's ``id`` is the job's."""
        from chaplab.frames import frame_to_observations

        body: dict[str, Any] = {
            "name": _require_name("name", name),
            "modelId": _model_name(model),
            "providedData": frame_to_observations(frame),
            "geojson": dict(geojson) if geojson is not None else None,
        }
        for field, wire, value in (
            ("n_periods", "nPeriods", n_periods),
            ("n_splits", "nSplits", n_splits),
            ("stride", "stride", stride),
        ):
            if value is not None:
                body[wire] = _require_id(field, value, minimum=1)
        params = {"dryRun": "true" if dry_run else "false"}
        path = "/v1/analytics/create-backtest-with-data/"
        return (yield from self._call(DataImportReport, "POST", path, json=body, params=params))

    @operation
    def evaluation_overlap(self, first_id: int, second_id: int) -> Operation[EvaluationOverlap]:
        """The org units, split periods and forecast periods two evaluations share."""
        first_id = _require_id("first_id", first_id)
        second_id = _require_id("second_id", second_id)
        path = f"/v1/analytics/backtest-overlap/{first_id}/{second_id}"
        return (yield from self._get(EvaluationOverlap, path))

    @operation
    def compatible_evaluations(self, evaluation_id: int) -> Operation[list[Evaluation]]:
        """Other evaluations on the same dataset whose split periods and org units overlap."""
        evaluation_id = _require_id("evaluation_id", evaluation_id)
        path = f"/v1/analytics/compatible-backtests/{evaluation_id}"
        return (yield from self._get(list[Evaluation], path))

    @operation
    def metrics_csv(self, evaluation_id: int | None = None) -> Operation[str]:
        """Metrics of every evaluation (or one) as CSV text: one row per evaluation and metric."""
        params = (
            {}
            if evaluation_id is None
            else {"backtestId": _require_id("evaluation_id", evaluation_id)}
        )
        response = yield from self._request("GET", "/v1/crud/metric/csv", params=params)
        return response.text
