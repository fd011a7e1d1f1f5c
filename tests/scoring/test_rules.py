"""The scoring rules on arrays: the worked case by hand, properties, and scoringrules."""

from __future__ import annotations

import numpy as np
import pytest
import scoringrules as sr
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from chaplab.scoring import interval_score, pinball_loss, weighted_interval_score
from chaplab.scoring._rules import (
    interval_coverage,
    pit_bin_masses,
    pit_bounds,
    quantile_bias,
    quantile_coverage,
)

from .cases import WORKED_LEVELS, WORKED_OBSERVED, WORKED_VALUES

LEVELS = np.array([0.1, 0.25, 0.5, 0.75, 0.9])
SEVEN = np.array(WORKED_LEVELS)


def worked() -> tuple[np.ndarray, np.ndarray]:
    return np.array([WORKED_OBSERVED]), np.array([WORKED_VALUES])


def test_the_worked_case_by_hand() -> None:
    observed, values = worked()
    lower, upper = values[0, [0, 1, 2]], values[0, [6, 5, 4]]
    assert interval_score(100.0, lower, upper, np.array([0.1, 0.2, 0.5])).tolist() == [
        100.0,
        70.0,
        35.0,
    ]
    parts = weighted_interval_score(observed, values, SEVEN)
    assert parts.wis[0] == pytest.approx((5 + 5 + 7 + 8.75) / 3.5, abs=1e-12)
    assert parts.wis[0] == pytest.approx(7.357142857142857, abs=1e-12)
    assert parts.dispersion[0] == pytest.approx(4.5, abs=1e-12)
    assert parts.overprediction[0] == 0.0
    assert parts.underprediction[0] == pytest.approx(10 / 3.5, abs=1e-12)


def test_an_observation_below_the_median_is_overprediction() -> None:
    parts = weighted_interval_score(np.array([55.0]), np.array([WORKED_VALUES]), SEVEN)
    # below 60 and 80 (by 5 and 25) and half the distance to the median 90 (17.5)
    assert parts.overprediction[0] == pytest.approx((5 + 25 + 17.5) / 3.5)
    assert parts.underprediction[0] == 0.0


def test_the_median_alone_scores_the_absolute_error() -> None:
    parts = weighted_interval_score(np.array([3.0]), np.array([[7.5]]), np.array([0.5]))
    assert parts.wis[0] == 4.5


def test_levels_without_median_or_symmetry_are_refused() -> None:
    values = np.ones((1, 3))
    with pytest.raises(ValueError, match=r"no median \(0.5\)"):
        weighted_interval_score(np.ones(1), values, np.array([0.1, 0.4, 0.9]))
    with pytest.raises(ValueError, match="0.05 has no partner 0.95"):
        weighted_interval_score(np.ones(1), values, np.array([0.05, 0.5, 0.9]))


def test_levels_in_any_order_give_the_worked_parts() -> None:
    observed, values = worked()
    shuffled = np.array([3, 0, 6, 1, 5, 2, 4])
    for order in (np.arange(7)[::-1], shuffled):
        parts = weighted_interval_score(observed, values[:, order], SEVEN[order])
        assert parts.wis[0] == pytest.approx(7.357142857142857, abs=1e-12)
        assert parts.dispersion[0] == pytest.approx(4.5, abs=1e-12)
        assert parts.overprediction[0] == 0.0
        assert parts.underprediction[0] == pytest.approx(10 / 3.5, abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_shuffled_levels_agree_with_scoringrules(seed: int) -> None:
    observed, values = random_case(seed)
    order = np.random.default_rng(seed).permutation(len(SEVEN))
    np.testing.assert_allclose(
        weighted_interval_score(observed, values[:, order], SEVEN[order]).wis,
        sr.crps_quantile(observed, values, SEVEN, backend="numpy"),
        rtol=1e-12,
    )


def test_values_of_the_wrong_shape_are_named() -> None:
    observed, values = worked()
    with pytest.raises(ValueError, match=r"values must have shape .* = \(1, 7\).* got \(7,\)"):
        weighted_interval_score(observed, values[0], SEVEN)
    with pytest.raises(ValueError, match=r"values must have shape .* = \(2, 7\).* got \(1, 7\)"):
        weighted_interval_score(np.array([100.0, 90.0]), values, SEVEN)
    with pytest.raises(ValueError, match=r"values must have shape .* = \(1, 6\).* got \(1, 7\)"):
        weighted_interval_score(observed, values, SEVEN[:6])
    with pytest.raises(ValueError, match="observed must be a 1-d array"):
        weighted_interval_score(np.array([[100.0]]), values, SEVEN)
    with pytest.raises(ValueError, match="levels must differ from each other, but 0.5 repeats"):
        weighted_interval_score(np.ones(1), np.ones((1, 3)), np.array([0.5, 0.1, 0.5]))


finite = st.floats(-1e4, 1e4, allow_nan=False, allow_infinity=False)


@st.composite
def forecasts(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    """(observations, sorted quantile values at LEVELS) of a few targets."""
    rows = draw(st.integers(1, 6))
    values = np.sort(draw(arrays(np.float64, (rows, len(LEVELS)), elements=finite)), axis=1)
    observed = draw(arrays(np.float64, rows, elements=finite))
    return observed, values


@given(forecasts())
def test_wis_is_the_sum_of_its_parts(case: tuple[np.ndarray, np.ndarray]) -> None:
    observed, values = case
    parts = weighted_interval_score(observed, values, LEVELS)
    total = parts.dispersion + parts.overprediction + parts.underprediction
    np.testing.assert_allclose(parts.wis, total, rtol=1e-12, atol=1e-9)
    assert (parts.dispersion >= 0).all() and (parts.overprediction >= 0).all()
    assert not (parts.overprediction * parts.underprediction).any()  # never both


@given(arrays(np.float64, st.integers(1, 8), elements=finite))
def test_a_perfect_point_forecast_scores_zero(observed: np.ndarray) -> None:
    values = np.repeat(observed[:, None], len(LEVELS), axis=1)
    parts = weighted_interval_score(observed, values, LEVELS)
    assert (parts.wis == 0).all()


def random_case(seed: int, rows: int = 500) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centre = rng.normal(50, 30, rows)
    values = np.sort(centre[:, None] + rng.normal(0, 15, (rows, len(SEVEN))), axis=1)
    return rng.normal(50, 40, rows), values


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pinball_and_interval_scores_agree_with_scoringrules(seed: int) -> None:
    observed, values = random_case(seed)
    for column, level in enumerate(SEVEN):
        np.testing.assert_allclose(
            pinball_loss(observed, values[:, column], level),
            sr.quantile_score(observed, values[:, column], level, backend="numpy"),
            rtol=1e-12,
        )
    for low, high in ((0, 6), (1, 5), (2, 4)):
        alpha = 2 * SEVEN[low]
        np.testing.assert_allclose(
            interval_score(observed, values[:, low], values[:, high], alpha),
            sr.interval_score(observed, values[:, low], values[:, high], alpha, backend="numpy"),
            rtol=1e-12,
        )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_wis_is_the_definition_built_from_scoringrules_interval_scores(seed: int) -> None:
    observed, values = random_case(seed)
    alphas = np.array([0.1, 0.2, 0.5])
    intervals = sr.interval_score(
        observed, values[:, :3], values[:, [6, 5, 4]], alphas, backend="numpy"
    )
    expected = (0.5 * np.abs(observed - values[:, 3]) + intervals @ (alphas / 2)) / 3.5
    np.testing.assert_allclose(
        weighted_interval_score(observed, values, SEVEN).wis, expected, rtol=1e-12
    )
    # with symmetric levels WIS is also twice the mean pinball loss (scoringrules' CRPS
    # approximation from quantiles)
    approximation = sr.crps_quantile(observed, values, SEVEN, backend="numpy")
    np.testing.assert_allclose(
        weighted_interval_score(observed, values, SEVEN).wis, approximation, rtol=1e-12
    )


def test_scoringrules_weighted_interval_score_adds_the_median_not_its_error() -> None:
    """The pitfall we avoid: scoringrules 0.10 adds w_median * median where the definition has
    w_median * |y - median|; the two differ by exactly that term."""
    observed, values = random_case(3)
    ours = weighted_interval_score(observed, values, SEVEN).wis
    theirs = sr.weighted_interval_score(
        observed,
        values[:, 3],
        values[:, :3],
        values[:, [6, 5, 4]],
        np.array([0.1, 0.2, 0.5]),
        backend="numpy",
    )
    median = values[:, 3]
    np.testing.assert_allclose(
        ours - theirs, 0.5 * (np.abs(observed - median) - median) / 3.5, atol=1e-9
    )
    assert np.abs(ours - theirs).max() > 1.0


def test_bias_follows_the_levels_on_either_side_of_the_median() -> None:
    values = np.tile(np.array([10.0, 20.0, 30.0, 40.0, 50.0]), (6, 1))
    observed = np.array([30.0, 5.0, 25.0, 20.0, 45.0, 60.0])
    # at the median; below all; between 0.25 and 0.5 (max level <= y is 0.25);
    # on 0.25; between 0.75 and 0.9 (min level >= y is 0.9); above all
    expected = [0.0, 1.0, 0.5, 0.5, -0.8, -1.0]
    np.testing.assert_allclose(quantile_bias(observed, values, LEVELS), expected)


def test_coverage_of_intervals_includes_their_ends() -> None:
    values = np.tile(np.array([10.0, 20.0, 30.0, 40.0, 50.0]), (4, 1))
    covered, nominal = interval_coverage(np.array([10.0, 19.0, 35.0, 50.5]), values, LEVELS)
    assert nominal.tolist() == [0.8, 0.5]
    assert covered.tolist() == [[True, False], [True, False], [True, True], [False, False]]
    below = quantile_coverage(np.array([20.0]), values[:1])
    assert below.tolist() == [[False, True, True, True, True]]


def test_interval_coverage_skips_levels_without_a_partner() -> None:
    covered, nominal = interval_coverage(
        np.array([1.0]), np.array([[0.0, 1.0, 2.0, 3.0]]), np.array([0.05, 0.1, 0.5, 0.9])
    )
    assert nominal.tolist() == [0.8] and covered.tolist() == [[True]]


def test_pit_interpolates_and_knows_what_it_cannot_tell() -> None:
    values = np.tile(np.array([10.0, 20.0, 30.0, 40.0, 50.0]), (5, 1))
    observed = np.array([25.0, 30.0, 5.0, 55.0, 12.5])
    bounds = pit_bounds(observed, values, LEVELS)
    assert bounds.lower.tolist() == pytest.approx([0.375, 0.5, 0.0, 0.9, 0.1375])
    assert bounds.upper.tolist() == pytest.approx([0.375, 0.5, 0.1, 1.0, 0.1375])
    assert bounds.value.tolist() == pytest.approx([0.375, 0.5, 0.05, 0.95, 0.1375])


def test_pit_of_a_point_mass_spans_its_levels() -> None:
    zeros_below = np.array([[0.0, 0.0, 0.0, 2.0, 5.0]])  # zero cases at least half the time
    bounds = pit_bounds(np.array([0.0]), zeros_below, LEVELS)
    assert (bounds.lower[0], bounds.upper[0]) == (0.0, 0.5)
    middle = np.array([[1.0, 3.0, 3.0, 3.0, 9.0]])
    bounds = pit_bounds(np.array([3.0]), middle, LEVELS)
    assert (bounds.lower[0], bounds.upper[0]) == (0.25, 0.75)
    masses = pit_bin_masses(bounds, LEVELS)
    # bins 0-0.1, 0.1-0.25, 0.25-0.5, 0.5-0.75, 0.75-0.9, 0.9-1: the two inside share it
    assert masses.tolist() == [[0.0, 0.0, 0.5, 0.5, 0.0, 0.0]]


def test_pit_bins_follow_the_levels() -> None:
    values = np.tile(np.array([10.0, 20.0, 30.0, 40.0, 50.0]), (4, 1))
    bounds = pit_bounds(np.array([25.0, 30.0, 5.0, 55.0]), values, LEVELS)
    masses = pit_bin_masses(bounds, LEVELS)
    assert masses.tolist() == [
        [0, 0, 1, 0, 0, 0],  # 0.375 lies in 0.25-0.5
        [0, 0, 0.5, 0.5, 0, 0],  # on the median: half on each side
        [1, 0, 0, 0, 0, 0],  # below the lowest quantile: 0-0.1
        [0, 0, 0, 0, 0, 1],  # above the highest: 0.9-1
    ]


@given(forecasts())
def test_every_observation_has_one_unit_of_pit_mass(case: tuple[np.ndarray, np.ndarray]) -> None:
    observed, values = case
    bounds = pit_bounds(observed, values, LEVELS)
    assert ((bounds.lower >= 0) & (bounds.lower <= bounds.upper) & (bounds.upper <= 1)).all()
    np.testing.assert_allclose(pit_bin_masses(bounds, LEVELS).sum(axis=1), 1.0)


def test_pit_of_calibrated_forecasts_is_uniform_over_the_bins() -> None:
    rng = np.random.default_rng(11)
    centre = rng.normal(0, 5, 20_000)
    z = np.array([-1.2815516, -0.6744898, 0.0, 0.6744898, 1.2815516])
    values = centre[:, None] + z
    observed = centre + rng.standard_normal(len(centre))
    masses = pit_bin_masses(pit_bounds(observed, values, LEVELS), LEVELS).mean(axis=0)
    np.testing.assert_allclose(masses, np.diff([0, *LEVELS, 1]), atol=0.01)
