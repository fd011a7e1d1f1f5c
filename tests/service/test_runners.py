"""The registry of external model runners: registering, pings, staleness, bad URLs."""

from __future__ import annotations

import httpx
import pytest

from chaplab.client import ChapClient, NotFoundError, UnprocessableEntityError

pytestmark = pytest.mark.integration


def test_a_runner_is_registered_pinged_and_removed(client: ChapClient, unique: str) -> None:
    url = f"http://runner-{unique}.example:9000"
    runner = client.register_model_runner(url + "/", {"name": "ewars", "version": "2"})
    assert runner.url == url and runner.info == {"name": "ewars", "version": "2"}
    assert runner.status == "live" and not runner.is_stale and runner.ping_count == 0
    assert runner.id in [r.id for r in client.list_model_runners()]
    pinged = client.ping_model_runner(runner.id)
    assert pinged.ping_count == 1 and pinged.last_ping_at >= runner.last_ping_at
    again = client.register_model_runner(url, {"name": "ewars", "version": "3"})
    assert again.id == runner.id and again.info["version"] == "3" and again.ping_count == 2
    assert client.get_model_runner(runner.id).info["version"] == "3"
    client.remove_model_runner(runner.id)
    for call in (client.get_model_runner, client.ping_model_runner, client.remove_model_runner):
        with pytest.raises(NotFoundError):
            call(runner.id)


def test_a_runner_not_pinged_in_time_shows_as_stale(
    client: ChapClient, unique: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = client.register_model_runner(f"https://stale-{unique}.example")
    monkeypatch.setenv("CHAPLAB_RUNNER_STALE_SECONDS", "0.000001")
    import time

    time.sleep(1.1)  # stored times have whole seconds
    stale = client.get_model_runner(runner.id)
    assert stale.is_stale and stale.stale_after_seconds == pytest.approx(0.000001)
    monkeypatch.setenv("CHAPLAB_RUNNER_STALE_SECONDS", "3600")
    assert client.ping_model_runner(runner.id).status == "live"
    monkeypatch.setenv("CHAPLAB_RUNNER_STALE_SECONDS", "soon")
    assert (
        client.get_model_runner(runner.id).stale_after_seconds == 300
    )  # a bad setting: the default
    client.remove_model_runner(runner.id)


@pytest.mark.parametrize("url", ["ftp://host/x", "not a url", "http://", "http://user:pw@host"])
def test_a_runner_url_must_be_http_with_a_host(client: ChapClient, url: str) -> None:
    with pytest.raises(UnprocessableEntityError, match="url"):
        client.register_model_runner(url)


def test_a_registration_refuses_unknown_fields(service_url: str) -> None:
    answer = httpx.post(
        f"{service_url}/v2/services/$register", json={"url": "http://x", "colour": "red"}
    )
    assert answer.status_code == 422 and "colour" in answer.text
