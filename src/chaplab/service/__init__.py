"""The embedded modeling service: ``create_app`` builds its ASGI app (see ``docs/service.md``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chaplab.service.app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from chaplab.service.app import create_app

        return create_app
    raise AttributeError(f"module 'chaplab.service' has no attribute {name!r}")
