"""Prediction endpoints beyond the main table, as sans-IO operations (see ``_operations``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chaplab.client._models import Job, JobRef
from chaplab.client._operations import (
    Operations,
    _model_name,
    _org_units,
    _quantiles,
    _require_id,
    _require_name,
    operation,
)
from chaplab.client._result_models import ListedPredictionEntry, Prediction
from chaplab.client._steps import Operation
from chaplab.vocabulary import DEFAULT_QUANTILES

if TYPE_CHECKING:
    import pandas as pd


class PredictionOperations(Operations):
    @operation
    def make_prediction_for_model(
        self,
        name: str,
        model: str | Any,
        frame: pd.DataFrame,
        n_periods: int = 3,
        geojson: Mapping[str, Any] | None = None,
    ) -> Operation[Job]:
        """Start a prediction naming the configured model (the older submit,
        ``POST /v1/analytics/make-prediction``); ``frame`` is a wide frame of the history.
        Returns the job; its result is the prediction id."""
        from chaplab.frames import frame_to_observations

        body = {
            "name": _require_name("name", name),
            "modelId": _model_name(model),
            "providedData": frame_to_observations(frame),
            "geojson": dict(geojson) if geojson is not None else None,
            "nPeriods": _require_id("n_periods", n_periods, minimum=1),
        }
        ref = yield from self._call(JobRef, "POST", "/v1/analytics/make-prediction", json=body)
        return Job(id=ref.id, type="make_prediction", name=body["name"], status="PENDING")

    @operation
    def list_prediction_entries(
        self,
        prediction_id: int | None = None,
        quantiles: Sequence[float] = DEFAULT_QUANTILES,
        org_units: Iterable[str] | str | None = None,
    ) -> Operation[list[ListedPredictionEntry]]:
        """Entries of every prediction (each naming its ``prediction_id``), optionally of one
        prediction and some org units."""
        params: list[tuple[str, Any]] = [("quantiles", q) for q in _quantiles(quantiles)]
        if prediction_id is not None:
            params.append(("predictionId", _require_id("prediction_id", prediction_id)))
        params += [("orgUnits", unit) for unit in _org_units(org_units)]
        return (
            yield from self._get(
                list[ListedPredictionEntry], "/v1/analytics/prediction-entry", params=params
            )
        )

    @operation
    def list_predictions(self) -> Operation[list[Prediction]]:
        """All stored predictions."""
        return (yield from self._get(list[Prediction], "/v1/crud/predictions"))

    @operation
    def get_prediction(self, prediction_id: int) -> Operation[Prediction]:
        """One stored prediction."""
        prediction_id = _require_id("prediction_id", prediction_id)
        return (yield from self._get(Prediction, f"/v1/crud/predictions/{prediction_id}"))

    @operation
    def create_prediction_row(
        self, name: str, dataset_id: int, configured_model_with_data_source_id: int
    ) -> Operation[Prediction]:
        """Store a prediction row without running a model (no periods, no forecasts)."""
        body = {
            "name": _require_name("name", name),
            "datasetId": _require_id("dataset_id", dataset_id),
            "configuredModelWithDataSourceId": _require_id(
                "configured_model_with_data_source_id", configured_model_with_data_source_id
            ),
        }
        return (yield from self._call(Prediction, "POST", "/v1/crud/predictions", json=body))

    @operation
    def delete_prediction(self, prediction_id: int) -> Operation[None]:
        """Delete a stored prediction (its dataset stays)."""
        prediction_id = _require_id("prediction_id", prediction_id)
        yield from self._request("DELETE", f"/v1/crud/predictions/{prediction_id}")
