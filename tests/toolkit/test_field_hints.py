"""A body field the route's model does not declare is answered with a 422 naming the field the
sender probably meant, found along the error's location in the route's body model."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi.testclient import TestClient
from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from chaplab.toolkit import ServiceBuilder
from chaplab.toolkit.field_hints import field_names


class Row(BaseModel):
    model_config = ConfigDict(extra="forbid")
    org_unit: str = Field(alias="orgUnit")
    value: float


class Mean(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["mean"]
    std_multiplier: float = Field(2.0, alias="stdMultiplier")


class Share(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["share"]
    quantile: float = 0.75


class Upload(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    n_periods: int = Field(3, alias="nPeriods")
    rows: list[Row] = Field([], validation_alias=AliasChoices("rows", "providedData"))
    params: Annotated[Mean | Share, Field(discriminator="type")] | None = None


def client() -> TestClient:
    builder = ServiceBuilder(title="hints", version="1")
    app = builder.build()

    @app.post("/upload")
    def upload(body: Upload) -> dict[str, str]:
        return {"name": body.name}

    return TestClient(app)


def messages(answer: object) -> dict[str, str]:
    body = answer.json()  # type: ignore[attr-defined]
    return {problem["field"]: problem["msg"] for problem in body["errors"]}


def test_a_misspelt_field_is_named_with_the_one_meant() -> None:
    answer = client().post("/upload", json={"name": "x", "nPriods": 2})
    assert answer.status_code == 422
    assert messages(answer) == {
        "body.nPriods": "is not a field of this request; did you mean 'nPeriods'?"
    }
    assert "body.nPriods: is not a field" in answer.json()["detail"]


def test_inside_a_list_the_item_model_is_searched() -> None:
    body = {"name": "x", "providedData": [{"orgUnit": "A", "value": 1}, {"orgUnt": "B"}]}
    hinted = messages(client().post("/upload", json=body))
    assert hinted["body.providedData.1.orgUnt"].endswith("did you mean 'orgUnit'?")


def test_nothing_close_lists_the_fields() -> None:
    answer = client().post("/upload", json={"name": "x", "colour": "red"})
    assert messages(answer)["body.colour"] == (
        "is not a field of this request (its fields: nPeriods, name, params, providedData, rows)"
    )


def test_in_a_tagged_union_the_member_the_tag_names_is_searched() -> None:
    """pydantic names a tagged union's member by its tag (``params.mean.lines``)."""
    answer = client().post("/upload", json={"name": "x", "params": {"type": "mean", "lines": [1]}})
    assert messages(answer) == {
        "body.params.mean.lines": "is not a field of this request (its fields: stdMultiplier, type)"
    }
    answer = client().post("/upload", json={"name": "x", "params": {"type": "share", "quantle": 1}})
    assert messages(answer)["body.params.share.quantle"].endswith("did you mean 'quantile'?")


def test_the_names_of_a_model_include_its_aliases() -> None:
    assert field_names(Upload, ["rows", 0]) == ["org_unit", "orgUnit", "value"]
    assert field_names(Upload, ["name"]) == []
