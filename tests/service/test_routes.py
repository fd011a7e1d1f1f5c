"""``/openapi.json`` lists every endpoint of both tables of spec section 4, each with typed
request and response schemas.

The expected routes are checked in below, and so are the spec's two tables themselves
(``spec_endpoints.md``, copied verbatim): the tables are parsed and must agree with the list.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.integration

SPEC_TABLES = Path(__file__).with_name("spec_endpoints.md")
TABLES = ("### Modeling service", "### Further endpoints (purpose only)")
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")

MAIN_TABLE = """
GET /system/info
GET /v1/crud/datasets
GET /v1/crud/datasets/{id}
GET /v1/crud/model-templates
GET /v1/crud/models
GET /v1/crud/configured-models
POST /v1/crud/configured-models
GET /v1/crud/configured-models-with-data-source
GET /v1/crud/configured-models-with-data-source/{id}
POST /v1/crud/configured-models-with-data-source/from-backtest/{backtestId}
POST /v1/analytics/create-backtest
GET /v1/crud/backtests
GET /v1/crud/backtests/{id}/info
DELETE /v1/crud/backtests/{id}
GET /v1/analytics/evaluation-entry
POST /v1/analytics/make-prediction-with-data-source
GET /v1/jobs/{id}
GET /v1/jobs
GET /v1/analytics/prediction-entry/{predictionId}
"""
FURTHER_TABLE = """
POST /v1/crud/backtests
DELETE /v1/crud/backtests
PATCH /v1/crud/backtests/{id}
GET /v1/crud/backtests/{id}/full
POST /v1/analytics/create-backtest-with-data/
GET /v1/analytics/actualCases/{backtestId}
GET /v1/analytics/backtest-overlap/{id1}/{id2}
GET /v1/analytics/compatible-backtests/{id}
POST /v1/crud/datasets
POST /v1/crud/datasets/csvFile
POST /v1/analytics/make-dataset
DELETE /v1/crud/datasets/{id}
GET /v1/crud/datasets/{id}/csv
GET /v1/crud/datasets/{id}/df
GET /v1/analytics/data-sources
GET /v1/crud/configured-models/{id}
DELETE /v1/crud/configured-models/{id}
POST /v1/crud/models
POST /v1/analytics/make-prediction
GET /v1/analytics/prediction-entry
GET /v1/crud/predictions
GET /v1/crud/predictions/{id}
POST /v1/crud/predictions
DELETE /v1/crud/predictions/{id}
DELETE /v1/jobs/{id}
POST /v1/jobs/{id}/cancel
GET /v1/jobs/{id}/logs
GET /v1/jobs/{id}/database_result
GET /v1/jobs/{id}/evaluation_result
GET /v1/jobs/{id}/prediction_result
GET /v1/visualization/backtest-plots/
GET /v1/visualization/backtest-plots/{visualization_name}/{backtest_id}
GET /v1/visualization/dataset-plots/
GET /v1/visualization/dataset-plots/{visualization_name}/{dataset_id}
GET /v1/visualization/metric-plots/{backtest_id}
GET /v1/visualization/metric-plots/{visualization_name}/{backtest_id}/{metric_id}
GET /v1/visualization/metrics/{backtest_id}
GET /v2/services
GET /v2/services/{id}
POST /v2/services/$register
DELETE /v2/services/{id}
PUT /v2/services/{id}/$ping
GET /health
POST /v1/crud/debug
GET /v1/crud/debug/{id}
GET /v1/crud/metric/csv
"""
# Operations whose request carries no body by design (ids in the path, or query parameters).
BODYLESS = {
    ("POST", "/v1/crud/configured-models-with-data-source/from-backtest/{}"),
    ("POST", "/v1/jobs/{}/cancel"),
    ("PUT", "/v2/services/{}/$ping"),
}


def normalised(path: str) -> str:
    """Path parameters compared by position, not by name."""
    return re.sub(r"\{[^}]+\}", "{}", path)


def routes_of(text: str) -> set[tuple[str, str]]:
    routes = set()
    for line in text.strip().splitlines():
        method, path = line.split()
        routes.add((method, normalised(path)))
    return routes


EXPECTED = routes_of(MAIN_TABLE) | routes_of(FURTHER_TABLE)


def spec_routes(spec_text: str) -> set[tuple[str, str]]:
    """(method, path) of every row of the two endpoint tables of section 4; a row may give
    several paths joined by "and"."""
    routes: set[tuple[str, str]] = set()
    for heading in TABLES:
        section = spec_text.split(heading, 1)[1].split("\n### ", 1)[0]
        for line in section.splitlines():
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if len(cells) >= 2 and cells[0] in METHODS:
                for path in cells[1].split(" and "):
                    routes.add((cells[0], normalised(path.strip().strip("`"))))
    return routes


@pytest.fixture(scope="module")
def openapi(service_url: str) -> dict:
    return httpx.get(f"{service_url}/openapi.json").json()


def served_routes(openapi: dict) -> set[tuple[str, str]]:
    return {
        (method.upper(), normalised(path))
        for path, item in openapi["paths"].items()
        for method in item
    }


def test_the_checked_in_list_has_both_tables() -> None:
    assert len(routes_of(MAIN_TABLE)) == 19 and len(routes_of(FURTHER_TABLE)) == 46


def test_the_spec_tables_are_parsed_row_by_row() -> None:
    sample = (
        "### Modeling service\n\n| Method | Path | Request | Response |\n|---|---|---|---|\n"
        "| GET | /v1/jobs/{id} | none | the status |\n\n### Further endpoints (purpose only)\n"
        "| Method | Path | Purpose |\n|---|---|---|\n| GET | /a/ and /a/{name}/{id} | plots |\n"
        "| PUT | /v2/services/{id}/$ping | ping |\n\n"
        "### Paths of a toolkit-built service\n| GET | /x | y |\n"
    )
    assert spec_routes(sample) == {
        ("GET", "/v1/jobs/{}"),
        ("GET", "/a/"),
        ("GET", "/a/{}/{}"),
        ("PUT", "/v2/services/{}/$ping"),
    }


def test_openapi_lists_every_endpoint_of_both_tables(openapi: dict) -> None:
    missing = EXPECTED - served_routes(openapi)
    assert not missing, f"missing from /openapi.json: {sorted(missing)}"
    from_spec = spec_routes(SPEC_TABLES.read_text(encoding="utf-8"))
    assert from_spec == EXPECTED, "the checked-in list follows the spec's tables"
    assert not from_spec - served_routes(openapi)


def _operation(openapi: dict, method: str, path: str) -> dict:
    return next(
        item[method.lower()]
        for served, item in openapi["paths"].items()
        if normalised(served) == path and method.lower() in item
    )


def _typed(content: dict) -> bool:
    return bool(content) and all(media.get("schema") for media in content.values())


@pytest.mark.parametrize(("method", "path"), sorted(EXPECTED))
def test_every_endpoint_has_typed_schemas(openapi: dict, method: str, path: str) -> None:
    operation = _operation(openapi, method, path)
    successes = {
        code: answer for code, answer in operation["responses"].items() if code.startswith("2")
    }
    assert successes, "a success answer is documented"
    for code, answer in successes.items():
        assert code == "204" or _typed(answer.get("content", {})), f"{code} answer has a schema"
    if method in ("POST", "PUT", "PATCH") and (method, path) not in BODYLESS:
        assert _typed(operation["requestBody"]["content"]), "the request body has a schema"
