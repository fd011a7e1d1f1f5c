"""An in-memory fake of the modeling service, speaking the wire contract (docs/wire-contract.md).

Use it as the handler of ``httpx.MockTransport`` for both ``ChapClient`` and
``AsyncChapClient``. Time is a :class:`FakeClock` shared with the client, so job progress and
the client's sleeps are simulated without real waiting. Faults (dropped connections, error
statuses) can be queued per request line, and every request is recorded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import httpx
import pytest

BASE_URL = "http://chap.test"
"""The address clients on the fake are made with."""

DISCOVERY = ["GET /openapi.json", "GET /system/info"]
"""What a client asks first to learn what a server offers, when the server (like this fake)
has no OpenAPI document: the document, then the version."""


class FakeClock:
    """A monotonic clock that moves when someone sleeps on it, and by ``per_read`` seconds
    each time it is read (0 unless a test sets it: a real clock moves between two reads)."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.per_read = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        self.now += self.per_read
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    async def asleep(self, seconds: float) -> None:
        self.sleep(seconds)


@dataclass
class FakeJob:
    id: str
    type: str
    name: str
    finish_at: float
    final_status: str = "SUCCESS"
    result: str | None = None
    created_id: int | None = None  # the row the job stored, for /database_result
    error: str | None = None
    logs: str | None = None
    start_time: str = "2026-01-01T10:00:00"
    started_at: float = 0.0  # PENDING before this time on the fake clock, then STARTED
    listed_lag: float = 0.0  # the job list shows the end this much later (chap-core 2.5.1)
    listed_as: str | None = None  # what the list says until the job ends (a cancel's REVOKED)
    listed_after: float = 0.0  # the job list leaves it out before this time (chap-core 2.5.1)

    def status_at(self, now: float) -> str:
        if now >= self.finish_at:
            return self.final_status
        return "PENDING" if now < self.started_at else "STARTED"

    def wire(self, now: float) -> dict[str, Any]:
        done = now >= self.finish_at + self.listed_lag
        listed = self.status_at(now - self.listed_lag)
        return {
            "id": self.id,
            "type": self.type,
            "name": self.name,
            "status": self.listed_as if self.listed_as and not done else listed,
            "start_time": self.start_time,
            "end_time": "2026-01-01T10:00:02" if done else None,
            "result": self.result if done else None,
            "error": self.error if done else None,
        }


Fault = int | httpx.Response | type[httpx.TransportError]

KEY = "sk_test_0123456789abcdefghij"
"""An API key for tests: long enough that its shown prefix and its secret part differ."""


def last_body(fake: FakeService) -> Any:
    """The JSON body of the last request the fake received."""
    return json.loads(fake.requests[-1].content)


DATASET = {
    "id": 1,
    "name": "demo",
    "type": "evaluation",
    "created": "2026-01-01T10:00:00",
    "firstPeriod": "202101",
    "lastPeriod": "202312",
    "periodType": "month",
    "orgUnits": ["OU_A", "OU_B"],
    "covariates": ["rainfall", "mean_temperature", "population", "disease_cases"],
    "dataSources": [{"covariate": "rainfall", "dataElementId": "DE_RAIN"}],
    "sourceSystem": "dhis2",
}
TEMPLATE = {
    "id": 1,
    "name": "naive_model",
    "displayName": "Naive model",
    "description": "Repeats.",
    "author": "chaplab",
    "supportedPeriodType": "any",
    "target": "disease_cases",
    "requiredCovariates": ["rainfall", "mean_temperature"],
    "userOptions": {"n_lags": {"type": "integer", "default": 3, "description": "Lags."}},
    "hpoSearchSpace": None,
    "allowFreeAdditionalContinuousCovariates": False,
    "requiresGeo": False,
    "version": "1",
    "archived": False,
}
MODEL_SPEC = {
    "id": 5,
    "name": "naive_model:weekly",
    "displayName": "Naive model [Weekly]",
    "modelTemplateId": 1,
    "supportedPeriodType": "any",
    "userOptionValues": {"n_lags": 3},
    "additionalContinuousCovariates": [],
    "covariates": [{"name": "rainfall", "displayName": "Rainfall"}],
    "target": {"name": "disease_cases", "displayName": "Disease cases"},
    "archived": False,
}
EVALUATION = {
    "id": 1,
    "name": "bt_naive",
    "created": "2026-01-01T10:00:00",
    "datasetId": 1,
    "modelId": "naive_model:weekly",
    "orgUnits": ["OU_A", "OU_B"],
    "splitPeriods": ["202309", "202307", "202308"],
    "maxHorizonDistance": 3,
    "nPeriods": 3,
    "nSplits": 3,
    "stride": 1,
    "aggregateMetrics": {"crps": 2.13, "mae": 3.1, "rmse": 3.7, "coverage_10_90": 0.9},
    "configuredModel": MODEL_SPEC,
    "dataset": DATASET,
}
CMWDS = {
    "id": 3,
    "name": "naive_model:weekly @ demo",
    "created": "2026-01-01T10:00:00",
    "configuredModel": MODEL_SPEC,
    "periodType": "month",
    "startPeriod": "202101",
    "orgUnits": ["OU_A"],
    "dataSources": [{"covariate": "rainfall", "dataElementId": "DE_RAIN"}],
}


@dataclass
class FakeService:
    """The fake server. Its attributes are the knobs tests turn."""

    clock: FakeClock = field(default_factory=FakeClock)
    api_key: str | None = None
    key_header: str = "X-API-Key"
    prefix: str = ""
    honour_prefer_wait: bool = False
    has_models_route: bool = True
    unknown_job_is_pending: bool = False
    lower_case_status: bool = False
    results_name_rows: bool = False  # job results say "stored ... 2" instead of the bare id
    cancel_stops_started_jobs: bool = True  # False: as chap-core 2.5.1's solo worker
    cancel_answers_the_job: bool = False  # True: the cancel answers the job (as ours does)
    revoke_delay: float = 0.0  # a cancelled queued job is revoked this much later
    job_duration: float = 2.0
    refuses_deleting_used_datasets: bool = True  # False: as chap-core 2.5.1, deleted anyway
    stored: int = 0  # rows stored so far, which sets the next row's creation time
    requests: list[httpx.Request] = field(default_factory=list)
    faults: dict[str, list[Fault]] = field(default_factory=dict)
    jobs: dict[str, FakeJob] = field(default_factory=dict)
    evaluations: dict[int, dict[str, Any]] = field(default_factory=lambda: {1: dict(EVALUATION)})
    configured_models: list[dict[str, Any]] = field(default_factory=lambda: [dict(MODEL_SPEC)])
    datasets: list[dict[str, Any]] = field(default_factory=lambda: [dict(DATASET)])
    predictions: list[dict[str, Any]] = field(default_factory=list)

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)

    def fail(self, request_line: str, *faults: Fault) -> None:
        """Queue faults for ``"METHOD /path"``: status codes, whole responses, or transport
        errors to raise; each is used once, in order, before the route answers again."""
        self.faults.setdefault(request_line, []).extend(faults)

    def add_job(self, **kwargs: Any) -> FakeJob:
        job = FakeJob(
            **{
                "type": "create_backtest",
                "name": "bt",
                "finish_at": self.clock.now + self.job_duration,
                **kwargs,
            }
        )
        self.jobs[job.id] = job
        return job

    def paths(self) -> list[str]:
        return [f"{r.method} {r.url.path}" for r in self.requests]

    # -- handling ---------------------------------------------------------------------

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.raw_path.decode("ascii").split("?")[0]  # %2F stays inside a segment
        if not path.startswith(self.prefix):
            return _detail(404, "Not Found")
        path = path[len(self.prefix) :]
        queued = self.faults.get(f"{request.method} {path}")
        if queued:
            fault = queued.pop(0)
            if isinstance(fault, httpx.Response):
                return fault
            if isinstance(fault, int):
                return _fault_response(fault)
            raise fault("fake fault", request=request)
        if self.api_key is not None and path != "/health":
            denied = self._check_key(request, path)
            if denied is not None:
                return denied
        for method, pattern, handler in self._routes():
            match = re.fullmatch(pattern, path)
            if match and method == request.method:
                return handler(request, *map(unquote, match.groups()))
        return _detail(404, "Not Found")

    def _check_key(self, request: httpx.Request, path: str) -> httpx.Response | None:
        key = request.headers.get(self.key_header)
        if key == self.api_key:
            return None
        detail = "Invalid API key" if key else f"Missing authentication header: {self.key_header}"
        return httpx.Response(
            401,
            headers={"content-type": "application/problem+json"},
            content=json.dumps(
                {
                    "type": "urn:service:error:unauthorized",
                    "title": "Unauthorized",
                    "status": 401,
                    "detail": detail,
                    "instance": path,
                }
            ),
        )

    def _routes(self) -> list[tuple[str, str, Callable[..., httpx.Response]]]:
        routes = [
            (
                "GET",
                r"/system/info",
                lambda r: _ok(
                    {
                        "chap_core_version": "1.2.3",
                        "python_version": "3.12",
                        "server_date": "2026-01-01",
                        "server_time_zone_id": "Etc/UTC",
                        "extra": 1,
                    }
                ),
            ),
            ("GET", r"/health", lambda r: _ok({"status": "success", "message": "healthy"})),
            ("GET", r"/v1/crud/datasets", lambda r: _ok(self.datasets)),
            ("POST", r"/v1/crud/datasets", self._create_dataset),
            ("GET", r"/v1/crud/datasets/(\d+)", self._get_dataset),
            ("DELETE", r"/v1/crud/datasets/(\d+)", self._delete_dataset),
            ("GET", r"/v1/crud/model-templates", lambda r: _ok([TEMPLATE])),
            ("GET", r"/v1/crud/configured-models", lambda r: _ok(self.configured_models)),
            ("POST", r"/v1/crud/configured-models", self._create_configured_model),
            ("GET", r"/v1/crud/configured-models-with-data-source", lambda r: _ok([CMWDS])),
            (
                "GET",
                r"/v1/crud/configured-models-with-data-source/(\d+)",
                lambda r, i: _ok(CMWDS) if int(i) == 3 else _detail(404, "No such record"),
            ),
            (
                "POST",
                r"/v1/crud/configured-models-with-data-source/from-backtest/(\d+)",
                lambda r, i: _ok({**CMWDS, "id": 4}),
            ),
            ("POST", r"/v1/analytics/create-backtest", self._create_backtest),
            ("GET", r"/v1/crud/backtests", self._list_evaluations),
            ("GET", r"/v1/crud/backtests/(\d+)/info", self._get_evaluation),
            ("DELETE", r"/v1/crud/backtests/(\d+)", self._delete_evaluation),
            ("GET", r"/v1/analytics/evaluation-entry", self._evaluation_entries),
            ("GET", r"/v1/analytics/actual(?:Cases|-cases)/(\d+)", self._actual_cases),
            ("POST", r"/v1/analytics/make-prediction(?:-with-data-source)?", self._make_prediction),
            ("GET", r"/v1/analytics/prediction-entry/(\d+)", self._prediction_entries),
            ("GET", r"/v1/crud/predictions", lambda r: _ok(self.predictions)),
            ("DELETE", r"/v1/crud/predictions/(\d+)", self._delete_prediction),
            (
                "GET",
                r"/v1/crud/predictions/(\d+)",
                lambda r, i: _ok({"id": int(i), "name": "forecast", "datasetId": 1}),
            ),
            (
                "GET",
                r"/v1/jobs",
                lambda r: _ok(
                    [
                        job.wire(self.clock.now)
                        | (
                            {"status": job.status_at(self.clock.now).lower()}
                            if self.lower_case_status
                            else {}
                        )
                        for job in self.jobs.values()
                        if self.clock.now >= job.listed_after
                    ]
                ),
            ),
            ("GET", r"/v1/jobs/([^/]+)", self._job_status),
            ("GET", r"/v1/jobs/([^/]+)/logs", self._job_logs),
            ("GET", r"/v1/jobs/([^/]+)/database_result", self._database_result),
            ("POST", r"/v1/jobs/([^/]+)/cancel", self._cancel_job),
            ("DELETE", r"/v1/jobs/([^/]+)", self._delete_job),
        ]
        if self.has_models_route:
            routes.append(("GET", r"/v1/crud/models", lambda r: _ok(self.configured_models)))
        return routes

    def _get_dataset(self, request: httpx.Request, dataset_id: str) -> httpx.Response:
        for dataset in self.datasets:
            if dataset["id"] == int(dataset_id):
                return _ok(
                    {
                        **dataset,
                        "observations": [
                            {
                                "featureName": "disease_cases",
                                "orgUnit": "OU_A",
                                "period": "202101",
                                "value": 26.0,
                            }
                        ],
                    }
                )
        return _detail(404, f"Dataset {dataset_id} not found")

    def _create_dataset(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        record = {
            **DATASET,
            "id": max((dataset["id"] for dataset in self.datasets), default=0) + 1,
            "created": self._creation_time(),
            "name": body["name"],
            "type": body["type"],
            "geojson": body.get("geojson"),
            "providedCount": len(body["observations"]),
        }
        self.datasets.append(record)
        return _ok(record)

    def _creation_time(self) -> str:
        """A later time for each row stored: ids are the highest plus one, so a deleted last
        row's id is given again (as chap-core 2.5.1's SQLite does), and only this tells the
        rows apart."""
        self.stored += 1
        return f"2026-01-01T11:{self.stored // 60:02d}:{self.stored % 60:02d}"

    def _delete_dataset(self, request: httpx.Request, dataset_id: str) -> httpx.Response:
        found = [dataset for dataset in self.datasets if dataset["id"] == int(dataset_id)]
        if not found:
            return _detail(404, f"Dataset {dataset_id} not found")
        users = [e["id"] for e in self.evaluations.values() if e["datasetId"] == int(dataset_id)]
        users += [p["id"] for p in self.predictions if p.get("datasetId") == int(dataset_id)]
        if users and self.refuses_deleting_used_datasets:
            return _detail(409, f"dataset {dataset_id} is used by {users}; delete those first")
        self.datasets.remove(found[0])
        return _ok({"message": "deleted"})

    def _create_configured_model(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if body.get("modelTemplateId") != TEMPLATE["id"]:
            return _detail(404, f"Model template {body.get('modelTemplateId')} not found")
        if not isinstance(body.get("userOptionValues", {}).get("n_lags", 1), int):
            return _detail(
                422,
                [
                    {
                        "loc": ["body", "userOptionValues", "n_lags"],
                        "msg": "Input should be a valid integer",
                        "type": "int_type",
                    }
                ],
            )
        name = f"naive_model:{body['name']}"
        options = body.get("userOptionValues", {})
        covariates = body.get("additionalContinuousCovariates", [])
        for record in self.configured_models:
            if (record["name"], record["userOptionValues"]) == (name, options) and record[
                "additionalContinuousCovariates"
            ] == covariates:
                record["archived"] = False
                return _ok(record)
        # as chap-core 2.5.1: other options under a stored name hide the model stored before
        self.configured_models = [m for m in self.configured_models if m["name"] != name]
        record = {
            **MODEL_SPEC,
            "id": max((m["id"] for m in self.configured_models), default=5) + 1,
            "name": name,
            "userOptionValues": options,
            "additionalContinuousCovariates": covariates,
        }
        self.configured_models.append(record)
        return _ok(record)

    def _create_backtest(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        if body.get("datasetId") not in {d["id"] for d in self.datasets}:
            return _detail(404, f"Dataset {body.get('datasetId')} not found")
        new_id = max(self.evaluations, default=0) + 1
        dataset = next(d for d in self.datasets if d["id"] == body["datasetId"])
        self.evaluations[new_id] = {
            **EVALUATION,
            "id": new_id,
            "created": self._creation_time(),
            "name": body["name"],
            "modelId": body["modelId"],
            "datasetId": dataset["id"],
            "dataset": {key: value for key, value in dataset.items() if key != "geojson"},
        }
        job = self.add_job(
            id=f"job-{len(self.jobs) + 1}",
            name=body["name"],
            **self._result(f"backtest {new_id}", new_id),
        )
        return _ok({"id": job.id})

    def _list_evaluations(self, request: httpx.Request) -> httpx.Response:
        wanted = request.url.params.get("datasetId")
        return _ok([e for e in self.evaluations.values() if wanted in (None, str(e["datasetId"]))])

    def _get_evaluation(self, request: httpx.Request, evaluation_id: str) -> httpx.Response:
        record = self.evaluations.get(int(evaluation_id))
        return _ok(record) if record else _detail(404, f"Backtest {evaluation_id} not found")

    def _delete_evaluation(self, request: httpx.Request, evaluation_id: str) -> httpx.Response:
        if self.evaluations.pop(int(evaluation_id), None) is None:
            return _detail(404, f"Backtest {evaluation_id} not found")
        return _ok({"message": "deleted"})

    def _evaluation_entries(self, request: httpx.Request) -> httpx.Response:
        params = request.url.params
        if "backtestId" not in params or not params.get_list("quantiles"):
            return _detail(
                422, [{"loc": ["query", "quantiles"], "msg": "Field required", "type": "missing"}]
            )
        units = params.get_list("orgUnits") or ["OU_A", "OU_B"]
        splits = [params["splitPeriod"]] if "splitPeriod" in params else ["202306", "202307"]
        return _ok(
            [
                {
                    "orgUnit": unit,
                    "period": "202308",
                    "quantile": float(q),
                    "value": 10 * float(q),
                    "splitPeriod": split,
                }
                for split in splits
                for unit in units
                for q in params.get_list("quantiles")
            ]
        )

    def _actual_cases(self, request: httpx.Request, evaluation_id: str) -> httpx.Response:
        units = request.url.params.get_list("orgUnits") or ["OU_A", "OU_B"]
        return _ok(
            {
                "featureId": "disease_cases",
                "dhis2Id": "disease_cases",
                "data": [{"pe": "202101", "ou": unit, "value": 26.0} for unit in units],
            }
        )

    def _delete_prediction(self, request: httpx.Request, prediction_id: str) -> httpx.Response:
        kept = [p for p in self.predictions if p["id"] != int(prediction_id)]
        if len(kept) == len(self.predictions):
            return _detail(404, "Prediction not found")
        self.predictions = kept
        return _ok({"message": "deleted"})

    def _make_prediction(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        job = self.add_job(
            id=f"job-{len(self.jobs) + 1}",
            type="create_prediction",
            name=body["name"],
            **self._result("prediction 7", 7),
        )
        return _ok({"id": job.id})

    def _prediction_entries(self, request: httpx.Request, prediction_id: str) -> httpx.Response:
        return _ok(
            [
                {"orgUnit": "OU_A", "period": "202401", "quantile": float(q), "value": 5.0}
                for q in request.url.params.get_list("quantiles")
            ]
        )

    def _job_status(self, request: httpx.Request, job_id: str) -> httpx.Response:
        job = self.jobs.get(job_id)
        if job is None:
            return _ok("PENDING") if self.unknown_job_is_pending else _detail(404, "Job not found")
        headers = {}
        wait = re.search(r"wait=(\d+)", request.headers.get("Prefer", ""))
        if self.honour_prefer_wait and wait:
            self.clock.now = min(job.finish_at, self.clock.now + int(wait.group(1)))
            headers["Preference-Applied"] = f"wait={wait.group(1)}"
        status = job.status_at(self.clock.now)
        return _ok(status.lower() if self.lower_case_status else status, headers)

    def _result(self, text: str, created_id: int) -> dict[str, Any]:
        """A job's result: the created row's id, or a text naming it (``results_name_rows``)."""
        return {
            "result": text if self.results_name_rows else str(created_id),
            "created_id": created_id,
        }

    def _database_result(self, request: httpx.Request, job_id: str) -> httpx.Response:
        job = self.jobs.get(job_id)
        if job is None or job.status_at(self.clock.now) != "SUCCESS" or job.created_id is None:
            return _detail(409, f"Job {job_id} has no database result")
        return _ok({"id": job.created_id})

    def _cancel_job(self, request: httpx.Request, job_id: str) -> httpx.Response:
        job = self.jobs.get(job_id)
        if job is None:
            return _detail(404, "Job not found")
        started = job.status_at(self.clock.now) == "STARTED"
        if started and not self.cancel_stops_started_jobs:
            job.listed_as = "REVOKED"  # listed so, while it runs on and succeeds
        else:
            job.final_status, job.finish_at = "REVOKED", self.clock.now + self.revoke_delay
        if self.cancel_answers_the_job:
            return _ok(job.wire(self.clock.now))
        return _ok({"message": f"Job {job_id} has been cancelled"})

    def _delete_job(self, request: httpx.Request, job_id: str) -> httpx.Response:
        if self.jobs.pop(job_id, None) is None:
            return _detail(404, "Job not found")
        return _ok({"message": "deleted"})

    def _job_logs(self, request: httpx.Request, job_id: str) -> httpx.Response:
        job = self.jobs.get(job_id)
        if job is None or job.logs is None:
            return _detail(404, "No logs")
        return httpx.Response(200, text=job.logs)


def _ok(payload: Any, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(200, json=payload, headers=headers)


def _detail(status: int, detail: Any) -> httpx.Response:
    return httpx.Response(status, json={"detail": detail})


def _fault_response(status: int) -> httpx.Response:
    if status >= 500:
        return httpx.Response(
            status, json={"detail": "Internal server error", "error": "boom", "type": "ValueError"}
        )
    return httpx.Response(status, json={"detail": f"fault {status}"})


Handler = Callable[[httpx.Request, FakeService], httpx.Response]
"""Answers a request, usually by way of the fake (``fake(request)``) and a change of its own."""


def route_through(monkeypatch: pytest.MonkeyPatch, fake: FakeService, handler: Handler) -> None:
    """Clients built after this call send their requests to ``handler(request, fake)``."""
    transport = httpx.MockTransport(lambda request: handler(request, fake))
    monkeypatch.setattr(fake, "transport", lambda: transport)
