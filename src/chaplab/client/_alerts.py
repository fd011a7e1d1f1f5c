"""Alert policies (named ladders of alert levels, each a threshold line and the probability of
exceeding it at which the level fires) and the alerts raised against them, with their review:
an alert waits as ``pending`` until a reviewer approves or declines it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field, ValidationError

from chaplab.client._capabilities import Route
from chaplab.client._errors import ArgumentError, ArgumentTypeError
from chaplab.client._plumbing import Resource, require_id, require_name
from chaplab.client._steps import Operation
from chaplab.client._thresholds import ThresholdParams, known_parameters
from chaplab.client._wire import CreatedId, NullableList, UtcDatetime, WireModel

Approval = Literal["pending", "approved", "declined"]
APPROVALS: tuple[Approval, ...] = ("pending", "approved", "declined")

# -- wire models -----------------------------------------------------------------------------


class AlertLevel(WireModel):
    """One level of a policy: it fires where the forecast's probability of exceeding the
    threshold line of ``threshold_params`` is at least ``exceedance_threshold``."""

    name: str
    threshold_params: ThresholdParams
    exceedance_threshold: float = Field(ge=0, le=1)


class AlertPolicy(WireModel):
    """A stored policy and its levels."""

    id: int
    name: str
    levels: NullableList[AlertLevel] = Field(default_factory=list)
    created: UtcDatetime | None = None


class NewAlert(WireModel):
    """An alert to record: a level of a policy, for an org unit and a period, perhaps raised
    by a prediction."""

    time_period: str
    org_unit: str
    alert_policy_id: int
    level: str
    prediction_id: int | None = None


class Alert(NewAlert):
    """A recorded alert and where it stands in the review (``approved``: ``pending``,
    ``approved`` or ``declined``, by whom and when)."""

    id: int
    created: UtcDatetime | None = None
    approved: str = "pending"
    approved_by: str | None = None
    approved_at: UtcDatetime | None = None


class CreatedIds(WireModel):
    ids: NullableList[int] = Field(default_factory=list)


# -- operations ------------------------------------------------------------------------------

_NO_ALERTS = (
    "nothing on this server: compare forecasts with compute_thresholds(...) where the server "
    "has it, or with thresholds of dataset_frame(dataset_id)"
)
POLICIES = Route("list_alert_policies", "GET", "/v1/crud/alert-policies", _NO_ALERTS)
CREATE_POLICY = Route("create_alert_policy", "POST", "/v1/crud/alert-policies", _NO_ALERTS)
GET_POLICY = Route("get_alert_policy", "GET", "/v1/crud/alert-policies/{id}", _NO_ALERTS)
DELETE_POLICY = Route("delete_alert_policy", "DELETE", "/v1/crud/alert-policies/{id}", _NO_ALERTS)
CREATE_ALERTS = Route("create_alerts", "POST", "/v1/crud/alerts", _NO_ALERTS)
CREATE_ALERT = Route("create_alert", "POST", "/v1/crud/alerts", _NO_ALERTS)
LIST_ALERTS = Route("list_alerts", "GET", "/v1/crud/alerts", _NO_ALERTS)
REVIEW_QUEUE = Route("alert_review_queue", "GET", "/v1/crud/alerts", _NO_ALERTS)
GET_ALERT = Route("get_alert", "GET", "/v1/crud/alerts/{id}", _NO_ALERTS)
DELETE_ALERT = Route("delete_alert", "DELETE", "/v1/crud/alerts/{id}", _NO_ALERTS)
APPROVE = Route("approve_alert", "POST", "/v1/crud/alerts/$approve", _NO_ALERTS)
DECLINE = Route("decline_alert", "POST", "/v1/crud/alerts/$approve", _NO_ALERTS)


class Alerts(Resource):
    """``/v1/crud/alert-policies`` and ``/v1/crud/alerts``."""

    def list_alert_policies(self) -> Operation[list[AlertPolicy]]:
        """Every alert policy."""
        return (yield from self._call_route(list[AlertPolicy], POLICIES))

    def create_alert_policy(
        self, name: str, levels: Sequence[AlertLevel | Mapping[str, Any]]
    ) -> Operation[AlertPolicy]:
        """Store a policy of one or more levels (``AlertLevel(name="alert",
        threshold_params=SeasonalParams(std_multiplier=2), exceedance_threshold=0.8)`` or the
        same as dicts) and return it as stored."""
        body = {"name": require_name("name", name), "levels": _levels(levels)}
        created = yield from self._call_route(CreatedId, CREATE_POLICY, json=body)
        return (yield from self.get_alert_policy(created.id))

    def get_alert_policy(self, alert_policy_id: int) -> Operation[AlertPolicy]:
        """One policy with its levels."""
        alert_policy_id = require_id("alert_policy_id", alert_policy_id)
        return (yield from self._call_route(AlertPolicy, GET_POLICY, alert_policy_id))

    def delete_alert_policy(self, alert_policy_id: int) -> Operation[None]:
        """Delete a policy; ``ConflictError`` while a prediction setup or an alert refers to
        it."""
        alert_policy_id = require_id("alert_policy_id", alert_policy_id)
        yield from self._request_route(DELETE_POLICY, alert_policy_id)

    def create_alerts(self, alerts: Sequence[NewAlert | Mapping[str, Any]]) -> Operation[list[int]]:
        """Record several alerts at once (all or none: a level its policy lacks refuses the
        whole batch); their ids, in order. Each starts ``pending``."""
        if isinstance(alerts, (str, bytes, Mapping)) or not isinstance(alerts, Sequence):
            raise ArgumentTypeError(f"alerts must be a list of NewAlert or dicts, got {alerts!r}")
        if not alerts:
            raise ArgumentError("alerts must hold at least one alert")
        return (yield from self._create([_new_alert(alert) for alert in alerts], CREATE_ALERTS))

    def _create(self, alerts: list[NewAlert], route: Route) -> Operation[list[int]]:
        body = {"alerts": [alert.to_wire() for alert in alerts]}
        created = yield from self._call_route(CreatedIds, route, json=body)
        return created.ids

    def create_alert(
        self,
        alert_policy_id: int,
        level: str,
        org_unit: str,
        time_period: str,
        prediction_id: int | None = None,
    ) -> Operation[Alert]:
        """Record one alert (``pending`` until reviewed) and return it."""
        alert = NewAlert(
            alert_policy_id=require_id("alert_policy_id", alert_policy_id),
            level=require_name("level", level),
            org_unit=require_name("org_unit", org_unit),
            time_period=require_name("time_period", time_period),
            prediction_id=None
            if prediction_id is None
            else require_id("prediction_id", prediction_id),
        )
        [alert_id] = yield from self._create([alert], CREATE_ALERT)
        return (yield from self.get_alert(alert_id))

    def list_alerts(
        self,
        alert_policy_id: int | None = None,
        prediction_id: int | None = None,
        org_unit: str | None = None,
        approved: Approval | None = None,
    ) -> Operation[list[Alert]]:
        """The alerts matching every filter given (``approved``: ``pending``, ``approved`` or
        ``declined``)."""
        return (
            yield from self._list(LIST_ALERTS, alert_policy_id, prediction_id, org_unit, approved)
        )

    def _list(
        self,
        route: Route,
        alert_policy_id: int | None,
        prediction_id: int | None,
        org_unit: str | None,
        approved: Approval | None,
    ) -> Operation[list[Alert]]:
        params: dict[str, Any] = {}
        if alert_policy_id is not None:
            params["alertPolicyId"] = require_id("alert_policy_id", alert_policy_id)
        if prediction_id is not None:
            params["predictionId"] = require_id("prediction_id", prediction_id)
        if org_unit is not None:
            params["orgUnit"] = require_name("org_unit", org_unit)
        if approved is not None:
            if approved not in APPROVALS:
                raise ArgumentError(
                    f"approved must be one of {APPROVALS} or None, got {approved!r}"
                )
            params["approved"] = approved
        return (yield from self._call_route(list[Alert], route, params=params))

    def alert_review_queue(
        self,
        alert_policy_id: int | None = None,
        prediction_id: int | None = None,
        org_unit: str | None = None,
    ) -> Operation[list[Alert]]:
        """The alerts nobody has approved or declined yet (``list_alerts(approved="pending")``)."""
        return (
            yield from self._list(REVIEW_QUEUE, alert_policy_id, prediction_id, org_unit, "pending")
        )

    def get_alert(self, alert_id: int) -> Operation[Alert]:
        """One alert with its review state."""
        alert_id = require_id("alert_id", alert_id)
        return (yield from self._call_route(Alert, GET_ALERT, alert_id))

    def delete_alert(self, alert_id: int) -> Operation[None]:
        """Delete an alert (one raised by a bad run); an approved alert stays on record
        (``ConflictError``)."""
        alert_id = require_id("alert_id", alert_id)
        yield from self._request_route(DELETE_ALERT, alert_id)

    def approve_alert(
        self, alert_ids: int | Sequence[int], approved_by: str
    ) -> Operation[list[Alert]]:
        """Clear one alert or several for dissemination, all or none (``NotFoundError`` when
        an id is unknown, and nothing changes); the alerts as updated."""
        return (yield from self._review(APPROVE, alert_ids, "approved", approved_by))

    def decline_alert(
        self, alert_ids: int | Sequence[int], approved_by: str
    ) -> Operation[list[Alert]]:
        """Record the decision not to disseminate one alert or several, all or none; the
        alerts as updated."""
        return (yield from self._review(DECLINE, alert_ids, "declined", approved_by))

    def _review(
        self, route: Route, alert_ids: int | Sequence[int], decision: Approval, approved_by: str
    ) -> Operation[list[Alert]]:
        ids = [alert_ids] if isinstance(alert_ids, int) else alert_ids
        if isinstance(ids, (str, bytes)) or not isinstance(ids, Sequence) or not ids:
            raise ArgumentError(
                f"alert_ids must be an alert id or a list of them, got {alert_ids!r}"
            )
        body = {
            "alertIds": [require_id("alert_ids", alert_id) for alert_id in ids],
            "approved": decision,
            "approvedBy": require_name("approved_by", approved_by),
        }
        return (yield from self._call_route(list[Alert], route, json=body))


def _levels(levels: Sequence[AlertLevel | Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The levels in wire form, each checked; at least one."""
    if isinstance(levels, (str, bytes, Mapping)) or not isinstance(levels, Sequence) or not levels:
        raise ArgumentError(
            f"levels must be a non-empty list of AlertLevel or dicts, got {levels!r}"
        )
    checked: list[dict[str, Any]] = []
    for index, level in enumerate(levels):
        try:
            model = level if isinstance(level, AlertLevel) else AlertLevel.model_validate(level)
        except ValidationError as error:
            raise ArgumentError(f"levels: {level!r} is not an alert level: {error}") from None
        known_parameters(f"levels[{index}].threshold_params", model.threshold_params)
        checked.append(model.to_wire())
    return checked


def _new_alert(alert: NewAlert | Mapping[str, Any]) -> NewAlert:
    if isinstance(alert, NewAlert):
        return alert
    try:
        return NewAlert.model_validate(alert)
    except ValidationError as error:
        raise ArgumentError(f"alerts: {alert!r} is not an alert: {error}") from None
