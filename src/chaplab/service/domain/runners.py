"""The registry of model services (``/v2/services``), kept as chap-core 2.5.1 keeps it.

A model service (a chapkit service) registers under its own id with servicekit's payload
(``{"id", "url", "info"}``), is answered the absolute URL to ping, and stays registered for
``$CHAPLAB_SERVICE_TTL_SECONDS`` (default 30, as 2.5.1) after each ping; one not pinged in time
is expired (not listed, 404), and a service told so registers again. With
``$SERVICEKIT_REGISTRATION_KEY`` set, registering, pinging and removing need that key in
``X-Service-Key`` (the variable servicekit and chap-core read). Registering stores the
service's model template when it is not stored yet, as 2.5.1 does; a template that cannot be
stored leaves the registration standing, with the reason in its message.
"""

from __future__ import annotations

import logging
import math
import os
import secrets
from datetime import datetime, timedelta
from urllib.parse import quote, urlsplit

from sqlalchemy import select
from sqlalchemy.orm import Session

from chaplab.service.errors import FieldProblem, NotFound, Unauthenticated
from chaplab.service.tables import ModelRunnerRow, utc_now
from chaplab.service.wire.runners import (
    PingResponse,
    RegistrationResponse,
    ServiceDetail,
    ServiceList,
    ServiceRegistration,
)

logger = logging.getLogger("chaplab.service")
TTL_VARIABLE = "CHAPLAB_SERVICE_TTL_SECONDS"
DEFAULT_TTL_SECONDS = 30
KEY_VARIABLE = "SERVICEKIT_REGISTRATION_KEY"
KEY_HEADER = "X-Service-Key"


def ttl_seconds() -> int:
    """How long a registration lasts without a ping. A value that is not a positive whole
    number of seconds is logged and the default used."""
    text = os.environ.get(TTL_VARIABLE, "").strip()
    if not text:
        return DEFAULT_TTL_SECONDS
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 1 and value == int(value)):
        logger.warning(
            "$%s=%r is not a positive whole number of seconds; using %s",
            TTL_VARIABLE,
            text,
            DEFAULT_TTL_SECONDS,
        )
        return DEFAULT_TTL_SECONDS
    return int(value)


def check_service_key(presented: str | None) -> None:
    """401 unless no registration key is configured or ``presented`` is it."""
    expected = os.environ.get(KEY_VARIABLE) or None
    if expected is None:
        return
    if not presented or not secrets.compare_digest(presented.encode(), expected.encode()):
        raise Unauthenticated(f"{KEY_HEADER}: missing or invalid service key")


def service_detail(row: ModelRunnerRow) -> ServiceDetail:
    """A registered service as the routes answer it: the row's columns, field by field."""
    return ServiceDetail.model_validate(row, from_attributes=True)


def live_service(session: Session, service_id: str, field: str | None = None) -> ModelRunnerRow:
    """The registered service ``service_id``; NotFound when it never registered or expired."""
    row = session.get(ModelRunnerRow, service_id)
    if row is None or row.expires_at <= utc_now():
        raise NotFound("model service", service_id, field)
    return row


def list_services(session: Session) -> ServiceList:
    """The services registered now (not expired), by id."""
    listed = select(ModelRunnerRow).where(ModelRunnerRow.expires_at > utc_now())
    services = [service_detail(row) for row in session.scalars(listed.order_by(ModelRunnerRow.id))]
    return ServiceList(count=len(services), services=services)


def get_service(session: Session, service_id: str) -> ServiceDetail:
    return service_detail(live_service(session, service_id))


def register_service(
    session: Session, request: ServiceRegistration, base_url: str
) -> tuple[ModelRunnerRow, RegistrationResponse]:
    """Register (or register again: the latest URL and info win) the service under its own
    id; the answer carries the absolute ``ping_url`` under ``base_url``."""
    service_id = request.info.id
    if request.id is not None and request.id != service_id:
        raise FieldProblem("id", f"must be the id of the info ({service_id!r}), got {request.id!r}")
    url = checked_url(request.url)
    now = utc_now()
    row = session.get(ModelRunnerRow, service_id)
    if row is None or row.expires_at <= now:
        message = "Service registered successfully"
        if row is None:
            row = ModelRunnerRow(id=service_id)
            session.add(row)
        row.registered_at = now
    else:
        message = "Service registration updated"
    row.url = url
    row.info = request.info.model_dump(mode="json")
    _pinged(row, now)
    session.commit()
    ping_url = f"{base_url.rstrip('/')}/v2/services/{quote(service_id, safe='')}/$ping"
    return row, RegistrationResponse(
        id=service_id,
        service_url=url,
        message=message,
        ttl_seconds=ttl_seconds(),
        ping_url=ping_url,
    )


def ping_service(session: Session, service_id: str) -> PingResponse:
    """Keep the service registered for another TTL."""
    row = live_service(session, service_id)
    _pinged(row, utc_now())
    session.commit()
    return PingResponse(id=row.id, last_ping_at=row.last_ping_at, expires_at=row.expires_at)


def remove_service(session: Session, service_id: str) -> None:
    """Take the service off the registry; the templates stored from it stay."""
    session.delete(live_service(session, service_id))
    session.commit()


def _pinged(row: ModelRunnerRow, now: datetime) -> None:
    row.last_ping_at = row.last_updated = now
    row.expires_at = now + timedelta(seconds=ttl_seconds())


def checked_url(text: str) -> str:
    """An http(s) URL with a host, without a trailing slash; FieldProblem naming ``url``."""
    stripped = text.strip()
    parts = urlsplit(stripped)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise FieldProblem("url", f"must be an http(s) URL with a host, got {text[:100]!r}")
    if parts.username or parts.password:
        raise FieldProblem("url", "must not carry credentials")
    return stripped.rstrip("/")
