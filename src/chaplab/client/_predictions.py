"""Predictions: forecast the periods after a dataset's history with a configured model, and read
the forecasts back as entries or frames."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import Field

from chaplab.client._capabilities import Route
from chaplab.client._datasets import Dataset, DataSource, Observation
from chaplab.client._errors import (
    ServerError,
    lost_dataset,
)
from chaplab.client._jobs import Job, JobRef, job_path, newest_storing, result_type
from chaplab.client._orphans import PREDICTIONS, orphaned_list, orphaned_record, unreadable
from chaplab.client._plumbing import (
    DATASETS,
    Listing,
    decode,
    frame_observations,
    geojson_body,
    model_name,
    org_unit_params,
    quantile_params,
    require_id,
    require_name,
    validate,
)
from chaplab.client._quantile_records import QuantileEntry, QuantileRecordResource, RecordOnce
from chaplab.client._steps import Operation
from chaplab.client._wire import NullableList, StoredRecord, WireModel
from chaplab.vocabulary import DEFAULT_QUANTILES, JobType

if TYPE_CHECKING:
    import pandas as pd

# -- wire models -----------------------------------------------------------------------------


class PredictionEntry(QuantileEntry):
    """One forecast quantile of a prediction, for an org unit and a period."""


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


class Prediction(StoredRecord):
    """A stored prediction."""

    dataset_id: int | None = None
    configured_model_with_data_source_id: int | None = None
    model_id: str | None = None
    prediction_setup_id: int | None = None
    org_units: NullableList[str] = Field(default_factory=list)
    periods: NullableList[str] = Field(default_factory=list)
    n_periods: int | None = None
    dataset: Dataset | None = None
    """The dataset it was made from, where the server nests it (chap-core 2.5.1)."""


class PredictionDetail(Prediction):
    """A prediction with its dataset and forecast entries."""

    quantiles: NullableList[float] = Field(default_factory=list)
    forecasts: NullableList[PredictionEntry] = Field(default_factory=list)


# -- operations ------------------------------------------------------------------------------

LIST = Route("list_predictions", "GET", "/v1/crud/predictions", "list_predictions()")
PREDICTION_WITH_DATA_SOURCE = Route(
    "make_prediction",
    "POST",
    "/v1/analytics/make-prediction-with-data-source",
    "run_prediction(name, model, frame, n_periods, geojson), a forecast from a configured "
    "model and data sent inline",
)
PREDICTION_ROW = Route(
    "create_prediction_row",
    "POST",
    "/v1/crud/predictions",
    "run_prediction(name, model, frame, n_periods, geojson), which runs the model",
)
ALL_PREDICTION_ENTRIES = Route(
    "list_prediction_entries",
    "GET",
    "/v1/analytics/prediction-entry",
    "list_prediction_entries(prediction_id) for each prediction of list_predictions() (this "
    "server needs predictionId)",
)


class Predictions(QuantileRecordResource):
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
        route = PREDICTION_WITH_DATA_SOURCE
        ref = yield from self._call_route(JobRef, route, json=model.to_wire())
        return ref.pending_job(JobType.CREATE_PREDICTION, model.name)

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
        name = require_name("name", name)
        body: dict[str, Any] = {
            "name": name,
            "modelId": model_name(model),
            "providedData": frame_observations(frame),
            "geojson": geojson_body(geojson),
            "nPeriods": require_id("n_periods", n_periods, minimum=1),
            "dataToBeFetched": [],
        }
        send = self._call(JobRef, "POST", "/v1/analytics/make-prediction", json=body)
        ref = yield from self._suggesting_model(send, model_name(model))
        return ref.pending_job(JobType.CREATE_PREDICTION, name)

    def run_prediction(
        self,
        name: str,
        model: str | Any,
        frame: pd.DataFrame,
        n_periods: int = 3,
        geojson: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        on_status: Callable[[str], object] | None = None,
    ) -> Operation[Prediction]:
        """Forecast the ``n_periods`` after the data's last period with a configured model, wait
        for the job and return the stored prediction (its frame: ``prediction_frame(p.id)``).

        ``model`` is the configured model's NAME or an object with ``.name``; ``frame`` a wide
        frame of the history (``time_period``, ``location``, one column per feature, the
        target included); ``geojson`` the org units' polygons (chap-core 2.5.1 needs them, each
        feature with a top-level ``id``). Works on the embedded service and on chap-core 2.5.1
        (``POST /v1/analytics/make-prediction``). Raises ``JobFailedError`` when the job fails
        and ``JobTimeoutError`` after ``timeout`` seconds (the job keeps running).
        """
        job = yield from self.make_prediction_for_model(
            name, model, frame, n_periods=n_periods, geojson=geojson
        )
        done = yield from self._jobs.wait_for_job(job.id, timeout=timeout, on_status=on_status)
        prediction_id = yield from self._jobs.job_created_id(done)
        return (yield from self.get_prediction(prediction_id))

    def create_prediction_row(
        self, name: str, dataset_id: int | str, configured_model_with_data_source_id: int
    ) -> Operation[Prediction]:
        """Store a prediction row without running a model (no periods, no forecasts);
        ``dataset_id`` is the dataset's id or its name."""
        body: dict[str, Any] = {
            "name": require_name("name", name),
            "configuredModelWithDataSourceId": require_id(
                "configured_model_with_data_source_id", configured_model_with_data_source_id
            ),
        }
        route = PREDICTION_ROW
        yield from self._offered(route)  # before a dataset's name is looked up
        body["datasetId"] = yield from self._id_of("dataset_id", dataset_id, DATASETS)
        return (yield from self._call_route(Prediction, route, json=body))

    def list_predictions(
        self, limit: int | None = None, offset: int = 0
    ) -> Operation[Listing[Prediction]]:
        """The stored predictions, by id: all of them, or ``limit`` from ``offset`` (a negative
        offset counts from the end); ``.total`` says how many there are. Where the server
        cannot list them because one's dataset was deleted (chap-core 2.5.1), an
        ``OrphanedRecordError`` names the broken ones and how to remove them."""
        try:
            return (yield from self._listing(list[Prediction], LIST, limit, offset))
        except ServerError as error:
            if not lost_dataset(error):
                raise
            raise orphaned_list(error, PREDICTIONS, (yield from self._orphans())) from None

    def get_prediction(self, prediction_id: int) -> Operation[Prediction]:
        """One stored prediction (``OrphanedRecordError`` where its dataset was deleted and
        the server cannot read it)."""
        prediction_id = require_id("prediction_id", prediction_id)
        try:
            return (yield from self._get(Prediction, f"/v1/crud/predictions/{prediction_id}"))
        except ServerError as error:
            if not lost_dataset(error):
                raise
            raise orphaned_record(error, PREDICTIONS, prediction_id) from None

    def _orphans(self) -> Operation[list[tuple[int, str | None]]]:
        """The predictions (id, name) that successful prediction jobs stored and that cannot
        be read because their dataset was deleted."""
        jobs = yield from self._jobs.list_jobs()
        stored = newest_storing(job for job in jobs if result_type(job.type) == "prediction")
        return (yield from unreadable(stored, self.get_prediction))

    def job_prediction_result(
        self, job_id: str, quantiles: Sequence[float] = DEFAULT_QUANTILES
    ) -> Operation[PredictionDetail]:
        """The full prediction a successful prediction job created, with its entries (read from
        ``prediction_entries`` where the server leaves them out, as chap-core 2.5.1 does)."""
        path = job_path(job_id) + "/prediction_result"
        return (yield from self._full(PredictionDetail, path, quantiles, self.prediction_entries))

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
        """The prediction entries as a tidy frame (see ``chaplab.frames.entries_to_frame``),
        with an ``org_unit_name`` column when the prediction's dataset has a GeoJSON."""
        prediction_id = require_id("prediction_id", prediction_id)
        path = f"/v1/analytics/prediction-entry/{prediction_id}"
        params = quantile_params(quantiles)
        record = RecordOnce(prediction_id, self.get_prediction)
        return (yield from self._entry_frame("prediction", record, path, params))

    def list_prediction_entries(
        self,
        prediction_id: int | None = None,
        quantiles: Sequence[float] = DEFAULT_QUANTILES,
        org_units: Iterable[str] | str | None = None,
    ) -> Operation[list[ListedPredictionEntry]]:
        """Entries of every prediction (each naming its ``prediction_id``), optionally of one
        prediction and some org units (of one prediction: ids or place names, as for
        ``evaluation_entries``). chap-core 2.5.1 needs ``prediction_id``
        (``UnsupportedRouteError`` without one) and ignores the org units: the entries are
        kept to them here."""
        params: list[tuple[str, Any]] = [*quantile_params(quantiles)]
        if prediction_id is None:
            routes = yield from self._server_routes()
            if routes.requires_query(ALL_PREDICTION_ENTRIES, "predictionId"):
                raise routes.unsupported(ALL_PREDICTION_ENTRIES)
            units = org_unit_params(org_units)
        else:
            prediction_id = require_id("prediction_id", prediction_id)
            params.append(("predictionId", prediction_id))
            record = RecordOnce(prediction_id, self.get_prediction)
            units = yield from self._org_unit_params("prediction", record, org_units)
        params += units
        path = ALL_PREDICTION_ENTRIES.path
        response = yield from self._request("GET", path, params=params)
        payload = decode(response)
        if prediction_id is not None and isinstance(payload, list):
            payload = [
                {"predictionId": prediction_id, **item} if isinstance(item, dict) else item
                for item in payload
            ]
        wanted = {unit for _, unit in units}
        if wanted and isinstance(payload, list):  # chap-core 2.5.1 ignores the filter
            payload = [
                item
                for item in payload
                if not isinstance(item, dict) or item.get("orgUnit") in wanted
            ]
        return validate(list[ListedPredictionEntry], payload, response)
