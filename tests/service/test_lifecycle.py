"""Auth on and off, restart on the same database, body limits, command line, connect()."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from chaplab.client import AuthenticationError, ChapClient
from chaplab.service import create_app
from chaplab.toolkit import BackgroundServer

from .helpers import small_frame

pytestmark = pytest.mark.integration
KEY = "sk_test_0123456789abcdefghij"


def test_with_keys_every_resource_needs_one_but_health_does_not(tmp_path: Path) -> None:
    app = create_app(tmp_path / "auth.db", api_keys=[KEY], seed_demo=False)
    with BackgroundServer(app, "127.0.0.1") as server:
        with ChapClient(server.url) as anonymous:
            assert anonymous.health().status == "success"
            with pytest.raises(AuthenticationError):
                anonymous.list_datasets()
        with (
            ChapClient(server.url, api_key="sk_test_wrong_key_000000") as wrong,
            pytest.raises(AuthenticationError),
        ):
            wrong.list_models()
        with ChapClient(server.url, api_key=KEY) as keyed:
            assert [t.name for t in keyed.list_model_templates()]
            assert keyed.list_datasets() == []


def test_keys_from_the_environment_turn_auth_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key_file = tmp_path / "keys"
    key_file.write_text(f"# service keys\n{KEY}\n")
    monkeypatch.setenv("SERVICE_API_KEY_FILE", str(key_file))
    with BackgroundServer(create_app(tmp_path / "env.db", seed_demo=False), "127.0.0.1") as server:
        with pytest.raises(AuthenticationError):
            ChapClient(server.url).list_datasets()
        assert ChapClient(server.url, api_key=KEY).list_datasets() == []


def test_a_restart_keeps_everything_and_fails_interrupted_jobs(
    new_database_url: Callable[[str], str],
) -> None:
    database = new_database_url("restart")
    with (
        BackgroundServer(create_app(database), "127.0.0.1") as server,
        ChapClient(server.url) as client,
    ):
        dataset = client.create_dataset("kept", small_frame(n_years=2))
        model = client.create_configured_model("kept", client.list_model_templates()[0].id)
        evaluation = client.run_evaluation("kept", model.name, dataset.id, 1, 2, timeout=120)
        before = {
            "datasets": [d.model_dump() for d in client.list_datasets()],
            "models": [m.model_dump() for m in client.list_models()],
            "evaluations": [e.model_dump() for e in client.list_evaluations()],
            "jobs": [j.model_dump() for j in client.list_jobs()],
            "entries": [e.model_dump() for e in client.evaluation_entries(evaluation.id, [0.3])],
        }
    _leave_a_job_running(database)
    with (
        BackgroundServer(create_app(database), "127.0.0.1") as server,
        ChapClient(server.url) as client,
    ):
        assert [d.model_dump() for d in client.list_datasets()] == before["datasets"]
        assert [m.model_dump() for m in client.list_models()] == before["models"]
        assert [e.model_dump() for e in client.list_evaluations()] == before["evaluations"]
        assert [e.model_dump() for e in client.evaluation_entries(evaluation.id, [0.3])] == before[
            "entries"
        ]
        jobs = {job.id: job for job in client.list_jobs()}
        assert all(
            job["id"] in jobs and jobs[job["id"]].status == job["status"] for job in before["jobs"]
        )
        interrupted = jobs["interrupted-job"]
        assert interrupted.status == "FAILURE" and "service restarted" in interrupted.error
        assert client.job_status("interrupted-job") == "FAILURE"


def _leave_a_job_running(database: str) -> None:
    """Write the row a service killed mid-job would leave behind."""
    engine = create_engine(database)
    with engine.begin() as connection:
        connection.exec_driver_sql(
            "INSERT INTO jobs (id, type, name, status, created, start_time, payload) "
            "VALUES ('interrupted-job', 'create_backtest', 'cut short', 'STARTED', "
            "'2026-01-01 10:00:00', '2026-01-01 10:00:01', '{}')"
        )
    engine.dispose()


def test_serving_beyond_loopback_without_keys_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from chaplab.cli import main

    with pytest.raises(SystemExit) as stopped:
        main(["serve", "--host", "0.0.0.0", "--database", "unused.db"])
    assert stopped.value.code == 2
    assert "--no-auth" in capsys.readouterr().err


def test_a_body_over_the_configured_limit_is_refused_with_413(tmp_path: Path) -> None:
    import httpx

    app = create_app(tmp_path / "limit.db", seed_demo=False, max_body_bytes=1000)
    with BackgroundServer(app, "127.0.0.1") as server:
        small = httpx.post(f"{server.url}/v1/crud/configured-models", json={"name": "x"})
        large = httpx.post(f"{server.url}/v1/crud/configured-models", json={"name": "x" * 2000})
    assert small.status_code == 422
    assert large.status_code == 413
    assert large.json()["type"] == "urn:service:error:content-too-large"


@pytest.mark.parametrize("value", ["0", "-5", "inf"])
def test_a_body_limit_that_is_not_a_positive_size_is_refused(
    value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from chaplab.cli import main

    with pytest.raises(SystemExit) as stopped:
        main(["serve", "--max-body-mb", value, "--database", "unused.db"])
    assert stopped.value.code == 2
    assert "--max-body-mb must be a positive number" in capsys.readouterr().err


def test_a_port_in_use_is_reported_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    from chaplab.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(
            ["serve", "--port", str(port), "--database", str(tmp_path / "c.db"), "--no-demo"]
        )
    error = capsys.readouterr().err
    assert code == 1
    assert f"cannot listen on 127.0.0.1:{port}" in error
    assert "--port 0" in error
    assert "Traceback" not in error


@pytest.mark.parametrize(
    ("database", "reason"),
    [
        ("postgresql+psycopg://someone:s3cret@127.0.0.1:1/chap", "Connection refused"),
        ("mysql://someone:s3cret@127.0.0.1/chap", "its driver is not installed"),
        ("nosuchdialect://127.0.0.1/chap", "no such kind of database here"),
    ],
)
def test_a_database_that_cannot_be_opened_is_one_sentence(
    database: str, reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from chaplab.cli import main

    code = main(["serve", "--port", "0", "--database", database, "--no-demo"])
    error = capsys.readouterr().err
    assert code == 1
    assert error.startswith("chaplab serve: --database ") and "cannot be opened: " in error
    assert reason in error
    assert "s3cret" not in error and "Traceback" not in error
    assert len(error.strip().splitlines()) == 1


def test_connect_uses_chap_url_when_set(service_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from chaplab import connect

    monkeypatch.setenv("CHAP_URL", service_url)
    monkeypatch.setenv("CHAP_API_KEY", "sk_any_key_for_this_test")
    with connect() as client:
        assert client.system_info().python_version


def test_the_embedded_service_starts_answers_and_stops(tmp_path: Path) -> None:
    from chaplab.service.embedded import start_embedded

    service = start_embedded(tmp_path)
    try:
        with ChapClient(service.url) as client:
            assert {d.type for d in client.list_datasets()} == {"evaluation", "prediction"}
            assert client.list_evaluations()
    finally:
        service.stop()
    assert service.process.returncode is not None
    assert (tmp_path / "chaplab.db").exists()


def test_the_embedded_service_is_private_whatever_key_variables_are_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chaplab.service.embedded import start_embedded

    monkeypatch.setenv("SERVICE_API_KEYS", "meant-for-another-service-0123")
    service = start_embedded(tmp_path)
    try:
        with ChapClient(service.url) as client:
            assert client.list_datasets()
    finally:
        service.stop()
