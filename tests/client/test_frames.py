"""The frame-returning methods hand the response to ``chaplab.frames`` (the async client in a
worker thread, off its event loop); ``create_dataset`` sends the frame as wire observations."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pandas as pd
import pytest

import chaplab.frames
from chaplab.client import AsyncChapClient, ChapDecodeError

from .conftest import BASE_URL
from .fake_service import FakeService


def test_evaluation_frame(client: Any, fake: FakeService) -> None:
    frame = client.evaluation_frame(1, quantiles=[0.1, 0.9], org_units=["OU_A"])
    assert list(frame.columns) == ["org_unit", "split_period", "period", "quantile", "value"]
    assert len(frame) == 4  # 2 split periods x 1 org unit x 2 quantiles
    assert set(frame["quantile"]) == {0.1, 0.9}
    assert fake.requests[-1].url.params.multi_items() == [
        ("backtestId", "1"), ("quantiles", "0.1"), ("quantiles", "0.9"), ("orgUnits", "OU_A")]


def test_prediction_frame(client: Any, fake: FakeService) -> None:
    frame = client.prediction_frame(7, quantiles=[0.5])
    assert list(frame.columns) == ["org_unit", "period", "quantile", "value"]
    assert frame["value"].tolist() == [5.0]
    assert fake.requests[-1].url.path == "/v1/analytics/prediction-entry/7"


def test_empty_answers_give_frames_with_their_columns(client: Any, fake: FakeService) -> None:
    import httpx

    fake.fail("GET /v1/analytics/evaluation-entry", httpx.Response(200, json=[]))
    fake.fail("GET /v1/analytics/prediction-entry/7", httpx.Response(200, json=[]))
    evaluation = client.evaluation_frame(1)
    assert list(evaluation.columns) == ["org_unit", "split_period", "period", "quantile", "value"]
    assert evaluation.empty
    prediction = client.prediction_frame(7)
    assert list(prediction.columns) == ["org_unit", "period", "quantile", "value"]


def test_actual_cases(client: Any, fake: FakeService) -> None:
    frame = client.actual_cases(1, org_units=["OU_B"])
    assert frame["org_unit"].astype(str).tolist() == ["OU_B"]
    assert frame["value"].tolist() == [26.0]
    assert fake.requests[-1].url.path == "/v1/analytics/actualCases/1"
    assert fake.requests[-1].url.params.get_list("orgUnits") == ["OU_B"]


def test_truncated_entries_are_a_decode_error(client: Any, fake: FakeService) -> None:
    import httpx

    fake.fail("GET /v1/analytics/evaluation-entry",
              httpx.Response(200, content=b'[{"orgUnit": "OU_A", "per'))
    with pytest.raises(ChapDecodeError, match="evaluation-entry"):
        client.evaluation_frame(1)


def test_the_async_client_builds_frames_off_its_event_loop(
    fake: FakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    builders: list[int] = []  # the threads the frames were built on

    def recording(build: Any) -> Any:
        def wrapper(body: bytes, **options: Any) -> pd.DataFrame:
            builders.append(threading.get_ident())
            return build(body, **options)

        return wrapper

    for name in ("entries_to_frame", "actuals_to_frame"):
        monkeypatch.setattr(chaplab.frames, name, recording(getattr(chaplab.frames, name)))

    async def frames() -> tuple[int, pd.DataFrame, pd.DataFrame]:
        async with AsyncChapClient(BASE_URL, transport=fake.transport()) as client:
            entries = await client.evaluation_frame(1)
            actuals = await client.actual_cases(1)
        return threading.get_ident(), entries, actuals

    loop_thread, entries, actuals = asyncio.run(frames())
    assert len(builders) == 2 and loop_thread not in builders
    assert len(entries) and len(actuals)


def test_create_dataset(client: Any, fake: FakeService) -> None:
    frame = pd.DataFrame({"time_period": ["2021-01", "2021-02"], "location": ["OU_A", "OU_A"],
                          "rainfall": [1.0, 2.0]})
    geojson = {"type": "FeatureCollection", "features": []}
    dataset = client.create_dataset("mine", frame, geojson=geojson)
    assert (dataset.id, dataset.name, dataset.type) == (2, "mine", "evaluation")
    body = json.loads(fake.requests[-1].content)
    assert fake.paths()[-1] == "POST /v1/crud/datasets"
    assert body == {"name": "mine", "type": "evaluation", "geojson": geojson, "dataSources": [],
                    "providedData": [
                        {"featureName": "rainfall", "orgUnit": "OU_A", "period": "202101",
                         "value": 1.0},
                        {"featureName": "rainfall", "orgUnit": "OU_A", "period": "202102",
                         "value": 2.0}]}
    with pytest.raises(ValueError, match="type must be"):
        client.create_dataset("mine", frame, type="training")
