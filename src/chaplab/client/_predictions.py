"""Predictions: forecast the periods after a dataset's history with a configured model, and read
the forecasts back as entries or frames."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import Field

from chaplab.client._datasets import Dataset, DataSource, Observation
from chaplab.client._jobs import Job, JobRef, job_path
from chaplab.client._plumbing import (
    Resource,
    convert,
    geojson_body,
    model_name,
    org_unit_params,
    quantile_params,
    require_id,
    require_name,
)
from chaplab.client._steps import Operation
from chaplab.client._wire import NullableList, WireModel
from chaplab.vocabulary import DEFAULT_QUANTILES

if TYPE_CHECKING:
    import pandas as pd

# -- wire models -----------------------------------------------------------------------------


class PredictionEntry(WireModel):
    """One forecast quantile of a prediction, for an org unit and a period."""

    org_unit: str
    period: str
    quantile: float
    value: float


class ListedPredictionEntry(PredictionEntry):
    """A prediction entry from the list of all entries, naming its prediction."""

    prediction_id: int


class PredictionRequest(WireModel):
    """The body of ``POST /v1/analytics/make-prediction-with-data-source``."""

    name: str
    geojson: dict[str, Any] | None = None
    provided_data: NullableList[Observation] = Field(default_factory=list)
    data_sources: NullableList[DataSource] = Field(default_factory=list)
    data_to_be_fetched: NullableList[Any] = Field(default_factory=list)
    configured_model_with_data_source_id: int
    n_periods: int = Field(gt=0)


class Prediction(WireModel):
    """A stored prediction."""

    id: int
    name: str | None = None
    created: datetime | None = None
    dataset_id: int | None = None
    configured_model_with_data_source_id: int | None = None
    model_id: str | None = None
    org_units: NullableList[str] = Field(default_factory=list)
    periods: NullableList[str] = Field(default_factory=list)
    n_periods: int | None = None


class PredictionDetail(Prediction):
    """A prediction with its dataset and forecast entries."""

    dataset: Dataset | None = None
    quantiles: NullableList[float] = Field(default_factory=list)
    forecasts: NullableList[PredictionEntry] = Field(default_factory=list)


# -- operations ------------------------------------------------------------------------------


class Predictions(Resource):
    """``/v1/crud/predictions``, the prediction routes of ``/v1/analytics`` and the prediction
    a job created."""

    def make_prediction(self, request: PredictionRequest | Mapping[str, Any]) -> Operation[Job]:
        """Start a prediction; ``request`` is a ``PredictionRequest`` or a dict (either
        spelling). Returns the job (status ``PENDING``); its result is the prediction id."""
        model = (
            request
            if isinstance(request, PredictionRequest)
            else PredictionRequest.model_validate(request)
        )
        path = "/v1/analytics/make-prediction-with-data-source"
        ref = yield from self._call(JobRef, "POST", path, json=model.to_wire())
        return ref.pending_job("create_prediction", model.name)

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

        name = require_name("name", name)
        body = {
            "name": name,
            "modelId": model_name(model),
            "providedData": frame_to_observations(frame),
            "geojson": geojson_body(geojson),
            "nPeriods": require_id("n_periods", n_periods, minimum=1),
        }
        ref = yield from self._call(JobRef, "POST", "/v1/analytics/make-prediction", json=body)
        return ref.pending_job("make_prediction", name)

    def create_prediction_row(
        self, name: str, dataset_id: int, configured_model_with_data_source_id: int
    ) -> Operation[Prediction]:
        """Store a prediction row without running a model (no periods, no forecasts)."""
        body = {
            "name": require_name("name", name),
            "datasetId": require_id("dataset_id", dataset_id),
            "configuredModelWithDataSourceId": require_id(
                "configured_model_with_data_source_id", configured_model_with_data_source_id
            ),
        }
        return (yield from self._call(Prediction, "POST", "/v1/crud/predictions", json=body))

    def list_predictions(self) -> Operation[list[Prediction]]:
        """All stored predictions."""
        return (yield from self._get(list[Prediction], "/v1/crud/predictions"))

    def get_prediction(self, prediction_id: int) -> Operation[Prediction]:
        """One stored prediction."""
        prediction_id = require_id("prediction_id", prediction_id)
        return (yield from self._get(Prediction, f"/v1/crud/predictions/{prediction_id}"))

    def job_prediction_result(
        self, job_id: str, quantiles: Sequence[float] = DEFAULT_QUANTILES
    ) -> Operation[PredictionDetail]:
        """The full prediction a successful prediction job created, with its entries."""
        params = quantile_params(quantiles)
        path = job_path(job_id) + "/prediction_result"
        return (yield from self._get(PredictionDetail, path, params=params))

    def delete_prediction(self, prediction_id: int) -> Operation[None]:
        """Delete a stored prediction (its dataset stays)."""
        prediction_id = require_id("prediction_id", prediction_id)
        yield from self._request("DELETE", f"/v1/crud/predictions/{prediction_id}")

    def prediction_entries(
        self, prediction_id: int, quantiles: Sequence[float] = DEFAULT_QUANTILES
    ) -> Operation[list[PredictionEntry]]:
        """The forecast quantiles of a prediction."""
        prediction_id = require_id("prediction_id", prediction_id)
        path = f"/v1/analytics/prediction-entry/{prediction_id}"
        params = quantile_params(quantiles)
        return (yield from self._get(list[PredictionEntry], path, params=params))

    def prediction_frame(
        self, prediction_id: int, quantiles: Sequence[float] = DEFAULT_QUANTILES
    ) -> Operation[pd.DataFrame]:
        """The prediction entries as a tidy frame (see ``chaplab.frames.entries_to_frame``)."""
        from chaplab.frames import entries_to_frame

        prediction_id = require_id("prediction_id", prediction_id)
        path = f"/v1/analytics/prediction-entry/{prediction_id}"
        response = yield from self._request("GET", path, params=quantile_params(quantiles))
        to_frame = partial(entries_to_frame, with_split_period=False)
        return (yield from convert(to_frame, response.content, response))

    def list_prediction_entries(
        self,
        prediction_id: int | None = None,
        quantiles: Sequence[float] = DEFAULT_QUANTILES,
        org_units: Iterable[str] | str | None = None,
    ) -> Operation[list[ListedPredictionEntry]]:
        """Entries of every prediction (each naming its ``prediction_id``), optionally of one
        prediction and some org units."""
        params: list[tuple[str, Any]] = [*quantile_params(quantiles)]
        if prediction_id is not None:
            params.append(("predictionId", require_id("prediction_id", prediction_id)))
        params += org_unit_params(org_units)
        path = "/v1/analytics/prediction-entry"
        return (yield from self._get(list[ListedPredictionEntry], path, params=params))
