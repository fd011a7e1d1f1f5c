"""chaplab.toolkit: build FastAPI services with a landing page, docs, health, API-key auth,
RFC 9457 problem-details errors and structured log events; run them with ``BackgroundServer``.

See ``docs/toolkit.md``.
"""

from __future__ import annotations

from chaplab.toolkit.auth import DEFAULT_HEADER, DEFAULT_UNAUTHENTICATED_PATHS, AuthPolicy
from chaplab.toolkit.builder import ServiceBuilder
from chaplab.toolkit.keys import (
    DEFAULT_ENV_VAR,
    ApiKeyStore,
    EnvironmentKeys,
    KeyFileKeys,
    StaticKeys,
    key_prefix,
    key_source,
    parse_key_file_text,
)
from chaplab.toolkit.limits import DEFAULT_MAX_BODY_BYTES
from chaplab.toolkit.logs import JsonLinesFormatter, event_fields, log_event
from chaplab.toolkit.problems import (
    PROBLEM_MEDIA_TYPE,
    ProblemError,
    problem_response,
    problem_type,
)
from chaplab.toolkit.server import BackgroundServer

__all__ = [
    "DEFAULT_ENV_VAR",
    "DEFAULT_HEADER",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_UNAUTHENTICATED_PATHS",
    "PROBLEM_MEDIA_TYPE",
    "ApiKeyStore",
    "AuthPolicy",
    "BackgroundServer",
    "EnvironmentKeys",
    "JsonLinesFormatter",
    "KeyFileKeys",
    "ProblemError",
    "ServiceBuilder",
    "StaticKeys",
    "event_fields",
    "key_prefix",
    "key_source",
    "log_event",
    "parse_key_file_text",
    "problem_response",
    "problem_type",
]
