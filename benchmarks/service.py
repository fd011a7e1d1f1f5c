"""A fresh embedded service on loopback for the figures that need one.

The service (``create_app`` on a SQLite file in a temporary folder, with its demo content) runs
in a ``BackgroundServer`` thread of the benchmark process; its jobs run in worker processes, as
always. Big synthetic datasets are stored through the service's own storage layer
(``add_dataset_row``), because sending a million observations as JSON would measure the upload,
which no figure is about.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Self

from chaplab.client import ChapClient
from chaplab.service import create_app
from chaplab.service.db import transaction
from chaplab.service.demo import generate_demo
from chaplab.service.storage import DatasetContent, add_dataset_row
from chaplab.toolkit import BackgroundServer

_SHARED: list[BenchService] = []


def shared_service() -> BenchService:
    """A service kept running for several figures; :func:`stop_shared_services` stops it."""
    if not _SHARED:
        _SHARED.append(BenchService().__enter__())
    return _SHARED[0]


def stop_shared_services() -> None:
    """Stop the shared service, if one was started (the runner calls this at the end)."""
    while _SHARED:
        _SHARED.pop().__exit__(None, None, None)


class BenchService:
    """``with BenchService() as service:`` a running service, its URL and a client for it."""

    def __init__(self, workers: int | None = None) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="chaplab-bench-")
        self.app = create_app(Path(self._folder.name) / "chaplab.db", workers=workers)
        self.server = BackgroundServer(self.app, "127.0.0.1")

    def __enter__(self) -> Self:
        self.server.start()
        self.client = ChapClient(self.url, timeout=600.0)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.client.close()
        self.server.stop()
        self._folder.cleanup()

    @property
    def url(self) -> str:
        return self.server.url

    def add_dataset(self, name: str, n_org_units: int, n_years: int = 10) -> int:
        """Store a synthetic monthly dataset (the demo generator's) and return its id."""
        demo = generate_demo(n_org_units=n_org_units, n_years=n_years)
        factory = self.app.state.service.factory
        with transaction(factory) as session:
            content = DatasetContent(demo.panel, demo.geojson, [])
            row = add_dataset_row(session, name, "evaluation", content, created_manually=True)
            return int(row.id)

    def evaluate(
        self, name: str, model: str, dataset_id: int, n_periods: int, n_splits: int
    ) -> tuple[int, float]:
        """Run an evaluation through the API; its id and the wall time from submit to result."""
        start = time.perf_counter()
        job = self.client.create_evaluation(
            name, model, dataset_id, n_periods=n_periods, n_splits=n_splits, stride=1
        )
        done = self.client.wait_for_job(job.id, timeout=900.0)
        elapsed = time.perf_counter() - start
        assert done.result_id is not None, f"job {job.id} gave no evaluation id"
        return done.result_id, elapsed
