"""Errors read as one sentence for a person: short in IPython, naming the URL on a connection
failure, not retried when the host name does not resolve."""

from __future__ import annotations

import re
import socket
from typing import Any

import httpx
import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell

from chaplab.client import (
    ChapConnectionError,
    ChapError,
    NotFoundError,
    ServerError,
    UnprocessableEntityError,
)
from chaplab.client._errors import speak_arguments
from chaplab.client._plumbing import did_you_mean

from .fake_service import FakeService, route_through


def _unresolvable(request: httpx.Request, fake: FakeService) -> httpx.Response:
    fake.requests.append(request)
    try:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    except socket.gaierror as cause:
        raise httpx.ConnectError("[Errno -2] Name or service not known", request=request) from cause


def test_a_host_name_that_does_not_resolve_is_one_sentence_and_not_retried(
    make_client: Any, fake: FakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    route_through(monkeypatch, fake, _unresolvable)
    client = make_client()
    with pytest.raises(ChapConnectionError) as caught:
        client.list_datasets()
    assert str(caught.value) == (
        "GET /v1/crud/datasets could not reach http://chap.test: the host name 'chap.test' does "
        "not resolve ([Errno -2] Name or service not known); check the URL"
    )
    assert fake.paths() == ["GET /v1/crud/datasets"]
    assert fake.clock.sleeps == []


def test_a_resolver_that_cannot_be_asked_is_retried(
    make_client: Any, fake: FakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    def resolver_down(request: httpx.Request, fake: FakeService) -> httpx.Response:
        fake.requests.append(request)
        raise httpx.ConnectError("temporary", request=request) from socket.gaierror(
            socket.EAI_AGAIN, "Temporary failure in name resolution"
        )

    route_through(monkeypatch, fake, resolver_down)
    with pytest.raises(ChapConnectionError, match="after 3 retries"):
        make_client().list_datasets()
    assert len(fake.paths()) == 4


def test_a_refused_connection_names_the_url_and_is_retried(
    make_client: Any, fake: FakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(request: httpx.Request, fake: FakeService) -> httpx.Response:
        fake.requests.append(request)
        raise httpx.ConnectError("[Errno 111] Connection refused", request=request)

    route_through(monkeypatch, fake, refused)
    with pytest.raises(ChapConnectionError) as caught:
        make_client().list_datasets()
    assert str(caught.value) == (
        "GET /v1/crud/datasets could not reach http://chap.test after 3 retries: "
        "[Errno 111] Connection refused"
    )
    assert len(fake.paths()) == 4


def test_ipython_shows_the_sentence_and_a_hint_not_the_traceback(
    client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CHAPLAB_FULL_TRACEBACKS", raising=False)
    with pytest.raises(NotFoundError) as caught:
        client.get_dataset(99)
    lines = caught.value._render_traceback_()
    assert lines == [
        "NotFoundError: GET /v1/crud/datasets/99 failed with HTTP 404: Dataset 99 not found",
        "(the full traceback: set CHAPLAB_FULL_TRACEBACKS=1 in the environment)",
    ]


def _shown_in_ipython(error: ChapError, capsys: pytest.CaptureFixture[str]) -> str:
    """What an IPython shell prints when a cell raises ``error``."""
    shell = InteractiveShell.instance()
    shell.user_ns["error"] = error
    capsys.readouterr()
    shell.run_cell("def call_the_service():\n    raise error\n\ncall_the_service()")
    return re.sub(r"\x1b\[[0-9;]*m", "", capsys.readouterr().out)  # without the colours


def test_an_ipython_shell_prints_two_lines(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CHAPLAB_FULL_TRACEBACKS", raising=False)
    shown = _shown_in_ipython(ChapConnectionError("GET /v1/jobs could not reach x"), capsys)
    assert shown.strip().splitlines() == [
        "ChapConnectionError: GET /v1/jobs could not reach x",
        "(the full traceback: set CHAPLAB_FULL_TRACEBACKS=1 in the environment)",
    ]


def test_the_full_traceback_is_one_variable_away(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHAPLAB_FULL_TRACEBACKS", "1")
    shown = _shown_in_ipython(ChapConnectionError("GET /v1/jobs could not reach x"), capsys)
    assert "call_the_service()" in shown and "raise error" in shown
    assert "ChapConnectionError: GET /v1/jobs could not reach x" in shown
    assert "CHAPLAB_FULL_TRACEBACKS" not in shown


def test_a_field_named_in_the_detail_is_not_repeated_and_speaks_the_argument(
    make_client: Any, fake: FakeService
) -> None:
    problem = {
        "type": "about:blank",
        "title": "Not Found",
        "status": 404,
        "detail": "datasetId: no dataset with id 9999",
        "errors": [
            {"loc": ["datasetId"], "msg": "no dataset with this id", "type": "not_found"},
            {"loc": ["body", "modelId"], "msg": "no configured model 'x'"},
        ],
    }
    fake.fail(
        "GET /v1/crud/datasets",
        httpx.Response(404, json=problem, headers={"content-type": "application/problem+json"}),
    )
    with pytest.raises(NotFoundError) as caught:
        make_client().list_datasets()
    assert caught.value.message == (
        "dataset_id: no dataset with id 9999 - model: no configured model 'x'"
    )
    assert caught.value.problem == problem


def test_wire_names_inside_a_sentence_become_argument_names() -> None:
    assert (
        speak_arguments(
            "nPeriods=12, nSplits=500 and stride=1 need more; userOptionValues.n_lags; nPeriodsX"
        )
        == "n_periods=12, n_splits=500 and stride=1 need more; user_option_values.n_lags; nPeriodsX"
    )


def test_a_refused_model_name_gets_the_closest_listed_names_once(
    make_client: Any, fake: FakeService
) -> None:
    fake.fail("POST /v1/analytics/create-backtest", 404)
    with pytest.raises(NotFoundError) as caught:
        make_client().create_evaluation("bt", "naive_model:weekyl", 1)
    assert str(caught.value).endswith("; did you mean 'naive_model:weekly'?")
    assert fake.paths() == ["POST /v1/analytics/create-backtest", "GET /v1/crud/configured-models"]


def test_a_listed_model_name_gets_no_suggestion(make_client: Any, fake: FakeService) -> None:
    fake.fail("POST /v1/analytics/make-prediction", 422)
    frame = pd.DataFrame({"time_period": ["2024-01"], "location": ["A"], "disease_cases": [1.0]})
    with pytest.raises(UnprocessableEntityError) as caught:
        make_client().make_prediction_for_model("p", "naive_model:weekly", frame)
    assert "did you mean" not in str(caught.value)


def test_a_server_error_is_not_taken_for_a_wrong_name(make_client: Any, fake: FakeService) -> None:
    fake.fail("POST /v1/analytics/create-backtest", 500)
    with pytest.raises(ServerError) as caught:
        make_client().create_evaluation("bt", "naive_model:weekyl", 1)
    assert "did you mean" not in str(caught.value)
    assert fake.paths() == ["POST /v1/analytics/create-backtest"]


def test_did_you_mean_lists_close_names_only() -> None:
    known = ["naive_model", "naive_model:weekly", "regression_model"]
    assert did_you_mean("naive_modle", known) == (
        "did you mean 'naive_model' or 'naive_model:weekly'?"
    )
    assert did_you_mean("naive_model", known) is None
    assert did_you_mean("arima", known) is None
