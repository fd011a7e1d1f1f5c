"""Model templates and configured models, with and without data sources."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import numpy as np
import pytest

from chaplab.client import (
    ConfiguredModelWithDataSource,
    ConflictError,
    ModelSpec,
    ModelTemplate,
    NameResolutionError,
    UnsupportedRouteError,
)

from .chap_core_mock import ChapCoreMock, without
from .fake_service import DISCOVERY, MODEL_SPEC, FakeService, last_body


def test_model_templates_and_models(client: Any, fake: FakeService) -> None:
    [template] = client.list_model_templates()
    assert isinstance(template, ModelTemplate)
    assert template.user_options["n_lags"]["default"] == 3
    assert template.required_covariates == ["rainfall", "mean_temperature"]
    [model] = client.list_models()
    assert isinstance(model, ModelSpec)
    assert (model.id, model.name, model.model_template_id) == (5, "naive_model:weekly", 1)
    assert client.list_configured_models() == [model]
    assert fake.paths() == [
        "GET /v1/crud/model-templates",
        *DISCOVERY,
        "GET /v1/crud/models",
        "GET /v1/crud/configured-models",
    ]


def test_list_models_falls_back_when_the_route_is_gone(client: Any, fake: FakeService) -> None:
    fake.has_models_route = False
    [model] = client.list_models()
    assert model.name == "naive_model:weekly"
    assert fake.paths() == [*DISCOVERY, "GET /v1/crud/models", "GET /v1/crud/configured-models"]


def test_model_spec_without_template_id(client: Any, fake: FakeService) -> None:
    nested = {k: v for k, v in fake.configured_models[0].items() if k != "modelTemplateId"}
    fake.configured_models[:] = [
        {**nested, "modelTemplate": {"id": 9, "name": "x"}},
        {**nested, "id": 8},
    ]
    with_nested, bare = client.list_configured_models()
    assert with_nested.model_template_id == 9
    assert bare.model_template_id is None


def test_a_configured_model_carries_its_templates_role_where_the_server_nests_it() -> None:
    """chap-core 2.5.1 nests the template, with its role, in an evaluation's or a leaderboard
    reference's configured model (``ConfiguredModelRead.modelTemplate``)."""
    nested = ModelSpec.model_validate(
        {"id": 3, "name": "reference", "modelTemplate": {"id": 7, "role": "baseline"}}
    )
    assert (nested.model_template_id, nested.role) == (7, "baseline")
    plain = ModelSpec.model_validate({"id": 4, "name": "x", "modelTemplate": {"id": 7}})
    assert plain.role is None


def test_a_listed_models_role_is_its_templates() -> None:
    """Both servers' configured-model lists leave the role out (2.5.1 also the template id):
    the template is found by id, else by the name a configuration is given."""
    templates = [
        ModelTemplate(id=1, name="median", role="baseline", archived=True),
        ModelTemplate(id=2, name="median", role="baseline"),
        ModelTemplate(id=3, name="regression"),
    ]
    by_id = ModelSpec(id=5, name="anything", model_template_id=2)
    by_name = ModelSpec(id=6, name="median:weekly")
    ordinary = ModelSpec(id=7, name="regression")
    unknown = ModelSpec(id=8, name="medians")
    assert by_id.template_in(templates) == templates[1]
    assert by_name.template_in(templates) == templates[1]  # the version not archived
    assert [model.role_in(templates) for model in (by_id, by_name, ordinary, unknown)] == [
        "baseline",
        "baseline",
        None,
        None,
    ]
    told = ModelSpec(id=9, name="regression", role="comparison")
    assert told.role_in(templates) == "comparison"  # what the server sent wins


def test_create_configured_model_returns_the_stored_name(client: Any, fake: FakeService) -> None:
    model = client.create_configured_model("daily", 1, {"n_lags": 2})
    assert model.name == "naive_model:daily"
    assert model.user_option_values == {"n_lags": 2}
    assert fake.paths()[-1] == "POST /v1/crud/configured-models"
    assert last_body(fake) == {
        "name": "daily",
        "modelTemplateId": 1,
        "userOptionValues": {"n_lags": 2},
        "additionalContinuousCovariates": [],
    }


def test_a_template_is_named_and_a_misspelt_name_is_refused_before_creating(
    client: Any, fake: FakeService
) -> None:
    model = client.create_configured_model("daily", "naive_model")
    assert model.name == "naive_model:daily"
    assert last_body(fake)["modelTemplateId"] == 1
    with pytest.raises(NameResolutionError) as refused:
        client.create_configured_model("daily", "naive_modle")
    assert str(refused.value) == (
        "model_template_id: no model template named 'naive_modle'; did you mean 'naive_model'?"
    )
    assert fake.paths()[-1] == "GET /v1/crud/model-templates"
    assert fake.paths().count("POST /v1/crud/configured-models") == 1


def test_of_template_versions_sharing_a_name_the_live_one_is_taken(
    call: Callable[..., Any],
) -> None:
    templates = [
        {"id": 1, "name": "naive_model", "archived": True},
        {"id": 2, "name": "naive_model", "archived": False},
    ]
    bodies: list[Any] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/crud/model-templates":
            return httpx.Response(200, json=templates)
        if request.method == "GET":  # the configured models
            return httpx.Response(200, json=[])
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json={"id": 9, "name": "naive_model:w"})

    call(handler, "create_configured_model", "w", "naive_model")
    assert bodies[-1]["modelTemplateId"] == 2
    templates[0]["archived"] = False
    with pytest.raises(
        NameResolutionError,
        match=(
            r"^model_template_id: 2 templates are named 'naive_model' \(id 1; id 2\); pass the id"
        ),
    ):
        call(handler, "create_configured_model", "w", "naive_model")
    assert len(bodies) == 1


def test_numpy_option_values_go_on_the_wire_as_plain_json(client: Any, fake: FakeService) -> None:
    client.create_configured_model(
        "daily",
        1,
        {
            "n_lags": np.int64(2),
            "lags": np.arange(3),
            "alpha": np.float32(0.5),
            "trend": np.bool_(True),
            "missing": float("nan"),
        },
    )
    assert fake.requests[-1].headers["content-type"] == "application/json"
    assert last_body(fake)["userOptionValues"] == {
        "n_lags": 2,
        "lags": [0, 1, 2],
        "alpha": 0.5,
        "trend": True,
        "missing": None,
    }


def test_configured_models_with_data_source(client: Any, fake: FakeService) -> None:
    [record] = client.list_configured_models_with_data_source()
    assert isinstance(record, ConfiguredModelWithDataSource)
    assert (record.period_type, record.org_units) == ("month", ["OU_A"])
    assert record.configured_model.name == "naive_model:weekly"
    assert client.get_configured_model_with_data_source(3) == record
    created = client.create_configured_model_with_data_source_from_evaluation(1)
    assert created.id == 4
    assert fake.paths() == [
        *DISCOVERY,
        "GET /v1/crud/configured-models-with-data-source",
        "GET /v1/crud/configured-models-with-data-source/3",
        "POST /v1/crud/configured-models-with-data-source/from-backtest/1",
    ]


FROM_SERVICE = {
    "name": "chaplab-mean",
    "id": 5,
    "version": "1.0.0",
    "displayName": "chaplab mean",
    "usesChapkit": True,
    "isLive": True,
    "archived": False,
    "role": "comparison",
    "requiredCovariates": [],
    "minPredictionLength": 0,
    "maxPredictionLength": 100,
}


def test_a_template_is_stored_from_a_registered_model_service(call: Callable[..., Any]) -> None:
    """The template comes back as the template list shows it: chap-core 2.5.1's answer to
    the registration leaves out the health that its list gives."""
    mock = ChapCoreMock(
        {
            "POST /v1/crud/model-templates/from-service": httpx.Response(200, json=FROM_SERVICE),
            "GET /v1/crud/model-templates": httpx.Response(
                200, json=[{**FROM_SERVICE, "healthStatus": "live"}]
            ),
        }
    )
    template = call(mock.handler, "register_template_from_service", "chaplab-mean", "comparison")
    assert mock.bodies == [{"serviceId": "chaplab-mean", "role": "comparison"}, None]
    assert (template.id, template.uses_chapkit, template.role) == (5, True, "comparison")
    assert template.health_status == "live"
    call(mock.handler, "register_template_from_service", "chaplab-mean")
    assert mock.bodies[2] == {"serviceId": "chaplab-mean"}
    with pytest.raises(ValueError, match="role must be one of"):
        call(mock.handler, "register_template_from_service", "chaplab-mean", "reference")
    with pytest.raises(ValueError, match="service_id must be a non-empty string"):
        call(mock.handler, "register_template_from_service", "")


def test_a_stored_template_the_list_does_not_show_is_answered_as_stored(
    call: Callable[..., Any],
) -> None:
    """chap-core 2.5.1 lists a new version of a stored template only once it is configured."""
    mock = ChapCoreMock(
        {
            "POST /v1/crud/model-templates/from-service": httpx.Response(200, json=FROM_SERVICE),
            "GET /v1/crud/model-templates": httpx.Response(200, json=[]),
        }
    )
    template = call(mock.handler, "register_template_from_service", "chaplab-mean")
    assert (template.id, template.version, template.health_status) == (5, "1.0.0", None)


def test_a_template_is_retired_one_version_or_all(call: Callable[..., Any]) -> None:
    mock = ChapCoreMock(
        {"DELETE /v1/crud/model-templates/5": httpx.Response(200, json={"message": "retired"})}
    )
    call(mock.handler, "delete_model_template", 5)
    call(mock.handler, "delete_model_template", 5, True)
    assert [dict(request.url.params) for request in mock.seen] == [{}, {"allVersions": "true"}]
    with pytest.raises(TypeError, match="model_template_id must be an int"):
        call(mock.handler, "delete_model_template", "5")


def test_registering_a_runner_is_the_way_where_templates_are_not_from_services(
    call: Callable[..., Any],
) -> None:
    mock = ChapCoreMock({}, openapi=without("POST /v1/crud/model-templates/from-service"))
    with pytest.raises(UnsupportedRouteError, match=r"register_model_template"):
        call(mock.handler, "register_template_from_service", "chaplab-mean")


def test_a_name_stands_for_one_configuration(client: Any, fake: FakeService) -> None:
    """The same name with the same options is the stored model; with other options it is
    refused, naming the model and its options, before anything is sent (the fake, as chap-core
    2.5.1, would put the new options under the old name)."""
    same = client.create_configured_model("weekly", 1, {"n_lags": 3})
    assert (same.id, same.name, same.user_option_values) == (5, "naive_model:weekly", {"n_lags": 3})
    sent = fake.paths().count("POST /v1/crud/configured-models")
    with pytest.raises(ConflictError) as refused:
        client.create_configured_model("weekly", "naive_model", {"n_lags": 6})
    assert str(refused.value) == (
        "configured model 'naive_model:weekly' (id 5) exists with user_option_values "
        "{'n_lags': 3} (asked for {'n_lags': 6}); choose another name for other options"
    )
    assert refused.value.status_code == 409
    with pytest.raises(ConflictError, match=r"additional_continuous_covariates \[\] \(asked for"):
        client.create_configured_model("weekly", 1, {"n_lags": 3}, ["rainfall"])
    assert fake.paths().count("POST /v1/crud/configured-models") == sent
    [kept] = client.list_configured_models()
    assert (kept.id, kept.user_option_values) == (5, {"n_lags": 3})


def test_an_archived_model_keeps_its_name(client: Any, fake: FakeService) -> None:
    fake.configured_models[0]["archived"] = True
    with pytest.raises(ConflictError, match=r"'naive_model:weekly' \(id 5, archived\) exists"):
        client.create_configured_model("weekly", 1, {"n_lags": 4})
    again = client.create_configured_model("weekly", 1, {"n_lags": 3})
    assert (again.id, again.archived) == (5, False)  # brought back


def test_a_model_whose_model_service_is_not_registered_is_marked(
    client: Any, fake: FakeService
) -> None:
    service = {"usesChapkit": True, "modelTemplateId": 1}
    fake.configured_models += [
        {**MODEL_SPEC, **service, "id": 6, "name": "scaled:gone", "healthStatus": None},
        {**MODEL_SPEC, **service, "id": 7, "name": "scaled:here", "healthStatus": "live"},
    ]
    marked = {model.name: model.service_missing for model in client.list_configured_models()}
    assert marked == {"naive_model:weekly": False, "scaled:gone": True, "scaled:here": False}
