"""What the crash tests store and compare: wire bodies of datasets, and snapshots of everything a
client can read back from the service."""

from __future__ import annotations

from typing import Any

import httpx

from chaplab.client import ChapClient, ChapHTTPError

QUANTILES = (0.1, 0.5, 0.9)


def dataset_body(observations: list[dict[str, Any]], name: str, copies: int) -> dict[str, Any]:
    """A ``POST /v1/crud/datasets`` body: ``observations`` repeated for ``copies`` renamed sets of
    org units, so that a dataset is as large as a test needs."""
    provided = [
        {**obs, "orgUnit": f"{obs['orgUnit']}_{copy}"}
        for copy in range(copies)
        for obs in observations
    ]
    return {"name": name, "type": "evaluation", "observations": provided, "dataSources": []}


def observations_of(url: str, dataset_id: int) -> list[dict[str, Any]]:
    body = httpx.get(f"{url}/v1/crud/datasets/{dataset_id}", timeout=60).json()
    return sorted(body["observations"], key=lambda o: (o["featureName"], o["orgUnit"], o["period"]))


def snapshot(client: ChapClient) -> dict[str, Any]:
    """Everything stored, as a client reads it: datasets with observations, configured models,
    evaluations with their entries, and the jobs that have ended."""
    datasets = {d.id: d.model_dump(exclude={"observations"}) for d in client.list_datasets()}
    observations = {
        dataset_id: observations_of(client.base_url, dataset_id) for dataset_id in datasets
    }
    evaluations = {e.id: e.model_dump() for e in client.list_evaluations()}
    entries = {
        evaluation_id: [e.model_dump() for e in client.evaluation_entries(evaluation_id, QUANTILES)]
        for evaluation_id in evaluations
    }
    jobs = {job.id: job.model_dump() for job in client.list_jobs() if job.is_terminal}
    return {
        "datasets": datasets,
        "observations": observations,
        "models": {m.id: m.model_dump() for m in client.list_configured_models()},
        "evaluations": evaluations,
        "entries": entries,
        "jobs": jobs,
    }


def missing_or_changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Every row of ``before`` that ``after`` lacks or holds differently."""
    problems = []
    for kind, rows in before.items():
        for key, row in rows.items():
            if key not in after[kind]:
                problems.append(f"{kind} {key} is missing")
            elif after[kind][key] != row:
                problems.append(f"{kind} {key} changed: {row!r} -> {after[kind][key]!r}")
    return problems


def evaluation_named(client: ChapClient, name: str) -> list[int]:
    try:
        return [e.id for e in client.list_evaluations() if e.name == name]
    except ChapHTTPError as error:  # pragma: no cover - reported by the assertion
        raise AssertionError(f"listing evaluations failed: {error}") from error
