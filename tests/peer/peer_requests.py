"""What the tests do on the peer beyond the client's public methods: requests the client does
not make correctly for chap-core 2.5.1 yet (sent with plain httpx, in 2.5.1's shape), and waiting
for the jobs chap-core queues on its own."""

from __future__ import annotations

import httpx
import pandas as pd

from chaplab import ChapClient
from chaplab.client import NON_TERMINAL_STATUSES, Dataset

from .peer_data import observations_payload, org_unit_geojson


def upload_dataset(
    client: ChapClient, http: httpx.Client, name: str, table: pd.DataFrame
) -> Dataset:
    """``table`` stored as a dataset named ``name`` with ``POST /v1/analytics/make-dataset``;
    the import runs as a job whose database result names the new dataset."""
    body = {
        "name": name,
        "type": "evaluation",
        "geojson": org_unit_geojson(),
        "providedData": observations_payload(table),
        "dataToBeFetched": [],
    }
    response = http.post("/v1/analytics/make-dataset", json=body)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["rejected"] == [], answer
    job = client.wait_for_job(answer["id"])
    assert job.status == "SUCCESS", job
    dataset_id = http.get(f"/v1/jobs/{job.id}/database_result").json()["id"]
    return client.get_dataset(dataset_id)


def make_prediction(
    client: ChapClient,
    http: httpx.Client,
    name: str,
    model: str,
    table: pd.DataFrame,
    n_periods: int,
) -> str:
    """The finished job of a forward prediction of ``model`` for the ``n_periods`` after
    ``table``, made from inline data with ``POST /v1/analytics/make-prediction``."""
    body = {
        "name": name,
        "modelId": model,
        "nPeriods": n_periods,
        "geojson": org_unit_geojson(),
        "providedData": observations_payload(table),
        "dataToBeFetched": [],
    }
    response = http.post("/v1/analytics/make-prediction", json=body)
    assert response.status_code == 200, response.text
    job = client.wait_for_job(response.json()["id"])
    assert job.status == "SUCCESS", job
    return job.id


def wait_for_pending_jobs(client: ChapClient) -> None:
    """Wait for every job the peer has not finished. chap-core queues baseline backtests
    (``global_median``, ``persistence``, ``seasonal_median``) with a dataset's first backtest of
    a kind; on SQLite one of them can take the id of an evaluation deleted meanwhile."""
    for job in client.list_jobs():
        if job.status in NON_TERMINAL_STATUSES:
            client.wait_for_job(job.id)
