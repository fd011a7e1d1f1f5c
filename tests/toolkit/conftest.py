"""Fixtures of the toolkit tests: test clients for built services."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from asgi_test_client import TestClient
from chaplab.toolkit import ServiceBuilder

from .helpers import KEY_A, make_builder


@pytest.fixture
def client_for() -> Iterator[Callable[..., TestClient]]:
    """``client_for(builder)`` opens a test client for ``builder.build()`` (closed after)."""
    clients: list[TestClient] = []

    def open_client(builder: ServiceBuilder, **kwargs: Any) -> TestClient:
        client = TestClient(builder.build(), raise_server_exceptions=False, **kwargs)
        client.__enter__()
        clients.append(client)
        return client

    yield open_client
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture
def authed(client_for: Callable[..., TestClient]) -> Callable[..., TestClient]:
    """``authed(**with_auth_kwargs)``: a client for the test service with auth enabled."""

    def build(**auth: Any) -> TestClient:
        auth.setdefault("api_keys", [KEY_A])
        return client_for(make_builder().with_auth(**auth))

    return build
