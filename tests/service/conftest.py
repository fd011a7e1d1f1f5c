"""Fixtures of the service tests: a small dataset with a finished evaluation on the session's
service, made once and shared read-only (tests that change things make their own)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from chaplab.client import ChapClient

from .helpers import Evaluated, geojson_for, small_frame


@pytest.fixture(scope="session")
def session_client(service_url: str) -> Iterator[ChapClient]:
    with ChapClient(service_url) as chap:
        yield chap


@pytest.fixture(scope="session")
def evaluated(session_client: ChapClient) -> Evaluated:
    """A two-year monthly dataset of two org units and a finished naive evaluation of it."""
    frame = small_frame(n_years=2)
    dataset = session_client.create_dataset(
        "shared", frame, geojson=geojson_for(sorted(set(frame.location)))
    )
    evaluation = session_client.run_evaluation(
        "shared naive", "naive_model", dataset.id, n_periods=2, n_splits=3, timeout=120
    )
    return Evaluated(dataset, evaluation)
