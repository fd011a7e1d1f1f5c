"""Wire details the clients hide: long polling headers, the bare status string, typed OpenAPI,
job logs and cancelling; rows as wire models (``from_row``)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from types import SimpleNamespace

import httpx
import pytest

from chaplab.client import ChapClient, ConflictError
from chaplab.service.wire.common import from_row
from chaplab.service.wire.debug import DebugEntryRead

from .helpers import small_frame

pytestmark = pytest.mark.integration


def test_job_status_long_polls_until_it_changes(
    client: ChapClient, service_url: str, unique: str
) -> None:
    dataset = client.create_dataset(f"poll {unique}", small_frame(n_years=2))
    job = client.create_evaluation(
        f"poll {unique}", "naive_model", dataset.id, n_periods=1, n_splits=2
    )
    seen = []
    with httpx.Client(base_url=service_url, timeout=60) as http:
        for _ in range(20):
            answer = http.get(f"/v1/jobs/{job.id}", headers={"Prefer": "wait=10"})
            assert answer.headers["Preference-Applied"] == "wait=10"
            seen.append(answer.json())
            if seen[-1] in ("SUCCESS", "FAILURE"):
                break
        immediate = http.get(f"/v1/jobs/{job.id}")
    assert seen[-1] == "SUCCESS" and immediate.text == '"SUCCESS"'
    assert "Preference-Applied" not in immediate.headers
    logs = client.job_logs(job.id)
    assert "split 2/2" in logs and "finished" in logs


def test_a_held_status_request_for_an_ended_job_is_answered_at_once(
    client: ChapClient, service_url: str, unique: str
) -> None:
    """The job ended between the client's last look and its held request: an ended job's
    status never changes again, so holding the answer for the whole wait would only delay the
    client (by 30 s here, by 10 s in ``wait_for_job``)."""
    dataset = client.create_dataset(f"ended {unique}", small_frame(n_years=2))
    job = client.run_evaluation(f"ended {unique}", "naive_model", dataset.id, 1, 1, timeout=120)
    ended = next(j for j in client.list_jobs() if j.name == f"ended {unique}")
    with httpx.Client(base_url=service_url, timeout=60) as http:
        asked = time.monotonic()
        answer = http.get(f"/v1/jobs/{ended.id}", headers={"Prefer": "wait=30"})
        held = time.monotonic() - asked
    assert answer.json() == "SUCCESS" and job.name == f"ended {unique}"
    assert held < 15, f"the answer was held {held:.1f} s for a job that had ended"


def test_openapi_describes_typed_camel_case_responses(service_url: str) -> None:
    schema = httpx.get(f"{service_url}/openapi.json").json()
    components = schema["components"]["schemas"]
    assert "aggregateMetrics" in components["BacktestRead"]["properties"]
    assert "modelTemplateId" in components["ModelSpecRead"]["properties"]
    assert "start_time" in components["JobDescription"]["properties"]
    entry = schema["paths"]["/v1/analytics/evaluation-entry"]["get"]["responses"]["200"]
    assert "EvaluationEntry" in str(entry)


def test_cancelling_a_finished_job_is_refused_and_keeps_its_status(
    client: ChapClient, unique: str
) -> None:
    dataset = client.create_dataset(f"cancel {unique}", small_frame(n_years=2))
    job = client.wait_for_job(
        client.create_evaluation(f"cancel {unique}", "naive_model", dataset.id, 1, 1).id,
        timeout=120,
    )
    with pytest.raises(ConflictError, match="already finished with status SUCCESS"):
        client.cancel_job(job.id)
    assert client.job_status(job.id) == "SUCCESS"


def test_the_dataset_builder_stores_a_dataset_in_a_job(
    client: ChapClient, service_url: str, unique: str
) -> None:
    from .helpers import geojson_for, observations

    frame = small_frame(n_years=1)
    body = {
        "name": f"built {unique}",
        "geojson": geojson_for(sorted(set(frame.location))),
        "providedData": observations(frame),
        "dataSources": [{"covariate": "rainfall", "dataElementId": "DE_R"}],
    }
    answer = httpx.post(f"{service_url}/v1/analytics/make-dataset", json=body, timeout=30)
    assert answer.status_code == 200
    job = client.wait_for_job(answer.json()["id"], timeout=120)
    dataset = client.get_dataset(int(job.result))
    assert dataset.name == f"built {unique}" and dataset.data_sources[0].data_element_id == "DE_R"


def logs_of(http: httpx.Client, job_id: str) -> list[str]:
    """The lines of a job's log, a JSON string as chap-core 2.5.1 answers it."""
    text = http.get(f"/v1/jobs/{job_id}/logs").json()
    assert isinstance(text, str) and text.endswith("\n"), text
    return text.splitlines()


def test_every_time_is_sent_in_utc_with_its_zone(service_url: str) -> None:
    """``format: date-time`` needs an offset; the service stores and sends UTC."""
    with httpx.Client(base_url=service_url, timeout=60) as http:
        job = next(job for job in http.get("/v1/jobs").json() if job["end_time"])
        times = [
            http.get("/v1/crud/datasets").json()[0]["created"],
            http.get("/v1/crud/backtests").json()[0]["created"],
            job["created"],
            job["start_time"],
            job["end_time"],
            *(line.split(" ", 1)[0] for line in logs_of(http, job["id"])),
        ]
    assert all(text.endswith("Z") for text in times), times


def test_a_new_dataset_is_stamped_with_the_current_time_in_utc(
    client: ChapClient, unique: str
) -> None:
    """Whatever the database server's time zone (``make test-postgres`` runs one far from UTC)."""
    before = datetime.now(UTC).replace(microsecond=0)
    dataset = client.create_dataset(f"stamped {unique}", small_frame(n_years=1))
    after = datetime.now(UTC)
    assert dataset.created is not None
    assert before <= dataset.created <= after


def test_from_row_reads_fields_by_name_and_takes_the_rest_as_given() -> None:
    row = SimpleNamespace(
        id=7,
        message="stored",
        details={"attempt": 1},
        created=datetime(2026, 1, 1, 10, tzinfo=UTC),
        unrelated="left out",
    )
    read = from_row(DebugEntryRead, row, message="given")
    assert read.model_dump(by_alias=True, mode="json") == {
        "id": 7,
        "message": "given",
        "details": {"attempt": 1},
        "created": "2026-01-01T10:00:00Z",
    }
    with pytest.raises(ValueError, match="created"):
        from_row(DebugEntryRead, SimpleNamespace(id=7, message="m", details={}))
