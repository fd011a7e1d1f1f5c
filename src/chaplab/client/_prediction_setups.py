"""Prediction setups: an evaluation promoted into a repeatable forecast. A setup keeps the
evaluation's configured model and org units, runs on fresh observations (by hand or on a
schedule) and keeps the history of the forecasts it made."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import Field, ValidationError

from chaplab.client._alerts import AlertPolicy
from chaplab.client._capabilities import Route
from chaplab.client._datasets import DataSource, Observation
from chaplab.client._errors import ArgumentError, ArgumentTypeError
from chaplab.client._jobs import Job, JobRef
from chaplab.client._model_catalog import ModelSpec
from chaplab.client._plumbing import (
    Resource,
    frame_observations,
    geojson_body,
    require_bool,
    require_id,
    require_name,
)
from chaplab.client._predictions import Prediction
from chaplab.client._steps import Operation
from chaplab.client._wire import CreatedId, NullableList, UtcDatetime, WireModel
from chaplab.vocabulary import JobType

if TYPE_CHECKING:
    import pandas as pd

    from chaplab.jsonrows import Rows

# -- wire models -----------------------------------------------------------------------------


class QuantileTarget(WireModel):
    """Where a quantile of each forecast is sent: ``quantile`` (as text, ``"0.5"``) to the
    data element ``data_element_id``."""

    quantile: str
    data_element_id: str


class PredictionSetup(WireModel):
    """A stored setup: the evaluation it was made from, its configured model and org units, its
    schedule (a cron expression, enabled or not), its quantile targets and alert policy."""

    id: int
    name: str
    created: UtcDatetime | None = None
    backtest_id: int
    configured_model: ModelSpec | None = None
    start_period: str | None = None
    org_units: NullableList[str] = Field(default_factory=list)
    covariate_sources: NullableList[DataSource] = Field(default_factory=list)
    period_type: str | None = None
    schedule_cron_expression: str | None = None
    schedule_enabled: bool = False
    quantile_targets: NullableList[QuantileTarget] = Field(default_factory=list)
    alert_policy: AlertPolicy | None = None


class PredictionSetupDetail(PredictionSetup):
    """A setup with every prediction it has made (its forecast history)."""

    predictions: NullableList[Prediction] = Field(default_factory=list)


# -- operations ------------------------------------------------------------------------------

_NO_SETUPS = (
    "run_prediction(name, model, frame, n_periods, geojson), a forecast from the evaluation's "
    "configured model and fresh data"
)
SETUPS = Route("list_prediction_setups", "GET", "/v1/crud/prediction-setups", _NO_SETUPS)
CREATE = Route("create_prediction_setup", "POST", "/v1/crud/prediction-setups", _NO_SETUPS)
GET = Route("get_prediction_setup", "GET", "/v1/crud/prediction-setups/{id}", _NO_SETUPS)
UPDATE = Route("update_prediction_setup", "PATCH", "/v1/crud/prediction-setups/{id}", _NO_SETUPS)
DELETE = Route("delete_prediction_setup", "DELETE", "/v1/crud/prediction-setups/{id}", _NO_SETUPS)
RUN = Route("run_prediction_setup", "POST", "/v1/crud/prediction-setups/{id}/run", _NO_SETUPS)


class PredictionSetups(Resource):
    """``/v1/crud/prediction-setups``."""

    def list_prediction_setups(self) -> Operation[list[PredictionSetup]]:
        """Every setup (without its predictions: ``get_prediction_setup`` has them)."""
        return (yield from self._call_route(list[PredictionSetup], SETUPS))

    def create_prediction_setup(
        self,
        evaluation_id: int,
        name: str,
        alert_policy_id: int | None = None,
        schedule_cron_expression: str | None = None,
        schedule_enabled: bool = False,
        quantile_targets: Sequence[QuantileTarget | Mapping[str, Any]] = (),
    ) -> Operation[PredictionSetupDetail]:
        """Promote a finished evaluation into a setup (an evaluation backs one setup at most:
        ``ConflictError`` for a second) and return it as stored."""
        body: dict[str, Any] = {
            "backtestId": require_id("evaluation_id", evaluation_id),
            "name": require_name("name", name),
            "scheduleEnabled": require_bool("schedule_enabled", schedule_enabled),
            "quantileTargets": _targets(quantile_targets),
        }
        if alert_policy_id is not None:
            body["alertPolicyId"] = require_id("alert_policy_id", alert_policy_id)
        if schedule_cron_expression is not None:
            body["scheduleCronExpression"] = require_name(
                "schedule_cron_expression", schedule_cron_expression
            )
        created = yield from self._call_route(CreatedId, CREATE, json=body)
        return (yield from self.get_prediction_setup(created.id))

    def get_prediction_setup(self, setup_id: int) -> Operation[PredictionSetupDetail]:
        """A setup with the predictions it has made."""
        setup_id = require_id("setup_id", setup_id)
        return (yield from self._call_route(PredictionSetupDetail, GET, setup_id))

    def update_prediction_setup(
        self,
        setup_id: int,
        name: str | None = None,
        schedule_cron_expression: str | None = None,
        schedule_enabled: bool | None = None,
        quantile_targets: Sequence[QuantileTarget | Mapping[str, Any]] | None = None,
        alert_policy_id: int | None = None,
    ) -> Operation[PredictionSetup]:
        """Change the fields given (not ``None``) and keep the others; ``schedule_enabled=False``
        pauses the schedule. Returns the setup as updated."""
        setup_id = require_id("setup_id", setup_id)
        body: dict[str, Any] = {}
        if name is not None:
            body["name"] = require_name("name", name)
        if schedule_cron_expression is not None:
            body["scheduleCronExpression"] = require_name(
                "schedule_cron_expression", schedule_cron_expression
            )
        if schedule_enabled is not None:
            body["scheduleEnabled"] = require_bool("schedule_enabled", schedule_enabled)
        if quantile_targets is not None:
            body["quantileTargets"] = _targets(quantile_targets)
        if alert_policy_id is not None:
            body["alertPolicyId"] = require_id("alert_policy_id", alert_policy_id)
        if not body:
            raise ArgumentError("update_prediction_setup needs at least one field to change")
        return (yield from self._call_route(PredictionSetup, UPDATE, setup_id, json=body))

    def delete_prediction_setup(self, setup_id: int) -> Operation[None]:
        """Retire a setup: jobs it started are cancelled and it never runs again (its
        predictions stay)."""
        setup_id = require_id("setup_id", setup_id)
        yield from self._request_route(DELETE, setup_id)

    def run_prediction_setup(
        self,
        setup_id: int,
        name: str,
        observations: pd.DataFrame | Sequence[Observation | Mapping[str, Any]],
        geojson: Mapping[str, Any],
        n_periods: int = 3,
    ) -> Operation[Job]:
        """Forecast the ``n_periods`` after fresh observations with the setup's model. The
        observations are a wide frame (``time_period``, ``location``, one column per
        feature) or a list of ``Observation``s or their dicts; ``geojson`` holds the org units'
        polygons. Returns the job (status ``PENDING``): ``wait_for_job`` it; its result is the
        new prediction, which ``get_prediction_setup`` then lists."""
        setup_id = require_id("setup_id", setup_id)
        name = require_name("name", name)
        if not isinstance(geojson, Mapping):
            raise ArgumentTypeError(
                f"geojson must be a GeoJSON FeatureCollection dict, got {geojson!r}"
            )
        body = {
            "name": name,
            "providedData": _observations(observations),
            "geojson": geojson_body(geojson),
            "nPeriods": require_id("n_periods", n_periods, minimum=1),
        }
        ref = yield from self._call_route(JobRef, RUN, setup_id, json=body)
        return ref.pending_job(JobType.CREATE_PREDICTION, name)


def _targets(targets: Sequence[QuantileTarget | Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Quantile targets in wire form, each checked."""
    if isinstance(targets, (str, bytes, Mapping)) or not isinstance(targets, Sequence):
        raise ArgumentTypeError(
            f"quantile_targets must be a list of QuantileTarget, got {targets!r}"
        )
    wire = []
    for target in targets:
        try:
            model = (
                target
                if isinstance(target, QuantileTarget)
                else QuantileTarget.model_validate(target)
            )
        except ValidationError as error:
            raise ArgumentError(f"quantile_targets: {target!r} is not a target: {error}") from None
        wire.append(model.to_wire())
    return wire


def _observations(
    observations: pd.DataFrame | Sequence[Observation | Mapping[str, Any]],
) -> list[dict[str, Any]] | Rows:
    """Observations in wire form, from a wide frame (their JSON, written column-wise) or a
    list."""
    if hasattr(observations, "columns"):
        return frame_observations(observations)
    if isinstance(observations, (str, bytes, Mapping)) or not isinstance(observations, Sequence):
        raise ArgumentTypeError(
            "observations must be a wide frame or a list of observations, "
            f"got {type(observations).__name__}"
        )
    if not observations:
        raise ArgumentError("observations must hold at least one observation")
    wire = []
    for item in observations:
        try:
            model = item if isinstance(item, Observation) else Observation.model_validate(item)
        except ValidationError as error:
            raise ArgumentError(f"observations: {item!r} is not an observation: {error}") from None
        wire.append(model.model_dump(mode="json", by_alias=True))
    return wire
