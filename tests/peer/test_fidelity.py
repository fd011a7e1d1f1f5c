"""Our service answers as chap-core 2.5.1 does, field by field: the same operations, a DHIS2
client's (DHIS2's Modeling App's) routes in the order it uses them, are made on the chap-core at
``CHAP_URL`` and on our embedded service (started here); each answer of ours must hold every
field of chap-core's answer to the same route, with a type chap-core's schema allows, but for
the deliberate differences ``docs/endpoints.md`` lists with their reasons.

The routes: system information; a dataset built from data (``make-dataset``), listed and read;
templates and configured models, one configured and read; an evaluation run, listed, read
(``/info``, ``/full``), renamed, its entries and actual cases, the configured model evaluated
alike, the two compatible and overlapping, an import checked with ``dryRun``; the evaluation
chart's facets; a prediction setup made from it, listed, read, renamed and run, its forecast
listed and read with its entries; the jobs, one's request and logs; the setup deleted. What
differs is recorded in ``tests/peer/fidelity.json`` (from a passing run) and written into
``docs/endpoints.md`` by ``python tests/peer/fidelity_table.py``."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pandas as pd
import pytest

from chaplab import ChapClient
from wire_fields import (
    Fields,
    Lack,
    answer_fields,
    free_form_paths,
    lacks,
    schema_fields,
    unexplained,
)
from wire_schemas import chap_core_openapi, response_schema

from .peer_data import observations_payload, org_unit_geojson

RECORD = Path(__file__).with_name("fidelity.json")
"""What differs, route by route, from the last passing run (``fidelity_table.py`` shows it)."""
FACETED_CHART = {"chap-core": "evaluation_plot", "ours": "forecasts"}
"""Each server's evaluation chart by split period and org unit."""
QUANTILES = {"quantiles": [0.1, 0.5, 0.9]}


@dataclass
class Answers:
    """A server's answers, by (method, chap-core's path template of the route)."""

    server: str
    http: httpx.Client
    client: ChapClient
    bodies: dict[tuple[str, str], list[Any]] = field(default_factory=dict)

    def call(self, method: str, route: str, path: str, **kwargs: Any) -> Any:
        """The JSON answer of ``method path``, recorded under ``route``; a 2xx is required."""
        response = self.http.request(method, path, **kwargs)
        assert response.is_success, f"{self.server}: {method} {path}: {response.text[:500]}"
        body = response.json()
        self.bodies.setdefault((method, route), []).append(body)
        return body

    def finished(self, job_id: str) -> int:
        """The id of the row a job created, once it has succeeded."""
        job = self.client.wait_for_job(job_id, timeout=600)
        assert job.status == "SUCCESS", f"{self.server}: {job}"
        result = self.call(
            "GET", "/v1/jobs/{job_id}/database_result", f"/v1/jobs/{job_id}/database_result"
        )
        return int(result["id"])


def drive(answers: Answers, table: pd.DataFrame) -> None:
    """The operations of a DHIS2 client, made on one server."""
    call = answers.call
    call("GET", "/system/info", "/system/info")
    geojson, data = org_unit_geojson(), observations_payload(table)
    built = call(
        "POST",
        "/v1/analytics/make-dataset",
        "/v1/analytics/make-dataset",
        json={
            "name": "fidelity",
            "type": "evaluation",
            "geojson": geojson,
            "providedData": data,
            "dataToBeFetched": [],
        },
    )
    dataset_id = answers.finished(built["id"])
    call("GET", "/v1/crud/datasets", "/v1/crud/datasets")
    call("GET", "/v1/crud/datasets/{datasetId}", f"/v1/crud/datasets/{dataset_id}")

    templates = call("GET", "/v1/crud/model-templates", "/v1/crud/model-templates")
    call("GET", "/v1/crud/configured-models", "/v1/crud/configured-models")
    template = next(t for t in templates if t["name"] == "seasonal_median")
    configured = call(
        "POST",
        "/v1/crud/configured-models",
        "/v1/crud/configured-models",
        json={
            "name": "fidelity",
            "modelTemplateId": template["id"],
            "userOptionValues": {},
            "additionalContinuousCovariates": [],
        },
    )
    call(
        "GET",
        "/v1/crud/configured-models/{configuredModelId}",
        f"/v1/crud/configured-models/{configured['id']}",
    )

    started = call(
        "POST",
        "/v1/analytics/create-backtest",
        "/v1/analytics/create-backtest",
        json={
            "name": "fidelity",
            "modelId": "naive_model",
            "datasetId": dataset_id,
            "nPeriods": 3,
            "nSplits": 2,
            "stride": 1,
        },
    )
    backtest = answers.finished(started["id"])
    call("GET", "/v1/crud/backtests", "/v1/crud/backtests")
    call("GET", "/v1/crud/backtests/{backtestId}", f"/v1/crud/backtests/{backtest}")
    call("GET", "/v1/crud/backtests/{backtestId}/info", f"/v1/crud/backtests/{backtest}/info")
    call(
        "GET",
        "/v1/crud/backtests/{backtestId}/full",
        f"/v1/crud/backtests/{backtest}/full",
        params=QUANTILES,
    )
    call(
        "PATCH",
        "/v1/crud/backtests/{backtestId}",
        f"/v1/crud/backtests/{backtest}",
        json={"name": "fidelity renamed"},
    )
    call(
        "GET",
        "/v1/analytics/evaluation-entry",
        "/v1/analytics/evaluation-entry",
        params={"backtestId": backtest, **QUANTILES},
    )
    call("GET", "/v1/analytics/actual-cases/{backtestId}", f"/v1/analytics/actual-cases/{backtest}")
    again = call(
        "POST",
        "/v1/analytics/create-backtest",
        "/v1/analytics/create-backtest",
        json={
            "name": "fidelity again",
            "modelId": configured["name"],
            "datasetId": dataset_id,
            "nPeriods": 3,
            "nSplits": 2,
            "stride": 1,
        },
    )
    compared = answers.finished(again["id"])
    call(
        "GET",
        "/v1/analytics/compatible-backtests/{backtestId}",
        f"/v1/analytics/compatible-backtests/{backtest}",
    )
    call(
        "GET",
        "/v1/analytics/backtest-overlap/{backtestId1}/{backtestId2}",
        f"/v1/analytics/backtest-overlap/{backtest}/{compared}",
    )
    call(
        "POST",
        "/v1/analytics/create-backtest-with-data/",
        "/v1/analytics/create-backtest-with-data/",
        params={"dryRun": "true"},
        json={
            "name": "fidelity",
            "geojson": geojson,
            "providedData": data,
            "dataSources": [],
            "dataToBeFetched": [],
            "modelId": "naive_model",
            "nPeriods": 3,
            "nSplits": 2,
            "stride": 1,
        },
    )

    call("GET", "/v1/visualization/backtest-plots/", "/v1/visualization/backtest-plots/")
    chart = f"/v1/visualization/backtest-plots/{FACETED_CHART[answers.server]}/{backtest}"
    template_path = "/v1/visualization/backtest-plots/{visualization_name}/{backtest_id}"
    coordinates = call("GET", template_path + "/facet-coords", chart + "/facet-coords")
    chosen = {dimension: values[0] for dimension, values in coordinates.items()}
    call("POST", template_path + "/subplot", chart + "/subplot", json=chosen)
    call("GET", template_path + "/subplots", chart + "/subplots")

    targets = [{"quantile": "0.9", "dataElementId": "DE_HIGH"}]
    setup = call(
        "POST",
        "/v1/crud/prediction-setups",
        "/v1/crud/prediction-setups",
        json={"backtestId": backtest, "name": "fidelity", "quantileTargets": targets},
    )["id"]
    setup_path = f"/v1/crud/prediction-setups/{setup}"
    call("GET", "/v1/crud/prediction-setups", "/v1/crud/prediction-setups")
    call(
        "PATCH",
        "/v1/crud/prediction-setups/{predictionSetupId}",
        setup_path,
        json={"name": "fidelity renamed", "quantileTargets": targets},
    )
    run = call(
        "POST",
        "/v1/crud/prediction-setups/{predictionSetupId}/run",
        setup_path + "/run",
        json={
            "name": "fidelity run",
            "geojson": geojson,
            "providedData": data,
            "nPeriods": 3,
            "type": "prediction",
        },
    )
    prediction = answers.finished(run["id"])
    call("GET", "/v1/crud/prediction-setups/{predictionSetupId}", setup_path)
    call("GET", "/v1/crud/predictions", "/v1/crud/predictions")
    call("GET", "/v1/crud/predictions/{predictionId}", f"/v1/crud/predictions/{prediction}")
    call(
        "GET",
        "/v1/analytics/prediction-entry/{predictionId}",
        f"/v1/analytics/prediction-entry/{prediction}",
        params=QUANTILES,
    )
    call("GET", "/v1/jobs", "/v1/jobs")
    call("GET", "/v1/jobs/{job_id}/request", f"/v1/jobs/{run['id']}/request")
    call("GET", "/v1/jobs/{job_id}/logs", f"/v1/jobs/{run['id']}/logs")
    call("DELETE", "/v1/crud/prediction-setups/{predictionSetupId}", setup_path)


DATA_NOT_FIELDS: dict[tuple[str, str], set[str]] = {
    ("POST", "/v1/visualization/backtest-plots/{visualization_name}/{backtest_id}/subplot"): {""},
    ("GET", "/v1/visualization/backtest-plots/{visualization_name}/{backtest_id}/subplots"): {
        "[].spec"
    },
}
"""Answers (or parts) that are each server's own drawing, a Vega spec, not fields to compare."""


@dataclass(frozen=True)
class RouteComparison:
    """The fields of one route's answers on each server, with their types."""

    method: str
    route: str
    theirs: Fields
    ours: Fields

    @property
    def lacks(self) -> list[Lack]:
        """What ours lacks of chap-core's, but for the items of a list ours answered empty
        (a template that requires no covariates lists none)."""
        return [lack for lack in lacks(self.theirs, self.ours) if not self._in_empty_list(lack)]

    def _in_empty_list(self, lack: Lack) -> bool:
        if lack.ours is not None:
            return False
        for end in range(len(lack.path)):
            if lack.path.startswith("[]", end):
                items = lack.path[: end + 2]
                listed = lack.path[:end]
                if listed in self.ours and not any(p.startswith(items) for p in self.ours):
                    return True
        return False

    @property
    def unexplained(self) -> list[Lack]:
        """What ours lacks of chap-core's that no deliberate difference explains."""
        return unexplained(self.method, self.route, self.lacks)

    def record(self) -> dict[str, Any]:
        """The comparison as ``fidelity.json`` keeps it."""
        found = self.lacks
        return {
            "route": f"{self.method} {self.route}",
            "fields": len(self.theirs),
            "missing": [str(lack) for lack in found if lack.ours is None],
            "types": [str(lack) for lack in found if lack.ours is not None],
            "ours_only": sorted(
                path for path in self.ours if path not in self.theirs and _in_shared(path, self)
            ),
        }


def _in_shared(path: str, comparison: RouteComparison) -> bool:
    """Whether ``path`` is a field of an object both answers have (or a top-level one), so
    that a field of ours that chap-core lacks is listed once, not with all its parts."""
    parent = path.rsplit(".", 1)[0] if "." in path else ""
    parent = parent.removesuffix("[]") if parent.endswith("[]") and parent != "[]" else parent
    return not parent or parent in comparison.theirs or parent == "[]"


def compare(method: str, route: str, theirs: list[Any], ours: list[Any]) -> RouteComparison:
    """The fields of each server's answers to a route. chap-core's types are widened by what
    its schema allows (a field null in its answer may be text in ours); the keys of maps its
    schema leaves free-form (``aggregateMetrics``, ``userOptions``) are data, not fields."""
    document = chap_core_openapi()
    schema = response_schema(method, route)
    declared = schema_fields(document, schema)
    free = free_form_paths(declared, document, schema) | DATA_NOT_FIELDS.get((method, route), set())
    their_fields = merged(theirs, free)
    widened = {
        path: types | declared.get(path, frozenset()) for path, types in their_fields.items()
    }
    return RouteComparison(method, route, widened, merged(ours, free))


def merged(bodies: list[Any], free: set[str]) -> Fields:
    """The fields of several answers to one route, with every type each had."""
    fields: dict[str, frozenset[str]] = {}
    for body in bodies:
        for path, types in answer_fields(body, free).items():
            fields[path] = fields.get(path, frozenset()) | types
    return fields


@pytest.fixture(scope="module")
def ours() -> Iterator[ChapClient]:
    """Our embedded service on a fresh database (its demo content configures naive_model, as
    chap-core's seeding does)."""
    from chaplab.service.app import create_app
    from chaplab.toolkit import BackgroundServer

    with tempfile.TemporaryDirectory() as folder:
        app = create_app(str(Path(folder) / "chaplab.db"), workers=2)
        with BackgroundServer(app, "127.0.0.1") as server, ChapClient(server.url) as client:
            yield client


@pytest.fixture(scope="module")
def comparisons(
    peer_client: ChapClient, ours: ChapClient, dataset_table: pd.DataFrame
) -> list[RouteComparison]:
    """Every route a DHIS2 client uses, its answers on both servers compared."""
    answered = {}
    for server, client in (("chap-core", peer_client), ("ours", ours)):
        with httpx.Client(base_url=str(client.base_url), timeout=120) as http:
            answers = Answers(server, http, client)
            drive(answers, dataset_table)
            answered[server] = answers.bodies
    assert answered["chap-core"].keys() == answered["ours"].keys()
    return [
        compare(method, route, bodies, answered["ours"][method, route])
        for (method, route), bodies in answered["chap-core"].items()
    ]


def test_ours_holds_every_field_chap_core_answers(
    comparisons: list[RouteComparison], request: pytest.FixtureRequest
) -> None:
    problems = [
        f"{comparison.method} {comparison.route}: {lack}"
        for comparison in comparisons
        for lack in comparison.unexplained
    ]
    assert not problems, "fields chap-core 2.5.1 answers and ours lacks:\n" + "\n".join(problems)
    if request.session.testsfailed == 0:  # what differs, for docs/endpoints.md
        records = [comparison.record() for comparison in comparisons]
        RECORD.write_text(json.dumps(records, indent=1) + "\n")


def test_the_facets_of_the_evaluation_chart_are_named_alike(
    comparisons: list[RouteComparison],
) -> None:
    """The Modeling App's filters read ``split_period`` and ``location`` (the keys of a free-form
    map in chap-core's schema, so the comparison above sees them as fields)."""
    facets = next(c for c in comparisons if c.route.endswith("/facet-coords"))
    assert set(facets.ours) == set(facets.theirs) >= {"split_period", "location"}
