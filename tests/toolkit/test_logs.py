"""The JSON-lines formatter and ``log_event``."""

from __future__ import annotations

import json
import logging
import sys

import pytest

from chaplab.toolkit import JsonLinesFormatter, event_fields, log_event


def test_log_event_puts_fields_on_the_record_and_in_the_message(
    caplog: pytest.LogCaptureFixture,
) -> None:
    logger = logging.getLogger("chaplab.toolkit.test")
    caplog.set_level(logging.INFO, logger="chaplab.toolkit.test")
    log_event(logger, logging.INFO, "job.done", job_id=7, path="/v1/jobs")
    [record] = caplog.records
    assert event_fields(record) == {"event": "job.done", "job_id": 7, "path": "/v1/jobs"}
    assert record.getMessage() == "job.done job_id=7 path=/v1/jobs"


def test_formatter_writes_one_json_object_per_record_with_exception_text() -> None:
    try:
        raise KeyError("boom")
    except KeyError:
        record = logging.LogRecord(
            "svc", logging.ERROR, __file__, 1, "failed %s", ("x",), exc_info=sys.exc_info()
        )
    record.event = "thing.failed"
    record.payload = {"when": object()}
    entry = json.loads(JsonLinesFormatter().format(record))
    assert entry["message"] == "failed x"
    assert entry["event"] == "thing.failed"
    assert "KeyError: 'boom'" in entry["exc_info"]
    assert entry["payload"]["when"].startswith("<object object")
    assert entry["time"].endswith("+00:00")
