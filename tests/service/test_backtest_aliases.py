"""The non-deprecated spellings of 2.5.1 answer as the routes they stand beside:
``/v1/analytics/actual-cases/{id}`` as ``actualCases/{id}`` and ``/v1/crud/backtests/{id}`` as
``/v1/crud/backtests/{id}/info``; ``isDatasetId=true`` reads the id as a dataset's."""

from __future__ import annotations

import httpx
import pytest

from wire_schemas import assert_matches_chap_core

from .helpers import Evaluated

pytestmark = pytest.mark.integration


def test_the_aliases_answer_as_the_routes_beside_them(
    service_url: str, evaluated: Evaluated
) -> None:
    backtest = evaluated.evaluation.id
    with httpx.Client(base_url=service_url, timeout=60) as http:
        cases = http.get(f"/v1/analytics/actual-cases/{backtest}")
        assert cases.status_code == 200
        assert cases.json() == http.get(f"/v1/analytics/actualCases/{backtest}").json()
        assert_matches_chap_core("GET", f"/v1/analytics/actual-cases/{backtest}", cases.json())
        # the evaluation answers as /info does (2.5.1's BacktestRead, see test_backtest_schemas)
        read = http.get(f"/v1/crud/backtests/{backtest}")
        assert read.status_code == 200
        assert read.json() == http.get(f"/v1/crud/backtests/{backtest}/info").json()
        assert read.json()["id"] == backtest
        by_dataset = http.get(
            f"/v1/analytics/actual-cases/{evaluated.dataset.id}", params={"isDatasetId": "true"}
        )
        assert by_dataset.status_code == 200
        assert_matches_chap_core("GET", "/v1/analytics/actual-cases/1", by_dataset.json())
        assert by_dataset.json() == cases.json()  # the evaluation's dataset, whole
        assert (
            http.get("/v1/analytics/actual-cases/999999", params={"isDatasetId": "true"})
        ).status_code == 404
        one_unit = http.get(
            f"/v1/analytics/actual-cases/{backtest}", params={"orgUnits": "OU_missing"}
        )
        assert one_unit.status_code == 422 and "orgUnits" in one_unit.text
        assert http.get("/v1/crud/backtests/999999").status_code == 404
