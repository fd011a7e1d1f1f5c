"""What a form for a new evaluation offers: the backtest parameters with their defaults, the
future-weather providers to choose from, and the covariate names that make a dataset usable by
the models."""

from __future__ import annotations

from pydantic import Field

from chaplab.client._capabilities import Route
from chaplab.client._plumbing import Resource
from chaplab.client._steps import Operation
from chaplab.client._wire import NullableList, WireModel

# -- wire models -----------------------------------------------------------------------------


class BacktestParameter(WireModel):
    """One parameter of an evaluation (``name`` as on the wire: ``nPeriods``, ``nSplits``,
    ``stride``, ...), with its label, its default and its smallest and largest values (chap-core
    2.5.1 sends no largest; our service does)."""

    name: str
    label: str
    description: str = ""
    default: int | str
    type: str
    minimum: int | None = None
    maximum: int | None = None


class WeatherProvider(WireModel):
    """A source of future weather for the forecast periods; ``leaks_future_data`` is True
    when it reads the observed future (fine for testing, unfair in an evaluation)."""

    id: str
    display_name: str
    description: str = ""
    leaks_future_data: bool


class CovariateName(WireModel):
    """A covariate name to offer for a dataset's column: ``standard`` when it is one of the
    service's standard names, ``required_by`` the model templates that need it."""

    name: str
    standard: bool
    required_by: NullableList[str] = Field(default_factory=list)


# -- operations ------------------------------------------------------------------------------

BACKTEST_PARAMETERS = Route(
    "list_backtest_parameters",
    "GET",
    "/v1/analytics/backtest-parameters",
    "the defaults of create_evaluation(name, model, dataset_id, n_periods, n_splits, stride)",
)
WEATHER_PROVIDERS = Route(
    "list_weather_providers",
    "GET",
    "/v1/analytics/weather-providers",
    "nothing: this server chooses the future weather itself",
)
COVARIATE_NAMES = Route(
    "covariate_names",
    "GET",
    "/v1/analytics/covariate-names",
    "list_model_templates(), whose required_covariates name what each model needs",
)


class BacktestForm(Resource):
    """``/v1/analytics/backtest-parameters``, ``/v1/analytics/weather-providers`` and
    ``/v1/analytics/covariate-names``."""

    def list_backtest_parameters(self) -> Operation[list[BacktestParameter]]:
        """The parameters an evaluation takes, with their defaults and limits."""
        return (yield from self._call_route(list[BacktestParameter], BACKTEST_PARAMETERS))

    def list_weather_providers(self) -> Operation[list[WeatherProvider]]:
        """The future-weather providers an evaluation or a forecast can use."""
        return (yield from self._call_route(list[WeatherProvider], WEATHER_PROVIDERS))

    def covariate_names(self) -> Operation[list[CovariateName]]:
        """Covariate names to offer when naming a dataset's columns: models use a dataset whose
        column names match the names they ask for."""
        return (yield from self._call_route(list[CovariateName], COVARIATE_NAMES))
