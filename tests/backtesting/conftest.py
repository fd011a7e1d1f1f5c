"""Real engines for the backtests that ship their tasks: a process pool started by ``spawn`` (a
fresh Python, as a notebook's pool on macOS or Windows, so nothing arrives by fork) and a Dask
``LocalCluster`` of two worker processes under nannies (a real scheduler and workers). Each is
started when a test of this folder first asks for it and closed when the folder's tests are done,
so no worker outlives them."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="package")
def process_pool() -> Iterator[concurrent.futures.ProcessPoolExecutor]:
    with concurrent.futures.ProcessPoolExecutor(
        max_workers=2, mp_context=multiprocessing.get_context("spawn")
    ) as pool:
        yield pool


@pytest.fixture(scope="package")
def dask_client() -> Iterator[Any]:
    """A client of a two-worker ``LocalCluster``; a task whose worker dies is run again once
    (``allowed-failures`` 1), a second death fails it with ``KilledWorker``. A worker holds one
    task at a time (``worker-saturation`` 1), so a worker that dies takes no queued bystander
    with it."""
    import dask
    from distributed import Client, LocalCluster

    settings = {
        "distributed.scheduler.allowed-failures": 1,
        "distributed.scheduler.worker-saturation": 1.0,
    }
    with dask.config.set(settings):
        cluster = LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            worker_dashboard_address=None,
        )
    with cluster, Client(cluster) as client:
        yield client
