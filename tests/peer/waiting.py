"""Letting the peer's queued jobs finish before a test looks at what they leave behind."""

from __future__ import annotations

from chaplab import ChapClient
from chaplab.client import NON_TERMINAL_STATUSES


def wait_for_pending_jobs(client: ChapClient) -> None:
    """Wait for every job the peer has not finished. chap-core queues baseline backtests
    (``global_median``, ``persistence``, ``seasonal_median``) with a dataset's first backtest of
    a kind; on SQLite one of them can take the id of an evaluation deleted meanwhile."""
    for job in client.list_jobs():
        if job.status in NON_TERMINAL_STATUSES:
            client.wait_for_job(job.id)
