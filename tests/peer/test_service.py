"""What a user sees first of a chap-core server: it is up, and which release it runs."""

from __future__ import annotations

import re

import pytest

import chaplab
from chaplab import ChapClient


def test_health_reports_a_healthy_server(peer_client: ChapClient) -> None:
    health = peer_client.health()
    assert health.status == "success"
    assert health.message == "healthy"


def test_system_info_names_the_chap_core_release_and_no_authentication(
    peer_client: ChapClient,
) -> None:
    info = peer_client.system_info()
    assert re.fullmatch(r"\d+\.\d+\.\d+", info.chap_core_version), info
    assert info.auth_required is False


def test_connect_follows_chap_url_to_the_server(
    monkeypatch: pytest.MonkeyPatch, peer_url: str
) -> None:
    monkeypatch.setenv("CHAP_URL", peer_url)
    monkeypatch.delenv("CHAP_API_KEY", raising=False)
    with chaplab.connect() as client:
        assert client.base_url == peer_url
        assert client.has_api_key is False
        assert "naive_model" in {model.name for model in client.list_configured_models()}
