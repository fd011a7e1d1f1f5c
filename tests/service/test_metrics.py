"""Metrics from samples against hand-computed values and their textbook definitions."""

from __future__ import annotations

import numpy as np
import pytest

from chaplab.service.metrics import (
    METRIC_NAMES,
    aggregate_metrics,
    coverage,
    crps,
    crps_cells,
    mae,
    quantiles_from_sorted,
    rmse,
    winkler,
)


def crps_by_definition(samples: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """E|X - y| - E|X - X'| / 2 with all sample pairs (O(n^2))."""
    first = np.abs(samples - truth[..., None]).mean(axis=-1)
    pairs = np.abs(samples[..., :, None] - samples[..., None, :]).mean(axis=(-1, -2))
    return first - pairs / 2


def test_crps_of_a_point_mass_is_the_absolute_error() -> None:
    samples = np.full((3, 50), 4.0)
    truth = np.array([4.0, 1.0, 10.0])
    np.testing.assert_allclose(crps_cells(samples, truth), [0.0, 3.0, 6.0])


def test_crps_matches_the_pairwise_definition_on_random_data() -> None:
    rng = np.random.default_rng(3)
    samples = rng.gamma(2.0, 5.0, size=(4, 7, 60))
    truth = rng.gamma(2.0, 5.0, size=(4, 7))
    np.testing.assert_allclose(
        crps_cells(samples, truth), crps_by_definition(samples, truth), rtol=1e-10
    )
    assert crps(samples, truth) == pytest.approx(crps_by_definition(samples, truth).mean())


def test_crps_of_two_samples_by_hand() -> None:
    # samples {0, 2}, truth 1: E|X-y| = 1, E|X-X'| = (0 + 2 + 2 + 0) / 4 = 1 -> 1 - 0.5
    assert crps(np.array([[2.0, 0.0]]), np.array([1.0])) == pytest.approx(0.5)


def test_quantiles_from_sorted_match_numpy() -> None:
    rng = np.random.default_rng(5)
    samples = np.sort(rng.normal(size=(5, 3, 37)), axis=-1)
    levels = [0.0, 0.025, 0.1, 0.5, 0.77, 0.9, 1.0]
    expected = np.moveaxis(np.quantile(samples, levels, axis=-1), 0, -1)
    np.testing.assert_allclose(quantiles_from_sorted(samples, levels), expected)


def test_quantile_levels_outside_unit_interval_are_refused() -> None:
    with pytest.raises(ValueError, match="1.5"):
        quantiles_from_sorted(np.arange(5.0), [0.5, 1.5])


def test_coverage_counts_truths_inside_the_interval() -> None:
    samples = np.tile(np.arange(11.0), (4, 1))  # q10 = 1, q90 = 9
    truth = np.array([0.0, 1.0, 5.0, 9.5])
    assert coverage(samples, truth, 0.1, 0.9) == pytest.approx(0.5)


def test_winkler_adds_the_penalty_outside_the_interval() -> None:
    samples = np.tile(np.arange(11.0), (3, 1))  # 10-90 interval [1, 9], width 8, alpha 0.2
    truth = np.array([5.0, 0.0, 12.0])
    expected = [8.0, 8.0 + (2 / 0.2) * 1.0, 8.0 + (2 / 0.2) * 3.0]
    assert winkler(samples, truth, 0.1, 0.9) == pytest.approx(np.mean(expected))


def test_mae_uses_the_median_and_rmse_the_mean() -> None:
    samples = np.array([[0.0, 1.0, 10.0], [2.0, 2.0, 2.0]])
    truth = np.array([1.0, 4.0])
    assert mae(samples, truth) == pytest.approx((0.0 + 2.0) / 2)
    assert rmse(samples, truth) == pytest.approx(np.sqrt(((11 / 3 - 1) ** 2 + 4.0) / 2))


def test_unobserved_truth_is_left_out() -> None:
    samples = np.full((2, 10), 3.0)
    truth = np.array([5.0, np.nan])
    assert crps(samples, truth) == pytest.approx(2.0)
    assert coverage(samples, truth, 0.1, 0.9) == 0.0


def test_aggregate_metrics_has_every_name_and_reduces_over_given_axes() -> None:
    rng = np.random.default_rng(1)
    samples = rng.poisson(20, size=(2, 3, 4, 100)).astype(float)
    truth = rng.poisson(20, size=(2, 3, 4)).astype(float)
    overall = aggregate_metrics(samples, truth)
    assert tuple(overall) == METRIC_NAMES
    assert overall["crps"] == pytest.approx(crps(samples, truth))
    assert overall["winkler_score_25_75"] == pytest.approx(winkler(samples, truth, 0.25, 0.75))
    per_unit = aggregate_metrics(samples, truth, axis=(0, 2))
    assert per_unit["crps"].shape == (3,)
    np.testing.assert_allclose(per_unit["mae"], mae(samples, truth, axis=(0, 2)))


def test_mismatched_shapes_are_refused() -> None:
    with pytest.raises(ValueError, match="do not match truth"):
        crps(np.zeros((3, 10)), np.zeros(4))
