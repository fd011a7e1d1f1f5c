"""Describe API-key auth in the OpenAPI document, so that ``/docs`` offers "Authorize"."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from chaplab.toolkit.auth import AuthPolicy

SCHEME_NAME = "ApiKeyAuth"


def add_api_key_security(app: FastAPI, policy: AuthPolicy) -> None:
    """Declare the key header as a security scheme required on every path but the open ones."""
    plain_openapi = app.openapi

    def openapi_with_security() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = plain_openapi()
        schema.setdefault("components", {}).setdefault("securitySchemes", {})[SCHEME_NAME] = {
            "type": "apiKey",
            "in": "header",
            "name": policy.header_name,
        }
        schema["security"] = [{SCHEME_NAME: []}]
        for path, operations in schema.get("paths", {}).items():
            if path in policy.unauthenticated_paths:
                for operation in operations.values():
                    operation["security"] = []
        app.openapi_schema = schema
        return schema

    app.openapi = openapi_with_security  # type: ignore[method-assign]
