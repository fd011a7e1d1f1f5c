"""Endemic thresholds of a dataset's ``disease_cases``, with chap-core 2.5.1's two strategies,
each computed for a period from the years before it only.

A period's threshold comes from the values of the same season in the years before the period's
year: never from the period itself or anything later, so a threshold is what could have been
known before the period began, and an outbreak in progress never raises the line it is judged
against. (2.5.1 draws one static line per season from the dataset's most recent complete years,
so its past periods are judged against a baseline that includes them.) The rule and both
strategies' arithmetic are :mod:`chaplab.thresholds`, which ``chaplab.scoring`` uses too.
Missing values are left out. Each strategy's line parameter may be a list: one line per value.
"""

from __future__ import annotations

import numpy as np
from sqlalchemy.orm import Session

from chaplab.service.domain.lookup import get_or_404
from chaplab.service.errors import FieldProblem, Missing
from chaplab.service.storage import panel_of
from chaplab.service.tables import DatasetRow
from chaplab.service.wire.thresholds import (
    PercentileParams,
    ThresholdEntry,
    ThresholdParams,
    ThresholdRequest,
    ThresholdResponse,
    ThresholdStrategyInfo,
)
from chaplab.thresholds import in_baseline, threshold_lines, year_and_season
from chaplab.vocabulary import canonical_period, parse_period

TARGET = "disease_cases"

STRATEGIES = (  # in 2.5.1's order
    ThresholdStrategyInfo(
        id="percentile",
        display_name="Seasonal percentile (WHO)",
        description="Outbreak threshold as a percentile of the same month (or week) in the "
        "baselineYears years before the period's year. Defaults to the 75th percentile over "
        "5 years, the WHO malaria channel practice; robust to past epidemic years, which "
        "inflate mean + k*std.",
    ),
    ThresholdStrategyInfo(
        id="seasonal",
        display_name="Seasonal mean + k*std",
        description="Outbreak threshold as the mean + k standard deviations of the same month "
        "(or week) in every year before the period's year.",
    ),
)


def list_strategies() -> list[ThresholdStrategyInfo]:
    """The strategies a request's ``params.type`` may select."""
    return list(STRATEGIES)


def compute_thresholds(session: Session, request: ThresholdRequest) -> ThresholdResponse:
    """One entry per requested (period, location), periods first, each with one value per line.

    404 when the dataset is unknown or has no ``disease_cases`` value; 422 naming the field for
    a period of another frequency than the dataset's or a location the dataset lacks."""
    dataset = get_or_404(session, DatasetRow, request.dataset_id, "dataset", "datasetId")
    panel = panel_of(dataset)
    cases = panel.features.get(TARGET)
    if cases is None or np.isnan(cases).all():
        raise Missing(f"dataset {dataset.id} has no {TARGET} observations to draw thresholds from")
    periods = [
        _requested_period(index, period, panel.period_type)
        for index, period in enumerate(request.period_ids)
    ]
    locations = _requested_locations(request.locations, panel.org_units, dataset.id)
    rows = cases[[panel.org_units.index(location) for location in locations]]
    years, seasons = year_and_season(panel.periods)
    baseline_years = _baseline_years(request.params)
    entries: list[ThresholdEntry] = []
    for requested, year, season in zip(request.period_ids, *year_and_season(periods), strict=True):
        same_season_before = (seasons == season) & in_baseline(years, year, baseline_years)
        lines = threshold_lines(
            rows[:, same_season_before], request.params.type, request.params.lines
        )
        entries.extend(
            ThresholdEntry(
                period=requested,
                location=location,
                values=[None if np.isnan(value) else float(value) for value in line_values],
            )
            for location, line_values in zip(locations, lines, strict=True)
        )
    return ThresholdResponse(params=request.params, lines=request.params.lines, entries=entries)


def _requested_period(index: int, period: str, period_type: str) -> str:
    """The canonical spelling of ``periodIds[index]``, which must be of the dataset's type."""
    field = f"periodIds[{index}]"
    try:
        found_type, _ = parse_period(period)
    except ValueError as error:
        raise FieldProblem(field, str(error)) from None
    if found_type != period_type:
        raise FieldProblem(
            field,
            f"period {period!r} is a {found_type}, but the dataset's periods are {period_type}s",
        )
    return canonical_period(period)


def _requested_locations(
    requested: list[str] | None, org_units: list[str], dataset_id: int
) -> list[str]:
    """The locations asked for (every org unit, sorted, when none are)."""
    if not requested:
        return sorted(org_units)
    known = set(org_units)
    for index, location in enumerate(requested):
        if location not in known:
            raise FieldProblem(
                f"locations[{index}]", f"{location!r} is not an org unit of dataset {dataset_id}"
            )
    return list(requested)


def _baseline_years(params: ThresholdParams) -> int | None:
    return params.baseline_years if isinstance(params, PercentileParams) else None
