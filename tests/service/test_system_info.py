"""``/system/info`` answers as chap-core 2.5.1's does, so that clients written for chap-core
(DHIS2's Modeling App compares ``chap_core_version`` with the version it needs) accept our
service: the chap-core API version it speaks, with chaplab's own version in a field of its own."""

from __future__ import annotations

import httpx
import pytest

import chaplab
from chaplab.client import ChapClient
from wire_schemas import assert_matches_chap_core

pytestmark = pytest.mark.integration


def test_system_info_names_the_api_version_spoken_and_our_own(service_url: str) -> None:
    answer = httpx.get(f"{service_url}/system/info")
    assert answer.status_code == 200
    info = answer.json()
    assert_matches_chap_core("GET", "/system/info", info)
    assert info["chap_core_version"] == "2.5.1"
    assert info["chaplab_version"] == chaplab.__version__
    assert info["auth_required"] is False
    assert isinstance(info["revision"], str)
    with ChapClient(service_url) as client:
        read = client.system_info()
    assert read.service_version == f"chaplab {chaplab.__version__}"
    assert read.auth_required is False
