"""Helpers of the toolkit tests: keys, a small service, a scan of log records."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel

from chaplab.toolkit import ServiceBuilder

KEY_A = "sk_test_AAAAAAAAAAAAAAAAAAAAAAAA"
KEY_B = "sk_test_BBBBBBBBBBBBBBBBBBBBBBBB"


class Item(BaseModel):
    name: str
    count: int


def items_router() -> APIRouter:
    """A protected resource answering every method, plus a body-reading route."""
    router = APIRouter()

    async def items() -> dict[str, str]:
        return {"ok": "yes"}

    for method in ("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"):
        router.add_api_route("/items", items, methods=[method], name=f"items_{method.lower()}")

    @router.post("/items/typed")
    async def create(item: Item) -> Item:
        return item

    return router


def make_builder() -> ServiceBuilder:
    """The test service: ``/v1/items`` (every method) and ``/v1/items/typed`` (a JSON body)."""
    builder = ServiceBuilder(title="Test service", version="9.8.7", description="For tests")
    return builder.include_router(items_router(), prefix="/v1")


def all_texts(records: Iterable[Any]) -> list[str]:
    """Every text a log record holds: message, arguments, attributes, formatted exception."""
    texts: list[str] = []
    formatter = logging.Formatter()
    for record in records:
        texts.append(record.getMessage())
        texts.extend(repr(value) for value in record.__dict__.values())
        if record.exc_info:
            texts.append(formatter.formatException(record.exc_info))
    return texts
