"""The service's own errors are free of HTTP, and the app answers every kind with one status:
a new kind without a status would be a 500."""

from __future__ import annotations

import inspect

from chaplab.service import errors
from chaplab.service.app import PROBLEM_STATUSES
from chaplab.service.errors import FieldProblem, NotFound, ServiceError


def test_every_kind_of_service_error_has_its_status() -> None:
    kinds = {
        kind
        for _, kind in inspect.getmembers(errors, inspect.isclass)
        if issubclass(kind, ServiceError) and kind is not ServiceError
    }
    assert kinds == set(PROBLEM_STATUSES)


def test_an_error_names_the_field_at_fault() -> None:
    problem = FieldProblem("observations[3].period", "is no period")
    assert problem.detail == "observations[3].period: is no period"
    assert problem.problems[0]["loc"] == ["body", "observations", "3", "period"]
    missing = NotFound("dataset", 9, "datasetId")
    assert missing.detail == "datasetId: no dataset with id 9"
    assert NotFound("dataset", 9).detail == "No dataset with id 9" and not NotFound("x", 1).problems
