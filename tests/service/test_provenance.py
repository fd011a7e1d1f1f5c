"""What chap-core 2.5.1's answers say of where a record comes from, ours says too, from our own
records: whether a dataset was stored as one or came with an evaluation's or a prediction's
data (``createdManually``), the template version an evaluation ran (``modelTemplateVersion``),
the prediction setup made from an evaluation and the one whose run made a prediction
(``predictionSetupId``), and a prediction's configured model and dataset. A database of schema
version 8 gains them: its datasets are told apart by the rows and requests that made them (and
its predictions an empty ``metaData``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine

from chaplab.client import ChapClient
from chaplab.service import create_app
from chaplab.service.db import SCHEMA_VERSION
from chaplab.toolkit import BackgroundServer

from .helpers import geojson_for, small_frame

pytestmark = pytest.mark.integration


def read(url: str, path: str) -> Any:
    answer = httpx.get(f"{url}{path}", timeout=60)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_records_say_where_they_come_from(
    new_database_url: Callable[[str], str],
) -> None:
    database = new_database_url("provenance")
    frame = small_frame(n_years=2)
    geojson = geojson_for(sorted(set(frame.location)))
    with (
        BackgroundServer(create_app(database, workers=1), "127.0.0.1") as server,
        ChapClient(server.url) as chap,
    ):
        stored = chap.create_dataset("stored", frame, geojson=geojson)
        evaluation = chap.run_evaluation("on it", "naive_model", stored.id, 2, 2)
        imported = chap.create_evaluation_with_data(
            "inline", "naive_model", frame, geojson=geojson, n_periods=2, n_splits=2
        )
        inline = chap.wait_for_job(imported.id, timeout=300).result_id
        setup = chap.create_prediction_setup(evaluation.id, "repeated")
        run = chap.wait_for_job(chap.run_prediction_setup(setup.id, "run", frame, geojson).id)
        prediction = read(server.url, f"/v1/crud/predictions/{run.result_id}")
        datasets = {row["id"]: row for row in read(server.url, "/v1/crud/datasets")}
        assert datasets[stored.id]["createdManually"] is True
        assert datasets[imported.dataset_id]["createdManually"] is False
        assert datasets[prediction["datasetId"]]["createdManually"] is False
        assert prediction["predictionSetupId"] == setup.id
        assert prediction["configuredModel"]["name"] == "naive_model"
        assert prediction["dataset"]["id"] == prediction["datasetId"]
        assert prediction["metaData"] == {}
        ran = read(server.url, f"/v1/crud/backtests/{evaluation.id}")
        assert ran["predictionSetupId"] == setup.id
        assert ran["modelTemplateVersion"] == ran["configuredModel"]["modelTemplate"]["version"]
        assert ran["modelTemplateVersion"] == "1" and ran["chapVersion"] is None
        assert read(server.url, f"/v1/crud/backtests/{inline}")["predictionSetupId"] is None
    engine = create_engine(database)
    with engine.begin() as connection:  # what a version-8 chaplab stored
        connection.exec_driver_sql("ALTER TABLE datasets DROP COLUMN created_manually")
        connection.exec_driver_sql("ALTER TABLE evaluations DROP COLUMN model_template_version")
        connection.exec_driver_sql("ALTER TABLE predictions DROP COLUMN meta_data")
        connection.exec_driver_sql("UPDATE schema_version SET version = 8")
    with BackgroundServer(create_app(database, seed_demo=False, workers=1), "127.0.0.1") as server:
        migrated = {
            row["id"]: row["createdManually"] for row in read(server.url, "/v1/crud/datasets")
        }
        assert migrated == {
            **{id_: True for id_ in datasets},
            **{imported.dataset_id: False, prediction["datasetId"]: False},
        }
        assert (
            read(server.url, f"/v1/crud/backtests/{evaluation.id}")["modelTemplateVersion"] is None
        )
        assert read(server.url, f"/v1/crud/predictions/{run.result_id}")["metaData"] == {}
    with engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT version FROM schema_version").all() == [
            (SCHEMA_VERSION,)
        ]
    engine.dispose()
