"""A hub's reference dates, horizons and target end dates <-> chaplab's split periods, periods
and horizons, across year ends."""

from __future__ import annotations

import datetime

import pytest

from chaplab.hubs import to_chaplab, to_hub

D = datetime.date


@pytest.mark.parametrize(
    ("reference", "horizon", "split", "period", "chaplab_horizon"),
    [
        # the example hub's rounds: horizon 0 is the week ending on the reference date
        (D(2022, 10, 22), 0, "2022W42", "2022W42", 1),
        (D(2022, 12, 17), 3, "2022W50", "2023W01", 4),  # forecast weeks across a year end
        (D(2022, 12, 31), 0, "2022W52", "2022W52", 1),  # the last Saturday of 2022
        (D(2022, 12, 31), 1, "2022W52", "2023W01", 2),
        # epidemiological week 2003-53 ends on 3 January 2004, in ISO week 2004W01
        (D(2003, 12, 27), 1, "2003W52", "2004W01", 2),
        (D(2004, 1, 3), 1, "2004W01", "2004W02", 2),
        # 2020 has an ISO week 53 and an epidemiological week 53 (ending 2 January 2021)
        (D(2020, 12, 26), 1, "2020W52", "2020W53", 2),
        (D(2021, 1, 2), 1, "2020W53", "2021W01", 2),
        # 2026: 1 January is a Thursday, the two calendars' numbers differ by one
        (D(2025, 12, 27), 2, "2025W52", "2026W02", 3),
    ],
)
def test_weeks_map_to_iso_weeks_and_back(
    reference: datetime.date, horizon: int, split: str, period: str, chaplab_horizon: int
) -> None:
    week = to_chaplab(reference, horizon)
    assert (week.split_period, week.period, week.horizon) == (split, period, chaplab_horizon)
    assert not week.is_nowcast
    back = to_hub(split, period)
    assert back.reference_date == reference
    assert back.horizon == horizon
    assert back.target_end_date == reference + datetime.timedelta(weeks=horizon)


def test_consecutive_hub_weeks_are_consecutive_iso_weeks_for_a_decade() -> None:
    from chaplab import vocabulary

    reference = D(2015, 1, 3)
    labels = [to_chaplab(reference, h).period for h in range(52 * 10)]
    ordinals = [vocabulary.parse_period(label)[1] for label in labels]
    assert ordinals == list(range(ordinals[0], ordinals[0] + len(ordinals)))


def test_weeks_before_the_first_forecast_week_are_nowcasts() -> None:
    before = to_chaplab(D(2022, 10, 22), -1)
    assert (before.split_period, before.period, before.horizon) == ("2022W42", "2022W41", 0)
    assert before.is_nowcast
    # a hub whose reference week is reported when its forecasts are due forecasts from horizon 1
    reported = to_chaplab(D(2022, 10, 22), 0, first_forecast_horizon=1)
    assert (reported.split_period, reported.period, reported.horizon) == ("2022W43", "2022W42", 0)
    assert reported.is_nowcast
    ahead = to_chaplab(D(2022, 10, 22), 1, first_forecast_horizon=1)
    assert (ahead.split_period, ahead.horizon) == ("2022W43", 1)
    assert to_hub("2022W43", "2022W43", first_forecast_horizon=1).horizon == 1
    assert to_hub("2022W43", "2022W43", first_forecast_horizon=1).reference_date == D(2022, 10, 22)


def test_a_reference_date_that_is_no_saturday_is_refused() -> None:
    with pytest.raises(ValueError, match="reference_date 2022-10-23 is a Sunday"):
        to_chaplab(D(2022, 10, 23), 0)
