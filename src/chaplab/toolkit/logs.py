"""Structured log events: stdlib records carrying their fields as attributes, and a JSON-lines
formatter that writes one object per record with those fields."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

# Attributes every LogRecord has; anything else on a record was passed through ``extra``.
_STANDARD_ATTRIBUTES = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {
    "message",
    "asctime",
    "taskName",
}


def log_event(logger: logging.Logger, level: int, event: str, **fields: Any) -> None:
    """Write a record whose attributes are ``event`` and ``fields``.

    The message reads ``event name=value ...`` for plain-text handlers; formatters that know the
    attributes (``JsonLinesFormatter``, pytest's caplog) see the fields themselves.
    """
    text = " ".join([event, *(f"{name}={value}" for name, value in fields.items())])
    logger.log(level, "%s", text, extra={"event": event, **fields})


def event_fields(record: logging.LogRecord) -> dict[str, Any]:
    """The attributes a record carries beyond the standard ones (its event fields)."""
    return {
        name: value
        for name, value in record.__dict__.items()
        if name not in _STANDARD_ATTRIBUTES and not name.startswith("_")
    }


class JsonLinesFormatter(logging.Formatter):
    """Format each record as one JSON object: time, level, logger, message and event fields.

    Use with any handler, e.g. ``handler.setFormatter(JsonLinesFormatter())``. Values JSON cannot
    encode are written as their ``str``; an exception is written under ``exc_info`` as text.
    """

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, tz=UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update(event_fields(record))
        if record.exc_info:
            entry["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)
