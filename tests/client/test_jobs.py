"""Jobs: status, logs, cancel, delete, results, and ``wait_for_job`` on the fake clock
(no real waiting, sleeps counted)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from chaplab.client import (
    ArgumentTypeError,
    ChapDecodeError,
    ConflictError,
    Job,
    JobFailedError,
    JobTimeoutError,
    NotFoundError,
    PollSchedule,
    UnsupportedRouteError,
)
from chaplab.client._jobs import LISTING_WAIT, RECHECK_INTERVAL

from .chap_core_mock import ChapCoreMock, without
from .fake_service import FakeService


def status_requests(fake: FakeService, job_id: str) -> int:
    return fake.paths().count(f"GET /v1/jobs/{job_id}")


def test_jobs(client: Any, fake: FakeService) -> None:
    fake.add_job(id="j1", result="12")
    assert client.job_status("j1") == "STARTED"
    [listed] = client.list_jobs()
    assert (listed.id, listed.status, listed.result) == ("j1", "STARTED", None)
    fake.clock.sleep(5)
    job = client.get_job("j1")
    assert (job.status, job.result, job.result_id) == ("SUCCESS", "12", 12)
    assert job.is_terminal and job.succeeded
    assert job.start_time.year == 2026
    assert fake.paths() == ["GET /v1/jobs/j1", "GET /v1/jobs", "GET /v1/jobs"]


def test_job_logs(client: Any, fake: FakeService) -> None:
    fake.add_job(id="j1", logs="line 1\nline 2\n")
    assert client.job_logs("j1") == "line 1\nline 2\n"
    assert fake.paths() == ["GET /v1/jobs/j1/logs"]


def test_job_result_that_is_not_an_id() -> None:
    assert Job(id="x", result="done").result_id is None
    assert Job(id="x", result=None).result_id is None
    assert Job.model_validate({"id": "x", "result": 3}).result == "3"


@pytest.mark.parametrize("bad", [None, "", 3])
def test_bad_job_id_is_refused(client: Any, bad: Any) -> None:
    with pytest.raises(TypeError, match="job_id"):
        client.job_status(bad)


def test_cancel_and_delete_job(client: Any, fake: FakeService) -> None:
    fake.add_job(id="j1", finish_at=fake.clock.now + 100)
    cancellation = client.cancel_job("j1")
    assert (cancellation.job_id, cancellation.status) == ("j1", "REVOKED")
    assert cancellation.cancelled and not cancellation.may_still_run
    assert repr(cancellation) == "JobCancellation(job 'j1': cancelled; status REVOKED)"
    assert client.job_status("j1") == "REVOKED"
    assert client.delete_job("j1") is None
    assert client.list_jobs() == []
    assert fake.paths()[:3] == ["POST /v1/jobs/j1/cancel", "GET /v1/jobs/j1", "GET /v1/jobs/j1"]


def test_a_cancel_answered_with_the_job_is_not_read_again(client: Any, fake: FakeService) -> None:
    fake.cancel_answers_the_job = True
    fake.add_job(id="j1", finish_at=fake.clock.now + 100)
    assert client.cancel_job("j1").cancelled
    assert fake.paths() == ["POST /v1/jobs/j1/cancel"]


def test_a_cancel_the_worker_ignores_says_the_job_may_still_run(
    client: Any, fake: FakeService
) -> None:
    fake.cancel_stops_started_jobs = False  # chap-core 2.5.1: "cancelled", and it runs on
    fake.add_job(id="j1", result="9", finish_at=fake.clock.now + 60)
    cancellation = client.cancel_job("j1")
    assert cancellation.status == "STARTED" and cancellation.message == (
        "Job j1 has been cancelled"
    )
    assert cancellation.may_still_run and not cancellation.cancelled
    assert "may still run" in repr(cancellation) and "may still run" in str(cancellation)
    assert fake.clock.now - 1000 >= 5  # its status was read for a while before saying so
    assert client.get_job("j1").status == "REVOKED"  # what the job list claims
    job = client.wait_for_job("j1")  # the status route is believed, not the list
    assert (job.status, job.result_id) == ("SUCCESS", 9)


def test_a_cancel_that_came_too_late_says_the_job_ended(client: Any, fake: FakeService) -> None:
    fake.cancel_stops_started_jobs = False
    fake.add_job(id="j1", result="9", finish_at=fake.clock.now + 1)
    cancellation = client.cancel_job("j1")
    assert cancellation.status == "SUCCESS"
    assert not cancellation.cancelled and not cancellation.may_still_run
    assert "not cancelled" in repr(cancellation)


def test_a_queued_job_revoked_a_moment_after_the_cancel_is_reported_cancelled(
    client: Any, fake: FakeService
) -> None:
    fake.cancel_stops_started_jobs, fake.revoke_delay = False, 2.0  # as chap-core 2.5.1
    fake.add_job(id="j1", started_at=fake.clock.now + 30, finish_at=fake.clock.now + 60)
    cancellation = client.cancel_job("j1")
    assert cancellation.cancelled and cancellation.status == "REVOKED"
    assert 2 <= fake.clock.now - 1000 < 3


def test_wait_waits_for_a_job_list_that_lags_behind_the_status(
    client: Any, fake: FakeService
) -> None:
    fake.add_job(id="j1", result="4", finish_at=fake.clock.now + 3.0, listed_lag=2.0)
    job = client.wait_for_job("j1")
    assert (job.status, job.result_id) == ("SUCCESS", 4)
    assert fake.clock.now >= 1005.0


def test_wait_says_so_when_the_job_list_never_shows_the_success(
    client: Any, fake: FakeService
) -> None:
    fake.add_job(id="j1", result="4", finish_at=fake.clock.now + 3.0, listed_lag=600.0)
    with pytest.raises(ChapDecodeError, match=r"'j1' succeeded .* still lists it STARTED"):
        client.wait_for_job("j1")
    assert 1013.0 <= fake.clock.now < 1015.0


def test_job_ids_are_escaped_in_paths(client: Any, fake: FakeService) -> None:
    fake.add_job(id="a/b")
    client.job_status("a/b")
    assert fake.requests[-1].url.raw_path == b"/v1/jobs/a%2Fb"


def test_a_job_without_success_raises_a_conflict_with_the_reason(call: Callable[..., Any]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        assert request.url.raw_path.startswith(b"/v1/jobs/j%2F1/evaluation_result?")
        return httpx.Response(
            409,
            json={
                "type": "urn:service:error:conflict",
                "title": "Conflict",
                "status": 409,
                "detail": "job j/1 did not succeed",
            },
            headers={"content-type": "application/problem+json"},
        )

    with pytest.raises(ConflictError, match="did not succeed"):
        call(handler, "job_evaluation_result", "j/1")


def test_wait_returns_the_finished_job(client: Any, fake: FakeService) -> None:
    fake.add_job(id="j1", result="4", finish_at=fake.clock.now + 3.0)
    job = client.wait_for_job("j1")
    assert (job.status, job.result_id) == ("SUCCESS", 4)
    assert fake.clock.now >= 1003.0
    assert fake.paths()[0] == "GET /v1/jobs/j1"  # the status route first: STARTED, on record
    assert "GET /v1/jobs" not in fake.paths()[:-1]  # no list read before the job ended
    assert fake.paths()[-1] == "GET /v1/jobs"  # the result comes from the list


def test_a_queued_job_is_looked_for_in_the_job_list_once(client: Any, fake: FakeService) -> None:
    """PENDING is what some servers say of any id: the list is asked once whether the job is
    on record, not at every poll while it waits in the queue."""
    fake.add_job(id="j1", result="4", started_at=fake.clock.now + 30, finish_at=fake.clock.now + 40)
    assert client.wait_for_job("j1").result_id == 4
    lists = [index for index, path in enumerate(fake.paths()) if path == "GET /v1/jobs"]
    assert len(lists) == 2 and lists[-1] == len(fake.paths()) - 1  # once queued, once ended
    assert status_requests(fake, "j1") > 3


def test_wait_notices_the_end_soon(client: Any, fake: FakeService) -> None:
    fake.add_job(id="j1", finish_at=fake.clock.now + 4.0)
    client.wait_for_job("j1")
    assert fake.clock.now - 1004.0 <= PollSchedule().plateau


def test_unknown_job_id_is_not_waited_on(client: Any, fake: FakeService) -> None:
    with pytest.raises(NotFoundError, match="'nope' is not on record"):
        client.wait_for_job("nope", timeout=60)
    assert fake.paths() == ["GET /v1/jobs/nope"]  # the route answers 404: no list is read
    with pytest.raises(NotFoundError, match="'nope'"):
        client.get_job("nope")


def test_a_server_calling_any_id_pending_is_not_waited_on_past_the_listing_wait(
    client: Any, fake: FakeService
) -> None:
    fake.unknown_job_is_pending = True
    start = fake.clock.now
    with pytest.raises(NotFoundError, match="'nope' is not on record"):
        client.wait_for_job("nope", timeout=600)
    assert fake.clock.now - start == pytest.approx(LISTING_WAIT, abs=RECHECK_INTERVAL)


def test_a_job_it_cannot_find_is_not_waited_on_past_the_timeout(
    client: Any, fake: FakeService
) -> None:
    fake.unknown_job_is_pending = True
    start = fake.clock.now
    with pytest.raises(NotFoundError, match="'nope' is not on record"):
        client.wait_for_job("nope", timeout=5)
    assert fake.clock.now - start == pytest.approx(5)


def test_a_job_list_that_lags_is_not_waited_on_past_the_timeout(
    client: Any, fake: FakeService
) -> None:
    fake.add_job(id="j1", result="4", finish_at=fake.clock.now + 3.0, listed_lag=600.0)
    start = fake.clock.now
    with pytest.raises(ChapDecodeError, match=r"'j1' succeeded .* still lists it STARTED"):
        client.wait_for_job("j1", timeout=6)
    assert fake.clock.now - start == pytest.approx(6)


def test_a_job_listed_a_moment_after_it_was_queued_is_waited_on(
    client: Any, fake: FakeService
) -> None:
    fake.add_job(id="j1", listed_after=fake.clock.now + 0.6)
    assert client.wait_for_job("j1").succeeded


def test_failed_job_carries_status_error_and_logs(client: Any, fake: FakeService) -> None:
    fake.add_job(
        id="j1",
        final_status="FAILURE",
        error="ValueError: no data",
        logs="Traceback ...\nValueError: no data\n",
    )
    with pytest.raises(JobFailedError) as caught:
        client.wait_for_job("j1")
    error = caught.value
    assert (error.status, error.error) == ("FAILURE", "ValueError: no data")
    assert error.logs.startswith("Traceback")
    assert error.job.id == "j1"
    assert str(error) == "ValueError: no data"
    assert error.details == "ValueError: no data\n\nTraceback ...\nValueError: no data"
    assert error._short_traceback() == [
        "JobFailedError: ValueError: no data",
        "(the job's error and log: .details, or client.job_logs('j1'))",
    ]


def test_failed_job_without_logs(client: Any, fake: FakeService) -> None:
    fake.add_job(id="j1", final_status="REVOKED", finish_at=fake.clock.now)
    with pytest.raises(JobFailedError) as caught:
        client.wait_for_job("j1")
    assert (caught.value.status, caught.value.logs, caught.value.error) == ("REVOKED", None, None)
    assert str(caught.value) == caught.value.details == "job 'j1' was cancelled"
    assert status_requests(fake, "j1") == 1  # the list's REVOKED, confirmed once


def test_unknown_terminal_status_is_a_failure(client: Any, fake: FakeService) -> None:
    fake.add_job(id="j1", final_status="EXPLODED")
    with pytest.raises(JobFailedError, match="EXPLODED"):
        client.wait_for_job("j1")


def test_lower_case_statuses(client: Any, fake: FakeService) -> None:
    fake.lower_case_status = True
    fake.add_job(id="j1", result="2")
    assert client.job_status("j1") == "STARTED"
    job = client.wait_for_job("j1")
    assert job.status == "SUCCESS" and job.succeeded


def test_timeout_says_the_job_keeps_running(client: Any, fake: FakeService) -> None:
    fake.add_job(id="j1", finish_at=fake.clock.now + 10_000)
    with pytest.raises(JobTimeoutError) as caught:
        client.wait_for_job("j1", timeout=30)
    error = caught.value
    assert (error.job_id, error.last_status, error.timeout) == ("j1", "STARTED", 30)
    assert "keeps running" in str(error) and "'j1'" in str(error)
    assert fake.clock.now == pytest.approx(1030.0)


def test_a_timeout_is_said_as_it_was_asked_for(client: Any, fake: FakeService) -> None:
    """On a clock that moves while it is read, as a real one does."""
    fake.clock.per_read = 0.001
    fake.add_job(id="j1", finish_at=fake.clock.now + 10_000)
    with pytest.raises(JobTimeoutError) as caught:
        client.wait_for_job("j1", timeout=30)
    assert caught.value.timeout == 30
    assert "did not finish within 30 s" in str(caught.value)


def test_fixed_poll_interval(client: Any, fake: FakeService) -> None:
    fake.add_job(id="j1", finish_at=fake.clock.now + 5.0)
    client.wait_for_job("j1", poll_interval=1.0)
    assert set(fake.clock.sleeps) == {1.0}
    assert status_requests(fake, "j1") == 6


def test_adaptive_schedule_costs_at_most_30_requests_for_a_minute(
    client: Any, fake: FakeService
) -> None:
    fake.add_job(id="j1", finish_at=fake.clock.now + 60.0)
    client.wait_for_job("j1")
    assert status_requests(fake, "j1") <= 30
    assert max(fake.clock.sleeps) <= 5.0
    assert fake.clock.sleeps[0] < fake.clock.sleeps[-1]


def test_prefer_wait_is_sent_and_honoured(client: Any, fake: FakeService) -> None:
    fake.honour_prefer_wait = True
    fake.add_job(id="j1", finish_at=fake.clock.now + 25.0)
    client.wait_for_job("j1", timeout=100)
    status = [r for r in fake.requests if r.url.path == "/v1/jobs/j1"]
    assert [r.headers["Prefer"] for r in status] == ["wait=10", "wait=10", "wait=10"]
    assert fake.clock.sleeps == []  # the server held each answer; no client-side sleeping


def test_prefer_wait_shrinks_with_the_remaining_time(client: Any, fake: FakeService) -> None:
    fake.honour_prefer_wait = True
    fake.add_job(id="j1", finish_at=fake.clock.now + 100.0)
    with pytest.raises(JobTimeoutError):
        client.wait_for_job("j1", timeout=13.5)
    status = [r.headers.get("Prefer") for r in fake.requests if r.url.path == "/v1/jobs/j1"]
    assert status[:2] == ["wait=10", "wait=3"]


def test_bad_wait_arguments(client: Any, fake: FakeService) -> None:
    fake.add_job(id="j1")
    with pytest.raises(ValueError, match="timeout"):
        client.wait_for_job("j1", timeout=0)
    with pytest.raises(ValueError, match="poll_interval"):
        client.wait_for_job("j1", poll_interval=-1)


@pytest.mark.parametrize("lower_case", [False, True], ids=["upper-case", "lower-case"])
def test_on_status_hears_each_status_once_in_order(
    client: Any, fake: FakeService, lower_case: bool
) -> None:
    fake.lower_case_status = lower_case
    fake.add_job(id="j1", started_at=fake.clock.now + 1.0, finish_at=fake.clock.now + 3.0)
    seen: list[str] = []
    job = client.wait_for_job("j1", on_status=seen.append)
    assert seen == ["PENDING", "STARTED", "SUCCESS"]
    assert job.status == "SUCCESS"
    assert status_requests(fake, "j1") > len(seen)  # repeated statuses are not reported again


def test_on_status_hears_the_failure_before_the_error(client: Any, fake: FakeService) -> None:
    fake.add_job(id="j1", final_status="FAILURE", error="ValueError: no data")
    seen: list[str] = []
    with pytest.raises(JobFailedError):
        client.wait_for_job("j1", on_status=seen.append)
    assert seen == ["STARTED", "FAILURE"]


def test_on_status_hears_the_last_status_before_a_timeout(client: Any, fake: FakeService) -> None:
    fake.add_job(id="j1", started_at=fake.clock.now + 5.0, finish_at=fake.clock.now + 10_000)
    seen: list[str] = []
    with pytest.raises(JobTimeoutError):
        client.wait_for_job("j1", timeout=30, on_status=seen.append)
    assert seen == ["PENDING", "STARTED"]


def test_an_error_in_on_status_ends_the_wait(client: Any, fake: FakeService) -> None:
    fake.add_job(id="j1", finish_at=fake.clock.now + 3.0)

    def refuse(status: str) -> None:
        raise RuntimeError(f"cannot show {status}")

    with pytest.raises(RuntimeError, match="cannot show STARTED"):
        client.wait_for_job("j1", on_status=refuse)
    assert status_requests(fake, "j1") == 1  # nothing was polled after the callback failed


def test_on_status_must_be_callable(client: Any, fake: FakeService) -> None:
    fake.add_job(id="j1")
    with pytest.raises(TypeError, match="on_status must be a callable"):
        client.wait_for_job("j1", on_status="print")
    assert fake.requests == []


def test_a_database_result_that_is_only_an_id(call: Callable[..., Any]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/jobs":
            return httpx.Response(
                200,
                json=[{"id": "j1", "type": "create_backtest", "status": "SUCCESS", "result": "12"}],
            )
        return httpx.Response(200, json={"id": 12})

    result = call(handler, "job_database_result", "j1")
    assert (result.job_id, result.result_type, result.id, result.row) == ("j1", "backtest", 12, {})


def test_cancelling_a_stopped_job_is_a_conflict_also_where_the_server_says_400(
    call: Callable[..., Any],
) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            400, json={"detail": "Cannot cancel a job that has already finished or been cancelled"}
        )

    with pytest.raises(ConflictError, match="already finished") as caught:
        call(handler, "cancel_job", "j1")
    assert caught.value.status_code == 400


def test_a_jobs_request_is_the_body_it_was_submitted_with(call: Callable[..., Any]) -> None:
    sent = {"name": "E naive", "modelId": "naive_model", "datasetId": 2, "nPeriods": 3}
    mock = ChapCoreMock(
        {
            "GET /v1/jobs/job-1/request": httpx.Response(200, json=sent),
            "GET /v1/jobs/gone/request": httpx.Response(
                404, json={"detail": "No request captured for job gone"}
            ),
        }
    )
    assert call(mock.handler, "job_request", "job-1") == sent
    with pytest.raises(NotFoundError, match="No request captured"):
        call(mock.handler, "job_request", "gone")
    with pytest.raises(TypeError, match="job_id must be"):
        call(mock.handler, "job_request", 7)


def test_a_job_id_with_a_slash_asks_for_that_jobs_request(call: Callable[..., Any]) -> None:
    seen: list[bytes] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.raw_path)
        return httpx.Response(200, json={"name": "E"})

    assert call(handler, "job_request", "j/1") == {"name": "E"}
    assert seen[-1] == b"/v1/jobs/j%2F1/request"


def test_a_server_that_keeps_no_requests_names_get_job(call: Callable[..., Any]) -> None:
    mock = ChapCoreMock({}, openapi=without("GET /v1/jobs/{job_id}/request"))
    with pytest.raises(UnsupportedRouteError, match=r"get_job\(job_id\)"):
        call(mock.handler, "job_request", "job-1")
    assert mock.seen == []


@pytest.mark.parametrize(
    ("job", "result", "created", "asked"),
    [
        ("j1", "12", 12, ["GET /v1/jobs"]),
        (
            "j1",
            "stored backtest",
            34,
            ["GET /v1/jobs", "GET /v1/jobs/j1/database_result", "GET /v1/jobs"],
        ),
        (Job(id="j1", status="SUCCESS", result="12"), "12", 12, []),
        (
            Job(id="j1", status="SUCCESS", result=None),
            None,
            34,
            ["GET /v1/jobs/j1/database_result", "GET /v1/jobs"],
        ),
    ],
)
def test_the_id_a_job_created_is_its_result_or_its_database_result(
    call: Callable[..., Any], job: Job | str, result: str | None, created: int, asked: list[str]
) -> None:
    """One operation for the row a job created, given the job or its id: the result where it
    is the id, else the database result (chap-core 2.5.1 answers only ``{"id": N}``)."""
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(f"{request.method} {request.url.path}")
        if request.url.path == "/v1/jobs":
            return httpx.Response(
                200,
                json=[
                    {"id": "j1", "type": "create_backtest", "status": "SUCCESS", "result": result}
                ],
            )
        return httpx.Response(200, json={"id": 34})

    assert call(handler, "job_created_id", job) == created
    assert seen == asked


def test_the_id_a_job_created_needs_a_job_or_its_id(call: Callable[..., Any]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"sent {request.url}")

    with pytest.raises(ArgumentTypeError, match="job must be a Job or a job id string, got int 3"):
        call(handler, "job_created_id", 3)
