"""Dataset endpoints through the client over loopback: CSV upload and export, the dataset builder
job, deletion and the kinds of data the models read; the list shows the same datasets as reading
each one, read from the columns it shows only, and is current after every write (a dataset stored
by a job, a deletion, a reused id)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import numpy as np
import pytest
from sqlalchemy import event

from chaplab.client import ChapClient, ConflictError, NotFoundError, UnprocessableEntityError
from chaplab.service import create_app
from chaplab.service.domain import datasets as domain_datasets
from chaplab.toolkit import BackgroundServer

from .helpers import Evaluated, geojson_for, observations, small_frame

pytestmark = pytest.mark.integration
UNLISTED_FIELDS = ("observations", "geojson")
RAIN = {"featureName": "rainfall", "orgUnit": "A", "period": "202101", "value": 1.0}


def _csv(frame) -> str:
    return frame.to_csv(index=False)


def test_a_csv_upload_stores_every_value(client: ChapClient, unique: str, tmp_path) -> None:
    frame = small_frame(n_years=1)
    units = sorted(set(frame.location))
    geojson_path = tmp_path / "units.geojson"
    geojson_path.write_text(json.dumps(geojson_for(units)))
    dataset = client.upload_dataset_csv(f"csv {unique}", _csv(frame), geojson=geojson_path)
    assert dataset.first_period == "201501" and dataset.last_period == "201512"
    assert sorted(dataset.org_units) == units
    assert set(dataset.covariates) == set(frame.columns) - {"time_period", "location"}
    stored = client.dataset_frame(dataset.id).set_index(["location", "time_period"]).sort_index()
    sent = (
        frame.assign(time_period=frame.time_period.astype(str))
        .set_index(["location", "time_period"])
        .sort_index()
    )
    assert np.allclose(
        stored[sent.columns].to_numpy(dtype=float), sent.to_numpy(dtype=float), equal_nan=True
    )


def test_a_csv_upload_accepts_a_frame_and_empty_cells(client: ChapClient, unique: str) -> None:
    frame = small_frame(n_years=1)
    frame.loc[0, "rainfall"] = np.nan
    dataset = client.upload_dataset_csv(f"frame {unique}", frame, type="prediction")
    assert dataset.type == "prediction"
    assert np.isnan(
        client.dataset_frame(dataset.id)
        .set_index(["location", "time_period"])
        .loc[(frame.loc[0, "location"], str(frame.loc[0, "time_period"])), "rainfall"]
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "csv: is empty"),
        (b"time_period,cases\n202101,3\n", "lacks the column 'location'"),
        (b"time_period,location\n202101,A\n", "has no feature column"),
        (b"time_period,location,x,x\n202101,A,1,2\n", "repeats the column 'x'"),
        (b"time_period,location,x\n", "has a header but no data rows"),
        (b"time_period,location,x\n202101,A\n", "line 2: has 2 cells, the header has 3"),
        (b"time_period,location,x\n202101,A,abc\n", "line 2, column x: 'abc' is not a number"),
        (b"time_period,location,x\n202101,A,inf\n", "not a finite number"),
        (b"time_period,location,x\n2021-13,A,1\n", "line 2, column time_period"),
        (b"time_period,location,x\n202101,=cmd(),1\n", "looks like a spreadsheet formula"),
        (
            b"time_period,location,x\n202101,A,1\n202101,A,2\n",
            "line 3: repeats location 'A' and period 202101 of line 2",
        ),
        (b"time_period,location,x\n202101,A,1\n2021W03,A,2\n", "weekly, earlier rows are monthly"),
        (b'time_period,location,x\n202101,A,"1\n', "not valid CSV"),
        ("time_period,location,x\n202101,Å,1\n".encode("latin-1"), "is not UTF-8 text"),
    ],
)
def test_a_malformed_csv_is_refused_naming_the_line_and_column(
    client: ChapClient, content: bytes, message: str
) -> None:
    # sent as prediction data, which needs no disease_cases column: the parser's sentence is
    # the one that comes back, not the client's refusal of an evaluation dataset without cases
    with pytest.raises(
        UnprocessableEntityError, match=message.replace("(", r"\(").replace(")", r"\)")
    ):
        client.upload_dataset_csv("bad", content, type="prediction")


@pytest.mark.parametrize(
    ("path", "request_kwargs", "field"),
    [
        (
            "/v1/crud/datasets/csvFile",
            {
                "data": {"name": "no cases"},
                "files": {"csvFile": ("data.csv", b"time_period,location,rainfall\n202101,A,1\n")},
            },
            "csvFile",
        ),
        (
            "/v1/crud/datasets",
            {"json": {"name": "no cases", "observations": [RAIN]}},
            "observations",
        ),
        (
            "/v1/analytics/make-dataset",
            {"json": {"name": "no cases", "providedData": [RAIN], "dataToBeFetched": []}},
            "providedData",
        ),
    ],
)
def test_evaluation_data_without_cases_is_refused_at_upload(
    service_url: str, path: str, request_kwargs: dict[str, Any], field: str
) -> None:
    """Sent past the client (by any HTTP client), an evaluation dataset without cases is a 422
    naming the field, the missing column and the columns found; nothing is stored."""
    before = httpx.get(f"{service_url}/v1/crud/datasets").json()
    answer = httpx.post(f"{service_url}{path}", **request_kwargs)
    assert answer.status_code == 422, answer.text
    assert (
        f"{field}: has no 'disease_cases' column, the cases an evaluation forecasts (columns "
        "found: time_period, location, rainfall)"
    ) in answer.text
    assert httpx.get(f"{service_url}/v1/crud/datasets").json() == before


@pytest.mark.parametrize(
    ("geojson", "message"),
    [
        (b"{not json", "geojson: is not valid JSON"),
        (b'{"type": "Feature"}', "geojson: must be a GeoJSON object"),
        (
            b'{"type": "FeatureCollection", "features": [{"type": "Feature", '
            b'"properties": {"id": "A"}, '
            b'"geometry": {"type": "Point", "coordinates": [0, 0]}}]}',
            "Polygon or MultiPolygon",
        ),
        (json.dumps(geojson_for(["other"])).encode(), "has no feature for the org units A"),
    ],
)
def test_a_malformed_geojson_file_is_refused(
    client: ChapClient, geojson: bytes, message: str
) -> None:
    with pytest.raises(UnprocessableEntityError, match=message):
        client.upload_dataset_csv(
            "bad geo", b"time_period,location,disease_cases\n202101,A,1\n", geojson=geojson
        )


def test_the_dataset_builder_job_stores_the_dataset(client: ChapClient, unique: str) -> None:
    frame = small_frame(n_years=1)
    job = client.make_dataset(
        f"built {unique}", frame, geojson=geojson_for(sorted(set(frame.location)))
    )
    done = client.wait_for_job(job.id, timeout=60)
    assert client.get_dataset(done.result_id).name == f"built {unique}"
    with pytest.raises(UnprocessableEntityError, match="geojson: has no feature for the org units"):
        client.make_dataset("bad", frame, geojson={"type": "FeatureCollection", "features": []})


def test_dataset_csv_export_neutralises_formula_like_text(client: ChapClient, unique: str) -> None:
    frame = small_frame(n_years=1)
    frame["location"] = frame["location"].map(
        {u: n for u, n in zip(sorted(set(frame.location)), ["=SUM(A1)", "-OU"], strict=True)}
    )
    frame["rainfall"] = -frame["rainfall"]  # negative numbers stay numbers
    dataset = client.create_dataset(f"formula {unique}", frame)
    rows = list(csv.DictReader(io.StringIO(client.dataset_csv(dataset.id))))
    assert {row["location"] for row in rows} == {"'=SUM(A1)", "'-OU"}
    assert all(float(row["rainfall"]) <= 0 for row in rows)
    assert len(rows) == len(frame)


def test_a_dataset_is_deleted_only_when_nothing_uses_it(
    client: ChapClient, evaluated: Evaluated, unique: str
) -> None:
    dataset = client.create_dataset(f"doomed {unique}", small_frame(n_years=1))
    client.delete_dataset(dataset.id)
    assert dataset.id not in [d.id for d in client.list_datasets()]
    with pytest.raises(NotFoundError):
        client.get_dataset(dataset.id)
    with pytest.raises(NotFoundError):
        client.delete_dataset(dataset.id)
    named = rf"used by evaluations? (.*, )?{evaluated.evaluation.id} \('shared naive'\)"
    with pytest.raises(ConflictError, match=named):  # and by any other test's evaluations
        client.delete_dataset(evaluated.dataset.id)
    for read in (client.dataset_csv, client.dataset_frame):
        with pytest.raises(NotFoundError):
            read(dataset.id)


def test_data_sources_list_the_kinds_models_read(client: ChapClient) -> None:
    kinds = {kind.name: kind for kind in client.list_data_sources()}
    assert kinds["disease_cases"].role == "target"
    assert set(kinds["disease_cases"].used_by) >= {
        "naive_model",
        "seasonal_naive",
        "regression_model",
    }
    assert kinds["rainfall"].role == "covariate" and "regression_model" in kinds["rainfall"].used_by
    assert "population" in kinds  # a feature of the demo dataset no model needs


def test_the_upload_form_needs_its_fields(service_url: str) -> None:
    answer = httpx.post(f"{service_url}/v1/crud/datasets/csvFile", data={"name": "x"})
    assert answer.status_code == 422 and "csvFile" in answer.text


def test_an_upload_with_chap_core_part_names_is_stored(service_url: str, unique: str) -> None:
    """chap-core 2.5.1 names the parts ``csv_file`` and ``geojson_file``; they are taken too."""
    text = "time_period,location,disease_cases\n2021-01,OU_A,3\n2021-02,OU_A,4\n"
    geojson = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "id": "OU_A",
                "properties": {"name": "A"},
                "geometry": {
                    "type": "Polygon",
                    "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]],
                },
            }
        ],
    }
    answer = httpx.post(
        f"{service_url}/v1/crud/datasets/csvFile",
        data={"name": f"snake parts {unique}"},
        files={
            "csv_file": ("data.csv", text.encode(), "text/csv"),
            "geojson_file": ("units.geojson", json.dumps(geojson).encode(), "application/geo+json"),
        },
    )
    assert answer.status_code == 200, answer.text
    stored = answer.json()
    assert (stored["name"], stored["orgUnits"]) == (f"snake parts {unique}", ["OU_A"])


@pytest.fixture
def own_service(new_database_url: Callable[[str], str]) -> Iterator[tuple[ChapClient, Any]]:
    """A service of its own (no demo content, so its ids are known); a client and the app."""
    app = create_app(new_database_url("list"), workers=1, seed_demo=False)
    with BackgroundServer(app, "127.0.0.1") as server, ChapClient(server.url) as client:
        yield client, app


def listed(client: ChapClient) -> list[dict[str, Any]]:
    """The list as the service sends it."""
    response = httpx.get(f"{client.base_url}/v1/crud/datasets")
    response.raise_for_status()
    return response.json()


def test_the_list_shows_what_reading_each_dataset_shows(
    own_service: tuple[ChapClient, Any],
) -> None:
    client, _ = own_service
    frame = small_frame(n_years=2)
    client.create_dataset("with polygons", frame, geojson=geojson_for(sorted(set(frame.location))))
    client.create_dataset("one feature", frame[["time_period", "location", "disease_cases"]])
    datasets = listed(client)
    assert [d["name"] for d in datasets] == ["with polygons", "one feature"]
    for dataset in datasets:
        read = httpx.get(f"{client.base_url}/v1/crud/datasets/{dataset['id']}").json()
        assert dataset == {k: v for k, v in read.items() if k not in UNLISTED_FIELDS}
    assert datasets[1]["covariates"] == ["disease_cases"]


def test_the_list_shows_a_dataset_stored_by_a_job_and_drops_a_deleted_one_at_once(
    own_service: tuple[ChapClient, Any],
) -> None:
    client, _ = own_service
    assert listed(client) == []
    job = client.wait_for_job(client.make_dataset("built", small_frame(n_years=2)).id, timeout=60)
    assert [(d["id"], d["name"]) for d in listed(client)] == [(int(job.result_id), "built")]
    client.delete_dataset(int(job.result_id))
    assert listed(client) == []


def test_a_dataset_stored_under_a_reused_id_is_listed_as_itself(
    own_service: tuple[ChapClient, Any],
) -> None:
    """SQLite may give a new row the id of the deleted last one: the count and the highest id
    are then what they were before, and the list must still show the new dataset."""
    client, _ = own_service
    frame = small_frame(n_years=2)
    first = client.create_dataset("first", frame)
    second = client.create_dataset("second", frame)
    assert [d["name"] for d in listed(client)] == ["first", "second"]
    client.delete_dataset(second.id)
    client.create_dataset("third", frame[["time_period", "location", "disease_cases"]])
    datasets = listed(client)
    assert [d["name"] for d in datasets] == ["first", "third"]
    assert datasets[0]["id"] == first.id
    assert datasets[1]["covariates"] == ["disease_cases"]


def test_the_list_reads_neither_feature_values_nor_polygons(
    own_service: tuple[ChapClient, Any],
) -> None:
    """A dataset's values and polygons are megabytes for many org units; the list needs
    neither, so it must not read them (this is what made it slow)."""
    client, app = own_service
    frame = small_frame(n_years=2)
    client.create_dataset("with polygons", frame, geojson=geojson_for(sorted(set(frame.location))))
    engine = app.state.service.factory.kw["bind"]
    statements: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        assert [d["name"] for d in listed(client)] == ["with polygons"]
    finally:
        event.remove(engine, "before_cursor_execute", record)
    reads = [s for s in statements if "FROM datasets" in s]
    assert len(reads) == 1
    assert "geojson" not in reads[0]
    assert "dataset_features.values" not in reads[0]


@pytest.mark.parametrize("at_once", [True, False])
def test_a_small_make_dataset_is_stored_while_answering_a_large_one_by_a_worker(
    service_url: str, monkeypatch: pytest.MonkeyPatch, unique: str, at_once: bool
) -> None:
    """A make-dataset request of few values answers a job that has already succeeded (its
    dataset stored in the request's one commit); above the limit a worker stores it. Either
    way the job, its result, its log and the dataset read the same."""
    frame = small_frame(n_years=2)
    if not at_once:  # the same data, now above the limit
        monkeypatch.setattr(domain_datasets, "AT_ONCE_VALUES", 10)
    body = {
        "name": f"made {unique}",
        "geojson": geojson_for(sorted(set(frame.location))),
        "providedData": observations(frame),
        "dataToBeFetched": [],
    }
    job_id = httpx.post(f"{service_url}/v1/analytics/make-dataset", json=body).json()["id"]
    [answered] = httpx.get(f"{service_url}/v1/jobs", params={"ids": job_id}).json()
    if at_once:
        assert answered["status"] == "SUCCESS" and answered["result"] is not None
    with ChapClient(service_url) as client:
        job = client.wait_for_job(job_id, timeout=120)
        dataset = client.get_dataset(int(job.result or 0))
        logs = client.job_logs(job_id)
    assert dataset.name == f"made {unique}" and sorted(dataset.org_units) == sorted(
        set(frame.location)
    )
    assert "storing 4 features x 2 org units x 24 periods" in logs
    assert f"finished: created row {dataset.id}" in logs
    assert ("while answering the request" in logs) is at_once
