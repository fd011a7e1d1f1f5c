"""chap-core 2.5.1 files the evaluations of its baseline models (seasonal_median and its
configurations) as references and leaves them out of its list; the client lists them too."""

from __future__ import annotations

import time

import httpx

from chaplab import ChapClient
from chaplab.client import Dataset, Evaluation, ModelSpec
from chaplab.vocabulary import NON_TERMINAL_STATUSES


def test_a_seasonal_median_evaluation_is_listed_as_a_reference(
    peer_client: ChapClient,
    peer_http: httpx.Client,
    naive_evaluation: Evaluation,
    configuration_evaluation: Evaluation,
) -> None:
    server_list = {row["id"] for row in peer_http.get("/v1/crud/backtests").json()}
    assert configuration_evaluation.id not in server_list  # chap-core's own list hides it
    listed = {evaluation.id: evaluation for evaluation in peer_client.list_evaluations()}
    assert listed[naive_evaluation.id].reference is False
    reference = listed[configuration_evaluation.id]
    assert reference.reference is True and reference.name == configuration_evaluation.name
    # the panel's launcher takes the names of listed evaluations as used
    assert reference.model_id is not None and "seasonal_median" in reference.model_id


def test_a_reference_stored_under_a_deleted_ones_id_is_listed(
    peer_url: str, seasonal_median_configuration: ModelSpec, peer_dataset: Dataset, unique: str
) -> None:
    """chap-core's SQLite gives a new evaluation the id of a deleted last row: once the
    client has found the deleted one gone, the later one under its id is listed all the same
    (in a full peer run this hid the session's seasonal_median evaluation)."""
    with ChapClient(peer_url) as client:

        def run(name: str) -> Evaluation:
            return client.run_evaluation(
                f"{name} {unique}",
                seasonal_median_configuration,
                peer_dataset.id,
                n_periods=3,
                n_splits=2,
            )

        # chap-core runs its baselines for a new specification after its first evaluation, and
        # other tests' jobs may still run: either would store the rows after this test's first
        chap_core_ran_first = run("reused id, the specification's first")
        wait_until_no_job_runs(client)
        client.delete_evaluation(chap_core_ran_first.id)
        first = run("reused id, first")
        assert first.id in {evaluation.id for evaluation in client.list_evaluations()}
        client.delete_evaluation(first.id)
        assert first.id not in {evaluation.id for evaluation in client.list_evaluations()}
        second = run("reused id, second")
        try:
            assert second.id == first.id  # the situation this test is about
            listed = {evaluation.id: evaluation for evaluation in client.list_evaluations()}
            assert listed[second.id].name == second.name and listed[second.id].reference
        finally:
            client.delete_evaluation(second.id)


def wait_until_no_job_runs(client: ChapClient, timeout: float = 600) -> None:
    """Wait until chap-core has no job queued or running (baseline runs, or the jobs earlier
    tests left behind in a shuffled run)."""
    deadline = time.monotonic() + timeout
    while any(job.status in NON_TERMINAL_STATUSES for job in client.list_jobs()):
        assert time.monotonic() < deadline, "chap-core's jobs did not end within the timeout"
        time.sleep(1)
