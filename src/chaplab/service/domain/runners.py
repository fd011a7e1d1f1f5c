"""The registry of external model runners: registering by URL, pings, and whether a runner is
live or stale.

A runner registers its URL and info, then pings now and then; one not pinged within
``$CHAPLAB_RUNNER_STALE_SECONDS`` (default 300) shows ``"status": "stale"``.
"""

from __future__ import annotations

import logging
import math
import os
from datetime import datetime
from urllib.parse import urlsplit

from sqlalchemy import select
from sqlalchemy.orm import Session

from chaplab.service.domain.lookup import get_or_404
from chaplab.service.errors import FieldProblem
from chaplab.service.tables import ModelRunnerRow, utc_now
from chaplab.service.wire.common import from_row
from chaplab.service.wire.runners import RunnerRead, RunnerRegistration

logger = logging.getLogger("chaplab.service")
STALE_VARIABLE = "CHAPLAB_RUNNER_STALE_SECONDS"
DEFAULT_STALE_SECONDS = 300.0


def stale_after_seconds() -> float:
    """The configured staleness limit. A value that is not a positive number is logged and the
    default used; every runner answer shows the limit in force (``stale_after_seconds``)."""
    text = os.environ.get(STALE_VARIABLE, "").strip()
    if not text:
        return DEFAULT_STALE_SECONDS
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        logger.warning(
            "$%s=%r is not a positive number of seconds; using %s",
            STALE_VARIABLE,
            text,
            DEFAULT_STALE_SECONDS,
        )
        return DEFAULT_STALE_SECONDS
    return value


def runner_read(row: ModelRunnerRow, now: datetime | None = None) -> RunnerRead:
    limit = stale_after_seconds()
    age = ((now or utc_now()) - row.last_ping_at).total_seconds()
    return from_row(
        RunnerRead, row, status="stale" if age > limit else "live", stale_after_seconds=limit
    )


def get_runner_row(session: Session, runner_id: int) -> ModelRunnerRow:
    return get_or_404(session, ModelRunnerRow, runner_id, "model runner")


def list_runners(session: Session) -> list[RunnerRead]:
    now = utc_now()
    rows = session.scalars(select(ModelRunnerRow).order_by(ModelRunnerRow.id))
    return [runner_read(row, now) for row in rows]


def get_runner(session: Session, runner_id: int) -> RunnerRead:
    return runner_read(get_runner_row(session, runner_id))


def register_runner(session: Session, request: RunnerRegistration) -> RunnerRead:
    """Register a runner by URL; registering a known URL again updates its info and counts as a
    ping."""
    url = checked_url(request.url)
    row = session.scalar(select(ModelRunnerRow).where(ModelRunnerRow.url == url))
    if row is None:
        row = ModelRunnerRow(url=url, info=request.info)
        session.add(row)
    else:
        row.info = request.info
        _pinged(row)
    session.commit()
    return runner_read(row)


def ping_runner(session: Session, runner_id: int) -> RunnerRead:
    """Record that the runner is alive now."""
    row = get_runner_row(session, runner_id)
    _pinged(row)
    session.commit()
    return runner_read(row)


def remove_runner(session: Session, runner_id: int) -> None:
    session.delete(get_runner_row(session, runner_id))
    session.commit()


def _pinged(row: ModelRunnerRow) -> None:
    row.last_ping_at = utc_now()
    row.ping_count += 1


def checked_url(text: str) -> str:
    """An http(s) URL with a host, without a trailing slash; FieldProblem naming ``url``."""
    stripped = text.strip()
    parts = urlsplit(stripped)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise FieldProblem("url", f"must be an http(s) URL with a host, got {text[:100]!r}")
    if parts.username or parts.password:
        raise FieldProblem("url", "must not carry credentials")
    return stripped.rstrip("/")
