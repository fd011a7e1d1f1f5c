"""Future-weather providers: where the covariates of a forecast window come from.

``climatology`` gives each covariate its org unit's mean of that month or week over the
history (what a model does without future values), so a backtest scores as a real forecast
would. ``observed`` hands the model the window's own observed covariates: a look-ahead
backtest, which no forecast of the future can use."""

from __future__ import annotations

from dataclasses import dataclass

from chaplab.service.forecasting.panel import Panel
from chaplab.vocabulary import CLIMATOLOGY_WEATHER, OBSERVED_WEATHER


@dataclass(frozen=True)
class WeatherProvider:
    id: str
    display_name: str
    description: str
    leaks_future_data: bool

    def future(self, panel: Panel, first: int, n_periods: int) -> Panel | None:
        """The covariates of the window of ``n_periods`` starting at index ``first`` of
        ``panel`` that a model gets (None: it fills them from the history's climatology)."""
        if not self.leaks_future_data:
            return None
        return panel.window(first, first + n_periods)


CLIMATOLOGY = WeatherProvider(
    CLIMATOLOGY_WEATHER,
    "Climatology",
    "Each covariate's mean for the same month or week over the training history of its org "
    "unit: uses no data from the forecast window.",
    leaks_future_data=False,
)
OBSERVED = WeatherProvider(
    OBSERVED_WEATHER,
    "Observed weather",
    "The covariates observed in the forecast window itself: shows what perfect weather "
    "forecasts would give, not comparable with production, and cannot forecast ahead.",
    leaks_future_data=True,
)
WEATHER_PROVIDERS: dict[str, WeatherProvider] = {p.id: p for p in (CLIMATOLOGY, OBSERVED)}
"""Every provider by its id, the default first."""
