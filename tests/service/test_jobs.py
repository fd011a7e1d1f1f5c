"""Job endpoints: results, deleting entries, and a cancel that really stops
the worker process."""

from __future__ import annotations

import re
import time
from pathlib import Path

import httpx
import pytest

from chaplab.client import ChapClient, ConflictError, Job, NotFoundError
from chaplab.vocabulary import is_terminal_status

from .helpers import LONG_PERIODS, LONG_SPLITS, Evaluated, long_running_frame, small_frame

pytestmark = pytest.mark.integration


def _job_named(client: ChapClient, name: str) -> Job:
    return next(job for job in client.list_jobs() if job.name == name)


def _cpu_ticks(pid: int) -> int | None:
    """User + system CPU ticks of a live process, or None when it is gone or a zombie."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return None
    return None if fields[0] in ("Z", "X") else int(fields[11]) + int(fields[12])


def _wait_until_idle(client: ChapClient) -> None:
    """Wait until no job of the session's service is queued or running (jobs other test modules
    started and did not wait for), so that the next job starts on a free worker at once."""
    deadline = time.monotonic() + 300
    while any(not is_terminal_status(job.status) for job in client.list_jobs()):
        assert time.monotonic() < deadline, "the session's service stayed busy"
        time.sleep(0.2)


def _wait_for_log(client: ChapClient, job_id: str, pattern: str) -> re.Match[str]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = re.search(pattern, client.job_logs(job_id))
        if found:
            return found
        # queued for a moment until the runner's next round, then running; never ended
        assert not is_terminal_status(client.job_status(job_id)), client.job_logs(job_id)
        time.sleep(0.1)
    raise AssertionError(f"no log line matching {pattern!r}")


def test_cancelling_a_running_evaluation_stops_its_worker_and_stores_nothing(
    client: ChapClient, unique: str
) -> None:
    _wait_until_idle(client)
    dataset = client.upload_dataset_csv(f"long {unique}", long_running_frame())
    name = f"long {unique}"
    job = client.create_evaluation(
        name, "regression_model", dataset.id, n_periods=LONG_PERIODS, n_splits=LONG_SPLITS
    )
    pid = int(_wait_for_log(client, job.id, r"worker process (\d+) started").group(1))
    _wait_for_log(client, job.id, rf"split 1/{LONG_SPLITS}")
    assert _cpu_ticks(pid) is not None, "the worker runs before the cancel"
    with pytest.raises(ConflictError, match="is STARTED; cancel it or wait until it finishes"):
        client.delete_job(job.id)
    client.cancel_job(job.id)
    assert client.job_status(job.id) == "REVOKED"
    assert _cpu_ticks(pid) is None, "the worker process no longer runs"
    assert name not in [e.name for e in client.list_evaluations()]
    assert client.get_job(job.id).result is None
    with pytest.raises(
        ConflictError, match="did not succeed \\(status REVOKED\\): cancelled on request"
    ):
        client.job_database_result(job.id)
    with pytest.raises(ConflictError, match="already finished with status REVOKED"):
        client.cancel_job(job.id)
    client.delete_job(job.id)


def test_cancelling_a_queued_evaluation_revokes_it_before_any_worker_starts(
    client: ChapClient, unique: str
) -> None:
    _wait_until_idle(client)
    dataset = client.upload_dataset_csv(f"queue {unique}", long_running_frame())
    running = []
    for index in range(2):  # the session's service has two workers: keep both busy
        job = client.create_evaluation(
            f"busy {index} {unique}", "regression_model", dataset.id, LONG_PERIODS, LONG_SPLITS
        )
        _wait_for_log(client, job.id, r"worker process \d+ started")
        running.append(job)
    queued = client.create_evaluation(f"queued {unique}", "naive_model", dataset.id, 2, 2)
    try:
        assert client.job_status(queued.id) == "PENDING"
        client.cancel_job(queued.id)
        assert client.job_status(queued.id) == "REVOKED"
    finally:
        for job in running:
            client.cancel_job(job.id)
    assert "worker process" not in client.job_logs(queued.id)
    assert f"queued {unique}" not in [e.name for e in client.list_evaluations()]


def test_a_finished_job_entry_is_deleted_and_its_result_stays(
    client: ChapClient, unique: str
) -> None:
    dataset = client.create_dataset(f"done {unique}", small_frame(n_years=2))
    done = client.wait_for_job(
        client.create_evaluation(f"done {unique}", "naive_model", dataset.id, 2, 2).id, timeout=120
    )
    client.delete_job(done.id)
    assert done.id not in [j.id for j in client.list_jobs()]
    assert client.get_evaluation(done.result_id).name == f"done {unique}"
    for call in (client.delete_job, client.job_logs, client.cancel_job, client.job_database_result):
        with pytest.raises(NotFoundError):
            call(done.id)


def test_the_job_list_gives_the_jobs_of_ids_only(
    client: ChapClient, evaluated: Evaluated, service_url: str
) -> None:
    """As chap-core 2.5.1 filters ``GET /v1/jobs?ids=...``; a client waiting on one job reads
    that job alone."""
    everything = [job.id for job in client.list_jobs()]  # the dataset's and the evaluation's
    assert len(everything) >= 2
    for wanted in ([everything[-1]], [everything[-1], everything[0]]):
        listed = httpx.get(f"{service_url}/v1/jobs", params={"ids": wanted}, timeout=30).json()
        assert [job["id"] for job in listed] == [i for i in everything if i in wanted]
    assert httpx.get(f"{service_url}/v1/jobs", params={"ids": "no-such-job"}).json() == []


def test_job_results_give_the_created_rows(
    client: ChapClient, evaluated: Evaluated, service_url: str
) -> None:
    job = _job_named(client, "shared naive")
    result = client.job_database_result(job.id)
    assert result.result_type == "backtest" and result.id == evaluated.evaluation.id
    assert result.row["name"] == "shared naive"
    full = client.job_evaluation_result(job.id, quantiles=[0.5])
    assert full.id == evaluated.evaluation.id and len(full.forecasts) == 3 * 2 * 2
    assert (
        full.model_dump()
        == client.get_evaluation_full(evaluated.evaluation.id, quantiles=[0.5]).model_dump()
    )
    with pytest.raises(ConflictError, match="a create_backtest job, which creates no prediction"):
        client.job_prediction_result(job.id)
    with pytest.raises(NotFoundError):
        client.job_database_result("no-such-job")


def test_a_prediction_job_result_has_its_entries(client: ChapClient) -> None:
    frame = small_frame(n_years=2)
    done = client.wait_for_job(
        client.make_prediction_for_model("job result", "naive_model", frame, 2).id, timeout=120
    )
    full = client.job_prediction_result(done.id, quantiles=[0.1, 0.9])
    assert full.id == done.result_id and full.periods == ["201701", "201702"]
    assert full.dataset is not None and full.dataset.type == "prediction"
    assert len(full.forecasts) == 2 * 2 * 2
    assert client.job_database_result(done.id).result_type == "prediction"
    with pytest.raises(ConflictError, match="a create_prediction job, which creates no backtest"):
        client.job_evaluation_result(done.id)
    built = client.wait_for_job(client.make_dataset("job result data", frame).id, timeout=60)
    assert client.job_database_result(built.id).row["id"] == built.result_id
