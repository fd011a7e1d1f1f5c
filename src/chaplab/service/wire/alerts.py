"""Wire models of alert policies and alerts in chap-core 2.5.1's shapes: a policy is a named
ladder of levels (``AlertLevel``: a threshold channel of one line and the exceedance
probability at which the level fires); an alert names the policy level that fired for an org
unit and period, and where it stands in the release gate (``AlertApproval``)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from chaplab.service.wire.common import Identifier, Name, WireModel, WireRequest
from chaplab.service.wire.thresholds import ThresholdParams

AlertApproval = Literal["pending", "approved", "declined"]
"""Where an alert stands in the release gate: about dissemination, not about whether the
outbreak was real. ``pending`` alerts are the review queue."""

MAX_LEVELS = 20
"""The most levels of one policy."""

MAX_ALERTS = 10_000
"""The most alerts one request records or reviews."""


class AlertLevel(WireRequest):
    """One tier of a policy: its channel (one threshold line, as ``POST
    /v1/analytics/thresholds`` takes it) and the probability of exceeding it at or above which
    the tier fires."""

    name: Identifier
    threshold_params: ThresholdParams
    exceedance_threshold: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)


class AlertPolicyCreate(WireRequest):
    """A policy's name and its levels, least to most severe, with unique names."""

    name: Name
    levels: list[AlertLevel] = Field(min_length=1, max_length=MAX_LEVELS)


class AlertPolicyRead(WireModel):
    name: str
    levels: list[AlertLevel]
    id: int
    created: datetime | None


class AlertCreate(WireRequest):
    """One alert to record; every alert starts ``pending``."""

    time_period: str
    org_unit: Identifier
    alert_policy_id: int
    level: Identifier
    prediction_id: int | None = None


class AlertsCreate(WireRequest):
    """A batch of alerts, recorded together or not at all."""

    alerts: list[AlertCreate] = Field(min_length=1, max_length=MAX_ALERTS)


class AlertIdsResponse(WireModel):
    """The ids of the created alerts, in request order."""

    ids: list[int]


class AlertRead(WireModel):
    time_period: str
    org_unit: str
    alert_policy_id: int
    level: str
    prediction_id: int | None
    created: datetime | None
    approved: AlertApproval
    approved_by: str | None
    approved_at: datetime | None
    id: int


class AlertApprovalRequest(WireRequest):
    """Alerts moved through the release gate together, by one reviewer."""

    alert_ids: list[int] = Field(min_length=1, max_length=MAX_ALERTS)
    approved: AlertApproval
    approved_by: Identifier
