"""Keys are checked at construction and never shown whole; 403 is an authentication error; a
retried DELETE that finds the resource gone succeeds; ``null`` collections read as empty."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from chaplab import connect
from chaplab._secrets import key_prefix
from chaplab.client import (
    AsyncChapClient,
    AuthenticationError,
    ChapClient,
    ChapConnectionError,
    ChapDecodeError,
    NotFoundError,
    PermissionDeniedError,
)
from chaplab.client import _models as models
from chaplab.client import _result_models as result_models

from .fake_service import CMWDS, DATASET, EVALUATION, MODEL_SPEC, TEMPLATE, FakeService

KEY = "sk_test_0123456789abcdefghij"
Handler = Callable[[httpx.Request, FakeService], httpx.Response]


def route_through(monkeypatch: pytest.MonkeyPatch, fake: FakeService, handler: Handler) -> None:
    """Clients built after this call send their requests to ``handler(request, fake)``."""
    transport = httpx.MockTransport(lambda request: handler(request, fake))
    monkeypatch.setattr(fake, "transport", lambda: transport)


def close(client: ChapClient | AsyncChapClient) -> None:
    if isinstance(client, AsyncChapClient):
        asyncio.run(client.aclose())
    else:
        client.close()


# -- the key is checked at construction --------------------------------------------------


@pytest.mark.parametrize("client_type", [ChapClient, AsyncChapClient])
@pytest.mark.parametrize(("key", "reason"), [
    (KEY + "\n", "surrounding whitespace"),
    (" " + KEY, "surrounding whitespace"),
    (KEY[:10] + "\r\n" + KEY[10:], "control"),
    (KEY[:10] + "\x00" + KEY[10:], "control"),
    (KEY[:10] + "\x7f" + KEY[10:], "control"),
    (KEY[:10] + "é" + KEY[10:], "non-ASCII"),
])
def test_a_key_that_cannot_be_a_header_is_refused_without_showing_it(
    client_type: type, key: str, reason: str
) -> None:
    with pytest.raises(ValueError, match="api_key") as caught:
        client_type("http://chap.test", api_key=key)
    assert reason in str(caught.value)
    assert KEY[7:10] not in str(caught.value)


def test_a_key_with_inner_spaces_is_accepted() -> None:
    with ChapClient("http://chap.test", api_key="Bearer " + KEY,
                    api_key_header="Authorization") as client:
        assert client.has_api_key


def test_connect_strips_the_key_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CHAP_URL", "http://chap.test")
    monkeypatch.setenv("CHAP_API_KEY", f"  {KEY}\n")
    for async_ in (False, True):
        client = connect(async_=async_)
        assert client._builder.build("GET", "/health").headers["X-API-Key"] == KEY
        close(client)
    monkeypatch.setenv("CHAP_API_KEY", " \n")
    client = connect()
    assert not client.has_api_key
    close(client)
    with pytest.raises(ValueError, match="api_key has surrounding whitespace"):
        connect(api_key=KEY + "\n")


# -- no exception text holds the key -------------------------------------------------------


def test_transport_error_text_is_scrubbed_of_the_key(
    make_client: Any, fake: FakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    def quote_the_key(request: httpx.Request, fake: FakeService) -> httpx.Response:
        fake.requests.append(request)
        key = request.headers["X-Chap-Key"]
        raise httpx.ReadError(f"connection broke while sending {key!r} ({key})", request=request)

    route_through(monkeypatch, fake, quote_the_key)
    client = make_client(api_key=KEY, api_key_header="X-Chap-Key")
    with pytest.raises(ChapConnectionError, match="could not reach .* after 3 retries") as caught:
        client.list_datasets()
    assert KEY[7:] not in str(caught.value)
    assert "sending '[redacted]' ([redacted])" in str(caught.value)


def test_gateway_credentials_are_scrubbed_too(
    make_client: Any, fake: FakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    def quote_the_credentials(request: httpx.Request, fake: FakeService) -> httpx.Response:
        raise httpx.ReadError(request.headers["Authorization"], request=request)

    route_through(monkeypatch, fake, quote_the_credentials)
    client = make_client(auth=("gw", "pa55word"))
    with pytest.raises(ChapConnectionError) as caught:
        client.list_datasets()
    assert str(caught.value).endswith(": [redacted]")


def test_a_request_that_cannot_be_formed_is_not_retried(
    make_client: Any, fake: FakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse_the_header(request: httpx.Request, fake: FakeService) -> httpx.Response:
        fake.requests.append(request)
        value = request.headers["X-API-Key"].encode()
        raise httpx.LocalProtocolError(f"Illegal header value {value!r}", request=request)

    route_through(monkeypatch, fake, refuse_the_header)
    client = make_client(api_key=KEY)
    with pytest.raises(ChapConnectionError) as caught:
        client.list_datasets()
    message = str(caught.value)
    assert message == (
        "GET /v1/crud/datasets: the request could not be formed: "
        "Illegal header value b'[redacted]'"
    )
    assert fake.paths() == ["GET /v1/crud/datasets"]


def test_an_error_body_that_echoes_the_key_is_scrubbed(
    make_client: Any, fake: FakeService
) -> None:
    fake.fail("GET /v1/crud/datasets", httpx.Response(401, json={"detail": f"bad key {KEY}"}))
    client = make_client(api_key=KEY)
    with pytest.raises(AuthenticationError) as caught:
        client.list_datasets()
    assert caught.value.message == "bad key [redacted]"
    assert KEY not in str(caught.value)


def test_an_unreadable_answer_that_echoes_the_key_is_scrubbed(
    make_client: Any, fake: FakeService
) -> None:
    fake.fail("GET /v1/jobs/job-1", httpx.Response(200, json={"status": {"key": KEY}}))
    client = make_client(api_key=KEY)
    with pytest.raises(ChapDecodeError) as caught:
        client.job_status("job-1")
    assert KEY not in str(caught.value)
    assert "[redacted]" in str(caught.value)


# -- reprs ---------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["abc123", "abcdefghijklm", KEY])
def test_repr_shows_at_most_the_loggable_prefix_of_a_key(make_client: Any, key: str) -> None:
    shown = repr(make_client(api_key=key))
    assert f"api_key='{key_prefix(key)}...'" in shown
    assert key not in shown


def test_short_keys_show_at_most_half() -> None:
    assert key_prefix("abc123") == "abc"
    assert key_prefix("abcdefghijklm") == "abcdef"
    assert key_prefix(KEY) == "sk_test"


def test_the_client_shares_the_rule_without_importing_the_toolkit() -> None:
    code = "import sys, chaplab.client; print('chaplab.toolkit' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "False"
    from chaplab.toolkit.keys import key_prefix as toolkit_key_prefix

    assert toolkit_key_prefix is key_prefix


@pytest.mark.parametrize("client_type", [ChapClient, AsyncChapClient])
def test_repr_and_url_errors_hide_user_and_password(client_type: type) -> None:
    client = client_type("http://gw:pa55word@chap.test/base", api_key=KEY)
    assert repr(client) == f"{client_type.__name__}('http://chap.test/base', api_key='sk_test...')"
    close(client)
    with pytest.raises(ValueError, match="base_url") as caught:
        client_type("ftp://gw:pa55word@chap.test")
    assert "pa55word" not in str(caught.value)


# -- 403 -------------------------------------------------------------------------------------


def test_403_is_caught_as_an_authentication_error(client: Any, fake: FakeService) -> None:
    fake.fail("GET /v1/crud/datasets", 403)
    with pytest.raises(AuthenticationError) as caught:
        client.list_datasets()
    assert isinstance(caught.value, PermissionDeniedError)
    assert caught.value.status_code == 403


# -- a retried DELETE ------------------------------------------------------------------------


def arrive_then_drop(request_line: str) -> Handler:
    """A handler that lets the first ``request_line`` request arrive, then drops its answer."""
    dropped: list[httpx.Request] = []

    def handler(request: httpx.Request, fake: FakeService) -> httpx.Response:
        response = fake(request)
        if f"{request.method} {request.url.path}" == request_line and not dropped:
            dropped.append(request)
            raise httpx.RemoteProtocolError("server disconnected", request=request)
        return response

    return handler


def test_a_retried_delete_that_finds_the_evaluation_gone_succeeds(
    make_client: Any, fake: FakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    route_through(monkeypatch, fake, arrive_then_drop("DELETE /v1/crud/backtests/1"))
    client = make_client()
    assert client.delete_evaluation(1) is None
    assert 1 not in fake.evaluations
    assert fake.paths() == ["DELETE /v1/crud/backtests/1"] * 2
    with pytest.raises(NotFoundError):
        client.delete_evaluation(1)  # a 404 to a first attempt is still an error


def test_a_retried_delete_that_finds_the_job_gone_succeeds(
    make_client: Any, fake: FakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake.add_job(id="job-1")
    route_through(monkeypatch, fake, arrive_then_drop("DELETE /v1/jobs/job-1"))
    client = make_client()
    client.delete_job("job-1")
    assert fake.jobs == {}
    assert fake.paths() == ["DELETE /v1/jobs/job-1"] * 2


@pytest.mark.parametrize("first", [httpx.ConnectError, 503])
def test_a_404_after_a_request_that_never_arrived_is_not_found(
    client: Any, fake: FakeService, first: Any
) -> None:
    fake.fail("DELETE /v1/crud/backtests/99", first)
    with pytest.raises(NotFoundError):
        client.delete_evaluation(99)
    assert fake.paths() == ["DELETE /v1/crud/backtests/99"] * 2


def test_a_bulk_delete_keeps_its_404(client: Any, fake: FakeService) -> None:
    fake.fail("DELETE /v1/crud/backtests", httpx.ReadError)
    with pytest.raises(NotFoundError):
        client.delete_evaluations([1, 2])  # some ids may be unknown: nothing was deleted
    assert fake.paths() == ["DELETE /v1/crud/backtests"] * 2


# -- null collections --------------------------------------------------------------------------

MINIMAL: dict[type[BaseModel], dict[str, Any]] = {
    models.Dataset: {"id": 1},
    models.ModelTemplate: {"id": 1, "name": "t"},
    models.ModelSpec: {"id": 1, "name": "m"},
    models.ConfiguredModelWithDataSource: {"id": 1},
    models.Evaluation: {"id": 1},
    models.PredictionRequest: {"name": "p", "configuredModelWithDataSourceId": 1, "nPeriods": 1},
}


def _collection_fields(model: type[BaseModel]) -> dict[str, Any]:
    return {
        name: field
        for name, field in model.model_fields.items()
        if field.default_factory in (list, dict)
    }


def test_every_list_and_dict_field_reads_null_as_empty() -> None:
    with_collections = [
        value for value in vars(models).values()
        if isinstance(value, type) and issubclass(value, BaseModel)
        and value.__module__ == models.__name__ and _collection_fields(value)
    ]
    assert set(with_collections) == set(MINIMAL)
    for model, minimal in MINIMAL.items():
        for name, field in _collection_fields(model).items():
            parsed = model.model_validate({**minimal, field.alias or name: None})
            assert getattr(parsed, name) == field.default_factory(), (model, name)


def test_null_collections_do_not_fail_list_calls(client: Any, fake: FakeService) -> None:
    fake.datasets = [{**DATASET, "orgUnits": None, "covariates": None, "dataSources": None}]
    spec = {**MODEL_SPEC, "userOptionValues": None, "additionalContinuousCovariates": None,
            "covariates": None}
    fake.configured_models = [spec]
    fake.evaluations = {1: {**EVALUATION, "orgUnits": None, "splitPeriods": None,
                            "aggregateMetrics": None, "configuredModel": spec}}
    fake.fail("GET /v1/crud/model-templates", httpx.Response(200, json=[
        {**TEMPLATE, "requiredCovariates": None, "userOptions": None}]))
    fake.fail("GET /v1/crud/configured-models-with-data-source", httpx.Response(200, json=[
        {**CMWDS, "orgUnits": None, "dataSources": None, "configuredModel": spec}]))
    assert client.list_datasets()[0].org_units == []
    assert client.list_configured_models()[0].additional_continuous_covariates == []
    [evaluation] = client.list_evaluations()
    assert (evaluation.split_periods, evaluation.aggregate_metrics) == ([], {})
    assert client.list_model_templates()[0].user_options == {}
    assert client.list_configured_models_with_data_source()[0].data_sources == []


def test_every_list_and_dict_field_of_the_further_payloads_reads_null_as_empty() -> None:
    samples = {int: 1, str: "x", float: 0.5}
    checked = 0
    for model in vars(result_models).values():
        if not (isinstance(model, type) and issubclass(model, BaseModel)
                and model.__module__ == result_models.__name__):
            continue
        minimal = {field.alias or name: samples[field.annotation]
                   for name, field in model.model_fields.items() if field.is_required()}
        for name, field in _collection_fields(model).items():
            parsed = model.model_validate({**minimal, field.alias or name: None})
            assert getattr(parsed, name) == field.default_factory(), (model, name)
            checked += 1
    assert checked >= 30
