"""Alert policies and alerts, as chap-core 2.5.1 keeps them.

A policy is a ladder of levels, each a threshold channel of one line and the exceedance
probability at which it fires; it is created and deleted, never edited, so an alert's level
keeps its meaning. Alerts arrive in batches and are checked whole before any is written:
each names a level its policy defines, a prediction raises at most one alert per org unit
and period (and, ours only, names one of the prediction's org units and periods). Every
alert starts ``pending``; reviewers approve or decline sets of them at once, and
``approved=pending`` is the review queue. An approved alert stays on record (deleting it is
a 409); a policy with alerts, or one a prediction setup points at, cannot be deleted.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from chaplab.service.domain.lookup import MAX_ROW_ID, get_or_404
from chaplab.service.domain.paging import Listed, Page, listed_rows
from chaplab.service.errors import Conflict, FieldProblem
from chaplab.service.tables import (
    AlertPolicyRow,
    AlertRow,
    PredictionRow,
    PredictionSetupRow,
    utc_now,
)
from chaplab.service.wire.alerts import (
    AlertApproval,
    AlertApprovalRequest,
    AlertIdsResponse,
    AlertLevel,
    AlertPolicyCreate,
    AlertPolicyRead,
    AlertRead,
    AlertsCreate,
)
from chaplab.service.wire.common import CreatedId, from_row
from chaplab.vocabulary import canonical_period

PENDING_REVIEW: AlertApproval = "pending"
APPROVED: AlertApproval = "approved"


def create_policy(session: Session, request: AlertPolicyCreate) -> CreatedId:
    """Store a policy whose levels each have one threshold line and a name of their own."""
    if not request.name.strip():
        raise FieldProblem("name", "a policy needs a name that is not blank")
    names: set[str] = set()
    for index, level in enumerate(request.levels):
        if level.name != level.name.strip() or not level.name.strip():
            raise FieldProblem(
                f"levels[{index}].name",
                f"{level.name!r}: a level name is not blank and neither starts nor ends with "
                "a space",
            )
        if level.name in names:
            raise FieldProblem(
                f"levels[{index}].name", f"two levels are named {level.name!r}; names are unique"
            )
        names.add(level.name)
        lines = level.threshold_params.lines
        if len(lines) != 1:
            raise FieldProblem(
                f"levels[{index}].thresholdParams",
                f"a level is judged against one threshold line, got {len(lines)}: {lines}",
            )
    row = AlertPolicyRow(
        name=request.name, levels=[level.model_dump(mode="json") for level in request.levels]
    )
    session.add(row)
    session.commit()
    return CreatedId(id=row.id)


def policy_read(row: AlertPolicyRow) -> AlertPolicyRead:
    return AlertPolicyRead(
        id=row.id,
        name=row.name,
        created=row.created,
        levels=[AlertLevel.model_validate(level) for level in row.levels],
    )


def list_policies(session: Session, page: Page) -> Listed[AlertPolicyRead]:
    """The alert policies of ``page``, by id."""
    return listed_rows(
        session, select(AlertPolicyRow).order_by(AlertPolicyRow.id), page, policy_read
    )


def get_policy(session: Session, policy_id: int) -> AlertPolicyRead:
    return policy_read(get_or_404(session, AlertPolicyRow, policy_id, "alert policy"))


def delete_policy(session: Session, policy_id: int) -> None:
    """Delete a policy no alert and no prediction setup refers to (409 naming one otherwise)."""
    row = get_or_404(session, AlertPolicyRow, policy_id, "alert policy")
    setup_id = session.scalar(
        select(PredictionSetupRow.id)
        .where(PredictionSetupRow.alert_policy_id == policy_id)
        .limit(1)
    )
    if setup_id is not None:
        raise Conflict(f"alert policy {policy_id} is used by prediction setup {setup_id}")
    alert_id = session.scalar(
        select(AlertRow.id).where(AlertRow.alert_policy_id == policy_id).limit(1)
    )
    if alert_id is not None:
        raise Conflict(
            f"alert policy {policy_id} has alerts raised against it, e.g. alert "
            f"{alert_id}; delete those first",
        )
    session.delete(row)
    session.commit()


def create_alerts(session: Session, request: AlertsCreate) -> AlertIdsResponse:
    """Record a batch of ``pending`` alerts once every one is checked (422 naming the first
    bad field; nothing is written then)."""
    rows = []
    cells: set[tuple[int, str, str]] = set()
    policies: dict[int, AlertPolicyRow] = {}
    for index, alert in enumerate(request.alerts):
        field = f"alerts[{index}]"
        try:
            period = canonical_period(alert.time_period)
        except ValueError as error:
            raise FieldProblem(f"{field}.timePeriod", str(error)) from None
        policy = policies.get(alert.alert_policy_id)
        if policy is None:
            policy = _policy(session, alert.alert_policy_id, f"{field}.alertPolicyId")
            policies[policy.id] = policy
        levels = [level["name"] for level in policy.levels]
        if alert.level not in levels:
            raise FieldProblem(
                f"{field}.level",
                f"alert policy {policy.id} has no level {alert.level!r}; it defines "
                f"{', '.join(map(repr, levels))}",
            )
        if alert.prediction_id is not None:
            _check_prediction_cell(session, alert.prediction_id, alert.org_unit, period, field)
            cell = (alert.prediction_id, alert.org_unit, period)
            if cell in cells or _has_alert(session, *cell):
                raise FieldProblem(
                    field,
                    f"prediction {alert.prediction_id} already has an alert for "
                    f"{alert.org_unit} in {period}",
                )
            cells.add(cell)
        rows.append(
            AlertRow(
                time_period=period,
                org_unit=alert.org_unit,
                alert_policy_id=policy.id,
                level=alert.level,
                prediction_id=alert.prediction_id,
                approved=PENDING_REVIEW,
            )
        )
    session.add_all(rows)
    try:
        session.commit()
    except IntegrityError:  # the same cell recorded at the same moment by another request
        session.rollback()
        raise FieldProblem(
            "alerts", "a prediction already has an alert for one of these org units and periods"
        ) from None
    return AlertIdsResponse(ids=[row.id for row in rows])


def _policy(session: Session, policy_id: int, field: str) -> AlertPolicyRow:
    """The policy an alert names, or a 422 naming the field."""
    row = session.get(AlertPolicyRow, policy_id) if abs(policy_id) <= MAX_ROW_ID else None
    if row is None:
        raise FieldProblem(field, f"no alert policy with id {policy_id}")
    return row


def _check_prediction_cell(
    session: Session, prediction_id: int, org_unit: str, period: str, field: str
) -> None:
    """422 unless the prediction exists and forecasts this org unit and period."""
    prediction = (
        session.get(PredictionRow, prediction_id) if abs(prediction_id) <= MAX_ROW_ID else None
    )
    if prediction is None:
        raise FieldProblem(f"{field}.predictionId", f"no prediction with id {prediction_id}")
    if org_unit not in prediction.org_units:
        raise FieldProblem(
            f"{field}.orgUnit", f"prediction {prediction_id} forecasts no org unit {org_unit!r}"
        )
    if period not in prediction.periods:
        raise FieldProblem(
            f"{field}.timePeriod",
            f"prediction {prediction_id} forecasts {', '.join(prediction.periods)}, not {period}",
        )


def _has_alert(session: Session, prediction_id: int, org_unit: str, period: str) -> bool:
    return (
        session.scalar(
            select(AlertRow.id).where(
                AlertRow.prediction_id == prediction_id,
                AlertRow.org_unit == org_unit,
                AlertRow.time_period == period,
            )
        )
        is not None
    )


def alert_read(row: AlertRow) -> AlertRead:
    return from_row(AlertRead, row)


def list_alerts(
    session: Session,
    alert_policy_id: int | None,
    prediction_id: int | None,
    org_unit: str | None,
    approved: AlertApproval | None,
    page: Page,
) -> Listed[AlertRead]:
    """The alerts of ``page``, by id, that match every filter given; ``approved="pending"`` is
    the review queue."""
    query = select(AlertRow).order_by(AlertRow.id)
    if alert_policy_id is not None:
        query = query.where(AlertRow.alert_policy_id == alert_policy_id)
    if prediction_id is not None:
        query = query.where(AlertRow.prediction_id == prediction_id)
    if org_unit is not None:
        query = query.where(AlertRow.org_unit == org_unit)
    if approved is not None:
        query = query.where(AlertRow.approved == approved)
    return listed_rows(session, query, page, alert_read)


def get_alert(session: Session, alert_id: int) -> AlertRead:
    return alert_read(get_or_404(session, AlertRow, alert_id, "alert"))


def delete_alert(session: Session, alert_id: int) -> None:
    """Delete an alert that is not approved (an approved one stays on record: 409)."""
    row = get_or_404(session, AlertRow, alert_id, "alert")
    if row.approved == APPROVED:
        raise Conflict(
            f"alert {alert_id} is approved for dissemination and stays on record",
        )
    session.delete(row)
    session.commit()


def review_alerts(session: Session, request: AlertApprovalRequest) -> list[AlertRead]:
    """Set every listed alert's gate state at once (404 naming an unknown id, nothing written
    then); back to ``pending`` clears the reviewer and the time."""
    rows = [
        get_or_404(session, AlertRow, alert_id, "alert", f"alertIds[{index}]")
        for index, alert_id in enumerate(request.alert_ids)
    ]
    reviewed = request.approved != PENDING_REVIEW
    now = utc_now()
    for row in rows:
        row.approved = request.approved
        row.approved_by = request.approved_by if reviewed else None
        row.approved_at = now if reviewed else None
    session.commit()
    return [alert_read(row) for row in rows]
