"""An evaluation answers in chap-core 2.5.1's shapes: the list and one evaluation
(``/v1/crud/backtests/{id}`` and ``/info``) as 2.5.1's ``BacktestRead``, ``/full`` as its
``Backtest``, with the configured model in 2.5.1's shape and the specification it is filed
under."""

from __future__ import annotations

import httpx
import pytest

from chaplab.client import ChapClient
from chaplab.vocabulary import NON_TERMINAL_STATUSES
from wire_schemas import assert_matches_chap_core

from .helpers import Evaluated

pytestmark = pytest.mark.integration


def test_an_evaluation_answers_in_chap_core_shapes(service_url: str, evaluated: Evaluated) -> None:
    backtest = evaluated.evaluation.id
    with httpx.Client(base_url=service_url, timeout=60) as http:
        listed = http.get("/v1/crud/backtests")
        assert listed.status_code == 200
        assert_matches_chap_core("GET", "/v1/crud/backtests", listed.json())
        for path in (f"/v1/crud/backtests/{backtest}", f"/v1/crud/backtests/{backtest}/info"):
            answer = http.get(path)
            assert answer.status_code == 200
            assert_matches_chap_core("GET", path, answer.json())
        full = http.get(f"/v1/crud/backtests/{backtest}/full")
        assert full.status_code == 200
        assert_matches_chap_core("GET", f"/v1/crud/backtests/{backtest}/full", full.json())
        read = http.get(f"/v1/crud/backtests/{backtest}").json()
        specifications = http.get("/v1/crud/backtest-specifications").json()
    assert read["specificationId"] in {specification["id"] for specification in specifications}
    assert read["nRetrain"] == 1
    assert read["configuredModel"]["name"] == "naive_model"
    assert read["configuredModel"]["modelTemplate"]["name"] == "naive_model"
    assert [row["id"] for row in listed.json() if row["id"] == backtest] == [backtest]


def test_an_evaluation_is_listed_on_its_specification(
    service_url: str, evaluated: Evaluated
) -> None:
    with httpx.Client(base_url=service_url, timeout=60) as http:
        read = http.get(f"/v1/crud/backtests/{evaluated.evaluation.id}").json()
        leaderboard = http.get(f"/v1/crud/backtest-specifications/{read['specificationId']}")
    assert leaderboard.status_code == 200
    assert evaluated.evaluation.id in {row["id"] for row in leaderboard.json()["backtests"]}
    # reading a leaderboard queues the baselines it lacks (as 2.5.1 does): let them finish, so
    # that later tests of this shared service see no evaluation appear under them
    with ChapClient(service_url) as client:
        for job in client.list_jobs():
            if job.status in NON_TERMINAL_STATUSES:
                client.wait_for_job(job.id, timeout=300)
