"""Schemathesis against the service's own ``/openapi.json``: every operation gets a bounded number
of generated requests (and a stateful run following the links schemathesis infers); no answer is
a 5xx and every answer conforms to the schema documented for its status.

Every generated request has a timeout of ``REQUEST_SECONDS`` (e.g. for an enormous nSplits the
service would work on for hours) and a failing case is not shrunk, so a slow case fails its
operation instead of holding up the run."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import response_schema_conformance

from chaplab.toolkit import BackgroundServer

from .settings import BOUNDS

FAILURE_TEXT = 700
REQUEST_SECONDS = 30.0
SILENT_SECONDS = 0.5  # the timeout of the test that a request without an answer fails
CHECKS = [not_a_server_error, response_schema_conformance]
NO_SHRINKING = [Phase.explicit, Phase.reuse, Phase.generate]  # shrinking replays a slow case
FUZZ_SETTINGS = settings(
    max_examples=BOUNDS.fuzz_examples,
    deadline=None,
    derandomize=True,
    phases=NO_SHRINKING,
    suppress_health_check=list(HealthCheck),
)


def call_kwargs(base_url: str, timeout: float = REQUEST_SECONDS) -> dict[str, Any]:
    """What every generated request is sent with: the service's URL and a timeout."""
    return {"base_url": base_url, "timeout": timeout}


@pytest.fixture(scope="module")
def fuzzed_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A modeling service of its own (the fuzzing creates and deletes rows)."""
    from chaplab.service import create_app

    database = tmp_path_factory.mktemp("fuzz") / "chaplab.db"
    with BackgroundServer(create_app(database_url=str(database), workers=1)) as server:
        yield server.url


@pytest.fixture(scope="module")
def fuzzed_schema(fuzzed_url: str) -> schemathesis.schemas.BaseSchema:
    return schemathesis.openapi.from_url(f"{fuzzed_url}/openapi.json")


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_operation_answers_a_server_error_or_breaks_its_schema(
    fuzzed_schema: schemathesis.schemas.BaseSchema, fuzzed_url: str, mode: GenerationMode
) -> None:
    """Valid (positive) and invalid (negative) requests for every documented operation."""
    operations = [result.ok() for result in fuzzed_schema.get_all_operations()]
    assert len(operations) >= 20
    failures = []
    for operation in operations:

        @given(case=operation.as_strategy(generation_mode=mode))
        @FUZZ_SETTINGS
        def exercise(case: schemathesis.Case) -> None:
            case.call_and_validate(checks=CHECKS, **call_kwargs(fuzzed_url))

        try:
            exercise()
        except Unsatisfiable:  # negative mode: the operation has no input that can be invalid
            continue
        except (Exception, BaseExceptionGroup) as error:  # noqa: BLE001 - all operations run
            failures.append(f"{operation.label}: {str(error)[:FAILURE_TEXT]}")
    assert failures == [], "\n\n".join(failures)


def test_stateful_sequences_keep_to_the_schema(
    fuzzed_schema: schemathesis.schemas.BaseSchema, fuzzed_url: str
) -> None:
    machine = fuzzed_schema.as_state_machine()

    class Workflow(machine):  # type: ignore[misc, valid-type]
        def get_call_kwargs(self, case: schemathesis.Case) -> dict[str, object]:
            return call_kwargs(fuzzed_url)

        def validate_response(
            self, response: object, case: schemathesis.Case, **kwargs: object
        ) -> None:
            case.validate_response(response, checks=CHECKS)

    Workflow.run(
        settings=settings(
            max_examples=BOUNDS.fuzz_examples,
            stateful_step_count=5,
            deadline=None,
            derandomize=True,
            phases=NO_SHRINKING,
            suppress_health_check=list(HealthCheck),
        )
    )


def test_a_generated_request_without_an_answer_fails_in_bounded_time(
    fuzzed_schema: schemathesis.schemas.BaseSchema,
) -> None:
    """The timeout of ``call_kwargs`` reaches the HTTP request schemathesis sends: a case sent
    to a server that never answers raises a timeout instead of waiting."""
    case = fuzzed_schema["/v1/crud/datasets"]["GET"].Case()
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        host, port = silent.getsockname()
        started = time.monotonic()
        with pytest.raises(requests.exceptions.Timeout):
            case.call_and_validate(
                checks=CHECKS, **call_kwargs(f"http://{host}:{port}", SILENT_SECONDS)
            )
    assert time.monotonic() - started < SILENT_SECONDS + 5
