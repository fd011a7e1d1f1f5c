"""Alert policies and alerts (chap-core 2.5.1's routes under ``/v1/crud``): policies created,
listed, read and deleted; alerts recorded in batches, listed with filters (``approved=pending``
is the review queue), read, deleted, and approved or declined in sets."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from chaplab.service.domain import alerts
from chaplab.service.routes.dependencies import (
    DB,
    LIST_ANSWER,
    Paged,
    QueryInteger,
    with_total,
)
from chaplab.service.wire.alerts import (
    AlertApproval,
    AlertApprovalRequest,
    AlertIdsResponse,
    AlertPolicyCreate,
    AlertPolicyRead,
    AlertRead,
    AlertsCreate,
)
from chaplab.service.wire.common import CreatedId, Deleted

router = APIRouter(prefix="/v1/crud", tags=["alerts"])

PolicyId = Annotated[int, Path(alias="alertPolicyId")]
AlertId = Annotated[int, Path(alias="alertId")]


@router.post("/alert-policies")
def create_alert_policy(request: AlertPolicyCreate, session: DB) -> CreatedId:
    """Store a policy: levels least to most severe, each with one threshold line."""
    return alerts.create_policy(session, request)


@router.get("/alert-policies", responses=LIST_ANSWER)
def list_alert_policies(session: DB, page: Paged, response: Response) -> list[AlertPolicyRead]:
    """Every alert policy, by id; a page of them when ``limit`` or ``offset`` is given."""
    return with_total(response, alerts.list_policies(session, page))


@router.get("/alert-policies/{alertPolicyId}")
def get_alert_policy(alert_policy_id: PolicyId, session: DB) -> AlertPolicyRead:
    """One policy with its levels."""
    return alerts.get_policy(session, alert_policy_id)


@router.delete("/alert-policies/{alertPolicyId}")
def delete_alert_policy(alert_policy_id: PolicyId, session: DB) -> Deleted:
    """Delete a policy nothing refers to (409 while alerts or a prediction setup do)."""
    alerts.delete_policy(session, alert_policy_id)
    return Deleted()


@router.post("/alerts")
def create_alerts(request: AlertsCreate, session: DB) -> AlertIdsResponse:
    """Record a batch of pending alerts, all or none (422 naming the first bad field)."""
    return alerts.create_alerts(session, request)


@router.get("/alerts", responses=LIST_ANSWER)
def list_alerts(
    session: DB,
    page: Paged,
    response: Response,
    alert_policy_id: Annotated[QueryInteger | None, Query(alias="alertPolicyId")] = None,
    prediction_id: Annotated[QueryInteger | None, Query(alias="predictionId")] = None,
    org_unit: Annotated[str | None, Query(alias="orgUnit")] = None,
    approved: Annotated[AlertApproval | None, Query()] = None,
) -> list[AlertRead]:
    """Alerts matching every filter given, by id; ``approved=pending`` is the review queue. A
    page of them when ``limit`` or ``offset`` is given."""
    listed = alerts.list_alerts(session, alert_policy_id, prediction_id, org_unit, approved, page)
    return with_total(response, listed)


@router.post("/alerts/$approve")
def approve_alerts(request: AlertApprovalRequest, session: DB) -> list[AlertRead]:
    """Approve or decline a set of alerts at once (404 naming an unknown id; nothing changes)."""
    return alerts.review_alerts(session, request)


@router.get("/alerts/{alertId}")
def get_alert(alert_id: AlertId, session: DB) -> AlertRead:
    """One alert and where it stands in the release gate."""
    return alerts.get_alert(session, alert_id)


@router.delete("/alerts/{alertId}")
def delete_alert(alert_id: AlertId, session: DB) -> Deleted:
    """Delete an alert that is not approved (409 for an approved one)."""
    alerts.delete_alert(session, alert_id)
    return Deleted()
