"""The shared parts of the service's request and response models, in the wire spelling of
``docs/wire-contract.md``.

Stored resources are camelCase on the wire (snake_case is accepted on input too); job
descriptions and system information are snake_case. Every route declares a model of
``chaplab.service.wire`` so that ``/openapi.json`` describes real schemas.
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from chaplab.service.forecasting.weather import WEATHER_PROVIDERS
from chaplab.service.text import printable, storable

MAX_HORIZON = 520
"""The most periods one forecast reaches ahead: ten years of weeks."""


MAX_SPLITS = 1000
"""The most split points of one evaluation."""


Name = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(printable)]
"""A name a person gave (dataset, evaluation, prediction): printable text."""


Identifier = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(printable)]
"""An org unit or feature id: printable text."""


FreeText = Annotated[str, AfterValidator(storable)]
"""A description or message: line breaks and tabs allowed, a NUL character not."""


def known_weather_provider(provider_id: str) -> str:
    if provider_id not in WEATHER_PROVIDERS:
        known = ", ".join(WEATHER_PROVIDERS)
        raise ValueError(f"{provider_id!r} is not a future-weather provider (known: {known})")
    return provider_id


WeatherProviderId = Annotated[
    str,
    AfterValidator(known_weather_provider),
    Field(
        title="Future-weather provider",
        description="where the covariates of each forecast window come from "
        "(GET /v1/analytics/weather-providers)",
    ),
]


Horizon = Annotated[
    int,
    Field(gt=0, le=MAX_HORIZON, title="Forecast periods", description="periods ahead"),
]


SplitCount = Annotated[
    int,
    Field(gt=0, le=MAX_SPLITS, title="Number of splits", description="split points"),
]


Stride = Annotated[
    int,
    Field(gt=0, le=MAX_HORIZON, title="Step between splits", description="periods between splits"),
]


class WireModel(BaseModel):
    """camelCase on the wire, snake_case or camelCase accepted on input."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )


class WireRequest(WireModel):
    """A request body, validated strictly: a number where an id is wanted (never ``true`` or
    ``"3"``), a string where a name is wanted. A value of the wrong type is a 422 naming the
    field, not something quietly converted."""

    model_config = ConfigDict(strict=True)


class SnakeModel(BaseModel):
    """snake_case on the wire (jobs, system information)."""


class DataSource(WireRequest):
    covariate: Identifier
    data_element_id: Identifier


class Observation(WireRequest):
    """One value of one feature for one org unit and period; ``null`` marks a missing value."""

    feature_name: Identifier
    org_unit: Identifier
    period: str
    value: float | None = Field(allow_inf_nan=False)


Model = TypeVar("Model", bound=BaseModel)


def from_row(model: type[Model], row: object, **values: Any) -> Model:
    """``model`` filled from the attributes of ``row`` named like its fields (a stored row, a
    template spec); ``values`` give the fields the row does not hold as they are."""
    fields = {
        name: values[name] if name in values else getattr(row, name)
        for name in model.model_fields
        if name in values or hasattr(row, name)
    }
    return model.model_validate(fields)


class CreatedId(WireModel):
    """The primary key of the row a request created (2.5.1's ``DataBaseResponse``)."""

    id: int


class Deleted(WireModel):
    """What a DELETE answers, as 2.5.1 does."""

    message: str = "deleted"
