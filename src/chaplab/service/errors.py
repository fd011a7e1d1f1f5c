"""Errors of the service's own code, free of HTTP: the app turns them into problem details.

Storage, validation and job code raise these; ``app.py`` maps :class:`FieldProblem` to a 422
naming the field and :class:`NotFound` to a 404, so no bad input ever becomes a 500.
"""

from __future__ import annotations


class FieldProblem(ValueError):
    """A request field holds a value the service cannot use; ``field`` names it (``nPeriods``,
    ``observations[3].period``) and the message says why."""

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


class NotFound(LookupError):
    """No stored ``what`` has this identifier: its id, or its name (``named=True``), as the
    message says (``no configured model named 'x'``)."""

    def __init__(
        self, what: str, identifier: object, field: str | None = None, *, named: bool = False
    ) -> None:
        self.what = what
        self.identifier = identifier
        self.field = field
        self.key = "name" if named else "id"
        super().__init__(f"no {what} {self.described()}")

    def described(self) -> str:
        """``with id 3`` or ``named 'x'``."""
        return (
            f"named {self.identifier!r}" if self.key == "name" else f"with id {self.identifier!r}"
        )
