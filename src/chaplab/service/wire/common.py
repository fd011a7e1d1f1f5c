"""The shared parts of the service's request and response models, in the wire spelling of
``docs/wire-contract.md``.

Stored resources are camelCase on the wire (snake_case is accepted on input too); job
descriptions and system information are snake_case. Every route declares a model of
``chaplab.service.wire`` so that ``/openapi.json`` describes real schemas.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    ValidationError,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import InitErrorDetails, PydanticCustomError

from chaplab.service.forecasting.weather import CLIMATOLOGY, WEATHER_PROVIDERS
from chaplab.service.text import printable, storable
from chaplab.vocabulary import (
    MAX_HORIZON,
    N_PERIODS,
    N_RETRAIN,
    N_SPLITS,
    PLAN_SETTINGS,
    STRIDE,
    BacktestPlan,
    PlanError,
    PlanSetting,
)

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


def forecasting_weather_provider(provider_id: str) -> str:
    """A known provider that a forecast of the future can use (one reading no future data)."""
    if WEATHER_PROVIDERS[known_weather_provider(provider_id)].leaks_future_data:
        raise ValueError(
            f"{provider_id!r} reads the forecast window's own observations and so cannot "
            "forecast ahead; use a forecasting provider such as 'climatology'"
        )
    return provider_id


ForecastWeatherProviderId = Annotated[
    str,
    AfterValidator(forecasting_weather_provider),
    Field(
        title="Future-weather provider",
        description="where the covariates of the forecast window come from: one that reads no "
        "future data (GET /v1/analytics/weather-providers)",
    ),
]


TargetColumn = Annotated[
    Literal["disease_cases"],
    Field(title="Target column", description="the feature that is forecast"),
]


DatasetType = Annotated[
    str,
    Field(
        pattern="^(evaluation|prediction)$",
        description="what the dataset is for: evaluations or forward predictions",
    ),
]


Horizon = Annotated[
    int,
    Field(gt=0, le=MAX_HORIZON, title=N_PERIODS.label, description=N_PERIODS.description),
]
"""How many periods a prediction forecasts (a backtest's are its plan's)."""


class WireModel(BaseModel):
    """camelCase on the wire, snake_case or camelCase accepted on input."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )


class WireRequest(WireModel):
    """A request body: strict where it helps, lenient where chap-core 2.5.1 is. A field the
    model does not declare is refused (422 naming it and the field it probably meant, so that
    ``nPriods`` is not quietly ignored); each route's model declares every field 2.5.1's takes.
    Values are converted as 2.5.1's pydantic models convert them (``"3"`` or ``3.0`` for a
    count), so a request 2.5.1 accepts is accepted here too."""

    model_config = ConfigDict(extra="forbid")


class SnakeModel(BaseModel):
    """snake_case on the wire (jobs, system information)."""


def plan_field(setting: PlanSetting) -> Any:
    """A request field of ``setting``: its default, label and description, and its range for
    forms and ``/openapi.json`` (the range is checked by :class:`BacktestPlan`)."""
    return Field(
        setting.default,
        title=setting.label,
        description=setting.description,
        json_schema_extra={"minimum": setting.minimum, "maximum": setting.maximum},
    )


class BacktestPlanRequest(WireRequest):
    """The settings of a backtest a request carries, as chap-core 2.5.1's ``BacktestParams``
    names them: once the fields have their types, they are made into a :class:`BacktestPlan`
    (:attr:`plan`), which checks them; a setting it refuses is a 422 naming that field."""

    n_periods: int = plan_field(N_PERIODS)
    n_splits: int = plan_field(N_SPLITS)
    stride: int = plan_field(STRIDE)
    n_retrain: int = plan_field(N_RETRAIN)
    future_weather_provider: WeatherProviderId = CLIMATOLOGY.id
    _plan: BacktestPlan = PrivateAttr()

    @model_validator(mode="wrap")
    @classmethod
    def _made_into_a_plan(
        cls, data: Any, handler: ModelWrapValidatorHandler[BacktestPlanRequest]
    ) -> BacktestPlanRequest:
        request = handler(data)
        settings = {setting.name: getattr(request, setting.name) for setting in PLAN_SETTINGS}
        try:
            request._plan = BacktestPlan(**settings)
        except PlanError as error:
            problem = PydanticCustomError("backtest_plan", error.reason)
            raise ValidationError.from_exception_data(
                cls.__name__,
                [
                    InitErrorDetails(
                        type=problem,
                        loc=(error.setting.wire_name,),
                        input=settings[error.setting.name],
                    )
                ],
            ) from None
        return request

    @property
    def plan(self) -> BacktestPlan:
        """The backtest plan of the request's settings."""
        return self._plan


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
