"""Configured models by id, archiving, and registering a template by description."""

from __future__ import annotations

import pytest

from chaplab.client import (
    ChapClient,
    ConflictError,
    JobFailedError,
    NotFoundError,
    UnprocessableEntityError,
)
from chaplab.schema import create_config_schema, schema_integer

from .helpers import Evaluated

pytestmark = pytest.mark.integration


def _template_id(client: ChapClient, name: str) -> int:
    return next(t.id for t in client.list_model_templates() if t.name == name)


def test_a_configured_model_is_read_by_id(client: ChapClient, unique: str) -> None:
    created = client.create_configured_model(f"byid{unique}", _template_id(client, "naive_model"))
    read = client.get_configured_model(created.id).model_dump()
    # one configured model is answered with its template, as chap-core 2.5.1 answers it
    assert read.pop("modelTemplate")["name"] == "naive_model"
    assert read == created.model_dump()
    with pytest.raises(NotFoundError):
        client.get_configured_model(987654)


def test_an_archived_model_stays_readable_and_leaves_the_lists(
    client: ChapClient, unique: str
) -> None:
    template_id = _template_id(client, "seasonal_naive")
    created = client.create_configured_model(f"arch{unique}", template_id)
    client.delete_configured_model(created.id)
    assert client.get_configured_model(created.id).archived is True
    assert created.id not in [m.id for m in client.list_configured_models()]
    assert created.id not in [m.id for m in client.list_models()]
    again = client.create_configured_model(f"arch{unique}", template_id)
    assert again.id == created.id and again.archived is False
    assert created.id in [m.id for m in client.list_configured_models()]
    with pytest.raises(NotFoundError):
        client.delete_configured_model(987654)


def test_a_registered_template_is_listed_and_configurable(
    client: ChapClient, evaluated: Evaluated, unique: str
) -> None:
    schema = create_config_schema("Lags", properties={"n_lags": schema_integer(default=4)})
    template = client.register_model_template(
        f"external_{unique}",
        "An externally run model.",
        schema,
        supported_period_type="month",
        required_covariates=["rainfall"],
        author="tests",
    )
    assert template.name == f"external_{unique}" and template.supported_period_type == "month"
    assert template.user_options == {"n_lags": {"type": "integer", "default": 4}}
    assert template.id in [t.id for t in client.list_model_templates()]
    model = client.create_configured_model("two", template.id, {"n_lags": 2})
    assert model.name == f"external_{unique}:two"
    with pytest.raises(UnprocessableEntityError, match="n_lags"):
        client.create_configured_model("bad", template.id, {"n_lags": "many"})
    job = client.create_evaluation(f"external {unique}", model.name, evaluated.dataset.id, 2, 2)
    with pytest.raises(JobFailedError, match="registered by its description only") as failed:
        client.wait_for_job(job.id, timeout=120)
    assert failed.value.status == "FAILURE"
    assert f"external_{unique}" in [k for kind in client.list_data_sources() for k in kind.used_by]


def test_a_template_registration_is_checked(client: ChapClient, unique: str) -> None:
    with pytest.raises(ConflictError, match="already exists"):
        client.register_model_template("naive_model", "again")
    with pytest.raises(UnprocessableEntityError, match="configSchema"):
        client.register_model_template(f"bad_{unique}", "x", {"type": "array"})
    with pytest.raises(UnprocessableEntityError, match="name"):
        client.register_model_template("has space", "x")
    with pytest.raises(UnprocessableEntityError, match=r"requiredCovariates\[0\]"):
        client.register_model_template(f"blank_{unique}", "x", required_covariates=[" "])
    with pytest.raises(ValueError, match="supported_period_type"):
        client.register_model_template(f"day_{unique}", "x", supported_period_type="day")
