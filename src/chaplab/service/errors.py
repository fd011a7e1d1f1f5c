"""The errors the service's own code raises, free of HTTP: each says what went wrong for people
(``detail``), with the request fields at fault (``problems``) and further facts
(``extensions``, such as the ids in the way), and its kind says what sort of refusal it is.

The domain, storage, validation and job code raise these; ``app.py`` answers each kind with
problem details of one status (``PROBLEM_STATUSES``), the one place that knows HTTP, so no bad
input ever becomes a 500.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


class ServiceError(Exception):
    """A request the service refuses or cannot serve; ``detail`` is the sentence people read."""

    def __init__(
        self,
        detail: str,
        *,
        problems: Sequence[Mapping[str, Any]] = (),
        extensions: Mapping[str, Any] | None = None,
    ) -> None:
        self.detail = detail
        self.problems = [dict(problem) for problem in problems]
        self.extensions = dict(extensions or {})
        super().__init__(detail)


class NotFound(ServiceError, LookupError):
    """No stored ``what`` has this identifier: its id, or its name (``named=True``), as the
    message says (``no configured model named 'x'``); ``field`` names the request field that
    gave it."""

    def __init__(
        self, what: str, identifier: object, field: str | None = None, *, named: bool = False
    ) -> None:
        self.what, self.identifier, self.field = what, identifier, field
        self.key = "name" if named else "id"
        described = f"named {identifier!r}" if named else f"with id {identifier!r}"
        if field is None:
            super().__init__(f"No {what} {described}")
            return
        super().__init__(
            f"{field}: no {what} {described}",
            problems=[
                {
                    "loc": [field],
                    "field": field,
                    "msg": f"no {what} with this {self.key}",
                    "type": "not_found",
                }
            ],
        )


class Missing(ServiceError):
    """What a request asks for is not there: a job's request body or its deleted result, the
    observations a computation needs, a chart of that name."""


class FieldProblem(ServiceError, ValueError):
    """A request field holds a value the service cannot use; ``field`` names it (``nPeriods``,
    ``observations[3].period``) and ``reason`` says why."""

    def __init__(self, field: str, reason: str) -> None:
        self.field, self.reason = field, reason
        location = ["body", *field.replace("[", ".").replace("]", "").split(".")]
        super().__init__(
            f"{field}: {reason}",
            problems=[{"loc": location, "field": field, "msg": reason, "type": "value_error"}],
        )


class Invalid(ServiceError, ValueError):
    """A request's content breaks rules, each of its ``problems`` naming a field."""


class Conflict(ServiceError):
    """What is stored stands in the way: a name taken by another configuration, a record that
    others use, a job that has already ended."""


class Refused(ServiceError):
    """A request that cannot be served as it stands, whatever is stored (a forecast from a
    setup whose evaluation read its forecast windows' weather)."""


class Unauthenticated(ServiceError):
    """A caller without the credentials the route needs (a model service's key)."""


class ModelServiceFailure(ServiceError):
    """A model service the request needed did not answer as it should."""
