"""The error raised when a schema or a property is built from bad input."""

from __future__ import annotations


class InvalidSchemaError(ValueError):
    """A schema or property cannot be built; the message names the argument and the reason."""
