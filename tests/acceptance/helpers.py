"""What the acceptance tests share besides fixtures: waiting on a job, reading its record, and
wire payloads built from the documents alone."""

from __future__ import annotations

import time
from typing import Any

import httpx

NON_TERMINAL = {"PENDING", "RUNNING", "STARTED", "QUEUED", "PROCESSING"}


def wait_until_terminal(http: httpx.Client, job_id: str, deadline_seconds: float = 120.0) -> str:
    """Poll ``GET /v1/jobs/{id}`` until the (upper-cased) status leaves the non-terminal set."""
    give_up = time.monotonic() + deadline_seconds
    while True:
        status = http.get(f"/v1/jobs/{job_id}").json().upper()
        if status not in NON_TERMINAL or time.monotonic() > give_up:
            return status
        time.sleep(0.1)


def job_record(http: httpx.Client, job_id: str) -> dict[str, Any]:
    """The entry of ``GET /v1/jobs`` with this id."""
    matches = [job for job in http.get("/v1/jobs").json() if job["id"] == job_id]
    assert len(matches) == 1, f"job {job_id} listed {len(matches)} times in /v1/jobs"
    return matches[0]


def square_feature_collection(org_units: list[str]) -> dict[str, Any]:
    """A GeoJSON FeatureCollection with one small square polygon per org unit."""
    features = []
    for index, org_unit in enumerate(org_units):
        x = float(index)
        ring = [[x, 0.0], [x + 1.0, 0.0], [x + 1.0, 1.0], [x, 1.0], [x, 0.0]]
        features.append(
            {
                "type": "Feature",
                "id": org_unit,
                "properties": {"id": org_unit},
                "geometry": {"type": "Polygon", "coordinates": [ring]},
            }
        )
    return {"type": "FeatureCollection", "features": features}
